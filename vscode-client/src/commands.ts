// The palette and code-lens commands, and the status bar item that shows the last run.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LanguageClient, WorkDoneProgress } from 'vscode-languageclient/node';
import {
    Measurement, Severity, SuggestResult, TuneResult, runMessage, statusText, suggestMessage, tuneMessage,
} from './format';
import { MANAGE_TRUST, MANAGE_TRUST_COMMAND, UNTRUSTED_RUN_MESSAGE } from './trust';

/** JSON-RPC code the server answers with when a request was cancelled (LSP RequestCancelled). */
const REQUEST_CANCELLED = -32800;

export class Commands implements vscode.Disposable {
    private readonly status: vscode.StatusBarItem;
    private readonly disposables: vscode.Disposable[] = [];
    private tuning: vscode.CancellationTokenSource | undefined;
    private verifying: vscode.CancellationTokenSource | undefined;

    constructor(
        private readonly context: vscode.ExtensionContext,
        private readonly output: vscode.LogOutputChannel,
        private readonly client: () => LanguageClient | undefined,
        // told when a tune starts from the editor: the convergence plot follows it (charts.ts)
        private readonly onTuneStart: (uri: vscode.Uri) => void = () => undefined,
    ) {
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
        this.tuning?.cancel();
        this.verifying?.cancel();
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
        if (this.tuning) {
            void vscode.window.showInformationMessage('tilewise: a tune is already running ("tilewise: Cancel tuning" stops it).');
            return;
        }
        const cts = new vscode.CancellationTokenSource();
        this.tuning = cts;
        void vscode.commands.executeCommand('setContext', 'tilewise.tuning', true);
        this.onTuneStart(target);
        const title = `tilewise: tuning the tiling of ${path.basename(target.fsPath)}`;
        try {
            await vscode.window.withProgress(
                { location: vscode.ProgressLocation.Notification, title, cancellable: true },
                async (progress, token) => {
                    token.onCancellationRequested(() => cts.cancel());
                    progress.report({ message: 'improvements appear as "tilewise tune" problems' });
                    this.output.appendLine(`[tune] ${target.fsPath}`);
                    // The server reports on our token, so its "3/32 configurations, best ..." lands in this notification.
                    const workDoneToken = `tilewise-tune-${Date.now()}`;
                    const listening = client.onProgress(WorkDoneProgress.type, workDoneToken, (value) => {
                        if (value.kind === 'report' && value.message) {
                            progress.report({ message: value.message });
                        }
                    });
                    try {
                        const r = await client.sendRequest<TuneResult>(
                            'tilewise/tune', { uri: target.toString(), workDoneToken }, cts.token);
                        this.output.appendLine(`[tune] ${JSON.stringify({ best: r.best, best_us: r.best_us, speedup: r.speedup })}`);
                        this.show(tuneMessage(r));
                    } catch (err) {
                        if (wasCancelled(err, cts.token)) {
                            this.output.appendLine('[tune] cancelled');
                            void vscode.window.showInformationMessage(
                                'tilewise: tuning cancelled; the improvements found so far stay in the Problems panel.');
                        } else {
                            this.failed('Tune', err);
                        }
                    } finally {
                        listening.dispose();
                    }
                });
        } finally {
            this.tuning = undefined;
            cts.dispose();
            void vscode.commands.executeCommand('setContext', 'tilewise.tuning', false);
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
        if (this.verifying) {
            void vscode.window.showInformationMessage('tilewise: the suggestions are already being verified.');
            return;
        }
        const cts = new vscode.CancellationTokenSource();
        this.verifying = cts;
        const title = `tilewise: verifying the suggestions for ${path.basename(target.fsPath)}`;
        try {
            await vscode.window.withProgress(
                { location: vscode.ProgressLocation.Notification, title, cancellable: true },
                async (progress, token) => {
                    token.onCancellationRequested(() => cts.cancel());
                    progress.report({ message: 'profiling the cases' });
                    this.output.appendLine(`[suggest] ${target.fsPath}`);
                    // The server reports on our token: one message per verified motif lands in this notification.
                    const workDoneToken = `tilewise-suggest-${Date.now()}`;
                    const listening = client.onProgress(WorkDoneProgress.type, workDoneToken, (value) => {
                        if (value.kind === 'report' && value.message) {
                            progress.report({ message: value.message });
                        }
                    });
                    try {
                        const r = await client.sendRequest<SuggestResult>(
                            'tilewise/verifySuggestions', { uri: target.toString(), workDoneToken }, cts.token);
                        this.output.appendLine(
                            `[suggest] ${JSON.stringify(r.suggestions.map((s) => [s.motif, s.verified]))}`);
                        this.show(suggestMessage(r));
                    } catch (err) {
                        if (wasCancelled(err, cts.token)) {
                            this.output.appendLine('[suggest] cancelled');
                            void vscode.window.showInformationMessage(
                                'tilewise: verification cancelled; the suggestions verified so far stay in the Problems panel.');
                        } else {
                            this.failed('Verify suggestions', err);
                        }
                    } finally {
                        listening.dispose();
                    }
                });
        } finally {
            this.verifying = undefined;
            cts.dispose();
        }
    }

    cancelTune(): void {
        if (!this.tuning) {
            void vscode.window.showInformationMessage('tilewise: no tune is running.');
            return;
        }
        this.tuning.cancel();
    }

    // ---- helpers --------------------------------------------------------------------------------------------
    private ready(): LanguageClient | undefined {
        return runningClient(this.client());
    }

    private async measure(target: vscode.Uri, trace: string | undefined): Promise<Measurement | undefined> {
        const client = this.ready();
        if (!client) {
            return undefined;
        }
        this.output.appendLine(`[run] ${target.fsPath}${trace ? ` (trace ${trace})` : ''}`);
        this.status.text = '$(sync~spin) running';
        try {
            const params: { uri: string; trace?: string } = { uri: target.toString() };
            if (trace) {
                params.trace = trace;
            }
            const m = await client.sendRequest<Measurement>('tilewise/run', params);
            this.output.appendLine(`[run] ${JSON.stringify(m)}`);
            this.showStatus(m);
            this.show(runMessage(m));
            return m;
        } catch (err) {
            this.showStatus(undefined);
            this.failed('Run', err);
            return undefined;
        }
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

    private failed(what: string, err: unknown): void {
        const message = err instanceof Error ? err.message : String(err);
        this.output.appendLine(`[${what.toLowerCase()}] failed: ${message}`);
        void vscode.window.showErrorMessage(`tilewise: ${what} failed: ${message}`);
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
            'tilewise: the language server is not running (see the "tilewise" output channel; check tilewise.pythonPath).');
        return undefined;
    }
    return c;
}

/** Whether a request ended because it was cancelled (by our token, or answered RequestCancelled by the server). */
export function wasCancelled(err: unknown, token: vscode.CancellationToken): boolean {
    return token.isCancellationRequested || code(err) === REQUEST_CANCELLED;
}

function code(err: unknown): number | undefined {
    return typeof err === 'object' && err !== null && 'code' in err ? Number((err as { code: unknown }).code) : undefined;
}
