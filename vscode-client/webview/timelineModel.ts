// Pure layout of the pipeline timeline: which cores are drawn (a window of them: a 48-block run has 192 lanes,
// too many to read at once), one lane per pipe per drawn core, and the flat rows the ECharts custom series draws.
// No DOM and no ECharts here, so node --test covers it.
import { TimelinePayload, PIPES } from './payloads';

/** Cores drawn at once; the core selector pages through the rest. 8 cores x 4 pipes = 32 lanes still read. */
export const CORES_PER_VIEW = 8;

/** One page of the core selector: positions in payload.cores and a label such as "cores 8–15". */
export interface CoreWindow {
    label: string;
    indices: number[];
}

/** The pages of the core selector, in core order. One page (no selector needed) when all cores fit. */
export function coreWindows(p: TimelinePayload, size = CORES_PER_VIEW): CoreWindow[] {
    const cores = p.cores ?? [];
    const out: CoreWindow[] = [];
    for (let i = 0; i < cores.length; i += size) {
        const indices = [];
        for (let j = i; j < Math.min(i + size, cores.length); j++) {
            indices.push(j);
        }
        const first = cores[indices[0]].core;
        const last = cores[indices[indices.length - 1]].core;
        out.push({ label: first === last ? `core ${first}` : `cores ${first}–${last}`, indices });
    }
    return out;
}

export interface Lane {
    core: number; // the core's number (TimelineCore.core)
    pipe: number; // index into the payload's pipes
    label: string; // "core 3 · MTE2"
}

/** The pipes of a payload: its own list, else the default four. */
export function pipesOf(p: TimelinePayload): string[] {
    return p.pipes && p.pipes.length > 0 ? p.pipes : [...PIPES];
}

/** The pipes that get lanes, as indices into pipesOf(p): those with an event or a wait on any core of the payload
 *  (not only the drawn ones, so paging the cores keeps the lanes). The scalar unit's issue costs are no events, so
 *  a SCALAR lane is usually empty: it would only take room. All pipes when nothing at all was traced. */
export function shownPipes(p: TimelinePayload): number[] {
    const n = pipesOf(p).length;
    const used = new Array<boolean>(n).fill(false);
    for (const c of p.cores ?? []) {
        for (const row of [...(c.events ?? []), ...(c.waits ?? [])]) {
            if (row[0] >= 0 && row[0] < n) {
                used[row[0]] = true;
            }
        }
    }
    const out = used.flatMap((u, i) => (u ? [i] : []));
    return out.length > 0 ? out : used.map((_, i) => i);
}

/** The pipes without a lane (shownPipes' complement), for the legend to say why they are missing. */
export function hiddenPipes(p: TimelinePayload): number[] {
    const shown = new Set(shownPipes(p));
    return pipesOf(p).flatMap((_, i) => (shown.has(i) ? [] : [i]));
}

/** One lane per shown pipe per drawn core, core by core, pipes in the payload's order. With a single core drawn
 *  the label is the pipe alone (the heading names the core). */
export function lanes(p: TimelinePayload, indices: number[]): Lane[] {
    const pipes = pipesOf(p);
    const shown = shownPipes(p);
    const cores = p.cores ?? [];
    const out: Lane[] = [];
    for (const i of indices) {
        const core = cores[i].core;
        for (const pipe of shown) {
            const name = pipes[pipe];
            out.push({ core, pipe, label: indices.length === 1 ? name : `core ${core} · ${name}` });
        }
    }
    return out;
}

/** A drawn event: [lane, start, end, pipe, site, bytes, repeats, dur] (start, end, dur in µs). Flat arrays, as
 *  the custom series wants them; the first three are what dataZoom filters and the renderer places. */
export type EventRow = [number, number, number, number, number, number, number, number];
/** A drawn wait: [lane, start, end, pipe, cause, dur, waitedOnPipe] (waitedOnPipe -1 when the cause names none). */
export type WaitRow = [number, number, number, number, number, number, number];

/** The rows of the drawn cores: events and waits, core by core in payload order (the order locate() counts in). */
export function rows(p: TimelinePayload, indices: number[]): { events: EventRow[]; waits: WaitRow[] } {
    const shown = shownPipes(p);
    const nLanes = shown.length;
    const laneOf = new Map(shown.map((pipe, k) => [pipe, k])); // pipe index -> its lane within a core
    const causes = p.causes ?? [];
    const waitedOn = causes.map((c) => causePipe(c, pipesOf(p)));
    const cores = p.cores ?? [];
    const events: EventRow[] = [];
    const waits: WaitRow[] = [];
    indices.forEach((coreIdx, k) => {
        const core = cores[coreIdx];
        for (const [pipe, start, dur, site, bytes, repeats] of core.events ?? []) {
            const at = laneOf.get(pipe);
            if (at !== undefined) {
                events.push([k * nLanes + at, start, start + dur, pipe, site, bytes, repeats, dur]);
            }
        }
        for (const [pipe, start, dur, cause] of core.waits ?? []) {
            const at = laneOf.get(pipe);
            if (at !== undefined) {
                waits.push([k * nLanes + at, start, start + dur, pipe, cause, dur, waitedOn[cause] ?? -1]);
            }
        }
    });
    return { events, waits };
}

/** The pipe a wait's cause says it waited on ("DeQue: waits for MTE2's data" -> MTE2's index), or -1. The
 *  shading of an idle gap takes that pipe's colour: the gap is coloured by the dependency that held it. */
export function causePipe(cause: string, pipes: string[]): number {
    // after the colon is what it waits for; the API before it (e.g. "DeQue") names no pipe
    const tail = cause.includes(':') ? cause.slice(cause.indexOf(':') + 1) : cause;
    let best = -1;
    let at = Infinity;
    pipes.forEach((name, i) => {
        const m = new RegExp(`\\b${name}\\b`, 'i').exec(tail);
        if (m && m.index < at) {
            best = i;
            at = m.index;
        }
    });
    return best;
}

/** The span the axis shows: 0 to the last core's end (or the last event, whichever is later). */
export function extent(p: TimelinePayload): number {
    let end = 0;
    for (const c of p.cores ?? []) {
        end = Math.max(end, c.end_us);
        for (const e of c.events ?? []) {
            end = Math.max(end, e[1] + e[2]);
        }
    }
    return end;
}

/** An event's name: the API and its line ("DataCopy :42"), or the pipe when the site is unknown. */
export function eventName(p: TimelinePayload, site: number, pipe: number): string {
    const s = (p.sites ?? [])[site];
    return s ? `${s.api} :${s.line}` : pipesOf(p)[pipe] ?? '?';
}
