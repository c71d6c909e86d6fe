// Entry point: labels AscendC documents, starts the language server (server.ts finds or installs its Python) and
// registers the commands, "Restart server" among them. Command bodies live in commands.ts, optimizeCommand.ts and
// charts.ts (the chart panels); pure logic in detect/python/strategy/install/job/format/optimize/chartsHtml.ts.
import * as os from 'node:os';
import * as vscode from 'vscode';
import { LanguageClient, LanguageClientOptions, ServerOptions } from 'vscode-languageclient/node';
import { ChartPanels, withTimelineLens } from './charts';
import { Commands } from './commands';
import { HEAD_CHARS, shouldBeAscendc } from './detect';
import { OptimizeCommands } from './optimizeCommand';
import { LLM_KEY_SECRET, serverEnv } from './optimize';
import { RESTART_COMMAND, cancelInstall, findServer } from './server';
import { Serial, initializationOptions } from './trust';

let client: LanguageClient | undefined;
// The operators' files changed on disk, for the running client (workspace/didChangeWatchedFiles): disposed with it.
let watcher: vscode.FileSystemWatcher | undefined;
// Every suffix the server reads as a source (analysis/project.py SOURCE_SUFFIXES), and the manifest: a file of an
// operator that is not open still changes its diagnostics when it changes, moves or goes.
const WATCHED_FILES = '**/{*.cpp,*.cc,*.cxx,*.c,*.h,*.hpp,*.hh,*.hxx,*.asc,*.inc,tilewise.toml}';
let charts: ChartPanels | undefined;
// every start and restart of the server, one at a time (trust.ts)
const lifecycle = new Serial();

export async function activate(context: vscode.ExtensionContext): Promise<void> {
    const output = vscode.window.createOutputChannel('tilewise', { log: true });
    charts = new ChartPanels(context, output, () => client);
    const panels = charts;
    const commands = new Commands(context, output, () => client, (uri) => panels.tuneStarted(uri));
    const optimize = new OptimizeCommands(() => client);
    context.subscriptions.push(output, charts, commands, optimize);
    context.subscriptions.push(vscode.commands.registerCommand('tilewise.setLlmApiKey', () => setLlmApiKey(context, output)));
    context.subscriptions.push(vscode.commands.registerCommand(RESTART_COMMAND, async () => {
        output.appendLine('restarting the server (tilewise: Restart server)');
        await restartClient(context, output);
    }));

    // .cpp/.h files of an operator open as C++; relabel them (the rule is in detect.ts)
    for (const doc of vscode.workspace.textDocuments) {
        await relabel(doc);
    }
    context.subscriptions.push(vscode.workspace.onDidOpenTextDocument((doc) => void relabel(doc)));

    context.subscriptions.push(vscode.workspace.onDidChangeConfiguration(async (e) => {
        for (const name of ['tilewise.pythonPath', 'tilewise.importStrategy']) {
            if (e.affectsConfiguration(name)) {
                output.appendLine(`${name} changed: restarting the server`);
                await restartClient(context, output);
                return;
            }
        }
    }));
    // Trusting the workspace lifts the restrictions: the server restarts, told it is trusted, and may now come from
    // the workspace's own .venv or tilewise.pythonPath (trust is granted once and never taken back in a session).
    context.subscriptions.push(vscode.workspace.onDidGrantWorkspaceTrust(async () => {
        output.appendLine('the workspace is trusted now: restarting the server');
        await restartClient(context, output); // after a start still under way, which it then stops
    }));
    // not awaited: finding Python and starting the server must not hold up the editor
    void lifecycle.run(() => startClient(context, output));
}

/** Ask for the model's API key, keep it in VS Code's secret storage (an empty answer removes it), and restart the
 *  server so its process has it. The key goes nowhere else: no setting, no output line, no log. */
async function setLlmApiKey(context: vscode.ExtensionContext, output: vscode.LogOutputChannel): Promise<void> {
    const key = await vscode.window.showInputBox({
        title: 'tilewise: LLM API key',
        prompt: 'The key of the OpenAI-compatible endpoint "Optimize operator" asks when tilewise.optimize.useLlm is on. ' +
            'Kept in VS Code\'s secret storage; leave empty to remove it. A local server (tilewise.llm.baseUrl) needs none.',
        password: true,
        ignoreFocusOut: true,
    });
    if (key === undefined) {
        return; // dismissed: the stored key, if any, stays
    }
    const trimmed = key.trim();
    if (trimmed) {
        await context.secrets.store(LLM_KEY_SECRET, trimmed);
    } else {
        await context.secrets.delete(LLM_KEY_SECRET);
    }
    output.appendLine(`LLM API key ${trimmed ? 'stored' : 'removed'}: restarting the server`);
    await restartClient(context, output);
    void vscode.window.showInformationMessage(
        trimmed ? 'tilewise: LLM API key stored; the server restarted with it.' : 'tilewise: LLM API key removed.');
}

export async function deactivate(): Promise<void> {
    cancelInstall(); // a start still installing the server ends now, and the stop after it has nothing to wait for
    await lifecycle.run(stopClient);
}

/** Stop the server and start it again (reading trust and the settings anew), after any start under way. */
function restartClient(context: vscode.ExtensionContext, output: vscode.LogOutputChannel): Promise<void> {
    return lifecycle.run(async () => {
        await stopClient();
        await startClient(context, output);
    });
}

async function relabel(doc: vscode.TextDocument): Promise<void> {
    if (doc.uri.scheme !== 'file') {
        return;
    }
    const head = doc.getText(new vscode.Range(0, 0, 400, 0)).slice(0, HEAD_CHARS);
    if (shouldBeAscendc(doc.uri.fsPath, doc.languageId, head)) {
        await vscode.languages.setTextDocumentLanguage(doc, 'ascendc');
    }
}

async function startClient(context: vscode.ExtensionContext, output: vscode.LogOutputChannel): Promise<void> {
    // In an untrusted workspace nothing from the workspace starts the server (server.ts); the server is told, and
    // refuses to build or run.
    const trusted = vscode.workspace.isTrusted;
    const found = await findServer(context, output, trusted);
    if (!found) {
        return;
    }
    // The key reaches the server process in its environment only; the line below says whether, never what.
    const key = await context.secrets.get(LLM_KEY_SECRET).then((k) => k, () => undefined);
    const withKey = key ? ', with the stored LLM API key' : '';
    const mode = trusted ? '' : ', untrusted workspace: lint only, nothing is built or run';
    output.appendLine(`tilewise ${found.version} server: ${found.python} -m tilewise serve (${found.why}${withKey}${mode})`);
    const serverOptions: ServerOptions = {
        command: found.python,
        // stdio without a `transport` field: stdio is the default of `serve` (which also accepts --stdio)
        args: ['-m', 'tilewise', 'serve'],
        // the environment passes through: TILEWISE_CACHE and TILEWISE_OPT reach the emulator builds
        options: { cwd: os.tmpdir(), env: serverEnv(process.env, key) },
    };
    watcher = vscode.workspace.createFileSystemWatcher(WATCHED_FILES);
    const clientOptions: LanguageClientOptions = {
        documentSelector: [{ scheme: 'file', language: 'ascendc' }],
        // fileEvents: the server analyses an operator again when one of its files changes on disk, and clears the
        // diagnostics of a deleted one (server/lsp/features/watched_files.py)
        synchronize: { configurationSection: 'tilewise', fileEvents: watcher },
        outputChannel: output,
        initializationOptions: initializationOptions(trusted),
        middleware: {
            // "Show pipeline timeline" joins the lenses once the operator has a timed run (charts.ts)
            provideCodeLenses: async (doc, token, next) => withTimelineLens(await next(doc, token), doc.uri),
        },
    };
    client = new LanguageClient('tilewise', 'tilewise', serverOptions, clientOptions);
    charts?.attach(client); // the tune's convergence notifications, forwarded to an open plot
    try {
        await client.start();
    } catch (err) {
        void vscode.window.showErrorMessage(`tilewise: the language server did not start: ${String(err)}`);
    }
}

async function stopClient(): Promise<void> {
    const c = client;
    const w = watcher;
    client = undefined;
    watcher = undefined;
    if (c) {
        await c.stop().catch(() => undefined);
    }
    w?.dispose(); // after the stop: the client no longer listens to it
}
