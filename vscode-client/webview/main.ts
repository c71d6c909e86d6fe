// Entry point of the charts bundle (media/charts.js), in two modes:
// - the HTML report of `tilewise run|tune --html`: the page holds the data in <script id="tilewise-report"> and
//   a <div id="tilewise-root">; every chart is drawn in order, each in a section with a heading;
// - a VS Code webview (acquireVsCodeApi exists): the extension sends {type: "show", payload} (a chart payload, a
//   list of them or a ReportPayload; it replaces what is shown, or updates it in place when the same kinds come
//   again, as during a tune); clicks come back as {type: "reveal", file, line} and {type: "apply", config}, and
//   {type: "ready"} says the page can take data.
// Either way window.tilewiseCharts.locate(kind, index) gives tests the page coordinates of a drawn item.
import { ChartHandle, Host, Point } from './chart';
import { drawConvergence } from './convergence';
import { ChartKind, ChartPayload, ReportPayload, asReport } from './payloads';
import { drawRoofline } from './roofline';
import { injectStyle } from './style';
import { Theme, readTheme, watchTheme } from './theme';
import { drawTimeline } from './timeline';

interface VsCodeApi {
    postMessage(message: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

interface Section {
    kind: ChartKind;
    heading: HTMLElement;
    handle: ChartHandle<ChartPayload> | undefined;
}

interface ShowMessage {
    type: 'show';
    payload: unknown;
    focus?: ChartKind; // scroll this chart into view
    empty?: string; // what to say when there is nothing to draw
}

let sections: Section[] = [];
let theme: Theme;
let host: Host = {};

function root(): HTMLElement {
    let el = document.getElementById('tilewise-root');
    if (!el) {
        el = document.createElement('div');
        el.id = 'tilewise-root';
        document.body.appendChild(el);
    }
    el.classList.add('tw-page');
    return el;
}

function heading(c: ChartPayload): string {
    const where = 'case' in c && c.case ? ` (case ${c.case})` : '';
    switch (c.kind) {
        case 'timeline':
            return `Pipeline timeline — ${c.operator}${where}`;
        case 'convergence':
            return `${c.source === 'optimize' ? 'Optimization' : 'Tuning'} convergence — ${c.operator}`;
        case 'roofline':
            return `Roofline and pipes — ${c.operator}${where}`;
    }
}

function draw(section: HTMLElement, c: ChartPayload): ChartHandle<ChartPayload> {
    switch (c.kind) {
        case 'timeline':
            return drawTimeline(section, c, theme, host) as ChartHandle<ChartPayload>;
        case 'convergence':
            return drawConvergence(section, c, theme, host) as ChartHandle<ChartPayload>;
        case 'roofline':
            return drawRoofline(section, c, theme) as ChartHandle<ChartPayload>;
    }
}

/** Draws a report: in place when the same kinds are shown already (zoom, core page and selection survive a live
 *  update), from scratch otherwise. A chart that throws shows its error and leaves the others standing. */
function show(report: ReportPayload, focus?: ChartKind, empty?: string): void {
    const page = root();
    const charts = report.charts ?? [];
    const same = sections.length > 0 && sections.length === charts.length && sections.every((s, i) => s.kind === charts[i].kind);
    if (same) {
        charts.forEach((c, i) => {
            sections[i].heading.textContent = heading(c);
            try {
                sections[i].handle?.update(c);
            } catch (err) {
                console.error('tilewise charts:', err);
            }
        });
    } else {
        sections.forEach((s) => s.handle?.dispose());
        sections = [];
        page.replaceChildren();
        if (report.title) {
            page.appendChild(Object.assign(document.createElement('h1'), { textContent: report.title }));
        }
        if (report.subtitle) {
            page.appendChild(Object.assign(document.createElement('p'), { className: 'tw-subtitle', textContent: report.subtitle }));
        }
        if (charts.length === 0) {
            page.appendChild(Object.assign(document.createElement('p'), { className: 'tw-empty', textContent: empty ?? 'Nothing to show yet.' }));
        }
        for (const c of charts) {
            const section = page.appendChild(document.createElement('section'));
            section.className = 'tw-section';
            section.dataset.section = c.kind;
            const h = section.appendChild(document.createElement('h2'));
            h.textContent = heading(c);
            let handle: ChartHandle<ChartPayload> | undefined;
            try {
                handle = draw(section, c);
            } catch (err) {
                console.error('tilewise charts:', err);
                const p = section.appendChild(document.createElement('p'));
                p.className = 'tw-error';
                p.dataset.error = 'true';
                p.textContent = `This chart could not be drawn: ${err instanceof Error ? err.message : String(err)}`;
            }
            sections.push({ kind: c.kind, heading: h, handle });
        }
    }
    if (focus) {
        document.querySelector(`[data-section="${focus}"]`)?.scrollIntoView({ block: 'start' });
    }
}

/** The page coordinates of the index-th drawn timeline event or convergence point (the first chart of that kind),
 *  or null when there is no such item. */
function locate(kind: ChartKind, index = 0): Point | null {
    const s = sections.find((x) => x.kind === kind);
    return s?.handle?.locate(index) ?? null;
}

function boot(): void {
    injectStyle();
    theme = readTheme();
    watchTheme(() => {
        theme = readTheme();
        sections.forEach((s) => s.handle?.retheme(theme));
    });
    (window as unknown as { tilewiseCharts: unknown }).tilewiseCharts = { locate };

    const data = document.getElementById('tilewise-report');
    if (data) {
        // the HTML report: no editor to reveal lines in or apply configurations to
        host = {};
        try {
            show(asReport(JSON.parse(data.textContent ?? 'null')));
        } catch (err) {
            root().textContent = `The report's data could not be read: ${err instanceof Error ? err.message : String(err)}`;
        }
        return;
    }
    if (typeof acquireVsCodeApi === 'function') {
        const vscode = acquireVsCodeApi();
        host = {
            reveal: (file, line) => vscode.postMessage({ type: 'reveal', file, line }),
            apply: (config) => vscode.postMessage({ type: 'apply', config }),
        };
        window.addEventListener('message', (e: MessageEvent) => {
            const m = e.data as ShowMessage | undefined;
            if (m && m.type === 'show') {
                show(asReport(m.payload), m.focus, m.empty);
            }
        });
        vscode.postMessage({ type: 'ready' });
    }
}

if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', boot);
} else {
    boot();
}
