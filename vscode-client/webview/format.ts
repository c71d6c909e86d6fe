// Pure formatting for the charts' labels and tooltips: durations (payload times are µs), byte counts, ratios,
// configurations, and HTML escaping (tooltips are HTML strings, and the file names and API names come from the
// user's sources). No DOM and no ECharts here, so node --test covers it.

/** A duration given in µs, in the unit that reads best: ns below 1 µs, µs, ms, s. Three significant digits. */
export function formatUs(us: number | null | undefined): string {
    if (us === null || us === undefined || !Number.isFinite(us)) {
        return '–';
    }
    const a = Math.abs(us);
    if (a === 0) {
        return '0 µs';
    }
    if (a < 1) {
        return `${sig(us * 1000)} ns`;
    }
    if (a < 1000) {
        return `${sig(us)} µs`;
    }
    if (a < 1e6) {
        return `${sig(us / 1000)} ms`;
    }
    return `${sig(us / 1e6)} s`;
}

/** Three significant digits without exponent notation or trailing zeros beyond one decimal (12.3, 1.23, 123). */
function sig(v: number): string {
    const a = Math.abs(v);
    const digits = a >= 100 ? 0 : a >= 10 ? 1 : 2;
    return v.toFixed(digits);
}

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** A byte count in binary units (the UB and tile sizes AscendC users think in are powers of two): 512 B, 4 KiB. */
export function formatBytes(n: number | null | undefined): string {
    if (n === null || n === undefined || !Number.isFinite(n)) {
        return '–';
    }
    let v = n;
    let u = 0;
    while (Math.abs(v) >= 1024 && u < BYTE_UNITS.length - 1) {
        v /= 1024;
        u += 1;
    }
    if (u === 0) {
        return `${Math.round(v)} B`;
    }
    // whole numbers (the common case: 32 KiB) without a decimal; others with one
    return `${Number.isInteger(v) ? v : v.toFixed(1)} ${BYTE_UNITS[u]}`;
}

/** A ratio in [0, 1] as a whole percentage (0.724 -> "72%"); below 1% keeps one decimal so idle pipes read as such. */
export function formatRatio(r: number | null | undefined): string {
    if (r === null || r === undefined || !Number.isFinite(r)) {
        return '–';
    }
    const pct = r * 100;
    return pct > 0 && pct < 1 ? `${pct.toFixed(1)}%` : `${Math.round(pct)}%`;
}

/** A configuration as "name=value" pairs in the payload's order (the tuner's parameter order). */
export function formatConfig(config: Record<string, number> | null | undefined): string {
    if (!config) {
        return '';
    }
    return Object.entries(config).map(([k, v]) => `${k}=${v}`).join(', ');
}

/** The last path component, for labels (the full path stays in the tooltip). Handles both separators. */
export function baseName(file: string): string {
    const i = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
    return i >= 0 ? file.slice(i + 1) : file;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for the HTML of a tooltip. */
export function escapeHtml(text: string): string {
    return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}
