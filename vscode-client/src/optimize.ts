// What "Optimize operator" shows and decides, without VS Code: the step lines of its output channel, the message at
// the end, the diff titles, and which optimised files may still be applied. Pure, so tests pin them.

/** One step of the closed loop (search/optimize.py Step.json). */
export interface OptimizeStep {
    index: number;
    stage: string; // baseline, tune, motif, llm, evolve
    what: string;
    accepted: boolean;
    time_us?: number | null;
    speedup?: number | null; // over the best before this step
    detail: string;
    evaluations?: number;
}

/** A file the loop changed: its text as the optimisation started from it, and as it left it. */
export interface OptimizedFile {
    path: string;
    original: string;
    optimized: string;
}

/** The answer of `tilewise/optimize` (search/optimize.py OptimizeResult.json), the part the client reads. */
export interface OptimizeResult {
    operator: string;
    baseline_us?: number | null;
    best_us?: number | null;
    speedup?: number | null;
    steps: OptimizeStep[];
    files: OptimizedFile[];
    evaluations: number;
    stopped?: boolean;
    problems?: string[];
}

export type Severity = 'info' | 'warning' | 'error';

/** Where the extension keeps the key (VS Code's secret storage), and how the server process receives it. */
export const LLM_KEY_SECRET = 'tilewise.llm.apiKey';
export const LLM_KEY_ENV = 'TILEWISE_LLM_API_KEY';
/** The budget when the user set none: the loop measures tiling configurations and kernel rewrites together. */
export const DEFAULT_OPTIMIZE_BUDGET = 48;

/** The server's environment: the editor's own, plus the stored key when there is one (never an empty key). */
export function serverEnv(base: NodeJS.ProcessEnv, key: string | undefined): NodeJS.ProcessEnv {
    return key ? { ...base, [LLM_KEY_ENV]: key } : base;
}

/** `tilewise.budget` when the user set it anywhere, else the optimisation's own default (the setting's default of
 * 32 is sized for a tiling search alone). */
export function optimizeBudget(
    inspected: { globalValue?: number; workspaceValue?: number; workspaceFolderValue?: number } | undefined,
): number {
    const set = inspected?.workspaceFolderValue ?? inspected?.workspaceValue ?? inspected?.globalValue;
    return typeof set === 'number' && set >= 1 ? set : DEFAULT_OPTIMIZE_BUDGET;
}

function us(t: number): string {
    return `${t.toFixed(1)} µs`;
}

function baseName(path: string): string {
    return path.split(/[\\/]/).pop() ?? path;
}

/** One line of the "tilewise optimize" channel:
 * `#2 motif pipe-sync: 23.4 µs (1.11x), accepted: correct on every case, 25.88 µs -> 23.38 µs`. */
export function stepLine(s: OptimizeStep): string {
    if (s.stage === 'baseline') {
        return `#${s.index} baseline: ${s.time_us !== null && s.time_us !== undefined ? us(s.time_us) : 'not measured'} (${s.what})`;
    }
    const time = s.time_us !== null && s.time_us !== undefined ? us(s.time_us) : 'not run';
    const gain = s.speedup !== null && s.speedup !== undefined ? ` (${s.speedup.toFixed(2)}x)` : '';
    const measured = s.evaluations ? `, ${s.evaluations} measured` : '';
    return `#${s.index} ${s.stage} ${s.what}: ${time}${gain}${measured}, ${s.accepted ? 'accepted' : 'rejected'}: ${s.detail}`;
}

/** The changed files whose optimised text differs from the original (the server sends only those; be sure). */
export function changedFiles(r: OptimizeResult): OptimizedFile[] {
    return (r.files ?? []).filter((f) => !sameText(f.original, f.optimized));
}

/** Whether the loop found something faster to apply. */
export function improved(r: OptimizeResult): boolean {
    return (r.speedup ?? 0) > 1.0 && changedFiles(r).length > 0;
}

/** The step that came closest when nothing was taken: the fastest measured try, else the last one. */
export function bestTry(r: OptimizeResult): OptimizeStep | undefined {
    const tries = r.steps.filter((s) => s.stage !== 'baseline');
    const measured = tries.filter((s) => typeof s.speedup === 'number');
    if (measured.length > 0) {
        return measured.reduce((a, b) => ((b.speedup ?? 0) > (a.speedup ?? 0) ? b : a));
    }
    return tries[tries.length - 1];
}

/** The message at the end: `AddCustom 1.52x faster (44.3 µs -> 29.1 µs) in 3 steps`, or why nothing is. */
export function summaryMessage(r: OptimizeResult): { severity: Severity; text: string } {
    const stopped = r.stopped ? ', stopped early' : '';
    if (r.baseline_us === null || r.baseline_us === undefined) {
        const why = r.problems?.[0] ?? 'no case ran';
        return { severity: 'error', text: `${r.operator}: could not measure the operator as it is: ${why}` };
    }
    if (improved(r) && r.best_us) {
        const taken = r.steps.filter((s) => s.accepted && s.stage !== 'baseline').length;
        return {
            severity: 'info',
            text: `${r.operator} ${(r.speedup ?? 1).toFixed(2)}x faster (${us(r.baseline_us)} -> ${us(r.best_us)}) ` +
                `in ${taken} step${taken === 1 ? '' : 's'}${stopped}`,
        };
    }
    const best = bestTry(r);
    const detail = best ? `; closest: ${best.stage} ${best.what}: ${best.detail}` : '';
    return {
        severity: 'info',
        text: `${r.operator}: no faster version found in ${r.evaluations} evaluations${stopped}${detail}`,
    };
}

/** The diff editor's title: `add_custom.cpp: original ↔ optimised (1.52x)`. */
export function diffTitle(path: string, speedup: number | null | undefined): string {
    const gain = speedup ? ` (${speedup.toFixed(2)}x)` : '';
    return `${baseName(path)}: original ↔ optimised${gain}`;
}

/** Equal texts, whatever the line endings (the server reads unopened files with Python's newline translation). */
export function sameText(a: string, b: string): boolean {
    return a === b || a.replace(/\r\n/g, '\n') === b.replace(/\r\n/g, '\n');
}

export interface ApplyPlan {
    apply: OptimizedFile[];
    already: string[]; // paths whose text is the optimised one already
    refused: { path: string; reason: string }[];
}

/** Which files may be written: only those whose current text (the editor's, else the disk's; undefined when it
 * cannot be read) is still the text the server optimised. A file edited since keeps the user's edit. */
export function planApply(files: OptimizedFile[], current: (path: string) => string | undefined): ApplyPlan {
    const plan: ApplyPlan = { apply: [], already: [], refused: [] };
    for (const f of files) {
        const now = current(f.path);
        if (now === undefined) {
            plan.refused.push({ path: f.path, reason: 'cannot be read' });
        } else if (sameText(now, f.optimized)) {
            plan.already.push(f.path);
        } else if (!sameText(now, f.original)) {
            plan.refused.push({ path: f.path, reason: 'changed since the optimisation started; optimise again' });
        } else {
            plan.apply.push(f);
        }
    }
    return plan;
}

/** What applying did, in one message. */
export function applyMessage(plan: ApplyPlan, written: boolean): { severity: Severity; text: string } {
    const parts: string[] = [];
    if (plan.apply.length > 0) {
        parts.push(written
            ? `applied to ${plan.apply.map((f) => baseName(f.path)).join(', ')} (undo restores the original)`
            : `could not apply to ${plan.apply.map((f) => baseName(f.path)).join(', ')}`);
    }
    if (plan.already.length > 0) {
        parts.push(`${plan.already.map(baseName).join(', ')} already optimised`);
    }
    for (const r of plan.refused) {
        parts.push(`${baseName(r.path)} not applied: it ${r.reason}`);
    }
    const severity: Severity = plan.refused.length > 0 || (plan.apply.length > 0 && !written) ? 'warning' : 'info';
    return { severity, text: parts.length > 0 ? parts.join('; ') : 'nothing to apply' };
}
