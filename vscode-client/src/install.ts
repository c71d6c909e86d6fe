// The bundled server (`tilewise.importStrategy: useBundled`): the VSIX ships the tilewise wheel in `bundled/`; on
// first use the extension finds a base Python >= 3.11 (never one inside an untrusted workspace), makes a virtual
// environment in its global storage, pip-installs the wheel there (its dependencies come from the package index, or
// whatever the user's pip configuration names) and starts the server from it. Later starts reuse that environment
// while it holds the wheel the VSIX ships (the wheel's sha256 is recorded) and still answers `--version`.
//
// An install that fails, is cancelled or is killed half-way never counts: `installed.json`, the one record of a
// finished install, is written (atomically) only after the environment answered, and a retry deletes whatever the
// broken attempt left. A lock file keeps two windows from installing into the same folder at once.
//
// The file system, processes and clock are injected, so this module does not import vscode and the tests drive it
// with fakes (test/install.test.ts); `nodeSystem` (install_node.ts) is the real one.
import * as path from 'node:path';
import { Candidate, insideWorkspace } from './python';

/** The oldest Python the server runs on (pyproject.toml: requires-python). */
export const MIN_PYTHON: readonly [number, number] = [3, 11];

/** What a base Python is asked: its version, and whether it can make a virtual environment with pip in it
 *  (Debian's python3 without python3-venv has `venv` but not `ensurepip`). */
export const BASE_PROBE = [
    '-c',
    "import sys\nprint('%d.%d.%d' % sys.version_info[:3])\ntry:\n    import ensurepip, venv\n    print('venv')\n" +
    "except ImportError:\n    print('no-venv')\n",
];

export const RECORD = 'installed.json';
const LOCK = 'install.lock';
const ENV_PREFIX = 'env-';
/** How long a second window waits for another one's install before giving up. */
export const LOCK_WAIT_MS = 20 * 60_000;
const LOCK_POLL_MS = 1_000;
/** How many of pip's last lines go to the output channel when it fails. */
export const TAIL_LINES = 25;

export interface InstallFs {
    /** The names in `dir`; [] when it does not exist. */
    list(dir: string): Promise<string[]>;
    /** The file's text; undefined when it does not exist. */
    read(file: string): Promise<string | undefined>;
    sha256(file: string): Promise<string>;
    exists(p: string): Promise<boolean>;
    mkdirp(dir: string): Promise<void>;
    /** Removes a file or a whole folder; nothing when it is not there. */
    remove(p: string): Promise<void>;
    /** Never leaves a half-written file: writes a temporary file beside it and renames it over. */
    writeAtomic(file: string, text: string): Promise<void>;
    /** Creates `file` with `text` unless it exists (then false), atomically. */
    createExclusive(file: string, text: string): Promise<boolean>;
}

export interface RunResult {
    /** The exit code; null when the process could not start, timed out or was cancelled (`error` says which). */
    code: number | null;
    output: string;
    error?: string;
}

export interface Runner {
    run(command: string, args: string[], options: {
        timeoutMs: number; onLine?: (line: string) => void; signal?: AbortSignal;
    }): Promise<RunResult>;
}

export interface InstallDeps {
    fs: InstallFs;
    runner: Runner;
    /** `python -m tilewise --version`'s version, or undefined (python.ts's check, run away from any checkout). */
    versionOf(python: string): Promise<string | undefined>;
    platform: NodeJS.Platform;
    pid: number;
    isAlive(pid: number): boolean;
    sleep(ms: number): Promise<void>;
    now(): number;
}

export interface InstallPlace {
    /** The extension's `bundled/` folder, holding `tilewise-<version>-<tags>.whl`. */
    bundledDir: string;
    /** Where the environment goes: `<globalStorage>/server`. */
    serverDir: string;
}

/** What the install tells the user while it runs (a progress notification) and the output channel. */
export interface InstallUi {
    report(message: string): void;
    log(line: string): void;
    signal?: AbortSignal;
}

export interface Wheel {
    file: string;
    name: string;
    version: string;
    sha256: string;
}

/** The record of a finished install. */
export interface InstallRecord {
    wheel: string;
    sha256: string;
    version: string;
    /** The environment's folder name under serverDir. */
    env: string;
    /** The base Python it was made from, and its version. */
    python: string;
    pythonVersion: string;
}

export type Failure = 'no-wheel' | 'no-python' | 'venv' | 'pip' | 'check' | 'cancelled' | 'locked';

export type BundledServer =
    | { ok: true; python: string; version: string; wheel: string; installed: boolean }
    | { ok: false; reason: Failure; message: string; output?: string[] };

/** The Pythons to make the environment from: the Python extension's interpreter, then `python3` (and the newest
 *  versioned names) on PATH. A workspace's own venvs are not bases; in an untrusted workspace neither is any
 *  interpreter inside it (`withheld` names them, for the message). */
export function baseCandidates(src: {
    pythonExtension?: string; platform: NodeJS.Platform; workspaceFolders: string[]; trusted: boolean;
}): { list: Candidate[]; withheld: Candidate[] } {
    const all: Candidate[] = [];
    if (src.pythonExtension) {
        all.push({ python: src.pythonExtension, why: 'Python extension interpreter' });
    }
    const onPath = src.platform === 'win32' ? ['python', 'python3'] : ['python3', 'python3.13', 'python3.12', 'python3.11'];
    all.push(...onPath.map((python) => ({ python, why: 'PATH' })));
    const inside = (c: Candidate) => !src.trusted && insideWorkspace(c.python, src.workspaceFolders);
    return { list: all.filter((c) => !inside(c)), withheld: all.filter(inside) };
}

/** The answer to BASE_PROBE, or undefined when the program is no Python. */
export function parseProbe(stdout: string): { version: string; venv: boolean } | undefined {
    const m = /^(\d+\.\d+\.\d+)\s+(venv|no-venv)\s*$/.exec(stdout.trim());
    return m ? { version: m[1], venv: m[2] === 'venv' } : undefined;
}

export function newEnough(version: string): boolean {
    const [major, minor] = version.split('.').map(Number);
    return major > MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor >= MIN_PYTHON[1]);
}

/** `tilewise-0.1.0-py3-none-any.whl` -> 0.1.0 (the wheel name's second field, PEP 427); undefined for other files. */
export function wheelVersion(name: string): string | undefined {
    const m = /^tilewise-([^-]+)-.+\.whl$/.exec(name);
    return m ? m[1] : undefined;
}

export function envPython(serverDir: string, env: string, platform: NodeJS.Platform): string {
    return platform === 'win32'
        ? path.join(serverDir, env, 'Scripts', 'python.exe')
        : path.join(serverDir, env, 'bin', 'python');
}

/** The record in `text`, or undefined when it is missing or not one (an older or damaged file counts as none). */
export function parseRecord(text: string | undefined): InstallRecord | undefined {
    if (text === undefined) {
        return undefined;
    }
    try {
        const r = JSON.parse(text);
        const keys: (keyof InstallRecord)[] = ['wheel', 'sha256', 'version', 'env', 'python', 'pythonVersion'];
        return r && typeof r === 'object' && keys.every((k) => typeof r[k] === 'string') ? r as InstallRecord : undefined;
    } catch {
        return undefined;
    }
}

/** The wheel in `bundled/`: the highest version when there are several. */
export async function findWheel(fs: InstallFs, bundledDir: string): Promise<Wheel | undefined> {
    const wheels = (await fs.list(bundledDir))
        .filter((n) => wheelVersion(n) !== undefined)
        .sort((a, b) => (wheelVersion(a) as string).localeCompare(wheelVersion(b) as string, undefined, { numeric: true }));
    const name = wheels.at(-1);
    if (name === undefined) {
        return undefined;
    }
    const file = path.join(bundledDir, name);
    return { file, name, version: wheelVersion(name) as string, sha256: await fs.sha256(file) };
}

/** The bundled server's Python: the installed environment when it holds this wheel and answers, else a new install
 *  (inside `progress`, the notification). */
export async function ensureBundledServer(
    place: InstallPlace,
    bases: Candidate[],
    deps: InstallDeps,
    log: (line: string) => void,
    progress: (task: (ui: InstallUi) => Promise<BundledServer>) => PromiseLike<BundledServer>,
): Promise<BundledServer> {
    const wheel = await findWheel(deps.fs, place.bundledDir);
    if (!wheel) {
        return { ok: false, reason: 'no-wheel', message: noWheelMessage(place.bundledDir) };
    }
    const reused = await installed(place, wheel, deps, log);
    if (reused) {
        return reused;
    }
    return progress((ui) => underLock(place, deps, ui, async () => {
        // another window may have finished the same install while this one waited for the lock
        return (await installed(place, wheel, deps, () => undefined)) ?? install(place, wheel, bases, deps, ui);
    }));
}

/** The recorded environment, when it holds `wheel` and its Python answers with the wheel's version. */
async function installed(
    place: InstallPlace, wheel: Wheel, deps: InstallDeps, log: (line: string) => void,
): Promise<BundledServer | undefined> {
    const record = parseRecord(await deps.fs.read(path.join(place.serverDir, RECORD)));
    if (!record) {
        return undefined;
    }
    if (record.sha256 !== wheel.sha256) {
        log(`the extension ships another wheel (${wheel.name}) than the installed one (${record.wheel}): installing it`);
        return undefined;
    }
    const python = envPython(place.serverDir, record.env, deps.platform);
    const version = await deps.versionOf(python);
    if (version !== record.version) {
        log(`the installed server (${python}) does not answer \`python -m tilewise --version\`: installing it again`);
        return undefined;
    }
    return { ok: true, python, version, wheel: wheel.name, installed: false };
}

/** Runs `task` holding the install lock; waits while a live process (another window) holds it, and takes over the
 *  lock of one that is gone (an install killed half-way). */
async function underLock(
    place: InstallPlace, deps: InstallDeps, ui: InstallUi, task: () => Promise<BundledServer>,
): Promise<BundledServer> {
    const lock = path.join(place.serverDir, LOCK);
    await deps.fs.mkdirp(place.serverDir);
    const since = deps.now();
    let told = false;
    while (!(await deps.fs.createExclusive(lock, String(deps.pid)))) {
        const owner = Number((await deps.fs.read(lock))?.trim());
        if (!Number.isInteger(owner) || owner <= 0 || owner === deps.pid || !deps.isAlive(owner)) {
            ui.log(`an earlier install was interrupted (its lock ${lock} names process ${owner || '?'}, which is gone): starting again`);
            await deps.fs.remove(lock);
            continue;
        }
        if (ui.signal?.aborted) {
            return cancelled();
        }
        if (deps.now() - since > LOCK_WAIT_MS) {
            return {
                ok: false, reason: 'locked',
                message: `tilewise: another process (${owner}) has been installing the server into ${place.serverDir} ` +
                    `for ${Math.round(LOCK_WAIT_MS / 60_000)} minutes. Close the other VS Code windows, or delete ${lock} ` +
                    'if no install runs, then run "tilewise: Restart server".',
            };
        }
        if (!told) {
            ui.report('another VS Code window is installing the server: waiting for it');
            ui.log(`process ${owner} holds ${lock}: waiting for its install`);
            told = true;
        }
        await deps.sleep(LOCK_POLL_MS);
    }
    try {
        return await task();
    } finally {
        await deps.fs.remove(lock);
    }
}

async function install(
    place: InstallPlace, wheel: Wheel, bases: Candidate[], deps: InstallDeps, ui: InstallUi,
): Promise<BundledServer> {
    ui.report(`looking for Python ${MIN_PYTHON.join('.')} or newer`);
    const base = await findBase(bases, deps, ui);
    if ('message' in base) {
        return { ok: false, reason: 'no-python', message: base.message };
    }
    const env = `${ENV_PREFIX}${wheel.sha256.slice(0, 12)}`;
    const envDir = path.join(place.serverDir, env);
    const python = envPython(place.serverDir, env, deps.platform);
    // whatever an earlier attempt left there (killed half-way, or failed) never counts: start clean
    await deps.fs.remove(envDir);
    ui.log(`installing ${wheel.name} into ${envDir} (a virtual environment of ${base.python}, Python ${base.version})`);
    ui.report(`creating a virtual environment with ${base.python} (Python ${base.version})`);
    const venv = await deps.runner.run(base.python, ['-m', 'venv', envDir], { timeoutMs: 5 * 60_000, signal: ui.signal });
    if (venv.code !== 0) {
        return failed(deps, envDir, ui, 'venv', venv,
            `tilewise: ${base.python} could not create a virtual environment in ${envDir} (${exitText(venv)}). ` +
            'Its output is in the tilewise output channel. On Debian or Ubuntu install python3-venv; or set ' +
            'tilewise.importStrategy to fromEnvironment and tilewise.pythonPath to a Python with tilewise installed.');
    }
    ui.report(`installing tilewise ${wheel.version} and its dependencies (pip)`);
    const pip = await deps.runner.run(python, [
        '-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', wheel.file,
    ], { timeoutMs: 30 * 60_000, signal: ui.signal, onLine: (line) => pipProgress(line, ui) });
    if (pip.code !== 0) {
        return failed(deps, envDir, ui, 'pip', pip,
            `tilewise: pip could not install the server (${exitText(pip)}); the last lines of its output are in the ` +
            'tilewise output channel. pip fetches tilewise\'s dependencies from the package index (or what your pip ' +
            'configuration names): check the network or the proxy, then run "tilewise: Restart server"; or set ' +
            'tilewise.importStrategy to fromEnvironment and tilewise.pythonPath to a Python with tilewise installed.');
    }
    const version = await deps.versionOf(python);
    if (version !== wheel.version) {
        return failed(deps, envDir, ui, 'check', { code: 1, output: '' },
            `tilewise: the server installed in ${envDir} answers \`python -m tilewise --version\` with ` +
            `${version ?? 'nothing'}, not ${wheel.version}. Run "tilewise: Restart server" to install it again.`);
    }
    const record: InstallRecord = {
        wheel: wheel.name, sha256: wheel.sha256, version, env, python: base.python, pythonVersion: base.version,
    };
    await deps.fs.writeAtomic(path.join(place.serverDir, RECORD), JSON.stringify(record, null, 2) + '\n');
    // the environments of wheels shipped before: no record names them any more
    for (const name of await deps.fs.list(place.serverDir)) {
        if (name.startsWith(ENV_PREFIX) && name !== env) {
            await deps.fs.remove(path.join(place.serverDir, name));
        }
    }
    ui.log(`installed tilewise ${version} into ${envDir}`);
    return { ok: true, python, version, wheel: wheel.name, installed: true };
}

/** The first base that is Python >= 3.11 with venv and ensurepip, or the message saying what each was. */
async function findBase(
    bases: Candidate[], deps: InstallDeps, ui: InstallUi,
): Promise<{ python: string; version: string } | { message: string }> {
    const tried: string[] = [];
    for (const c of bases) {
        const r = await deps.runner.run(c.python, BASE_PROBE, { timeoutMs: 30_000, signal: ui.signal });
        const probe = r.code === 0 ? parseProbe(r.output) : undefined;
        if (probe && newEnough(probe.version) && probe.venv) {
            return { python: c.python, version: probe.version };
        }
        tried.push(`${c.python} (${c.why}): ${!probe ? 'not found' : !newEnough(probe.version)
            ? `Python ${probe.version}` : `Python ${probe.version} without venv/ensurepip`}`);
    }
    return { message: noPythonMessage(tried) };
}

export function noPythonMessage(tried: string[]): string {
    return `tilewise: the server needs Python ${MIN_PYTHON.join('.')} or newer to install itself, and none was found ` +
        `(${tried.length ? `tried ${tried.join('; ')}` : 'nothing to try'}). Install Python ${MIN_PYTHON.join('.')}+ ` +
        '(python.org, or your package manager, e.g. `apt install python3.11 python3.11-venv`), put it on PATH or select ' +
        'it in the Python extension, then run "tilewise: Restart server". Or set tilewise.importStrategy to ' +
        'fromEnvironment and tilewise.pythonPath to a Python with tilewise installed.';
}

export function noWheelMessage(bundledDir: string): string {
    return `tilewise: this build of the extension ships no tilewise wheel (${bundledDir} holds none), so it cannot ` +
        'install its server. Set tilewise.importStrategy to fromEnvironment and tilewise.pythonPath to a Python with ' +
        'tilewise installed, or install a VSIX packaged with `npm run package` (which builds the wheel).';
}

/** The last `n` non-empty lines of a process's output. */
export function tail(output: string, n = TAIL_LINES): string[] {
    return output.split(/\r?\n/).filter((l) => l.trim() !== '').slice(-n);
}

function pipProgress(line: string, ui: InstallUi): void {
    const text = line.trim();
    // pip's own steps ("Collecting numpy<3,>=1.26", "Downloading ...", "Installing collected packages: ..."); not
    // its indented detail lines or progress bars
    if (/^(Collecting|Downloading|Installing|Building|Successfully)\b/.test(text)) {
        ui.report(text.length > 90 ? `${text.slice(0, 87)}...` : text);
    }
}

function exitText(r: RunResult): string {
    return r.code === null ? (r.error ?? 'it did not finish') : `exit code ${r.code}`;
}

function cancelled(): BundledServer {
    return {
        ok: false, reason: 'cancelled',
        message: 'tilewise: the server\'s install was cancelled; "tilewise: Restart server" starts it again.',
    };
}

async function failed(
    deps: InstallDeps, envDir: string, ui: InstallUi, reason: Failure, r: RunResult, message: string,
): Promise<BundledServer> {
    await deps.fs.remove(envDir); // a retry starts clean, and nothing half-installed is ever started
    if (ui.signal?.aborted) {
        return cancelled();
    }
    // the output channel gets the tool's last lines here, and the message after them (server.ts)
    const output = tail(r.output);
    if (output.length) {
        ui.log(`the last ${output.length} lines of ${reason === 'venv' ? 'python -m venv' : reason}'s output:`);
        output.forEach((l) => ui.log(`  ${l}`));
    }
    return { ok: false, reason, message, output };
}
