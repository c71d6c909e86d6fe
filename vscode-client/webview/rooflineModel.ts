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
