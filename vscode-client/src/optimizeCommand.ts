// "Optimize operator": the server's closed loop (`tilewise/optimize`) in a cancellable notification, every step in the
// "tilewise optimize" output channel, the optimised files as read-only documents under their own scheme, diffed
// against the user's, and applied only on request and only where the file is still what the server optimised.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LanguageClient } from 'vscode-languageclient/node';
import { documentTarget, jobClient, jobUi, refuseUntrusted, runningClient } from './commands';
import { Jobs } from './job';
import {
    OptimizeResult, OptimizedFile, Severity, applyMessage, changedFiles, diffTitle, improved, optimizeBudget,
    planApply, stepLine, summaryMessage,
} from './optimize';

/** The scheme of the optimised texts: `tilewise-optimized:/abs/path/kernel.cpp?run=3`. */
export const OPTIMIZED_SCHEME = 'tilewise-optimized';
const CONTEXT_HAS_FILES = 'tilewise.optimizedFiles';

export class OptimizeCommands implements vscode.Disposable, vscode.TextDocumentContentProvider {
    private readonly channel: vscode.OutputChannel;
    private readonly changed = new vscode.EventEmitter<vscode.Uri>();
    readonly onDidChange = this.changed.event;
    private readonly disposables: vscode.Disposable[] = [];
    private readonly held = new Map<string, OptimizedFile>(); // virtual URI -> the optimised file it shows, every run
    private latest: OptimizedFile[] | undefined; // the last optimisation's changed files, for "Apply all"
    private runs = 0;
    private readonly jobs: Jobs<vscode.CancellationToken>;

    constructor(private readonly client: () => LanguageClient | undefined) {
        this.channel = vscode.window.createOutputChannel('tilewise optimize');
        this.jobs = new Jobs(jobUi(this.channel));
        this.disposables.push(
            this.channel,
            this.changed,
            vscode.workspace.registerTextDocumentContentProvider(OPTIMIZED_SCHEME, this),
            vscode.commands.registerCommand('tilewise.optimize', (uri?: string | vscode.Uri) => this.optimize(uri)),
            vscode.commands.registerCommand('tilewise.applyOptimizedFile', (uri?: vscode.Uri) => this.applyFile(uri)),
            vscode.commands.registerCommand('tilewise.applyAllOptimized', () => this.applyAll()),
        );
    }

    dispose(): void {
        this.jobs.dispose();
        this.disposables.forEach((d) => d.dispose());
    }

    provideTextDocumentContent(uri: vscode.Uri): string {
        return this.held.get(uri.toString())?.optimized
            ?? '// tilewise: this optimised text is no longer held; run "Optimize operator" again.\n';
    }

    // ---- optimise ---------------------------------------------------------------------------------------------
    async optimize(arg?: string | vscode.Uri): Promise<void> {
        if (refuseUntrusted()) {
            return;
        }
        const target = documentTarget(arg);
        const client = target ? runningClient(this.client()) : undefined;
        if (!target || !client) {
            return;
        }
        const settings = vscode.workspace.getConfiguration('tilewise');
        const budget = optimizeBudget(settings.inspect<number>('budget'));
        const llm = settings.get<boolean>('optimize.useLlm', false);
        const outcome = await this.jobs.run<OptimizeResult>(jobClient(client), {
            kind: 'optimize',
            title: `tilewise: optimizing ${path.basename(target.fsPath)}`,
            method: 'tilewise/optimize',
            params: { uri: target.toString(), budget, llm },
            first: `measuring the operator as it is (budget ${budget}${llm ? ', with the model' : ''})`,
            tag: '[optimize]',
            start: `${target.fsPath}: budget ${budget}, model ${llm ? 'on' : 'off'}`,
            busy: 'tilewise: an optimisation is already running (cancel it from its notification).',
            cancelled: 'tilewise: optimisation cancelled; nothing was changed.',
            what: 'Optimize',
            failed: (message) => this.failed(message),
        });
        if (outcome.status === 'done') {
            await this.showResult(outcome.result, target); // after the notification closed: its buttons wait for the user
        }
    }

    private async showResult(r: OptimizeResult, target: vscode.Uri): Promise<void> {
        for (const step of r.steps) {
            this.channel.appendLine(stepLine(step));
        }
        for (const problem of r.problems ?? []) {
            this.channel.appendLine(`problem: ${problem}`);
        }
        const summary = summaryMessage(r);
        this.channel.appendLine(summary.text);
        // the file the user asked from first (its diff opens), then the others in the server's order
        const files = changedFiles(r).sort((a, b) => Number(b.path === target.fsPath) - Number(a.path === target.fsPath));
        if (!improved(r)) {
            const shown = `tilewise: ${summary.text}`;
            const choice = summary.severity === 'error'
                ? await vscode.window.showErrorMessage(shown, 'Show steps')
                : await vscode.window.showInformationMessage(shown, 'Show steps');
            if (choice === 'Show steps') {
                this.channel.show(true);
            }
            return;
        }
        this.runs += 1;
        const uris = files.map((f) => this.hold(f));
        this.latest = files;
        void vscode.commands.executeCommand('setContext', CONTEXT_HAS_FILES, true);
        await this.openDiff(files[0], uris[0], r.speedup);
        const choice = await vscode.window.showInformationMessage(`tilewise: ${summary.text}`, 'Apply all', 'Show diffs');
        if (choice === 'Apply all') {
            await this.applyAll();
        } else if (choice === 'Show diffs') {
            for (let i = 0; i < files.length; i++) {
                await this.openDiff(files[i], uris[i], r.speedup);
            }
        }
    }

    /** The virtual document of `file` for this run (its content comes from `provideTextDocumentContent`). */
    private hold(file: OptimizedFile): vscode.Uri {
        const uri = vscode.Uri.from({ scheme: OPTIMIZED_SCHEME, path: vscode.Uri.file(file.path).path, query: `run=${this.runs}` });
        this.held.set(uri.toString(), file);
        this.changed.fire(uri);
        return uri;
    }

    private async openDiff(file: OptimizedFile, uri: vscode.Uri, speedup: number | null | undefined): Promise<void> {
        await vscode.commands.executeCommand(
            'vscode.diff', vscode.Uri.file(file.path), uri, diffTitle(file.path, speedup), { preview: false });
    }

    // ---- apply ------------------------------------------------------------------------------------------------
    /** "Apply this file", from the diff editor's title bar: the optimised file that diff shows. */
    async applyFile(arg?: vscode.Uri): Promise<void> {
        const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
        const held = uri && uri.scheme === OPTIMIZED_SCHEME ? this.held.get(uri.toString()) : undefined;
        if (!held) {
            void vscode.window.showWarningMessage('tilewise: open the diff of an optimised file first ("Optimize operator").');
            return;
        }
        await this.apply([held]);
    }

    async applyAll(): Promise<void> {
        if (!this.latest) {
            void vscode.window.showWarningMessage('tilewise: no optimisation to apply; run "Optimize operator" first.');
            return;
        }
        await this.apply(this.latest);
    }

    /** Replace each file's whole text with the optimised one, through one WorkspaceEdit (undoable), then save; a
     * file whose text (in its editor, else on disk) is no longer what the server optimised is left alone. */
    private async apply(files: OptimizedFile[]): Promise<void> {
        const docs = new Map<string, vscode.TextDocument>();
        for (const f of files) {
            try {
                docs.set(f.path, await vscode.workspace.openTextDocument(vscode.Uri.file(f.path)));
            } catch {
                // unreadable: planApply refuses it
            }
        }
        const plan = planApply(files, (p) => docs.get(p)?.getText());
        let written = false;
        if (plan.apply.length > 0) {
            const edit = new vscode.WorkspaceEdit();
            for (const f of plan.apply) {
                const doc = docs.get(f.path) as vscode.TextDocument;
                edit.replace(doc.uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), f.optimized);
            }
            written = await vscode.workspace.applyEdit(edit);
            if (written) {
                for (const f of plan.apply) {
                    await docs.get(f.path)?.save();
                }
            }
        }
        const message = applyMessage(plan, written);
        this.channel.appendLine(message.text);
        this.show(message.severity, message.text);
    }

    // ---- messages ---------------------------------------------------------------------------------------------
    private show(severity: Severity, text: string): void {
        const shown = `tilewise: ${text}`;
        if (severity === 'error') {
            void vscode.window.showErrorMessage(shown);
        } else if (severity === 'warning') {
            void vscode.window.showWarningMessage(shown);
        } else {
            void vscode.window.showInformationMessage(shown);
        }
    }

    /** The server's one line (job.ts logged it); where it is about the model's key or endpoint, the two ways to fix
     *  that. */
    private failed(message: string): void {
        if (/API key|OPENAI_API_KEY|base.?url|cannot reach/i.test(message)) {
            void vscode.window.showErrorMessage(`tilewise: Optimize failed: ${message}`, 'Set LLM API key', 'Open Settings')
                .then((choice) => {
                    if (choice === 'Set LLM API key') {
                        void vscode.commands.executeCommand('tilewise.setLlmApiKey');
                    } else if (choice === 'Open Settings') {
                        void vscode.commands.executeCommand('workbench.action.openSettings', 'tilewise.llm');
                    }
                });
            return;
        }
        void vscode.window.showErrorMessage(`tilewise: Optimize failed: ${message}`);
    }
}
