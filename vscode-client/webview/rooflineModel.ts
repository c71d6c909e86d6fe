// Pure data of the roofline chart: the three time bars (launch overhead, the roofline = launch + HBM floor, the
// measured time), the pipes' busy ratios and which of them is the bottleneck. No DOM and no ECharts.
import { RooflinePayload } from './payloads';

export interface TimeBar {
    name: string;
    us: number;
    role: 'launch' | 'floor' | 'measured';
}

/** The time bars, bottom to top as a horizontal bar chart reads them: launch, roofline, measured. */
export function timeBars(p: RooflinePayload): TimeBar[] {
    return [
        { name: 'launch', us: p.launch_us, role: 'launch' },
        { name: 'roofline (launch + HBM floor)', us: p.floor_us, role: 'floor' },
        { name: 'measured', us: p.time_us, role: 'measured' },
    ];
}

/** The index of the bottleneck among the payload's pipe bars: the one `bottleneck` names (lower case in the
 *  payload), else the highest busy ratio; -1 when there are no pipes. */
export function bottleneckIndex(p: RooflinePayload): number {
    const pipes = p.pipes ?? [];
    if (p.bottleneck) {
        const named = pipes.findIndex((b) => b.pipe.toLowerCase() === p.bottleneck!.toLowerCase());
        if (named >= 0) {
            return named;
        }
    }
    let best = -1;
    pipes.forEach((b, i) => {
        if (best < 0 || b.ratio > pipes[best].ratio) {
            best = i;
        }
    });
    return best;
}

/** How far the measured time is above the roofline, as the factor a reader compares ("2.1x the roofline"). */
export function overRoofline(p: RooflinePayload): number {
    return p.floor_us > 0 ? p.time_us / p.floor_us : Infinity;
}

/** The bars drawn: the three times and one per pipe (what data-bars counts). */
export function barCount(p: RooflinePayload): number {
    return timeBars(p).length + (p.pipes ?? []).length;
}

/** Below this chart width the two charts stack (time bars above, pipes below): side by side, a VS Code panel
 *  beside an editor leaves the time axis too little room for its labels. */
export const STACK_BELOW_PX = 820;

/** A grid's box, as ECharts takes it (pixels, or a percentage of the chart). */
export interface GridBox {
    left: number | string;
    right: number | string;
    top: number;
    bottom?: number;
    height?: number;
}

/** Where the two charts go at a chart width: side by side or stacked, the chart's height, and what the labels
 *  need to stay inside their chart. */
export interface RooflineLayout {
    stacked: boolean;
    height: number;
    grids: [GridBox, GridBox];
    titles: [{ left: string | number; top: number }, { left: string | number; top: number }];
    /** The time bars' category labels wrap at this width (stacked), else one line. */
    categoryWidth?: number;
    /** The time plot's width in pixels, and how far past its right edge a bar's label may reach. */
    plotPx: number;
    spillPx: number;
    /** Ticks wanted on the time axis. */
    timeTicks: number;
    /** The measured bar's label on two lines ("3.56 µs" / "1.03× the roofline"). */
    twoLineLabel: boolean;
    /** Pipe names under the busy bars: all of them always; smaller or slanted when each has little room. */
    pipeFont: number;
    pipeRotate: number;
}

export function rooflineLayout(width: number, pipes = 4): RooflineLayout {
    const w = width > 0 ? width : 900;
    if (w < STACK_BELOW_PX) {
        const left = 124;
        const busyPx = Math.max(1, w - 52 - 16);
        const perPipe = busyPx / Math.max(1, pipes);
        return {
            stacked: true, height: 520,
            grids: [{ left, right: 16, top: 32, height: 176 }, { left: 52, right: 16, top: 296, bottom: 32 }],
            titles: [{ left: 8, top: 0 }, { left: 8, top: 262 }],
            categoryWidth: left - 14, plotPx: Math.max(1, w - left - 16), spillPx: 8,
            timeTicks: w < 480 ? 3 : 4, twoLineLabel: true,
            pipeFont: perPipe < 64 ? 10 : 12, pipeRotate: perPipe < 48 ? 30 : 0,
        };
    }
    const left = 190;
    const perPipe = (w * 0.34 - 16) / Math.max(1, pipes);
    return {
        stacked: false, height: 280,
        grids: [{ left, right: '47%', top: 32, bottom: 36 }, { left: '66%', right: 16, top: 32, bottom: 36 }],
        titles: [{ left: '2%', top: 0 }, { left: '63%', top: 0 }],
        // the label may run into the gap between the charts, not into the pipes' axis (at 66%, labels left of it)
        plotPx: w * 0.53 - left, spillPx: w * 0.06,
        timeTicks: 5, twoLineLabel: false,
        pipeFont: perPipe < 64 ? 10 : 12, pipeRotate: perPipe < 48 ? 30 : 0,
    };
}

/** The measured bar's label: its time and how far above the roofline it is. */
export function measuredLabel(p: RooflinePayload, time: string, twoLines: boolean): string {
    const over = overRoofline(p);
    if (!Number.isFinite(over)) {
        return time;
    }
    return `${time}${twoLines ? '\n' : ' ('}${over.toFixed(2)}× the roofline${twoLines ? '' : ')'}`;
}

/** Roughly how wide a label is drawn, in pixels (12 px sans-serif; the widest line of a multi-line one). */
export function labelPx(text: string, fontPx = 12): number {
    return Math.max(0, ...text.split('\n').map((line) => line.length)) * fontPx * 0.56 + 8;
}

/** The time axis's end as a factor of the longest bar: room right of it for its label (`label` px wide) within
 *  the plot (`plotPx`) and what may spill past its edge; at least 1.15, at most 4 (a plot too narrow for any). */
export function headroom(plotPx: number, label: number, spillPx: number): number {
    const bar = plotPx + spillPx - label; // where the longest bar may end so its label still fits
    if (bar <= plotPx / 4) {
        return 4;
    }
    return Math.min(4, Math.max(1.15, plotPx / bar));
}

/** The time axis's end: far enough right that every bar's label (its time, in `label` px) ends inside the plot
 *  or its allowed spill. */
export function timeAxisMax(bars: { us: number; label: number }[], plotPx: number, spillPx: number): number {
    let m = 0;
    for (const b of bars) {
        if (Number.isFinite(b.us) && b.us > 0) {
            m = Math.max(m, b.us * headroom(plotPx, b.label, spillPx));
        }
    }
    return m > 0 ? m : 1;
}
