// The chart panels (issue 21): one "run" panel with the last run's pipeline timeline and roofline, one
// convergence panel for the last or running tune; each is created once, then reused and revealed, as VS Code's own
// views are. The data comes from the language server (`tilewise/charts`, and `tilewise/convergence` notifications
// while a tune runs); the drawing is media/charts.js (built from webview/). The page posts back "reveal" (open a
// source line) and "apply" (write a tuned configuration, through the server's `tilewise/applyConfig` edit).
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LanguageClient, WorkspaceEdit } from 'vscode-languageclient/node';
import { documentTarget, runningClient } from './commands';
import { PageMessage, configText, nothingYet, parsePageMessage, timelineLensAt, webviewHtml } from './chartsHtml';

type Kind = 'timeline' | 'roofline' | 'convergence';
/** A chart payload as the server sends it (webview/payloads.ts has its shape; the extension only passes it on). */
type Payload = { kind: Kind; operator?: string; done?: boolean } & Record<string, unknown>;

interface ShowMessage {
    type: 'show';
    payload: unknown;
    focus?: Kind;
    empty?: string;
}

/** One reusable panel: created on first use, revealed afterwards; it keeps the last message so a page that is
 *  (re)loaded, e.g. after being hidden, gets it again when it says "ready". */
class ChartView implements vscode.Disposable {
    private panel: vscode.WebviewPanel | undefined;
    private last: ShowMessage | undefined;
    uri: vscode.Uri | undefined; // the operator's document the panel shows data of (Apply's target)

    constructor(
        private readonly viewType: string,
        private readonly media: vscode.Uri,
        private readonly onMessage: (view: ChartView, m: PageMessage) => void,
    ) {}

    get isOpen(): boolean {
        return this.panel !== undefined;
    }

    show(title: string, message: ShowMessage, preserveFocus = false): void {
        this.last = message;
        if (!this.panel) {
            this.panel = this.create(title, preserveFocus);
        } else {
            this.panel.title = title;
            this.panel.reveal(undefined, preserveFocus);
        }
        void this.panel.webview.postMessage(message);
    }

    /** A newer payload for an open panel, without revealing it (live tune updates must not steal the view). */
    update(message: ShowMessage): void {
        this.last = message;
        void this.panel?.webview.postMessage(message);
    }

    private create(title: string, preserveFocus: boolean): vscode.WebviewPanel {
        const panel = vscode.window.createWebviewPanel(this.viewType, title,
            { viewColumn: vscode.ViewColumn.Beside, preserveFocus }, {
                enableScripts: true,
                localResourceRoots: [this.media], // the bundle, nothing else
                // not retained when hidden (cheaper): the page reloads, says "ready" and gets `last` again
                retainContextWhenHidden: false,
            });
        const script = panel.webview.asWebviewUri(vscode.Uri.joinPath(this.media, 'charts.js'));
        panel.webview.html = webviewHtml({
            cspSource: panel.webview.cspSource, nonce: randomBytes(16).toString('base64'), script: script.toString(), title,
        });
        panel.webview.onDidReceiveMessage((raw) => {
            const m = parsePageMessage(raw);
            if (m?.type === 'ready') {
                if (this.last) {
                    void panel.webview.postMessage(this.last);
                }
            } else if (m) {
                this.onMessage(this, m);
            }
        });
        panel.onDidDispose(() => {
            this.panel = undefined;
        });
        return panel;
    }

    dispose(): void {
        this.panel?.dispose();
    }
}

export class ChartPanels implements vscode.Disposable {
    private readonly run: ChartView;
    private readonly convergence: ChartView;
    private readonly disposables: vscode.Disposable[] = [];
    private tuneUri: vscode.Uri | undefined; // the document of the tune whose notifications arrive

    constructor(
        context: vscode.ExtensionContext,
        private readonly output: vscode.LogOutputChannel,
        private readonly client: () => LanguageClient | undefined,
    ) {
        const media = vscode.Uri.joinPath(context.extensionUri, 'media');
        const onMessage = (view: ChartView, m: PageMessage): void => void this.onPageMessage(view, m);
        this.run = new ChartView('tilewise.run', media, onMessage);
        this.convergence = new ChartView('tilewise.convergence', media, onMessage);
        this.disposables.push(
            this.run,
            this.convergence,
            vscode.commands.registerCommand('tilewise.showTimeline', (uri?: string | vscode.Uri) => this.showRun(uri, 'timeline')),
            vscode.commands.registerCommand('tilewise.showRoofline', (uri?: string | vscode.Uri) => this.showRun(uri, 'roofline')),
            vscode.commands.registerCommand('tilewise.showConvergence', (uri?: string | vscode.Uri) => this.showConvergence(uri)),
        );
    }

    dispose(): void {
        this.disposables.forEach((d) => d.dispose());
    }

    /** Listens to a (new) client's tune notifications; called before each client starts. */
    attach(client: LanguageClient): void {
        client.onNotification('tilewise/convergence', (p: Payload) => this.onConvergence(p));
    }

    /** A tune started from the editor: its notifications belong to `uri`; the plot opens beside the editor, without
     *  taking the focus, unless tilewise.charts.showConvergenceOnTune is off (then an open plot still follows). */
    tuneStarted(uri: vscode.Uri): void {
        this.tuneUri = uri;
        const open = vscode.workspace.getConfiguration('tilewise').get<boolean>('charts.showConvergenceOnTune', true);
        if (open) {
            this.convergence.uri = uri;
            this.convergence.show(this.title('convergence', uri), {
                type: 'show', payload: [], empty: 'Waiting for the first measurement…',
            }, true);
        }
    }

    // ---- commands -------------------------------------------------------------------------------------------
    private async showRun(arg: string | vscode.Uri | undefined, focus: 'timeline' | 'roofline'): Promise<void> {
        const target = documentTarget(arg);
        const client = target ? runningClient(this.client()) : undefined;
        if (!target || !client) {
            return;
        }
        const [timeline, roofline] = await Promise.all([this.fetch(client, target, 'timeline'), this.fetch(client, target, 'roofline')]);
        if (timeline === undefined || roofline === undefined) {
            return; // the request failed: already said
        }
        const charts = [timeline, roofline].filter((c): c is Payload => c !== null);
        if (charts.length === 0) {
            await this.offer(nothingYet(focus, path.basename(target.fsPath)), 'Run on emulator', 'tilewise.run', target,
                () => this.showRun(target, focus));
            return;
        }
        this.run.uri = target;
        this.run.show(this.title('run', target), { type: 'show', payload: { title: '', charts }, focus });
    }

    private async showConvergence(arg: string | vscode.Uri | undefined): Promise<void> {
        const target = documentTarget(arg);
        const client = target ? runningClient(this.client()) : undefined;
        if (!target || !client) {
            return;
        }
        const payload = await this.fetch(client, target, 'convergence');
        if (payload === undefined) {
            return;
        }
        if (payload === null) {
            await this.offer(nothingYet('convergence', path.basename(target.fsPath)), 'Tune tiling', 'tilewise.tune', target);
            return;
        }
        this.convergence.uri = target;
        this.convergence.show(this.title('convergence', target), { type: 'show', payload });
    }

    // ---- server data ----------------------------------------------------------------------------------------
    /** The server's payload; null when it has none yet; undefined when the request failed (and was reported). */
    private async fetch(client: LanguageClient, target: vscode.Uri, kind: Kind): Promise<Payload | null | undefined> {
        try {
            const p = await client.sendRequest<Payload | null>('tilewise/charts', { uri: target.toString(), kind });
            return p ?? null;
        } catch (err) {
            this.failed(`the ${kind} data`, err);
            return undefined;
        }
    }

    private onConvergence(p: Payload): void {
        if (!p || p.kind !== 'convergence') {
            return;
        }
        if (this.convergence.isOpen) {
            if (this.tuneUri) {
                this.convergence.uri = this.tuneUri;
            }
            this.convergence.update({ type: 'show', payload: p });
        }
    }

    // ---- what the page asks ---------------------------------------------------------------------------------
    private async onPageMessage(view: ChartView, m: PageMessage): Promise<void> {
        if (m.type === 'reveal') {
            await this.reveal(m.file, m.line);
        } else if (m.type === 'apply') {
            await this.apply(view.uri, m.config);
        }
    }

    /** Opens the file at the (1-based) line with the line selected, in the editor column the panel is not in. */
    private async reveal(file: string, line: number): Promise<void> {
        try {
            const uri = vscode.Uri.file(file);
            const doc = await vscode.workspace.openTextDocument(uri);
            const shown = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString());
            const range = doc.lineAt(Math.min(line, doc.lineCount) - 1).range;
            const editor = await vscode.window.showTextDocument(doc, {
                viewColumn: shown?.viewColumn ?? vscode.ViewColumn.One, selection: range, preserveFocus: false,
            });
            editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
        } catch (err) {
            this.failed(`opening ${path.basename(file)}:${line}`, err);
        }
    }

    /** Writes a configuration into the operator's tiling: the server computes the edit, the editor applies it (so
     *  it can be undone, and it is refused where the file may not be edited). */
    private async apply(target: vscode.Uri | undefined, config: Record<string, number>): Promise<void> {
        const client = runningClient(this.client());
        if (!target || !client) {
            return;
        }
        try {
            const edit = await client.sendRequest<WorkspaceEdit | null>('tilewise/applyConfig', { uri: target.toString(), config });
            if (!edit) {
                void vscode.window.showInformationMessage(`tilewise: nothing to change for ${configText(config)}: the tiling already has it.`);
                return;
            }
            const converted = await client.protocol2CodeConverter.asWorkspaceEdit(edit);
            const ok = converted !== undefined && await vscode.workspace.applyEdit(converted);
            this.output.appendLine(`[apply] ${configText(config)} to ${target.fsPath}: ${ok ? 'applied' : 'refused'}`);
            if (ok) {
                void vscode.window.showInformationMessage(`tilewise: applied ${configText(config)}. Run the operator to measure it.`);
            } else {
                void vscode.window.showErrorMessage(`tilewise: the edit for ${configText(config)} could not be applied.`);
            }
        } catch (err) {
            this.failed('Apply', err);
        }
    }

    // ---- helpers --------------------------------------------------------------------------------------------
    private title(which: 'run' | 'convergence', uri: vscode.Uri): string {
        const name = path.basename(uri.fsPath);
        return which === 'run' ? `tilewise run: ${name}` : `tilewise tune: ${name}`;
    }

    /** A message with a button that runs `command` on `target`, then `after` (e.g. show the timeline it made). */
    private async offer(text: string, button: string, command: string, target: vscode.Uri, after?: () => Promise<void>): Promise<void> {
        const choice = await vscode.window.showInformationMessage(text, button);
        if (choice === button) {
            await vscode.commands.executeCommand(command, target.toString());
            await after?.();
        }
    }

    private failed(what: string, err: unknown): void {
        const message = err instanceof Error ? err.message : String(err);
        this.output.appendLine(`[charts] ${what} failed: ${message}`);
        void vscode.window.showErrorMessage(`tilewise: ${what} failed: ${message}`);
    }
}

/** The server's code lenses plus "Show pipeline timeline" at the "last: ..." lens once a run was timed (unless the
 *  server offers it itself): the client's half of "a code lens after a run". */
export function withTimelineLens(lenses: vscode.CodeLens[] | null | undefined, uri: vscode.Uri): vscode.CodeLens[] | null | undefined {
    if (!lenses) {
        return lenses;
    }
    const at = timelineLensAt(lenses.map((l) => ({ title: l.command?.title, command: l.command?.command })));
    if (at < 0) {
        return lenses;
    }
    const lens = new vscode.CodeLens(lenses[at].range, {
        title: 'Show pipeline timeline', command: 'tilewise.showTimeline', arguments: [uri.toString()],
    });
    return [...lenses.slice(0, at + 1), lens, ...lenses.slice(at + 1)];
}
