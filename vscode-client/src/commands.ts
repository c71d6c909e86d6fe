// The palette and code-lens commands, and the status bar item that shows the last run. Run, trace, tune and verify
// are jobs (job.ts: a cancellable notification with the server's progress); the adapters at the end of this file
// give job.ts the editor and the language client, for optimizeCommand.ts too.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LanguageClient, WorkDoneProgress } from 'vscode-languageclient/node';
import {
    Measurement, Severity, SuggestResult, TuneResult, runMessage, statusText, suggestMessage, tuneMessage,
} from './format';
import { JobClient, JobUi, Jobs } from './job';
import { MANAGE_TRUST, MANAGE_TRUST_COMMAND, UNTRUSTED_RUN_MESSAGE } from './trust';

export class Commands implements vscode.Disposable {
    private readonly status: vscode.StatusBarItem;
    private readonly disposables: vscode.Disposable[] = [];
    private readonly jobs: Jobs<vscode.CancellationToken>;

    constructor(
        private readonly context: vscode.ExtensionContext,
        private readonly output: vscode.LogOutputChannel,
        private readonly client: () => LanguageClient | undefined,
        // told when a tune starts from the editor: the convergence plot follows it (charts.ts)
        private readonly onTuneStart: (uri: vscode.Uri) => void = () => undefined,
    ) {
        // the tune's running state is also the `tilewise.tuning` context key (the palette shows "Cancel tuning" then)
        this.jobs = new Jobs(jobUi(output, (kind, on) => {
            if (kind === 'tune') {
                void vscode.commands.executeCommand('setContext', 'tilewise.tuning', on);
            }
        }));
        this.status = vscode.window.createStatusBarItem('tilewise.lastRun', vscode.StatusBarAlignment.Left, 50);
        this.status.name = 'tilewise last run';
        this.status.command = 'tilewise.run';
        this.showStatus(undefined);
        this.disposables.push(
            this.status,
            // the code lenses pass the document's URI as a string; the palette passes nothing
            vscode.commands.registerCommand('tilewise.run', (uri?: string | vscode.Uri) => this.run(uri)),
            vscode.commands.registerCommand('tilewise.tune', (uri?: string | vscode.Uri) => this.tune(uri)),
            vscode.commands.registerCommand('tilewise.cancelTune', () => this.cancelTune()),
            vscode.commands.registerCommand(
                'tilewise.verifySuggestions', (uri?: string | vscode.Uri) => this.verifySuggestions(uri)),
            vscode.commands.registerCommand('tilewise.trace', (uri?: string | vscode.Uri) => this.trace(uri)),
            vscode.window.onDidChangeActiveTextEditor(() => this.updateVisibility()),
            // relabelling a .cpp as ascendc re-opens the document without changing the active editor
            vscode.workspace.onDidOpenTextDocument(() => this.updateVisibility()),
        );
        this.updateVisibility();
    }

    dispose(): void {
        this.jobs.dispose();
        this.disposables.forEach((d) => d.dispose());
    }

    // ---- commands -------------------------------------------------------------------------------------------
    async run(arg?: string | vscode.Uri): Promise<void> {
        if (refuseUntrusted()) {
            return;
        }
        const target = documentTarget(arg);
        if (target) {
            await this.measure(target, undefined);
        }
    }

    async trace(arg?: string | vscode.Uri): Promise<void> {
        if (refuseUntrusted()) {
            return;
        }
        const target = documentTarget(arg);
        if (!target) {
            return;
        }
        // global storage survives the session; fall back to the temp dir when it cannot be made
        let dir = this.context.globalStorageUri.fsPath;
        try {
            fs.mkdirSync(dir, { recursive: true });
        } catch {
            dir = os.tmpdir();
        }
        const name = path.basename(target.fsPath).replace(/\.[^.]*$/, '');
        const file = path.join(dir, `trace-${name}-${Date.now()}.json`);
        const m = await this.measure(target, file);
        if (!m || m.error || !fs.existsSync(file)) {
            return;
        }
        await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: true });
        void vscode.window.showInformationMessage(
            `Pipeline trace written to ${file}. It is a Chrome trace: open it in Perfetto (ui.perfetto.dev) or chrome://tracing.`);
    }

    async tune(arg?: string | vscode.Uri): Promise<void> {
        if (refuseUntrusted()) {
            return;
        }
        const target = documentTarget(arg);
        const client = this.ready();
        if (!target || !client) {
            return;
        }
        if (!this.jobs.isRunning('tune')) {
            this.onTuneStart(target);
        }
        const outcome = await this.jobs.run<TuneResult>(jobClient(client), {
            kind: 'tune',
            title: `tilewise: tuning the tiling of ${path.basename(target.fsPath)}`,
            method: 'tilewise/tune',
            params: { uri: target.toString() },
            first: 'improvements appear as "tilewise tune" problems',
            tag: '[tune]',
            start: target.fsPath,
            busy: 'tilewise: a tune is already running ("tilewise: Cancel tuning" stops it).',
            cancelled: 'tilewise: tuning cancelled; the improvements found so far stay in the Problems panel.',
            what: 'Tune',
        });
        if (outcome.status === 'done') {
            const r = outcome.result;
            this.output.appendLine(`[tune] ${JSON.stringify({ best: r.best, best_us: r.best_us, speedup: r.speedup })}`);
            this.show(tuneMessage(r));
        }
    }

    /** Verify the rewrites of the motifs that fit on the emulator: each result streams in as a "tilewise motifs"
     * problem (with "Apply (measured ...)" when it was correct and faster); cancelling keeps what was verified. */
    async verifySuggestions(arg?: string | vscode.Uri): Promise<void> {
        if (refuseUntrusted()) {
            return;
        }
        const target = documentTarget(arg);
        const client = this.ready();
        if (!target || !client) {
            return;
        }
        const outcome = await this.jobs.run<SuggestResult>(jobClient(client), {
            kind: 'verify',
            title: `tilewise: verifying the suggestions for ${path.basename(target.fsPath)}`,
            method: 'tilewise/verifySuggestions',
            params: { uri: target.toString() },
            first: 'profiling the cases',
            tag: '[suggest]',
            start: target.fsPath,
            busy: 'tilewise: the suggestions are already being verified.',
            cancelled: 'tilewise: verification cancelled; the suggestions verified so far stay in the Problems panel.',
            what: 'Verify suggestions',
        });
        if (outcome.status === 'done') {
            const r = outcome.result;
            this.output.appendLine(`[suggest] ${JSON.stringify(r.suggestions.map((s) => [s.motif, s.verified]))}`);
            this.show(suggestMessage(r));
        }
    }

    cancelTune(): void {
        if (!this.jobs.cancel('tune')) {
            void vscode.window.showInformationMessage('tilewise: no tune is running.');
        }
    }

    // ---- helpers --------------------------------------------------------------------------------------------
    private ready(): LanguageClient | undefined {
        return runningClient(this.client());
    }

    /** Runs the operator's first case (with a Chrome trace written to `trace` when given) as a cancellable job. */
    private async measure(target: vscode.Uri, trace: string | undefined): Promise<Measurement | undefined> {
        const client = this.ready();
        if (!client) {
            return undefined;
        }
        const params: { uri: string; trace?: string } = { uri: target.toString() };
        if (trace) {
            params.trace = trace;
        }
        const running = this.jobs.isRunning('run');
        if (!running) {
            this.status.text = '$(sync~spin) running';
        }
        const outcome = await this.jobs.run<Measurement>(jobClient(client), {
            kind: 'run',
            title: `tilewise: running ${path.basename(target.fsPath)} on the emulator`,
            method: 'tilewise/run',
            params,
            first: 'building and running the first case',
            tag: '[run]',
            start: `${target.fsPath}${trace ? ` (trace ${trace})` : ''}`,
            busy: 'tilewise: a run is already under way.',
            cancelled: 'tilewise: run cancelled.',
            what: 'Run',
        });
        if (outcome.status === 'busy') {
            return undefined; // the run under way keeps the status bar
        }
        if (outcome.status !== 'done') {
            this.showStatus(undefined);
            return undefined;
        }
        const m = outcome.result;
        this.output.appendLine(`[run] ${JSON.stringify(m)}`);
        this.showStatus(m);
        this.show(runMessage(m));
        return m;
    }

    private showStatus(m: Measurement | undefined): void {
        this.status.text = statusText(m);
        this.status.tooltip = m ? runMessage(m).text + '\nClick to run again.' : 'tilewise: run on the emulator';
    }

    private updateVisibility(): void {
        if (vscode.window.activeTextEditor?.document.languageId === 'ascendc') {
            this.status.show();
        } else {
            this.status.hide();
        }
    }

    private show(msg: { severity: Severity; text: string }): void {
        const text = `tilewise: ${msg.text}`;
        if (msg.severity === 'error') {
            void vscode.window.showErrorMessage(text);
        } else if (msg.severity === 'warning') {
            void vscode.window.showWarningMessage(text);
        } else {
            void vscode.window.showInformationMessage(text);
        }
    }
}

/** In an untrusted workspace: says why a command that builds or runs the operator does nothing (with a button to
 *  trust the workspace) and returns true. Running it would execute the repository's code (kernel, host, golden). */
export function refuseUntrusted(): boolean {
    if (vscode.workspace.isTrusted) {
        return false;
    }
    void vscode.window.showWarningMessage(UNTRUSTED_RUN_MESSAGE, MANAGE_TRUST).then((choice) => {
        if (choice === MANAGE_TRUST) {
            void vscode.commands.executeCommand(MANAGE_TRUST_COMMAND);
        }
    });
    return true;
}

/** The document a command acts on: the lens's URI, else the active AscendC editor (a warning when there is none). */
export function documentTarget(arg?: string | vscode.Uri): vscode.Uri | undefined {
    if (typeof arg === 'string') {
        return vscode.Uri.parse(arg);
    }
    if (arg instanceof vscode.Uri) {
        return arg;
    }
    const doc = vscode.window.activeTextEditor?.document;
    if (doc && doc.languageId === 'ascendc') {
        return doc.uri;
    }
    void vscode.window.showWarningMessage('tilewise: open a file of an AscendC operator first.');
    return undefined;
}

/** The language client when it is running; an error that says where to look otherwise. */
export function runningClient(c: LanguageClient | undefined): LanguageClient | undefined {
    if (!c || !c.isRunning()) {
        void vscode.window.showErrorMessage(
            'tilewise: the language server is not running (see the "tilewise" output channel; "tilewise: Restart server" starts it again).');
        return undefined;
    }
    return c;
}

/** job.ts's editor: a cancellable notification, messages, and `log` lines in `output`. */
export function jobUi(
    output: vscode.OutputChannel, running?: (kind: string, on: boolean) => void,
): JobUi<vscode.CancellationToken> {
    return {
        progress: (title, task) => vscode.window.withProgress(
            { location: vscode.ProgressLocation.Notification, title, cancellable: true },
            (progress, token) => task(
                (message) => progress.report({ message }),
                (cancel) => { token.onCancellationRequested(cancel); },
            )),
        cancellation: () => {
            const source = new vscode.CancellationTokenSource();
            return {
                token: source.token,
                get isCancelled() {
                    return source.token.isCancellationRequested;
                },
                cancel: () => source.cancel(),
                dispose: () => source.dispose(),
            };
        },
        log: (line) => output.appendLine(line),
        info: (text) => void vscode.window.showInformationMessage(text),
        error: (text) => void vscode.window.showErrorMessage(text),
        running,
    };
}

/** job.ts's language client: requests with a cancellation token, and the server's progress reports on a token. */
export function jobClient(client: LanguageClient): JobClient<vscode.CancellationToken> {
    return {
        onProgress: (token, report) => client.onProgress(WorkDoneProgress.type, token, (value) => {
            if (value.kind === 'report' && value.message) {
                report(value.message);
            }
        }),
        sendRequest: <R>(method: string, params: Record<string, unknown>, token: vscode.CancellationToken) =>
            client.sendRequest<R>(method, params, token),
    };
}
