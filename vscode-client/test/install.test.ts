import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import {
    BASE_PROBE, BundledServer, InstallDeps, InstallFs, InstallUi, LOCK_WAIT_MS, RECORD, RunResult, TAIL_LINES,
    baseCandidates, ensureBundledServer, envPython, newEnough, parseProbe, parseRecord, wheelVersion,
} from '../src/install';

const place = { bundledDir: '/ext/bundled', serverDir: '/storage/server' };
const WHEEL_1 = 'tilewise-0.1.0-py3-none-any.whl';
const WHEEL_2 = 'tilewise-0.2.0-py3-none-any.whl';
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** Files in memory; a folder exists while a file lies under it (or it was made). */
class MemFs implements InstallFs {
    files = new Map<string, string>();
    dirs = new Set<string>();
    writes: string[] = [];

    async list(dir: string) {
        const names = new Set<string>();
        for (const p of [...this.files.keys(), ...this.dirs]) {
            if (p.startsWith(dir + '/')) {
                names.add(p.slice(dir.length + 1).split('/')[0]);
            }
        }
        return [...names];
    }
    async read(file: string) { return this.files.get(file); }
    async sha256(file: string) {
        const text = this.files.get(file);
        assert.ok(text !== undefined, `${file} exists`);
        return sha(text);
    }
    async exists(p: string) { return this.files.has(p) || this.dirs.has(p) || (await this.list(p)).length > 0; }
    async mkdirp(dir: string) { this.dirs.add(dir); }
    async remove(p: string) {
        for (const k of [...this.files.keys()]) {
            if (k === p || k.startsWith(p + '/')) this.files.delete(k);
        }
        for (const k of [...this.dirs]) {
            if (k === p || k.startsWith(p + '/')) this.dirs.delete(k);
        }
    }
    async writeAtomic(file: string, text: string) { this.writes.push(file); this.files.set(file, text); }
    async createExclusive(file: string, text: string) {
        if (this.files.has(file)) return false;
        this.files.set(file, text);
        return true;
    }
}

interface Machine {
    /** Base Pythons: their probe answer ("3.11.7 venv"), or absent (not found). */
    pythons: Record<string, string>;
    /** What pip does: succeed, or fail with this output. */
    pip?: { code: number; output: string };
    /** Runs during pip (e.g. the user pressing Cancel). */
    duringPip?: () => void;
}

/** A fake machine: base Pythons answer the probe, `-m venv` makes the folder, pip "installs" the wheel's version
 *  (a marker the env's `--version` reads). Records every command. */
function deps(fs: MemFs, machine: Machine, extra: Partial<InstallDeps> = {}) {
    const commands: string[] = [];
    const d: InstallDeps = {
        fs,
        platform: 'linux',
        pid: 100,
        isAlive: () => false,
        sleep: async () => undefined,
        now: () => 0,
        runner: {
            async run(cmd, args, options): Promise<RunResult> {
                commands.push([cmd, ...args].join(' '));
                if (args === BASE_PROBE || args[0] === '-c') {
                    const answer = machine.pythons[cmd];
                    return answer === undefined ? { code: null, output: '', error: 'spawn ENOENT' } : { code: 0, output: `${answer}\n` };
                }
                if (args[0] === '-m' && args[1] === 'venv') {
                    assert.equal(await fs.exists(args[2]), false, 'the environment starts clean');
                    fs.files.set(path.join(args[2], 'bin', 'python'), 'python');
                    return { code: 0, output: '' };
                }
                if (args[1] === 'pip') {
                    machine.duringPip?.();
                    if (options.signal?.aborted) {
                        return { code: null, output: 'Collecting numpy\n', error: 'cancelled' };
                    }
                    const wheel = path.basename(args.at(-1) as string);
                    options.onLine?.(`Collecting ${wheel}`);
                    options.onLine?.('  Using cached numpy-2.0.whl.metadata');
                    if (machine.pip && machine.pip.code !== 0) {
                        return { code: machine.pip.code, output: machine.pip.output };
                    }
                    fs.files.set(path.join(path.dirname(path.dirname(cmd)), 'tilewise-version'), wheelVersion(wheel) as string);
                    return { code: 0, output: `Successfully installed ${wheel}\n` };
                }
                throw new Error(`unexpected command ${cmd} ${args.join(' ')}`);
            },
        },
        async versionOf(python) {
            return fs.files.get(path.join(path.dirname(path.dirname(python)), 'tilewise-version'));
        },
        ...extra,
    };
    return { d, commands };
}

/** Runs ensureBundledServer, recording whether the progress notification was shown and what it and the log said. */
async function ensure(d: InstallDeps, bases = [{ python: 'python3', why: 'PATH' }], signal?: AbortSignal) {
    const seen = { progress: 0, reports: [] as string[], logs: [] as string[] };
    const log = (l: string) => seen.logs.push(l);
    const r: BundledServer = await ensureBundledServer(place, bases, d, log, async (task) => {
        seen.progress += 1;
        const ui: InstallUi = { report: (m) => seen.reports.push(m), log, signal };
        return task(ui);
    });
    return { r, ...seen };
}

function shipped(fs: MemFs, name: string, content = name) {
    for (const f of [...fs.files.keys()].filter((k) => k.startsWith(place.bundledDir + '/'))) {
        fs.files.delete(f);
    }
    fs.files.set(`${place.bundledDir}/${name}`, content);
}

const record = (fs: MemFs) => parseRecord(fs.files.get(`${place.serverDir}/${RECORD}`));

test('first use: a venv from the first Python >= 3.11, the wheel installed with progress, then the record', async () => {
    const fs = new MemFs();
    shipped(fs, WHEEL_1);
    const { d, commands } = deps(fs, { pythons: { '/opt/py310/bin/python': '3.10.12 venv', python3: '3.11.7 venv' } });
    const bases = [{ python: '/opt/py310/bin/python', why: 'Python extension interpreter' }, { python: 'python3', why: 'PATH' }];
    const { r, progress, reports, logs } = await ensure(d, bases);
    const env = `env-${sha(WHEEL_1).slice(0, 12)}`;
    const python = `/storage/server/${env}/bin/python`;
    assert.deepEqual(r, { ok: true, python, version: '0.1.0', wheel: WHEEL_1, installed: true });
    assert.equal(progress, 1);
    assert.deepEqual(commands.slice(2), [
        `python3 -m venv /storage/server/${env}`,
        `${python} -m pip install --disable-pip-version-check --no-input /ext/bundled/${WHEEL_1}`,
    ]);
    assert.ok(reports.includes('creating a virtual environment with python3 (Python 3.11.7)'), reports.join(' | '));
    assert.ok(reports.includes('installing tilewise 0.1.0 and its dependencies (pip)'));
    assert.ok(reports.includes(`Collecting ${WHEEL_1}`), 'pip\'s steps show in the notification');
    assert.ok(!reports.some((m) => m.includes('Using cached')), 'its detail lines do not');
    assert.deepEqual(record(fs), {
        wheel: WHEEL_1, sha256: sha(WHEEL_1), version: '0.1.0', env, python: 'python3', pythonVersion: '3.11.7',
    });
    assert.deepEqual(fs.writes, [`/storage/server/${RECORD}`], 'the record is written once, atomically, at the end');
    assert.equal(fs.files.has('/storage/server/install.lock'), false, 'the lock is released');
    assert.match(logs.at(-1) ?? '', /installed tilewise 0\.1\.0 into/);
});

test('the next start reuses the environment: no notification, no install', async () => {
    const fs = new MemFs();
    shipped(fs, WHEEL_1);
    await ensure(deps(fs, { pythons: { python3: '3.12.1 venv' } }).d);
    const { d, commands } = deps(fs, { pythons: { python3: '3.12.1 venv' } });
    const { r, progress } = await ensure(d);
    assert.equal(r.ok && r.installed, false);
    assert.equal(r.ok && r.version, '0.1.0');
    assert.equal(progress, 0);
    assert.deepEqual(commands, []);
});

test('a VSIX with another wheel installs it into a new environment and removes the old one', async () => {
    const fs = new MemFs();
    shipped(fs, WHEEL_1);
    await ensure(deps(fs, { pythons: { python3: '3.11.7 venv' } }).d);
    const oldEnv = `/storage/server/env-${sha(WHEEL_1).slice(0, 12)}`;
    assert.ok(await fs.exists(oldEnv));
    shipped(fs, WHEEL_2);
    const { r, logs } = await ensure(deps(fs, { pythons: { python3: '3.11.7 venv' } }).d);
    assert.equal(r.ok && r.installed, true);
    assert.equal(r.ok && r.version, '0.2.0');
    assert.equal(record(fs)?.wheel, WHEEL_2);
    assert.equal(await fs.exists(oldEnv), false);
    assert.ok(logs.some((l) => l.includes(`ships another wheel (${WHEEL_2}) than the installed one (${WHEEL_1})`)));
    // the same version rebuilt (other bytes) is another wheel too: the hash decides, not the name
    shipped(fs, WHEEL_2, 'rebuilt');
    const again = await ensure(deps(fs, { pythons: { python3: '3.11.7 venv' } }).d);
    assert.equal(again.r.ok && again.r.installed, true);
    assert.equal(record(fs)?.sha256, sha('rebuilt'));
});

test('a failed pip never counts: no record, the environment removed, pip\'s last lines logged; a retry starts clean', async () => {
    const fs = new MemFs();
    shipped(fs, WHEEL_1);
    const output = Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n') +
        '\nERROR: Could not find a version that satisfies the requirement pygls<2.2,>=2.1\n';
    const { r, logs } = await ensure(deps(fs, { pythons: { python3: '3.11.7 venv' }, pip: { code: 1, output } }).d);
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.equal(r.reason, 'pip');
    assert.match(r.message, /pip could not install the server \(exit code 1\)/);
    assert.match(r.message, /last lines of its output are in the tilewise output channel/);
    assert.match(r.message, /Restart server/);
    assert.match(r.message, /tilewise\.importStrategy to fromEnvironment/);
    assert.equal(r.output?.length, TAIL_LINES);
    assert.match(r.output?.at(-1) ?? '', /Could not find a version/);
    assert.ok(logs.includes(`the last ${TAIL_LINES} lines of pip's output:`));
    assert.ok(logs.includes('  ERROR: Could not find a version that satisfies the requirement pygls<2.2,>=2.1'));
    assert.ok(!logs.includes('  line 0'), 'only the tail');
    assert.equal(record(fs), undefined);
    assert.deepEqual(await fs.list('/storage/server'), [], 'nothing half-installed is left, not even the lock');
    // the retry (Restart server) installs, from nothing
    const retry = await ensure(deps(fs, { pythons: { python3: '3.11.7 venv' } }).d);
    assert.equal(retry.r.ok && retry.r.installed, true);
});

test('an install killed half-way (its lock and a half-made environment left) is done again from the start', async () => {
    const fs = new MemFs();
    shipped(fs, WHEEL_2);
    // a finished install of the old wheel, then a VS Code killed while pip installed the new one
    shipped(fs, WHEEL_1);
    await ensure(deps(fs, { pythons: { python3: '3.11.7 venv' } }).d);
    shipped(fs, WHEEL_2);
    const half = `/storage/server/env-${sha(WHEEL_2).slice(0, 12)}`;
    fs.files.set(`${half}/bin/python`, 'python');
    fs.files.set(`${half}/lib/python3.11/site-packages/numpy/__init__.py`, '');
    fs.files.set('/storage/server/install.lock', '4242');
    assert.equal(record(fs)?.wheel, WHEEL_1, 'the record still names the last finished install');
    const { d, commands } = deps(fs, { pythons: { python3: '3.11.7 venv' } }, { isAlive: (pid) => pid !== 4242 });
    const { r, logs } = await ensure(d);
    assert.equal(r.ok && r.installed, true);
    assert.equal(record(fs)?.wheel, WHEEL_2);
    assert.ok(commands.includes(`python3 -m venv ${half}`)); // the venv fake asserts the folder was gone first
    assert.equal(fs.files.has(`${half}/lib/python3.11/site-packages/numpy/__init__.py`), false);
    assert.ok(logs.some((l) => /earlier install was interrupted .* process 4242, which is gone/.test(l)));
});

test('an environment that no longer answers (deleted, its base Python gone) is installed again', async () => {
    const fs = new MemFs();
    shipped(fs, WHEEL_1);
    await ensure(deps(fs, { pythons: { python3: '3.11.7 venv' } }).d);
    await fs.remove(`/storage/server/${record(fs)?.env}`);
    const { r, logs, progress } = await ensure(deps(fs, { pythons: { python3: '3.11.7 venv' } }).d);
    assert.equal(r.ok && r.installed, true);
    assert.equal(progress, 1);
    assert.ok(logs.some((l) => l.includes('does not answer `python -m tilewise --version`: installing it again')));
});

test('no Python >= 3.11 with venv: nothing is installed, and the message says what each was and what to do', async () => {
    const fs = new MemFs();
    shipped(fs, WHEEL_1);
    const { d, commands } = deps(fs, { pythons: { python3: '3.10.12 venv', 'python3.11': '3.11.4 no-venv' } });
    const bases = baseCandidates({ platform: 'linux', workspaceFolders: [], trusted: true }).list;
    const { r } = await ensure(d, bases);
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.equal(r.reason, 'no-python');
    assert.match(r.message, /needs Python 3\.11 or newer to install itself, and none was found/);
    assert.match(r.message, /python3 \(PATH\): Python 3\.10\.12/);
    assert.match(r.message, /python3\.13 \(PATH\): not found/);
    assert.match(r.message, /python3\.11 \(PATH\): Python 3\.11\.4 without venv\/ensurepip/);
    assert.match(r.message, /apt install python3\.11 python3\.11-venv/);
    assert.match(r.message, /Restart server/);
    assert.ok(commands.every((c) => c.includes(' -c ')), 'only the probes ran');
    assert.equal(record(fs), undefined);
});

test('a VSIX without a wheel says how to get a server', async () => {
    const { r } = await ensure(deps(new MemFs(), { pythons: { python3: '3.11.7 venv' } }).d);
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.reason, 'no-wheel');
    assert.match(!r.ok ? r.message : '', /ships no tilewise wheel .*importStrategy to fromEnvironment/);
});

test('another window installing: this one waits for it and then uses its install', async () => {
    const fs = new MemFs();
    shipped(fs, WHEEL_1);
    fs.files.set('/storage/server/install.lock', '777');
    let sleeps = 0;
    // the other window's install, finished while this one sleeps
    const other = deps(fs, { pythons: { python3: '3.11.7 venv' } }, { pid: 777 }).d;
    const { d, commands } = deps(fs, { pythons: { python3: '3.11.7 venv' } }, {
        isAlive: (pid) => pid === 777 && fs.files.has('/storage/server/install.lock'),
        sleep: async () => {
            sleeps += 1;
            fs.files.delete('/storage/server/install.lock');
            await ensure(other);
        },
    });
    const { r, reports } = await ensure(d);
    assert.equal(sleeps, 1);
    assert.ok(reports.includes('another VS Code window is installing the server: waiting for it'));
    assert.equal(r.ok && r.installed, false, 'the other window\'s install is used, not done twice');
    assert.deepEqual(commands, []);
});

test('a lock held too long by a live process gives up with what to do', async () => {
    const fs = new MemFs();
    shipped(fs, WHEEL_1);
    fs.files.set('/storage/server/install.lock', '777');
    let now = 0;
    const { d } = deps(fs, { pythons: {} }, { isAlive: () => true, sleep: async () => { now += 60_000; }, now: () => now });
    const { r } = await ensure(d);
    assert.equal(!r.ok && r.reason, 'locked');
    assert.match(!r.ok ? r.message : '', /another process \(777\) has been installing .* delete .*install\.lock/);
    assert.ok(now > LOCK_WAIT_MS);
    assert.equal(fs.files.get('/storage/server/install.lock'), '777', 'someone else\'s lock is left alone');
});

test('cancelling the install stops pip and leaves nothing that counts', async () => {
    const fs = new MemFs();
    shipped(fs, WHEEL_1);
    const abort = new AbortController();
    const { d } = deps(fs, { pythons: { python3: '3.11.7 venv' }, duringPip: () => abort.abort() });
    const { r } = await ensure(d, undefined, abort.signal);
    assert.equal(!r.ok && r.reason, 'cancelled');
    assert.match(!r.ok ? r.message : '', /cancelled; "tilewise: Restart server" starts it again/);
    assert.equal(record(fs), undefined);
    assert.deepEqual(await fs.list('/storage/server'), []);
});

test('the base Pythons: the Python extension\'s, then PATH; never one inside an untrusted workspace', () => {
    const src = { pythonExtension: '/ws/a/.venv/bin/python', platform: 'linux' as NodeJS.Platform, workspaceFolders: ['/ws/a'] };
    assert.deepEqual(baseCandidates({ ...src, trusted: true }).list.map((c) => c.python),
        ['/ws/a/.venv/bin/python', 'python3', 'python3.13', 'python3.12', 'python3.11']);
    const untrusted = baseCandidates({ ...src, trusted: false });
    assert.deepEqual(untrusted.list.map((c) => c.python), ['python3', 'python3.13', 'python3.12', 'python3.11']);
    assert.deepEqual(untrusted.withheld, [{ python: '/ws/a/.venv/bin/python', why: 'Python extension interpreter' }]);
    assert.deepEqual(baseCandidates({ platform: 'win32', workspaceFolders: [], trusted: true }).list.map((c) => c.python),
        ['python', 'python3']);
});

test('the small parsers: probe, version, wheel name, record, environment path', () => {
    assert.deepEqual(parseProbe('3.11.7\nvenv\n'), { version: '3.11.7', venv: true });
    assert.deepEqual(parseProbe('3.12.0\nno-venv'), { version: '3.12.0', venv: false });
    assert.equal(parseProbe('Python was not found; run without arguments to install from the Microsoft Store'), undefined);
    assert.ok(newEnough('3.11.0') && newEnough('3.13.1') && newEnough('4.0.0'));
    assert.ok(!newEnough('3.10.12') && !newEnough('2.7.18'));
    assert.equal(wheelVersion('tilewise-0.1.0-py3-none-any.whl'), '0.1.0');
    assert.equal(wheelVersion('tilewise-1.2.0rc1-py3-none-any.whl'), '1.2.0rc1');
    assert.equal(wheelVersion('numpy-2.0.0-cp311-cp311-linux_x86_64.whl'), undefined);
    assert.equal(wheelVersion('tilewise-0.1.0.tar.gz'), undefined);
    assert.equal(parseRecord(undefined), undefined);
    assert.equal(parseRecord('{"wheel": "x"'), undefined, 'a damaged record counts as none');
    assert.equal(parseRecord('{"wheel": "x", "sha256": 1}'), undefined);
    assert.equal(envPython('/s', 'env-1', 'linux'), '/s/env-1/bin/python');
    assert.ok(envPython('/s', 'env-1', 'win32').endsWith(path.join('env-1', 'Scripts', 'python.exe')));
});
