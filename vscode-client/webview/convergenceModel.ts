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

/** The y axis's top: the slowest time shown (points, shipped line) with headroom; 1 when nothing is timed. */
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
    return top > 0 ? top * 1.15 : 1;
}

/** Where a point is drawn: at its time; one without a time (screened out, or failed before it was timed) sits on
 *  a row at the top of the plot, so it is still there to hover and click. */
export function pointY(pt: ConvergencePoint, top: number): number {
    return typeof pt.time_us === 'number' && Number.isFinite(pt.time_us) ? pt.time_us : top;
}

/** The x axis's end: the budget, or the last evaluation when the search went past it (the shipped one counts). */
export function xMax(p: ConvergencePayload): number {
    let m = p.budget || 1;
    for (const pt of p.points ?? []) {
        m = Math.max(m, pt.evaluation);
    }
    return m;
}

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
