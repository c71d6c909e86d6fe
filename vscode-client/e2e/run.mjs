// End-to-end test of the tilewise extension in a real VS Code (code-server) driven through Chromium, as a user
// would. The settings name no interpreter: the extension installs the wheel its VSIX ships into a virtual environment
// in its storage and starts the server from there (tilewise.importStrategy useBundled), and "Restart server" starts
// it again from that environment. Then: open the kernel, see the lint problem, apply its quick fix, tune (the convergence view opens beside the
// editor and plots the candidates), apply the tuned tiling (and find, clicking the applied candidate in the
// convergence view, that its Apply has nothing left to change); then run, open the run's pipeline timeline from its
// code lens and click an event to reveal its source line, see the roofline and its bottleneck, open a pipeline
// trace, verify the motif that fits a full barrier put in the loop and apply it, optimize the
// operator with the barrier put back (its diff, then Apply all), cancel a tune, and point tilewise.pythonPath at a
// Python without tilewise (it wins over the bundled server, and the error says how to fix it); last, a second code-server with workspace trust on opens a copy of the example in
// Restricted Mode: lint works, Run and Tune are refused with the reason, and nothing of the workspace runs.
//
// node e2e/run.mjs --code-server BIN --vsix FILE --python PY --example DIR [--budget N] [--shots DIR]
// PY (a Python with tilewise) is only for the untrusted workspace's user settings; the first code-server names none.
// The chart views are webviews (nested iframes): their tests read the data-* attributes the charts bundle puts on
// each [data-chart] element and click at window.tilewiseCharts.locate(kind, index).
// Environment: TILEWISE_OPT / TILEWISE_CACHE pass through code-server to the language server.
// Prints one line per step and closes with "N passed, M failed"; exits 1 on the first failing step.
import { spawn, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';

const { values: opt } = parseArgs({
    options: {
        'code-server': { type: 'string' },
        vsix: { type: 'string' },
        python: { type: 'string' },
        example: { type: 'string' },
        budget: { type: 'string', default: '6' },
        chromium: { type: 'string', default: '/usr/bin/chromium' },
        shots: { type: 'string' }, // default: a new directory under the system's temporary one
    },
});
for (const k of ['code-server', 'vsix', 'python', 'example']) {
    if (!opt[k]) {
        console.error(`missing --${k}`);
        process.exit(2);
    }
}

// ---- workspace, settings, code-server ------------------------------------------------------------------------
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tilewise-e2e-'));
const shots = opt.shots ?? fs.mkdtempSync(path.join(os.tmpdir(), 'tilewise-e2e-shots-'));
fs.mkdirSync(shots, { recursive: true });
const ws = path.join(tmp, 'workspace', path.basename(opt.example));
const kernelFile = path.join(ws, 'op_kernel', 'add_custom.cpp');
const hostFile = path.join(ws, 'op_host', 'add_custom.cpp');
const userDir = path.join(tmp, 'user');
const extDir = path.join(tmp, 'ext');
console.log(`screenshots: ${shots}`);
console.log(`workspace:   ${ws}`);

fs.cpSync(opt.example, ws, { recursive: true });
writeJson(path.join(ws, '.vscode', 'settings.json'), {
    // no tilewise.pythonPath, no tilewise.importStrategy: the defaults, i.e. the server the VSIX ships
    'tilewise.budget': Number(opt.budget),
    // lint from the sources alone, so the single-buffer fix is the unproven kind the steps verify on the emulator
    // (with case facts on, a background run could prove it safe at any moment and change what the steps see)
    'tilewise.caseFacts': false,
});
// quiet the workbench so nothing covers the editor or steals focus
writeJson(path.join(userDir, 'User', 'settings.json'), {
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.welcomePage.walkthroughs.openOnInstall': false,
    'security.workspace.trust.enabled': false,
    'extensions.ignoreRecommendations': true,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'editor.codeLens': true,
    'chat.commandCenter.enabled': false,
});

const env = {
    ...process.env,
    XDG_CONFIG_HOME: path.join(tmp, 'xdg-config'),
    XDG_DATA_HOME: path.join(tmp, 'xdg-data'),
};
const csArgs = ['--user-data-dir', userDir, '--extensions-dir', extDir];
// where the extension installs its server (context.globalStorageUri/server; publisher.name = tilewise.tilewise)
const serverStore = path.join(userDir, 'User', 'globalStorage', 'tilewise.tilewise', 'server');
execFileSync(opt['code-server'], [...csArgs, '--install-extension', path.resolve(opt.vsix), '--force'],
    { env, stdio: ['ignore', 'ignore', 'pipe'], timeout: 120_000 });

const port = await freePort();
const csLog = fs.openSync(path.join(tmp, 'code-server.log'), 'w'); // its noise (no marketplace here) stays out of the report
// detached = its own process group, so the whole tree (file watcher, extension host, server) can be killed
const server = spawn(opt['code-server'], [
    '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--disable-telemetry', '--disable-update-check',
    '--disable-workspace-trust', ...csArgs, ws,
], { env, detached: true, stdio: ['ignore', csLog, csLog] });
fs.writeFileSync(path.join(tmp, 'code-server.pgid'), String(server.pid));
if (process.env.TILEWISE_E2E_PGID_FILE) {
    fs.writeFileSync(process.env.TILEWISE_E2E_PGID_FILE, String(server.pid)); // e2e.sh's trap kills it too
}

let browser;
const servers = [server]; // every code-server started, each its own process group
function cleanup() {
    for (const s of servers) {
        try {
            process.kill(-s.pid, 'SIGTERM');
        } catch { /* already gone */ }
    }
}
process.on('exit', cleanup);
for (const sig of ['SIGINT', 'SIGTERM']) {
    process.on(sig, () => process.exit(130));
}

// ---- steps -------------------------------------------------------------------------------------------------
let passed = 0;
let current = 0; // the running step's number, for its extra screenshots
let page;
let improvement; // the knob values of the streamed improvement, read in step 4, checked on disk in step 5
const steps = [
    ['open the kernel file; it opens as AscendC', openKernel],
    ['with no interpreter named, the server installs from the VSIX\'s wheel into the extension\'s storage and starts from there', bundledServer],
    ['tilewise: Restart server starts it again from that environment, without installing again', restartServer],
    ['the single-buffer problem shows in Problems', seeSingleBuffer],
    ['Verify on the emulator, then Apply (verified) sets BUFFER_NUM = 2 on disk and the problem clears', applyQuickFix],
    ['Tune tiling streams a "faster" improvement into Problems', tune],
    ['the convergence view opened beside the editor when the tune started and plots every candidate', seeConvergence],
    ['Apply tuned tiling writes the new knob values to disk', applyTuned],
    ['clicking the applied candidate in the convergence view shows its configuration; its Apply finds nothing to change', applyFromConvergence],
    ['Run on emulator shows the time and bottleneck in the status bar', runOnEmulator],
    ['the kernel entry\'s code lens shows the last result and runs again on click', codeLens],
    ['the "Show pipeline timeline" lens opens the run\'s timeline: a lane per pipe per core, the events drawn', showTimeline],
    ['clicking an event on the timeline reveals its source line in the editor', revealFromTimeline],
    ['Show roofline and pipes draws the time against the roofline, the pipes and the bottleneck', showRoofline],
    ['Open pipeline trace writes a Chrome trace and opens it', openTrace],
    ['Verify suggestions measures the motif that removes a full barrier, and Apply (measured) removes it', verifyMotif],
    ['Optimize operator finds a faster version, opens its diff, and Apply all writes it', optimizeOperator],
    ['Cancel tuning stops a running tune', cancelTune],
    ['a tilewise.pythonPath without tilewise wins over the bundled server, and the error says how to fix it', badPython],
    ['in an untrusted workspace lint works, Run and Tune are refused with the reason, and nothing of it runs', untrusted],
];

try {
    await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, 60_000, 'code-server /healthz');
    browser = await chromium.launchPersistentContext(path.join(tmp, 'chromium'), {
        executablePath: opt.chromium, headless: true, viewport: { width: 1600, height: 1000 },
        args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
            '--disable-component-update', '--disable-sync'],
    });
    page = browser.pages()[0] ?? await browser.newPage();
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await page.waitForTimeout(2000); // let the workbench restore its layout before typing into it

    for (const [i, [name, fn]] of steps.entries()) {
        const n = i + 1;
        current = n;
        try {
            const detail = await fn();
            await shot(`step${n}`);
            passed++;
            console.log(`PASS ${n} ${name}${detail ? ` (${detail})` : ''}`);
        } catch (err) {
            await shot(`step${n}-failed`).catch(() => undefined);
            console.log(`FAIL ${n} ${name}: ${err.message}`);
            console.log(`see ${path.join(shots, `step${n}-failed.png`)}; the extension's log is under ${userDir}/logs, code-server's in ${tmp}/code-server.log`);
            break;
        }
    }
} catch (err) {
    console.log(`FAIL setup: ${err.stack ?? err}`);
    if (page) {
        await shot('setup-failed').catch(() => undefined);
    }
} finally {
    await browser?.close().catch(() => undefined);
    cleanup();
}
const failed = passed === steps.length ? 0 : 1;
if (!failed) {
    // keep the workspace and logs only when they can explain a failure; screenshots always stay
    await new Promise((r) => setTimeout(r, 500)); // code-server's group is going down
    fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);

// ---- the steps ------------------------------------------------------------------------------------------
async function openKernel() {
    await page.keyboard.press('Control+P');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ timeout: 10_000 });
    await input.fill('op_kernel/add_custom.cpp');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'add_custom.cpp' }).first()
        .waitFor({ timeout: 15_000 });
    await page.keyboard.press('Enter');
    await page.locator('.tab.active', { hasText: 'add_custom.cpp' }).waitFor({ timeout: 15_000 });
    await page.locator('.view-line', { hasText: 'BUFFER_NUM = 1' }).waitFor({ timeout: 15_000 });
    // the language mode in the status bar: the extension relabelled this .cpp as AscendC
    await page.locator('.statusbar-item', { hasText: /^\s*AscendC\s*$/ }).waitFor({ timeout: 30_000 });
    return 'language mode AscendC';
}

async function bundledServer() {
    // the first start installs: pip fetches the dependencies, so this can take minutes on a cold pip cache
    const progress = page.locator('.notifications-toasts', { hasText: 'installing the language server' });
    const record = path.join(serverStore, 'installed.json');
    await waitFor(async () => fs.existsSync(record) || await progress.isVisible(), 120_000,
        'the install\'s progress notification or its record');
    if (await progress.isVisible().catch(() => false)) {
        await shot(`step${current}-installing`);
    }
    const started = /tilewise (\S+) server: (\S+) -m tilewise serve \(bundled wheel (\S+), installed now/;
    await waitFor(() => started.test(extensionLog()), 900_000, 'the output channel\'s "server: ... (bundled wheel ..., installed now" line');
    const [, version, python, wheel] = started.exec(extensionLog());
    const installed = JSON.parse(fs.readFileSync(record, 'utf8'));
    const shipped = execFileSync('unzip', ['-Z1', path.resolve(opt.vsix)], { encoding: 'utf8' })
        .split('\n').find((n) => /^extension\/bundled\/tilewise-.*\.whl$/.test(n));
    if (!shipped || path.basename(shipped) !== wheel || installed.wheel !== wheel) {
        throw new Error(`the VSIX ships ${shipped}, the server came from ${wheel}, the record names ${installed.wheel}`);
    }
    if (python !== path.join(serverStore, installed.env, 'bin', 'python') || !fs.existsSync(python)) {
        throw new Error(`the server's Python ${python} is not the installed environment's (${installed.env} in ${serverStore})`);
    }
    if (python.startsWith(path.dirname(opt.python)) || python.startsWith(ws)) {
        throw new Error(`the server runs from ${python}, not from the extension's storage`);
    }
    await progress.waitFor({ state: 'detached', timeout: 30_000 });
    return `tilewise ${version} from ${wheel}, in ${path.relative(userDir, python)} (base ${installed.python} ${installed.pythonVersion})`;
}

async function restartServer() {
    const restarted = /tilewise \S+ server: (\S+) -m tilewise serve \(bundled wheel \S+, installed before/g;
    const count = () => [...extensionLog().matchAll(restarted)].length;
    const before = count();
    const record = fs.readFileSync(path.join(serverStore, 'installed.json'), 'utf8');
    await runCommand('tilewise: Restart server');
    await waitFor(() => extensionLog().includes('restarting the server (tilewise: Restart server)') && count() > before,
        60_000, 'a "server: ... (bundled wheel ..., installed before" line after the restart');
    const python = [...extensionLog().matchAll(restarted)].at(-1)[1];
    if (fs.readFileSync(path.join(serverStore, 'installed.json'), 'utf8') !== record) {
        throw new Error('the restart installed again');
    }
    return `started again from ${path.relative(userDir, python)}, nothing installed`;
}

/** The extension's "tilewise" output channel, as VS Code logs it under the user data folder (a log channel's file
 *  is named after it), every session's; '' before it exists. */
function extensionLog() {
    const logs = path.join(userDir, 'logs');
    if (!fs.existsSync(logs)) {
        return '';
    }
    return fs.readdirSync(logs, { recursive: true })
        .map(String)
        .filter((f) => /(^|[-/])tilewise\.log$/.test(f))
        .sort()
        .map((f) => fs.readFileSync(path.join(logs, f), 'utf8'))
        .join('\n');
}

async function seeSingleBuffer() {
    await page.keyboard.press('Control+Shift+M');
    const row = problemRow(/single-buffer/);
    await row.waitFor({ timeout: 90_000 }); // the server starts and analyses first
    await page.locator('.squiggly-warning').first().waitFor({ timeout: 10_000 });
    return (await row.innerText()).split('\n')[0].slice(0, 80);
}

async function applyQuickFix() {
    const before = fs.readFileSync(kernelFile, 'utf8');
    if (!/BUFFER_NUM = 1;/.test(before)) {
        throw new Error('the copied kernel does not start with BUFFER_NUM = 1');
    }
    await problemRow(/single-buffer/).dblclick(); // puts the cursor on the diagnostic in the editor
    // the rule could not prove the second buffer fits (the host sizes the tile at run time): verify it first
    await codeAction(/Verify on the emulator: Enable double buffering/);
    const verified = problemRow(/Verified on the emulator over \d+ cases: still correct/);
    await verified.waitFor({ timeout: 240_000 }); // every case runs with and without the fix
    const verdict = (await verified.innerText()).match(/Verified on the emulator over \d+ cases: still correct, [^(]*/)[0];
    await closeNotifications();
    await verified.dblclick();
    await codeAction(/Apply \(verified on the emulator/);
    await page.locator('.view-line', { hasText: 'BUFFER_NUM = 2' }).first().waitFor({ timeout: 10_000 });
    await runCommand('File: Save All');
    await waitFor(() => /constexpr int32_t BUFFER_NUM = 2;/.test(fs.readFileSync(kernelFile, 'utf8')), 10_000,
        'BUFFER_NUM = 2 on disk');
    await problemRow(/single-buffer/).waitFor({ state: 'detached', timeout: 30_000 });
    return `${verdict} Kernel file on disk has BUFFER_NUM = 2`;
}

async function tune() {
    await page.locator('.tab.active', { hasText: 'add_custom.cpp' }).click();
    await runCommand('tilewise: Tune tiling');
    await page.locator('.notifications-toasts', { hasText: 'tuning the tiling' }).waitFor({ timeout: 15_000 });
    const row = problemRow(/faster/);
    await row.first().waitFor({ timeout: 240_000 });
    await shot(`step${current}-streamed`);
    // the closing message says "best X µs (Nx)"; the streamed problems show the best improvement
    const done = page.locator('.notifications-toasts', { hasText: /best [\d.]+ µs \([\d.]+x\)/ });
    await done.waitFor({ timeout: 240_000 });
    const text = await row.first().innerText();
    improvement = Object.fromEntries([...text.split(':')[0].matchAll(/([A-Z][A-Z0-9_]*)=(\d+)/g)].map((m) => [m[1], m[2]]));
    if (Object.keys(improvement).length === 0) {
        throw new Error(`no knob values in the problem "${text}"`);
    }
    return `${text.split('\n')[0]}; ${(await done.innerText()).split('\n')[0].slice(0, 120)}`;
}

async function applyTuned() {
    const before = fs.readFileSync(hostFile, 'utf8') + fs.readFileSync(kernelFile, 'utf8');
    await closeNotifications();
    await problemRow(/faster/).first().dblclick();
    await codeAction(/Apply tuned tiling/);
    await runCommand('File: Save All');
    const onDisk = () => fs.readFileSync(hostFile, 'utf8') + fs.readFileSync(kernelFile, 'utf8');
    await waitFor(() => Object.entries(improvement).every(([k, v]) => new RegExp(`constexpr\\s+\\w+\\s+${k}\\s*=\\s*${v};`).test(onDisk())),
        15_000, `knobs ${JSON.stringify(improvement)} on disk`);
    if (onDisk() === before) {
        throw new Error('the files on disk did not change');
    }
    await problemRow(/faster/).first().waitFor({ state: 'detached', timeout: 30_000 }); // applied: nothing to offer
    return Object.entries(improvement).map(([k, v]) => `${k} = ${v}`).join(', ');
}

async function runOnEmulator() {
    await closeNotifications();
    await runCommand('tilewise: Run on emulator');
    const status = page.locator('.statusbar-item', { hasText: /\d+\.\d µs · [A-Z0-9]+/ });
    await status.waitFor({ timeout: 120_000 });
    const note = page.locator('.notifications-toasts', { hasText: /Ran \(case \w+\): [\d.]+ µs/ });
    await note.waitFor({ timeout: 10_000 });
    return `status bar "${(await status.innerText()).trim()}"`;
}

async function codeLens() {
    await closeNotifications();
    // the kernel's tab (both files are add_custom.cpp: the tab's description tells them apart), scrolled to its
    // __global__ entry, where the server puts its lenses
    await page.locator('.tab', { hasText: 'op_kernel' }).click();
    await page.locator('.tab.active', { hasText: 'op_kernel' }).waitFor({ timeout: 10_000 });
    const input = page.locator('.quick-input-widget input');
    const entry = fs.readFileSync(kernelFile, 'utf8').split('\n').findIndex((l) => l.includes('__global__')) + 1;
    await page.keyboard.press('Control+G');
    await input.waitFor({ timeout: 10_000 });
    await input.fill(`:${entry}`);
    await page.keyboard.press('Enter');
    const lenses = page.locator('.codelens-decoration');
    const last = lenses.filter({ hasText: /last: [\d.]+ µs, bottleneck [A-Z0-9]+/ }).first();
    await last.waitFor({ timeout: 30_000 });
    await shot(`step${current}-lens`);
    await lenses.locator('a', { hasText: 'Run on emulator' }).first().click();
    const note = page.locator('.notifications-toasts', { hasText: /Ran \(case \w+\): [\d.]+ µs/ });
    await note.waitFor({ timeout: 120_000 });
    const shown = (await last.innerText()).match(/last: [\d.]+ µs, bottleneck [A-Z0-9]+/)[0];
    return `lens "${shown}", clicked "Run on emulator"`;
}

async function openTrace() {
    await closeNotifications();
    await runCommand('tilewise: Open pipeline trace');
    const note = page.locator('.notifications-toasts', { hasText: 'Pipeline trace written to' });
    await note.waitFor({ timeout: 120_000 });
    const file = /written to (\S+\.json)/.exec(await note.innerText())?.[1];
    if (!file || !fs.existsSync(file)) {
        throw new Error(`the notification names no trace file that exists: ${file}`);
    }
    const trace = JSON.parse(fs.readFileSync(file, 'utf8'));
    const events = Array.isArray(trace) ? trace : trace.traceEvents;
    if (!Array.isArray(events) || events.length === 0) {
        throw new Error(`${file} holds no trace events`);
    }
    await page.locator('.tab.active', { hasText: path.basename(file) }).waitFor({ timeout: 15_000 });
    return `${events.length} events in ${file}`;
}

async function verifyMotif() {
    await closeNotifications();
    fs.writeFileSync(kernelFile, withBarrier()); // the saved kernel reloads from disk
    await page.locator('.tab', { hasText: 'op_kernel' }).click();
    await problemRow(/pipe-all-in-loop/).first().waitFor({ timeout: 30_000 }); // the editor reloaded and analysed it
    await runCommand('tilewise: Verify suggestions on the emulator');
    await page.locator('.notifications-toasts', { hasText: 'verifying the suggestions' }).waitFor({ timeout: 15_000 });
    const verified = problemRow(/Verified on the emulator: Order the stages.*measured [\d.]+x on this kernel/);
    await verified.first().waitFor({ timeout: 300_000 }); // every case runs with and without each motif's rewrite
    const measured = (await verified.first().innerText()).match(/measured [\d.]+x on this kernel \([^)]*\)/)[0];
    await closeNotifications();
    await verified.first().dblclick();
    await codeAction(/Apply \(measured [\d.]+x on this kernel\): Order the stages/);
    await runCommand('File: Save All');
    await waitFor(() => !fs.readFileSync(kernelFile, 'utf8').includes('PipeBarrier<PIPE_ALL>'), 10_000,
        'the barrier gone from disk');
    await problemRow(/pipe-all-in-loop/).first().waitFor({ state: 'detached', timeout: 30_000 });
    return `${measured}; the barrier is gone from the file on disk`;
}

async function optimizeOperator() {
    await closeNotifications();
    // the full barrier back in the loop (as in the step before), and a budget with room for a kernel rewrite after
    // the tiling search: the closed loop must find the pipe-sync rewrite again, on its own
    const slow = withBarrier();
    writeJson(path.join(ws, '.vscode', 'settings.json'), { 'tilewise.budget': 12, 'tilewise.caseFacts': false });
    fs.writeFileSync(kernelFile, slow);
    await page.waitForTimeout(2_000); // the settings file watcher and didChangeConfiguration
    await page.locator('.tab', { hasText: 'op_kernel' }).click();
    await problemRow(/pipe-all-in-loop/).first().waitFor({ timeout: 30_000 });
    await runCommand('tilewise: Optimize operator');
    await page.locator('.notifications-toasts', { hasText: 'optimizing add_custom.cpp' }).waitFor({ timeout: 15_000 });
    const done = page.locator('.notifications-toasts', { hasText: /AddCustom [\d.]+x faster \([\d.]+ µs -> [\d.]+ µs\) in \d+ steps?/ });
    await done.waitFor({ timeout: 300_000 });
    const summary = (await done.innerText()).match(/AddCustom [\d.]+x faster[^\n]*?steps?/)[0];
    await page.locator('.tab', { hasText: 'original ↔ optimised' }).first().waitFor({ timeout: 15_000 });
    if (fs.readFileSync(kernelFile, 'utf8') !== slow) {
        throw new Error('the optimisation changed the kernel on disk before Apply');
    }
    await shot(`step${current}-diff`);
    await done.locator('.monaco-button', { hasText: 'Apply all' }).click();
    await page.locator('.notifications-toasts', { hasText: /applied to [^;]*add_custom\.cpp/ }).waitFor({ timeout: 30_000 });
    await waitFor(() => !fs.readFileSync(kernelFile, 'utf8').includes('PipeBarrier<PIPE_ALL>'), 15_000,
        'the barrier gone from disk');
    // applied once: the files are the optimised texts already, and Apply all says so rather than writing again
    await closeNotifications();
    await runCommand('tilewise: Apply all optimized files');
    await page.locator('.notifications-toasts', { hasText: 'already optimised' }).waitFor({ timeout: 15_000 });
    // the diff out of the next steps' way: its tab's own close button (the palette's "Close Editor" may match more)
    const diffTab = page.locator('.tab', { hasText: 'original ↔ optimised' }).first();
    await diffTab.hover();
    await diffTab.locator('.codicon-close').click();
    await diffTab.waitFor({ state: 'detached', timeout: 10_000 });
    return `${summary}; applied, the barrier is gone from the file on disk`;
}

async function cancelTune() {
    await closeNotifications();
    // a budget the cache cannot answer at once, so the tune is still running when it is cancelled
    writeJson(path.join(ws, '.vscode', 'settings.json'), { 'tilewise.budget': 40 });
    await page.waitForTimeout(2_000); // the settings file watcher and didChangeConfiguration
    await page.locator('.tab', { hasText: 'add_custom.cpp' }).first().click();
    await runCommand('tilewise: Tune tiling');
    const progress = page.locator('.notifications-toasts', { hasText: 'tuning the tiling' });
    await progress.waitFor({ timeout: 15_000 });
    await page.waitForTimeout(2_000);
    await runCommand('tilewise: Cancel tuning');
    await page.locator('.notifications-toasts', { hasText: 'tuning cancelled' }).waitFor({ timeout: 60_000 });
    await progress.waitFor({ state: 'detached', timeout: 60_000 });
    return 'the progress notification closed with "tuning cancelled"';
}

async function badPython() {
    await closeNotifications();
    const bad = path.join(tmp, 'no-such-venv', 'bin', 'python');
    writeJson(path.join(ws, '.vscode', 'settings.json'), { 'tilewise.pythonPath': bad, 'tilewise.budget': 6 });
    const note = page.locator('.notifications-toasts', { hasText: 'no Python with tilewise installed was found' });
    await note.waitFor({ timeout: 30_000 });
    const text = await note.innerText();
    if (!text.includes(bad) || !text.includes('Fix tilewise.pythonPath')) {
        throw new Error(`the error does not name the path and the fix: ${text}`);
    }
    // said in the output channel: the setting, not the bundled server, chose the Python
    await waitFor(() => extensionLog().includes(`tilewise.pythonPath is set in the workspace settings (${bad})`), 10_000,
        'the output channel saying the setting wins over the bundled server');
    return 'error names the path and the setting to fix; the output channel says the setting won';
}

async function untrusted() {
    // A copy of the example that tries every way to run its own code: a workspace tilewise.pythonPath naming its
    // own .venv's python (a script that leaves a mark, then runs the real one), and a golden that leaves a mark when
    // imported. The user's settings name the real Python, outside the workspace.
    const uws = path.join(tmp, 'untrusted', path.basename(opt.example));
    fs.cpSync(opt.example, uws, { recursive: true });
    const ranVenv = path.join(tmp, 'untrusted-venv-ran');
    const ranGolden = path.join(tmp, 'untrusted-golden-imported');
    const venvPython = path.join(uws, '.venv', 'bin', 'python');
    fs.mkdirSync(path.dirname(venvPython), { recursive: true });
    fs.writeFileSync(venvPython, `#!/bin/sh\ntouch '${ranVenv}'\nexec '${opt.python}' "$@"\n`, { mode: 0o755 });
    fs.writeFileSync(path.join(uws, 'golden.py'),
        `from pathlib import Path\nPath(${JSON.stringify(ranGolden)}).touch()\n` + fs.readFileSync(path.join(uws, 'golden.py'), 'utf8'));
    writeJson(path.join(uws, '.vscode', 'settings.json'), { 'tilewise.pythonPath': venvPython, 'tilewise.caseFacts': true });
    const userDir2 = path.join(tmp, 'user-untrusted');
    writeJson(path.join(userDir2, 'User', 'settings.json'), {
        ...JSON.parse(fs.readFileSync(path.join(userDir, 'User', 'settings.json'), 'utf8')),
        'security.workspace.trust.enabled': true,
        'security.workspace.trust.startupPrompt': 'never', // no question: the folder opens untrusted
        'tilewise.pythonPath': opt.python,
    });
    const port2 = await freePort();
    const cs2 = spawn(opt['code-server'], [
        '--bind-addr', `127.0.0.1:${port2}`, '--auth', 'none', '--disable-telemetry', '--disable-update-check',
        '--user-data-dir', userDir2, '--extensions-dir', extDir, uws,
    ], { env, detached: true, stdio: ['ignore', csLog, csLog] });
    servers.push(cs2);
    if (process.env.TILEWISE_E2E_PGID_FILE) {
        fs.appendFileSync(process.env.TILEWISE_E2E_PGID_FILE, `\n${cs2.pid}`); // e2e.sh's trap kills each group
    }
    await waitFor(async () => (await fetch(`http://127.0.0.1:${port2}/healthz`)).ok, 60_000, 'the second code-server');
    await page.close();
    page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${port2}/?folder=${encodeURIComponent(uws)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).waitFor({ timeout: 30_000 });
    await page.waitForTimeout(2000);
    await openKernel();
    await page.keyboard.press('Control+Shift+M');
    const row = problemRow(/single-buffer/);
    await row.waitFor({ timeout: 90_000 }); // the server started (from the user's Python) and linted
    const refused = 'running code from an untrusted workspace is disabled; trust the workspace to run, tune or optimize';
    for (const command of ['tilewise: Run on emulator', 'tilewise: Tune tiling']) {
        await closeNotifications();
        await page.locator('.tab.active', { hasText: 'add_custom.cpp' }).click();
        await runCommand(command);
        await page.locator('.notifications-toasts', { hasText: refused }).waitFor({ timeout: 15_000 });
        await shot(`step${current}-${command.split(': ')[1].split(' ')[0].toLowerCase()}`);
    }
    await page.waitForTimeout(3000); // time for a background case run on open, were one allowed
    for (const [mark, what] of [[ranVenv, 'the workspace\'s .venv python ran'], [ranGolden, 'the workspace\'s golden was imported']]) {
        if (fs.existsSync(mark)) {
            throw new Error(what);
        }
    }
    return `"${(await row.innerText()).split('\n')[0].slice(0, 60)}"; Run and Tune refused; the workspace's python and golden never ran`;
}

// ---- the chart views (issue 21) ---------------------------------------------------------------------------
async function seeConvergence() {
    // opened by the tune itself (tilewise.charts.showConvergenceOnTune), beside the editor, not by a command
    await page.locator('.tab', { hasText: 'tilewise tune: add_custom.cpp' }).waitFor({ timeout: 10_000 });
    if (await page.locator('.editor-group-container').count() < 2) {
        throw new Error('the convergence view is not beside the editor');
    }
    const { frame, data } = await chartFrame('convergence', 30_000);
    const budget = Number(opt.budget);
    if (!(Number(data.points) >= budget)) {
        throw new Error(`the convergence plot has ${data.points} points; the tune measured ${budget}`);
    }
    const info = await frame.locator('[data-section="convergence"] .tw-info').innerText();
    if (!new RegExp(`\\b${budget} of ${budget} measured`).test(info) || /running/.test(info)) {
        throw new Error(`the plot's summary does not say the tune measured its ${budget}: "${info}"`);
    }
    await noChartErrors(frame);
    return `${data.points} points; "${info.split(' · ').slice(1, 3).join(' · ')}"`;
}

async function applyFromConvergence() {
    await closeNotifications();
    const editorTab = page.locator('.editor-group-container').first().locator('.tab.active');
    const editorName = (await editorTab.innerText()).split('\n')[0];
    const before = fs.readFileSync(hostFile, 'utf8') + fs.readFileSync(kernelFile, 'utf8');
    await page.locator('.tab', { hasText: 'tilewise tune: add_custom.cpp' }).click();
    const { frame, data } = await chartFrame('convergence', 30_000);
    const details = frame.locator('[data-control="details"]');
    // the candidate with the applied values (the others as shipped): the tiling on disk has it already
    let title = '';
    let picked;
    const clicked = [];
    for (let i = 0; i < Number(data.points) && !picked; i++) {
        // a second click on a selected point unselects it: never click one place twice
        const at = await chartPoint(frame, 'convergence', i);
        if (at && clicked.some((c) => Math.hypot(c.x - at.x, c.y - at.y) < 3)) {
            throw new Error(`point ${i} of the convergence plot is drawn on top of another one`);
        }
        clicked.push(at);
        await clickChart(frame, 'convergence', i);
        const previous = title;
        await waitFor(async () => {
            title = await details.locator('.tw-details-title').innerText({ timeout: 1_000 });
            return /^Evaluation \d+/.test(title) && title !== previous;
        }, 10_000, `the details of point ${i}`);
        const rows = await details.locator('.tw-config tr').evaluateAll((trs) => trs.map((tr) => [
            tr.querySelector('th').textContent, tr.querySelector('td').textContent]));
        const matches = rows.length > 0 && rows.every(([k, v]) => (k in improvement
            ? v.split(' ')[0] === improvement[k] : !v.includes('(shipped')));
        if (matches) {
            picked = { title, rows };
        }
    }
    if (!picked) {
        throw new Error(`no point of the plot has the applied configuration ${JSON.stringify(improvement)}`);
    }
    await shot(`step${current}-details`);
    const apply = details.locator('[data-control="apply"]');
    await apply.waitFor({ timeout: 5_000 });
    await apply.click();
    const note = page.locator('.notifications-toasts', { hasText: /nothing to change for .*: the tiling already has it/ });
    await note.waitFor({ timeout: 30_000 });
    await runCommand('File: Save All');
    if (fs.readFileSync(hostFile, 'utf8') + fs.readFileSync(kernelFile, 'utf8') !== before) {
        throw new Error('Apply of the configuration the files already have changed them');
    }
    // back to the editor the next step runs from
    await page.locator('.editor-group-container').first().locator('.tab', { hasText: editorName }).first().click();
    return `"${picked.title}" (${picked.rows.map(([k, v]) => `${k} ${v}`).join(', ')}); Apply: "nothing to change"`;
}

async function showTimeline() {
    await closeNotifications();
    // the client's lens, next to the server's "last: ..." one at the kernel entry (where the previous step left it)
    const lens = page.locator('.codelens-decoration a', { hasText: 'Show pipeline timeline' }).first();
    await lens.waitFor({ timeout: 30_000 });
    await lens.click();
    await page.locator('.tab', { hasText: 'tilewise run: add_custom.cpp' }).waitFor({ timeout: 30_000 });
    const { frame, data } = await chartFrame('timeline', 30_000);
    if (!(Number(data.lanes) >= 4 && Number(data.events) > 0)) {
        throw new Error(`the timeline has ${data.lanes} lanes and ${data.events} events`);
    }
    const drawn = await frame.locator('[data-chart="timeline"] svg path, [data-chart="timeline"] canvas').count();
    if (drawn === 0) {
        throw new Error('the timeline has no SVG paths or canvas: nothing was drawn');
    }
    await noChartErrors(frame);
    return `${data.lanes} lanes, ${data.events} events (${data.renderer}); "${(await frame.locator('[data-section="timeline"] .tw-info').innerText()).slice(0, 90)}"`;
}

async function revealFromTimeline() {
    // the kernel's cursor on line 1 first, so the reveal has to move it
    await page.locator('.editor-group-container').first().locator('.tab', { hasText: 'op_kernel' }).click();
    await page.keyboard.press('Control+G');
    await page.locator('.quick-input-widget input').fill(':1');
    await page.keyboard.press('Enter');
    await waitFor(async () => (await cursorLine()) === 1, 10_000, 'the cursor on line 1');
    await page.locator('.tab', { hasText: 'tilewise run: add_custom.cpp' }).click();
    const { frame, data } = await chartFrame('timeline', 30_000);
    const el = frame.locator('[data-chart="timeline"]');
    // hover events until one's tooltip names its source line; then click that event
    let site;
    let at;
    for (let i = 0; i < Math.min(Number(data.events), 40) && !site; i++) {
        at = await chartPoint(frame, 'timeline', i);
        if (!at) {
            continue;
        }
        await el.hover({ position: { x: 2, y: 2 } }); // off the events: the last tooltip goes
        await el.hover({ position: at });
        site = await tooltipSite(frame).catch(() => undefined);
    }
    if (!site) {
        throw new Error('no timeline event shows a tooltip with its source line');
    }
    await el.click({ position: at });
    await waitFor(async () => (await cursorLine()) === site.line, 15_000, `the cursor on line ${site.line}`);
    const active = page.locator('.editor-group-container.active .tab.active');
    const activeName = await active.innerText();
    if (!activeName.includes(site.file) || !activeName.includes('op_kernel')) {
        throw new Error(`the active editor is "${await active.innerText()}", not ${site.file}`);
    }
    const text = fs.readFileSync(kernelFile, 'utf8').split('\n')[site.line - 1] ?? '';
    if (!text.includes(site.api)) {
        throw new Error(`line ${site.line} of the kernel does not call ${site.api}: "${text.trim()}"`);
    }
    return `clicked ${site.api} (${site.file}:${site.line}); the editor's cursor is on "${text.trim()}"`;
}

async function showRoofline() {
    await closeNotifications();
    await runCommand('tilewise: Show roofline and pipes'); // the kernel's editor is active: the reveal focused it
    const { frame, data } = await chartFrame('roofline', 30_000);
    if (!(Number(data.bars) > 0)) {
        throw new Error(`the roofline has ${data.bars} bars`);
    }
    const verdict = frame.locator('[data-section="roofline"] .tw-verdict');
    const text = await verdict.innerText();
    const name = await verdict.getAttribute('data-bottleneck');
    if (!name || !text.includes(`Bottleneck: ${name}.`)) {
        throw new Error(`no bottleneck in the roofline's verdict: "${text}"`);
    }
    // the same bottleneck as the status bar's, from the same run
    const status = await page.locator('.statusbar-item', { hasText: /\d+\.\d µs · [A-Z0-9]+/ }).first().innerText();
    if (!status.includes(`· ${name}`)) {
        throw new Error(`the roofline says ${name}, the status bar "${status.trim()}"`);
    }
    await noChartErrors(frame);
    await shot(`step${current}-roofline`);
    // the chart views out of the next steps' way (their editor group closes with them), the kernel active again
    for (const title of ['tilewise run: add_custom.cpp', 'tilewise tune: add_custom.cpp']) {
        const tab = page.locator('.tab', { hasText: title }).first();
        if (await tab.count()) {
            await tab.hover();
            await tab.locator('.codicon-close').click();
            await tab.waitFor({ state: 'detached', timeout: 10_000 });
        }
    }
    await page.locator('.tab', { hasText: 'op_kernel' }).first().click();
    return `${data.bars} bars; "${text.slice(0, 110)}"`;
}

/** The webview frame holding a drawn chart of `kind` (code-server nests each webview in two iframes), and the
 *  chart element's data-* attributes. */
async function chartFrame(kind, ms) {
    let found;
    await waitFor(async () => {
        for (const frame of page.frames()) {
            const data = await frame.evaluate((k) => {
                const el = document.querySelector(`[data-chart="${k}"]`);
                return el && el.dataset.rendered === 'true' ? { ...el.dataset } : null;
            }, kind).catch(() => null);
            if (data) {
                found = { frame, data };
                return true;
            }
        }
        return false;
    }, ms, `a drawn ${kind} chart in a webview`);
    return found;
}

async function noChartErrors(frame) {
    const errors = await frame.locator('[data-error]').allInnerTexts();
    if (errors.length) {
        throw new Error(`chart errors: ${errors.join('; ')}`);
    }
}

/** Where the index-th item of a chart is drawn, relative to the chart element (what locator positions take). */
async function chartPoint(frame, kind, index) {
    return frame.evaluate(([k, i]) => {
        const el = document.querySelector(`[data-chart="${k}"]`);
        const p = window.tilewiseCharts.locate(k, i);
        if (!el || !p) {
            return null;
        }
        const box = el.getBoundingClientRect();
        return { x: p.x - box.left, y: p.y - box.top };
    }, [kind, index]);
}

async function clickChart(frame, kind, index) {
    const at = await chartPoint(frame, kind, index);
    if (!at) {
        throw new Error(`the ${kind} has no item ${index}`);
    }
    await frame.locator(`[data-chart="${kind}"]`).click({ position: at });
}

/** The source line a visible timeline tooltip names: {api, file, line}. */
async function tooltipSite(frame) {
    let site;
    await waitFor(async () => {
        site = await frame.evaluate(() => {
            for (const d of document.querySelectorAll('[data-chart="timeline"] div')) {
                const style = getComputedStyle(d);
                const m = /^(\S+) · [\s\S]*?(\S+\.\w+):(\d+)/.exec(d.innerText ?? '');
                const tooltip = !d.querySelector('svg, canvas') && style.position === 'absolute';
                if (m && tooltip && d.innerText.includes('click: open the line') && style.visibility !== 'hidden' && style.display !== 'none') {
                    return { api: m[1], file: m[2], line: Number(m[3]) };
                }
            }
            return null;
        });
        return site !== null;
    }, 3_000, 'a timeline tooltip');
    return site;
}

/** The line of the cursor in the active editor, from the status bar's "Ln N, Col M". */
async function cursorLine() {
    const text = await page.locator('.statusbar-item', { hasText: /Ln \d+, Col \d+/ }).first().innerText({ timeout: 2_000 });
    return Number(/Ln (\d+)/.exec(text)[1]);
}

// ---- helpers -------------------------------------------------------------------------------------------------
/** The kernel on disk with a full barrier after every tile: the pipe-sync motif's slow pattern. */
function withBarrier() {
    const loop = 'CopyOut(i, len);\n';
    const slow = fs.readFileSync(kernelFile, 'utf8').replace(loop, `${loop}            PipeBarrier<PIPE_ALL>();\n`);
    if (!slow.includes('PipeBarrier<PIPE_ALL>')) {
        throw new Error(`the kernel has no "${loop.trim()}" line to put a barrier after`);
    }
    return slow;
}

function problemRow(text) {
    return page.locator('.markers-panel .monaco-list-row', { hasText: text });
}

async function codeAction(title) {
    // a double-clicked problem opens its file; Ctrl+. must reach that editor, not the panel
    await page.locator('.editor-group-container.active .monaco-editor.focused').waitFor({ timeout: 10_000 });
    const rows = page.locator('.action-widget .monaco-list-row');
    for (let attempt = 1; ; attempt++) {
        await page.waitForTimeout(500); // the editor takes the cursor move before the code action request
        await page.keyboard.press('Control+.');
        try {
            await rows.filter({ hasText: title }).first().waitFor({ timeout: 7_500 });
            break;
        } catch (err) {
            if (attempt === 3) {
                throw err;
            }
            await page.keyboard.press('Escape');
        }
    }
    // choose with the keyboard, as the widget's overlay swallows synthetic clicks: walk down to the action
    const count = await rows.count();
    for (let i = 0; i <= count; i++) {
        const focused = page.locator('.action-widget .monaco-list-row.focused');
        if (title.test(await focused.innerText({ timeout: 2_000 }).catch(() => ''))) {
            await page.keyboard.press('Enter');
            await page.locator('.action-widget').waitFor({ state: 'hidden', timeout: 10_000 });
            return;
        }
        await page.keyboard.press('ArrowDown');
    }
    throw new Error(`could not focus the code action ${title}`);
}

async function runCommand(title) {
    // The palette can close again before it is typed into when focus moves at that moment (a notification toast,
    // a view the previous step made visible): open it again, a few times, before calling it a failure.
    const input = page.locator('.quick-input-widget input');
    for (let attempt = 1; ; attempt++) {
        try {
            await page.keyboard.press('F1');
            await input.waitFor({ timeout: 5_000 });
            await input.fill(`>${title}`, { timeout: 5_000 });
            await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first()
                .waitFor({ timeout: 10_000 });
            break;
        } catch (err) {
            if (attempt >= 3) throw err;
            await page.keyboard.press('Escape');
        }
    }
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 });
}

async function closeNotifications() {
    await runCommand('Notifications: Clear All Notifications').catch(() => undefined);
}

async function shot(name) {
    await page.screenshot({ path: path.join(shots, `${name}.png`) });
}

async function waitFor(check, ms, what) {
    const end = Date.now() + ms;
    for (;;) {
        try {
            if (await check()) {
                return;
            }
        } catch { /* not yet */ }
        if (Date.now() > end) {
            throw new Error(`timed out after ${ms / 1000} s waiting for ${what}`);
        }
        await new Promise((r) => setTimeout(r, 250));
    }
}

function writeJson(file, value) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(value, null, 2));
}

function freePort() {
    return new Promise((resolve, reject) => {
        const s = net.createServer().listen(0, '127.0.0.1', () => {
            const { port } = s.address();
            s.close(() => resolve(port));
        });
        s.on('error', reject);
    });
}
