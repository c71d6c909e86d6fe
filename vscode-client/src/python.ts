// Finding the Python that has tilewise installed. The candidate order and the search are pure functions of
// their inputs; the "which tilewise does this interpreter have" check is injected, so tests need no Python.
import * as path from 'node:path';

export interface PythonSources {
    /** `tilewise.pythonPath`, possibly empty. When set it is the only candidate: an explicit choice never
     *  silently falls back to another interpreter. */
    configured: string;
    workspaceFolders: string[];
    /** The Python extension's selected interpreter, when that extension is installed and has one. */
    pythonExtension?: string;
    platform: NodeJS.Platform;
    home?: string;
    /** false in an untrusted workspace (default true): then no candidate inside a workspace folder is tried, since a
     *  `.venv` or a `tilewise.pythonPath` that points into the repository is a classic way to make an editor run a
     *  binary the repository ships. */
    trusted?: boolean;
}

export interface Candidate {
    python: string;
    why: string;
}

/** Expands `~` and `${workspaceFolder}` in a configured path. */
export function expandPath(p: string, workspaceFolder: string | undefined, home: string | undefined): string {
    let out = p.trim();
    if (workspaceFolder !== undefined) {
        out = out.replace(/\$\{workspaceFolder\}/g, workspaceFolder);
    }
    if (home !== undefined && (out === '~' || out.startsWith('~/'))) {
        out = home + out.slice(1);
    }
    return out;
}

/** The interpreters to try, in order; in an untrusted workspace without the ones inside it (`withheld`). */
export function candidates(src: PythonSources): Candidate[] {
    return everyCandidate(src).filter((c) => src.trusted !== false || !insideWorkspace(c.python, src.workspaceFolders));
}

/** The candidates an untrusted workspace leaves out (none in a trusted one), to say why they were not tried. */
export function withheld(src: PythonSources): Candidate[] {
    return src.trusted === false
        ? everyCandidate(src).filter((c) => insideWorkspace(c.python, src.workspaceFolders))
        : [];
}

/** Whether `python` is a path inside one of the folders (a bare name like `python3` is looked up on PATH: never). */
export function insideWorkspace(python: string, folders: string[]): boolean {
    if (!path.isAbsolute(python)) {
        return false;
    }
    const resolved = path.resolve(python);
    return folders.some((folder) => {
        const rel = path.relative(path.resolve(folder), resolved);
        return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
    });
}

/** `tilewise.pythonPath` in an untrusted workspace: the user's own value only. `ignored` is a workspace-level value
 *  left aside (VS Code already ignores it there, as package.json lists it in `restrictedConfigurations`). */
export function userPythonPath(
    levels: { globalValue?: string; workspaceValue?: string; workspaceFolderValue?: string } | undefined,
): { value: string; ignored?: string } {
    const ignored = [levels?.workspaceFolderValue, levels?.workspaceValue].find((v) => v !== undefined && v.trim() !== '');
    return { value: levels?.globalValue ?? '', ...(ignored !== undefined ? { ignored } : {}) };
}

/** What an untrusted workspace kept from being tried, and how to get a server anyway; undefined when nothing was. */
export function untrustedNote(left: Candidate[], ignoredSetting: string | undefined): string | undefined {
    const parts = left.map((c) => `${c.python} (${c.why})`);
    if (ignoredSetting !== undefined) {
        parts.push(`the workspace's tilewise.pythonPath ${ignoredSetting}`);
    }
    if (parts.length === 0) {
        return undefined;
    }
    return `This workspace is not trusted, so tilewise runs no Python from it: not ${parts.join(', ')}. ` +
        'Set tilewise.pythonPath in your user settings to a Python outside the workspace, or trust the workspace ' +
        '(Manage Workspace Trust).';
}

function everyCandidate(src: PythonSources): Candidate[] {
    if (src.configured.trim() !== '') {
        return [{ python: expandPath(src.configured, src.workspaceFolders[0], src.home), why: 'tilewise.pythonPath' }];
    }
    const win = src.platform === 'win32';
    const inVenv = win ? ['Scripts', 'python.exe'] : ['bin', 'python'];
    const out: Candidate[] = [];
    for (const folder of src.workspaceFolders) {
        for (const venv of ['.venv', 'venv']) {
            out.push({ python: path.join(folder, venv, ...inVenv), why: `workspace ${venv}` });
        }
    }
    if (src.pythonExtension) {
        out.push({ python: src.pythonExtension, why: 'Python extension interpreter' });
    }
    out.push({ python: win ? 'python' : 'python3', why: 'PATH' });
    // the same interpreter can come from two places; the first reason wins
    const seen = new Set<string>();
    return out.filter((c) => (seen.has(c.python) ? false : (seen.add(c.python), true)));
}

/** What the extension runs to ask an interpreter for tilewise: the CLI prints the installed distribution's
 *  version, `tilewise X.Y.Z`. Importing `tilewise` is not enough: another package of that name could import. */
export const VERSION_ARGS = ['-m', 'tilewise', '--version'];

/** The tilewise version in the output of VERSION_ARGS, or undefined when the output is anything else (another
 *  program's `--version`, tilewise imported from a checkout that was never installed). */
export function parseVersion(stdout: string): string | undefined {
    const m = /^tilewise (\d+\.\d+[^\s]*)\s*$/.exec(stdout.trim());
    return m ? m[1] : undefined;
}

/** Returns the first candidate that has tilewise (with its version), or the list of failures. */
export async function findPython(
    list: Candidate[],
    versionOf: (python: string) => Promise<string | undefined>,
): Promise<{ found?: Candidate & { version: string }; tried: Candidate[] }> {
    const tried: Candidate[] = [];
    for (const c of list) {
        const version = await versionOf(c.python);
        if (version !== undefined) {
            return { found: { ...c, version }, tried };
        }
        tried.push(c);
    }
    return { tried };
}

/** The message shown when no interpreter works: what was tried and how to fix it. */
export function notFoundMessage(tried: Candidate[], configured: boolean, untrusted?: string): string {
    if (untrusted !== undefined && tried.length === 0) {
        return `tilewise: no Python to start the server with. ${untrusted}`;
    }
    const list = tried.map((c) => `${c.python} (${c.why})`).join(', ');
    const fix = configured
        ? 'Fix tilewise.pythonPath so it names a Python where `python -m tilewise --version` prints `tilewise <version>`'
        : 'Install tilewise into a virtual environment (`python3 -m venv .venv && .venv/bin/pip install -e /path/to/tilewise`, ' +
          'or `bash scripts/setup.sh` in the tilewise checkout) and set tilewise.pythonPath to its python';
    const why = untrusted !== undefined ? ` ${untrusted}` : '';
    return `tilewise: no Python with tilewise installed was found (tried ${list}). ${fix}.${why}`;
}
