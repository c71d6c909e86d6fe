// Pure data of the convergence plot: the best-so-far step line, where each point sits (failed and screened ones
// have no time of their own), the axis extent and the title line. No DOM and no ECharts, so node --test covers it.
import { ConvergencePayload, ConvergencePoint } from './payloads';

/** The best-so-far line: [evaluation, best time] at every ok point that was measured, as a step function of the
 *  evaluations. Failed and screened candidates do not move it. */
export function bestSoFar(points: ConvergencePoint[]): [number, number][] {
    const out: [number, number][] = [];
    let best = Infinity;
    for (const p of points) {
        if (p.status === 'ok' && typeof p.time_us === 'number' && Number.isFinite(p.time_us)) {
            best = Math.min(best, p.time_us);
            out.push([p.evaluation, best]);
        }
    }
    return out;
}

/** The y axis's top: the slowest time shown (points, shipped line) with a little headroom, rounded up to a nice
 *  number (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 times a power of ten) so the top tick is a round one like those
 *  under it; 1 when nothing is timed. */
export function yTop(p: ConvergencePayload): number {
    let top = 0;
    for (const pt of p.points ?? []) {
        if (typeof pt.time_us === 'number' && Number.isFinite(pt.time_us)) {
            top = Math.max(top, pt.time_us);
        }
    }
    if (typeof p.shipped_us === 'number') {
        top = Math.max(top, p.shipped_us);
    }
    return top > 0 ? niceCeil(top * 1.08) : 1;
}

const NICE = [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10];

/** The smallest nice number (NICE times a power of ten) at or above v > 0. */
export function niceCeil(v: number): number {
    if (!(v > 0) || !Number.isFinite(v)) {
        return 1;
    }
    const exp = Math.floor(Math.log10(v));
    const base = 10 ** exp;
    for (const m of NICE) {
        // a nice number within rounding error of v is v
        const n = Number((m * base).toPrecision(12));
        if (n >= v * (1 - 1e-12)) {
            return n;
        }
    }
    return Number((10 * base).toPrecision(12));
}

/** Where a point is drawn: at its time; one without a time (screened out, or failed before it was timed) sits on
 *  a row at the top of the plot, so it is still there to hover and click. */
export function pointY(pt: ConvergencePoint, top: number): number {
    return typeof pt.time_us === 'number' && Number.isFinite(pt.time_us) ? pt.time_us : top;
}

/** Where each point is drawn across: at its evaluation; the candidates screened out after the same number of
 *  measurements (all of them at that evaluation, on the top row) spread over the gap to the next one, in the order
 *  the search proposed them, so that none hides another and each can still be hovered and clicked. */
export function pointXs(points: ConvergencePoint[]): number[] {
    const screened = new Map<number, number>();
    for (const pt of points) {
        if (pt.status === 'screened') {
            screened.set(pt.evaluation, (screened.get(pt.evaluation) ?? 0) + 1);
        }
    }
    const seen = new Map<number, number>();
    return points.map((pt) => {
        if (pt.status !== 'screened') {
            return pt.evaluation;
        }
        const k = (seen.get(pt.evaluation) ?? 0) + 1;
        seen.set(pt.evaluation, k);
        return pt.evaluation + (SCREENED_SPREAD * k) / ((screened.get(pt.evaluation) ?? 1) + 1);
    });
}

/** The share of the gap between two evaluations the screened candidates spread over (the rest keeps them apart
 *  from the next measured point). */
const SCREENED_SPREAD = 0.8;

/** The x axis's end: the budget, or the last evaluation when the search went past it (the shipped one counts),
 *  and half an evaluation more, so the last point is drawn whole rather than cut by the plot's edge. */
export function xMax(p: ConvergencePayload): number {
    let m = p.budget || 1;
    for (const pt of p.points ?? []) {
        m = Math.max(m, pt.evaluation);
    }
    return m + X_PAD;
}

/** The x axis's start: half an evaluation before the first (0 or 1), so a point there is drawn whole too. */
export function xMin(p: ConvergencePayload): number {
    let m = 1;
    for (const pt of p.points ?? []) {
        m = Math.min(m, pt.evaluation);
    }
    return Math.min(0, m - X_PAD);
}

export const X_PAD = 0.5;

/** Counts by status, for the subtitle ("12 measured, 2 failed, 5 screened"). */
export function tally(points: ConvergencePoint[]): { ok: number; failed: number; screened: number; cached: number } {
    const t = { ok: 0, failed: 0, screened: 0, cached: 0 };
    for (const p of points) {
        t[p.status] += 1;
        if (p.cached) {
            t.cached += 1;
        }
    }
    return t;
}

/** Where the search stands: "running", "done" or "stopped" (cancelled before its budget ran out). */
export function state(p: ConvergencePayload): 'running' | 'done' | 'stopped' {
    return p.stopped ? 'stopped' : p.done ? 'done' : 'running';
}

/** The speed-up of the best over the shipped tiling (2.0 = twice as fast), when both are known. */
export function speedup(p: ConvergencePayload): number | undefined {
    const best = p.best_us ?? bestSoFar(p.points ?? []).at(-1)?.[1];
    return typeof best === 'number' && best > 0 && typeof p.shipped_us === 'number' ? p.shipped_us / best : undefined;
}
