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

/** A unit for an axis of times: every tick and every duration of the chart in it, named once in the axis title. */
export interface TimeUnit {
    name: 'ns' | 'µs' | 'ms' | 's';
    us: number; // µs per unit
}

const TIME_UNITS: TimeUnit[] = [{ name: 'ns', us: 1e-3 }, { name: 'µs', us: 1 }, { name: 'ms', us: 1e3 }, { name: 's', us: 1e6 }];

/** The unit an axis spanning `spanUs` reads best in: the largest in which the span is at least 1 (a 900 ns span in
 *  ns, 2.5 µs in µs, 1.2 ms in ms), so its ticks are numbers from about 0.1 to 1000 with no unit jumps. */
export function timeUnit(spanUs: number): TimeUnit {
    const a = Math.abs(spanUs);
    if (!Number.isFinite(a) || a === 0) {
        return TIME_UNITS[1];
    }
    let best = TIME_UNITS[0];
    for (const u of TIME_UNITS) {
        if (a >= u.us) {
            best = u;
        }
    }
    return best;
}

/** An axis tick in the axis's unit, without the unit (the axis title has it): 200, 0.25, 1.5. Floating-point
 *  noise of the unit conversion (0.3 µs -> 300.00000000000006 ns) is rounded away. */
export function formatTick(us: number, unit: TimeUnit): string {
    const v = us / unit.us;
    if (!Number.isFinite(v)) {
        return '';
    }
    return String(Number(v.toPrecision(6)));
}

/** A time in a given unit, with it, three significant digits: 0.0200 µs, 350 ns, 1.23 ms. Durations in a tooltip
 *  read in the axis's unit, so they compare with the ticks. */
export function formatIn(us: number | null | undefined, unit: TimeUnit): string {
    if (us === null || us === undefined || !Number.isFinite(us)) {
        return '–';
    }
    const v = us / unit.us;
    if (v === 0) {
        return `0 ${unit.name}`;
    }
    const a = Math.abs(v);
    if (a >= 100) {
        return `${Math.round(v)} ${unit.name}`;
    }
    // three significant digits, in fixed notation however small
    const digits = Math.min(20, 2 - Math.floor(Math.log10(a)));
    return `${v.toFixed(digits)} ${unit.name}`;
}

/** A point in time in a given unit, with it, to a thousandth of the unit: "from 1.235 µs", "from 0.003 µs".
 *  Where on the axis, not how long: its precision is the axis's, not three significant digits. */
export function formatAt(us: number | null | undefined, unit: TimeUnit): string {
    if (us === null || us === undefined || !Number.isFinite(us)) {
        return '–';
    }
    return `${Number((us / unit.us).toFixed(3))} ${unit.name}`;
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
