// The chart payloads: the TypeScript twin of server/report/payloads.py (pydantic), the one contract between the
// Python side (the language server's `tilewise/charts`, the CLI's --html reports) and this bundle. A change there
// changes it here. Times are microseconds; a timeline's times are kernel-relative (0 = the kernel starts).

/** A tiling configuration: parameter name -> value. */
export type Config = Record<string, number>;

export const PIPES = ['SCALAR', 'VECTOR', 'MTE2', 'MTE3'] as const;

/** One call site: an API called on a source line (absolute path of the user's file, 1-based line). */
export interface TimelineSite {
    api: string;
    file: string;
    line: number;
}

/** (pipe, start_us, dur_us, site, bytes, repeats): `pipe` indexes TimelinePayload.pipes, `site` .sites.
 *  Rows, not objects: a run can have hundreds of thousands of events. */
export type TimelineEvent = [number, number, number, number, number, number];
/** (pipe, start_us, dur_us, cause): the pipe stood idle waiting on a dependency; `cause` indexes .causes. */
export type TimelineWait = [number, number, number, number];

export interface TimelineCore {
    core: number;
    end_us: number;
    events?: TimelineEvent[];
    waits?: TimelineWait[];
}

export interface TimelinePayload {
    kind: 'timeline';
    operator: string;
    case?: string | null;
    chip?: string | null;
    time_us?: number | null;
    launch_us?: number | null;
    block_dim?: number | null;
    pipes?: string[];
    sites?: TimelineSite[];
    causes?: string[];
    cores?: TimelineCore[];
    core_count?: number;
    truncated?: boolean;
}

export interface ConvergencePoint {
    evaluation: number;
    config: Config;
    time_us?: number | null;
    status: 'ok' | 'failed' | 'screened';
    cached?: boolean;
    reason?: string | null;
}

export interface ConvergencePayload {
    kind: 'convergence';
    source?: 'tune' | 'optimize';
    operator: string;
    strategy: string;
    budget: number;
    cases?: string[];
    shipped_us?: number | null;
    shipped_config?: Config;
    best_us?: number | null;
    best_config?: Config | null;
    points?: ConvergencePoint[];
    done?: boolean;
    stopped?: boolean;
}

export interface PipeBar {
    pipe: string;
    busy_us: number;
    ratio: number;
}

export interface RooflinePayload {
    kind: 'roofline';
    operator: string;
    case?: string | null;
    chip: string;
    time_us: number;
    launch_us: number;
    kernel_us: number;
    bytes_read: number;
    bytes_written: number;
    /** What crossed HBM during the kernel (L2 misses and write-backs); the floor counts these at HBM speed. */
    hbm_bytes?: number;
    hbm_gbps: number;
    hbm_floor_us: number;
    floor_us: number;
    efficiency: number;
    pipes?: PipeBar[];
    bottleneck?: string | null;
    verdict?: string;
}

export type ChartPayload = TimelinePayload | ConvergencePayload | RooflinePayload;
export type ChartKind = ChartPayload['kind'];

/** What an `--html` report embeds: a title and the charts, drawn in order. */
export interface ReportPayload {
    title: string;
    subtitle?: string;
    charts?: ChartPayload[];
}

const KINDS: readonly string[] = ['timeline', 'convergence', 'roofline'];

/** Whether a value is a chart payload this bundle can draw (by its `kind`). */
export function isChart(value: unknown): value is ChartPayload {
    return typeof value === 'object' && value !== null && KINDS.includes((value as { kind?: unknown }).kind as string);
}

/** Any of: a ReportPayload, one chart payload, a list of them -> a report (what the page draws, in order).
 *  The webview's "show" message and the report page share this, so either may send any of the three. */
export function asReport(value: unknown): ReportPayload {
    if (Array.isArray(value)) {
        return { title: '', charts: value.filter(isChart) };
    }
    if (isChart(value)) {
        return { title: '', charts: [value] };
    }
    if (typeof value === 'object' && value !== null && Array.isArray((value as ReportPayload).charts)) {
        const r = value as ReportPayload;
        return { title: String(r.title ?? ''), subtitle: r.subtitle ?? '', charts: r.charts!.filter(isChart) };
    }
    return { title: '', charts: [] };
}
