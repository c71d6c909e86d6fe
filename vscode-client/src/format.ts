// Text shown to the user for run and tune results. Pure, so tests pin the wording the e2e and users read.

/** The subset of the server's Measurement JSON (device/protocol.py) that the client shows. */
export interface Measurement {
    ok: boolean;
    correct?: boolean | null;
    max_abs_err?: number | null;
    time_us?: number | null;
    bottleneck?: string | null;
    block_dim?: number | null;
    case?: string | null;
    trace_path?: string | null;
    error?: { kind: string; message: string; file?: string | null; line?: number | null } | null;
}

/** The subset of the server's TuneResult JSON (search/tuner.py). */
export interface TuneResult {
    operator: string;
    best?: Record<string, number> | null;
    best_us?: number | null;
    baseline_us?: number | null;
    speedup?: number | null;
    evaluations: number;
    stopped?: boolean;
}

/** The subset of `tilewise/verifySuggestions`' answer (search/bank/suggest.py suggestion_json) the client shows. */
export interface SuggestResult {
    operator: string;
    suggestions: {
        motif: string;
        title: string;
        verified?: { correct: boolean; time_us?: number | null; speedup?: number | null; error?: string | null } | null;
    }[];
    problems?: string[];
}

function us(t: number): string {
    return `${t.toFixed(1)} µs`;
}

function where(e: NonNullable<Measurement['error']>): string {
    if (!e.file) {
        return '';
    }
    const name = e.file.split(/[\\/]/).pop();
    return e.line ? ` at ${name}:${e.line}` : ` in ${name}`;
}

/** Status bar text: `$(pulse) 44.3 µs · MTE2`, or what went wrong, or a plain label before any run. */
export function statusText(m: Measurement | undefined): string {
    if (m === undefined) {
        return '$(pulse) tilewise';
    }
    if (m.error) {
        return `$(error) ${m.error.kind}`;
    }
    if (m.time_us === null || m.time_us === undefined) {
        return '$(pulse) no time';
    }
    const bottleneck = m.bottleneck ? ` · ${m.bottleneck.toUpperCase()}` : '';
    const wrong = m.correct === false ? ' $(warning)' : '';
    return `$(pulse) ${us(m.time_us)}${bottleneck}${wrong}`;
}

export type Severity = 'info' | 'warning' | 'error';

/** The notification after a run: the time when it worked, the error (with its place) when not. */
export function runMessage(m: Measurement): { severity: Severity; text: string } {
    const caseName = m.case ? ` (case ${m.case})` : '';
    if (m.error) {
        return { severity: 'error', text: `Run failed${caseName}: ${m.error.kind}${where(m.error)}: ${m.error.message}` };
    }
    const time = m.time_us !== null && m.time_us !== undefined ? us(m.time_us) : 'no time';
    const parts = [time];
    if (m.bottleneck) {
        parts.push(`bottleneck ${m.bottleneck.toUpperCase()}`);
    }
    if (m.block_dim) {
        parts.push(`${m.block_dim} blocks`);
    }
    if (m.correct === false) {
        const err = m.max_abs_err !== null && m.max_abs_err !== undefined ? ` (max abs error ${m.max_abs_err})` : '';
        return { severity: 'warning', text: `Ran${caseName}, but the outputs are wrong${err}: ${parts.join(', ')}` };
    }
    const verdict = m.correct === true ? ', outputs correct' : '';
    return { severity: 'info', text: `Ran${caseName}: ${parts.join(', ')}${verdict}` };
}

/** The message after verifying the motifs that fit: the best measured one, else why none is offered. */
export function suggestMessage(r: SuggestResult): { severity: Severity; text: string } {
    const verified = r.suggestions.filter((s) => s.verified);
    if (r.suggestions.length === 0) {
        return { severity: 'info', text: `${r.operator}: no motif fits (none of the slow patterns the bank knows is here)` };
    }
    if (verified.length === 0) {
        return { severity: 'info', text: `${r.operator}: no suggestion could be verified (none has a deterministic rewrite)` };
    }
    const faster = verified
        .filter((s) => s.verified?.correct && (s.verified?.speedup ?? 0) > 1.0)
        .sort((a, b) => (b.verified?.speedup ?? 0) - (a.verified?.speedup ?? 0));
    if (faster.length === 0) {
        return { severity: 'warning', text: `${r.operator}: ${verified.length} verified, none correct and faster on this kernel` };
    }
    const best = faster[0];
    return {
        severity: 'info',
        text: `${r.operator}: ${faster.length} of ${verified.length} verified suggestions are faster; best ` +
            `${(best.verified?.speedup ?? 1).toFixed(2)}x: ${best.title}. Apply it from the "tilewise motifs" problem.`,
    };
}

/** The message at the end of a tune: `best 31.2 µs (1.42x)` and the configuration. */
export function tuneMessage(r: TuneResult): { severity: Severity; text: string } {
    if (r.best_us === null || r.best_us === undefined || !r.best) {
        return { severity: 'warning', text: `Tuning ${r.operator}: no correct configuration in ${r.evaluations} evaluations` };
    }
    const speedup = r.speedup ? ` (${r.speedup.toFixed(2)}x)` : '';
    const config = Object.entries(r.best).map(([k, v]) => `${k}=${v}`).join(', ');
    const stopped = r.stopped ? ', stopped early' : '';
    const hint = r.speedup && r.speedup > 1.0 ? '; apply it from the "tilewise tune" problem' : '';
    return {
        severity: 'info',
        text: `Tuning ${r.operator}: best ${us(r.best_us)}${speedup} with ${config} after ${r.evaluations} evaluations${stopped}${hint}`,
    };
}
