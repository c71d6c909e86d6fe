// Pure parts of the chart panels (charts.ts), kept free of the vscode module so node --test covers them: the
// webview's page and its content security policy, the checking of what the page posts back, the messages shown
// when there is nothing to draw, and where the "Show pipeline timeline" lens goes.

/** The page of a chart panel: only the bundle (media/charts.js) runs, by its nonce. Styles may be inline because
 *  ECharts positions its SVG and tooltip with style attributes and the bundle injects its own stylesheet (it is
 *  one file, shared with the CLI's HTML report); nothing at all may load from the network. */
export function webviewHtml(o: { cspSource: string; nonce: string; script: string; title: string }): string {
    const csp = [
        "default-src 'none'",
        `img-src ${o.cspSource} data:`,
        `style-src ${o.cspSource} 'unsafe-inline'`,
        `font-src ${o.cspSource}`,
        `script-src 'nonce-${o.nonce}'`,
    ].join('; ');
    return [
        '<!DOCTYPE html>',
        '<html lang="en">',
        '<head>',
        '<meta charset="utf-8">',
        `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        `<title>${escapeHtml(o.title)}</title>`,
        '</head>',
        '<body>',
        '<div id="tilewise-root"></div>',
        `<script nonce="${o.nonce}" src="${escapeHtml(o.script)}"></script>`,
        '</body>',
        '</html>',
    ].join('\n');
}

function escapeHtml(s: string): string {
    return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** What a chart page may post. Anything else (or a malformed one) is ignored: the page shows data from the
 *  server, and a message is only trusted as far as its shape is checked here. */
export type PageMessage =
    | { type: 'ready' }
    | { type: 'reveal'; file: string; line: number }
    | { type: 'apply'; config: Record<string, number> };

export function parsePageMessage(m: unknown): PageMessage | undefined {
    if (typeof m !== 'object' || m === null) {
        return undefined;
    }
    const o = m as Record<string, unknown>;
    if (o.type === 'ready') {
        return { type: 'ready' };
    }
    if (o.type === 'reveal' && typeof o.file === 'string' && o.file !== '' && Number.isInteger(o.line) && (o.line as number) >= 1) {
        return { type: 'reveal', file: o.file, line: o.line as number };
    }
    if (o.type === 'apply' && typeof o.config === 'object' && o.config !== null && !Array.isArray(o.config)) {
        const entries = Object.entries(o.config as Record<string, unknown>);
        if (entries.length > 0 && entries.every(([, v]) => typeof v === 'number' && Number.isFinite(v))) {
            return { type: 'apply', config: Object.fromEntries(entries) as Record<string, number> };
        }
    }
    return undefined;
}

/** A configuration as the messages show it: "tile=64, buffers=2". */
export function configText(config: Record<string, number>): string {
    return Object.entries(config).map(([k, v]) => `${k}=${v}`).join(', ');
}

/** What to say when the server has no data for a chart yet. */
export function nothingYet(kind: 'timeline' | 'roofline' | 'convergence', file: string): string {
    return kind === 'convergence'
        ? `tilewise: no tune of ${file} yet. Run "Tune tiling" first: the convergence plot shows the last tune.`
        : `tilewise: no run of ${file} yet. Run the operator first ("Run on emulator"): the ${kind} shows the last run.`;
}

/** Where a "Show pipeline timeline" lens belongs among the server's lenses: at the "last: 44.3 µs ..." lens (a
 *  timed run exists), unless the server already offers the command. -1: no lens to add. */
export function timelineLensAt(lenses: { title?: string; command?: string }[]): number {
    if (lenses.some((l) => l.command === 'tilewise.showTimeline')) {
        return -1;
    }
    return lenses.findIndex((l) => typeof l.title === 'string' && /^last: [\d.]+/.test(l.title));
}
