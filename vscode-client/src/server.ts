// Which Python runs the language server: the bundled one (install.ts, in the extension's storage) or one from the
// user's environment (python.ts), as `tilewise.importStrategy` and `tilewise.pythonPath` say (strategy.ts). The
// editor's side of it: settings, workspace trust, the Python extension, the install's progress and the messages.
import { execFile } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { BundledServer, InstallUi, baseCandidates, ensureBundledServer } from './install';
import { nodeDeps, serverDir } from './installNode';
import {
    VERSION_ARGS, candidates, findPython, notFoundMessage, parseVersion, untrustedNote, withheld,
} from './python';
import { bundledUntrustedNote, chooseStrategy } from './strategy';

export interface FoundServer {
    python: string;
    version: string;
    /** Where it came from, for the output channel: "bundled wheel ..., installed now", "tilewise.pythonPath", ... */
    why: string;
}

export const RESTART_COMMAND = 'tilewise.restartServer';
const RESTART = 'Restart server';
const OPEN_SETTINGS = 'Open Settings';
const SHOW_OUTPUT = 'Show output';
// the install under way, if any: cancelled when the extension deactivates (the window closes), rather than making
// the deactivation wait for pip
let installing: AbortController | undefined;

/** Stops an install under way (it then never counts, install.ts); nothing when there is none. */
export function cancelInstall(): void {
    installing?.abort();
}

/** The Python to start the server with, or undefined after telling the user why there is none and what to do. */
export async function findServer(
    context: vscode.ExtensionContext, output: vscode.LogOutputChannel, trusted: boolean,
): Promise<FoundServer | undefined> {
    const setting = vscode.workspace.getConfiguration('tilewise');
    const choice = chooseStrategy(setting.get<string>('importStrategy'), setting.inspect<string>('pythonPath'), trusted);
    if (choice.note) {
        output.appendLine(choice.note);
    }
    const workspaceFolders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
    const pythonExtension = choice.configured ? undefined : await pythonExtensionInterpreter();
    if (choice.strategy === 'useBundled') {
        const bases = baseCandidates({ pythonExtension, platform: process.platform, workspaceFolders, trusted });
        const note = trusted ? undefined : bundledUntrustedNote(bases.withheld, choice.ignored);
        if (note) {
            output.appendLine(note);
        }
        return bundledServer(context, output, bases.list);
    }
    // In an untrusted workspace nothing from the workspace starts the server: only the user's own pythonPath, and no
    // interpreter inside a workspace folder (python.ts); the server is told, and refuses to build or run.
    const sources = {
        configured: choice.configured, workspaceFolders, pythonExtension, platform: process.platform,
        home: os.homedir(), trusted,
    };
    const untrusted = trusted ? undefined : untrustedNote(withheld(sources), choice.ignored);
    if (untrusted) {
        output.appendLine(untrusted);
    }
    const { found, tried } = await findPython(candidates(sources), tilewiseVersion);
    if (!found) {
        const message = notFoundMessage(tried, choice.configured !== '', untrusted);
        output.appendLine(message);
        tell(message, [OPEN_SETTINGS], output, 'tilewise.pythonPath');
        return undefined;
    }
    return found;
}

async function bundledServer(
    context: vscode.ExtensionContext, output: vscode.LogOutputChannel, bases: { python: string; why: string }[],
): Promise<FoundServer | undefined> {
    const place = { bundledDir: path.join(context.extensionPath, 'bundled'), serverDir: serverDir(context.globalStorageUri.fsPath) };
    const log = (line: string) => output.appendLine(line);
    const r: BundledServer = await ensureBundledServer(place, bases, nodeDeps(tilewiseVersion), log, (task) =>
        vscode.window.withProgress(
            { location: vscode.ProgressLocation.Notification, title: 'tilewise: installing the language server', cancellable: true },
            async (progress, token) => {
                const abort = new AbortController();
                installing = abort;
                token.onCancellationRequested(() => abort.abort());
                const ui: InstallUi = { report: (message) => progress.report({ message }), log, signal: abort.signal };
                try {
                    return await task(ui);
                } finally {
                    installing = undefined;
                }
            }));
    if (r.ok) {
        return {
            python: r.python, version: r.version,
            why: `bundled wheel ${r.wheel}, ${r.installed ? 'installed now' : 'installed before'}`,
        };
    }
    output.appendLine(r.message);
    const buttons = r.reason === 'pip' || r.reason === 'venv' ? [SHOW_OUTPUT, RESTART] : [RESTART, OPEN_SETTINGS];
    tell(r.message, buttons, output, 'tilewise.importStrategy');
    return undefined;
}

/** An error message with buttons; not awaited: it stays until dismissed, and a restart (the lifecycle's Serial)
 *  must not wait for that. */
function tell(message: string, buttons: string[], output: vscode.LogOutputChannel, settingsQuery: string): void {
    void vscode.window.showErrorMessage(message, ...buttons).then((choice) => {
        if (choice === OPEN_SETTINGS) {
            void vscode.commands.executeCommand('workbench.action.openSettings', settingsQuery);
        } else if (choice === RESTART) {
            void vscode.commands.executeCommand(RESTART_COMMAND);
        } else if (choice === SHOW_OUTPUT) {
            output.show(true);
        }
    });
}

/** Runs `python -m tilewise --version` away from any checkout (cwd = temp dir), the same way the server is
 *  started, and accepts only tilewise's own answer: the installed distribution's version. */
export function tilewiseVersion(python: string): Promise<string | undefined> {
    return new Promise((resolve) => {
        execFile(python, VERSION_ARGS, { cwd: os.tmpdir(), timeout: 30_000 }, (err, stdout) =>
            resolve(err ? undefined : parseVersion(String(stdout))),
        );
    });
}

/** The Python extension's selected interpreter, if that extension is installed; optional, never fatal. */
async function pythonExtensionInterpreter(): Promise<string | undefined> {
    const ext = vscode.extensions.getExtension('ms-python.python');
    if (!ext) {
        return undefined;
    }
    try {
        const api = ext.isActive ? ext.exports : await ext.activate();
        const env = api?.environments?.getActiveEnvironmentPath?.(vscode.workspace.workspaceFolders?.[0]?.uri);
        return typeof env?.path === 'string' ? env.path : undefined;
    } catch {
        return undefined;
    }
}
