// One cancellable, progress-reporting request to the server (run, trace, tune, verify suggestions, optimize),
// written once: a notification with a Cancel button while the request runs, the server's `window/workDoneProgress`
// messages on our own token shown in it, one job of a kind at a time, and the same three endings (a result; "cancelled,
// what was found stays"; "failed: <the server's line>"). The editor and the language client are injected, so this
// module does not import vscode and the tests drive it with fakes (test/job.test.ts).

/** JSON-RPC code the server answers with when a request was cancelled (LSP RequestCancelled). */
export const REQUEST_CANCELLED = -32800;

export interface Disposable {
    dispose(): void;
}

/** A cancellation source whose token the language client's sendRequest takes (vscode.CancellationTokenSource). */
export interface CancelSource<T> {
    readonly token: T;
    readonly isCancelled: boolean;
    cancel(): void;
    dispose(): void;
}

/** The language client, as far as a job needs it. */
export interface JobClient<T> {
    /** Calls `report` with each `report` message the server sends on `token`; disposing stops listening. */
    onProgress(token: string, report: (message: string) => void): Disposable;
    sendRequest<R>(method: string, params: Record<string, unknown>, token: T): PromiseLike<R>;
}

/** The editor, as far as a job needs it. */
export interface JobUi<T> {
    /** Shows a cancellable notification titled `title` while `task` runs: `report` sets its message, and the function
     *  given to `onCancel` runs when the user presses Cancel. */
    progress<R>(
        title: string,
        task: (report: (message: string) => void, onCancel: (cancel: () => void) => void) => Promise<R>,
    ): PromiseLike<R>;
    cancellation(): CancelSource<T>;
    log(line: string): void;
    info(text: string): void;
    error(text: string): void;
    /** Told when a job of `kind` starts (true) and ends (false), e.g. for the `tilewise.tuning` context key. */
    running?(kind: string, on: boolean): void;
}

export interface JobSpec {
    /** One job of a kind at a time: `tune`, `run` (run and trace), `verify`, `optimize`. */
    kind: string;
    /** The notification's title, e.g. "tilewise: tuning the tiling of add_custom.cpp". */
    title: string;
    /** The request, e.g. `tilewise/tune`, and its parameters (the job adds `workDoneToken`). */
    method: string;
    params: Record<string, unknown>;
    /** The notification's first message, until the server reports. */
    first: string;
    /** The output channel's prefix (`[tune]`) and the line logged as the job starts. */
    tag: string;
    start: string;
    /** Said when a job of this kind is already running, and when this one was cancelled. */
    busy: string;
    cancelled: string;
    /** The command's name in "tilewise: Tune failed: ...". */
    what: string;
    /** Replaces the default error message (the failure is logged either way), e.g. to offer a fix. */
    failed?: (message: string) => void;
}

export type JobOutcome<R> =
    | { status: 'done'; result: R }
    | { status: 'cancelled' }
    | { status: 'failed'; message: string }
    | { status: 'busy' };

/** The running jobs, by kind. `run` starts one; `cancel` stops the running one of a kind. */
export class Jobs<T> {
    private readonly live = new Map<string, CancelSource<T>>();
    private count = 0;

    constructor(private readonly ui: JobUi<T>) {}

    isRunning(kind: string): boolean {
        return this.live.has(kind);
    }

    /** Cancels the running job of `kind`; false when there is none. */
    cancel(kind: string): boolean {
        const source = this.live.get(kind);
        source?.cancel();
        return source !== undefined;
    }

    dispose(): void {
        for (const source of this.live.values()) {
            source.cancel();
        }
    }

    async run<R>(client: JobClient<T>, spec: JobSpec): Promise<JobOutcome<R>> {
        if (this.live.has(spec.kind)) {
            this.ui.info(spec.busy);
            return { status: 'busy' };
        }
        const source = this.ui.cancellation();
        this.live.set(spec.kind, source);
        this.ui.running?.(spec.kind, true);
        // The server reports on our token, so its "3/32 configurations, best ..." lands in this notification.
        const workDoneToken = `tilewise-${spec.kind}-${Date.now()}-${++this.count}`;
        try {
            return await this.ui.progress(spec.title, async (report, onCancel) => {
                onCancel(() => source.cancel());
                report(spec.first);
                this.ui.log(`${spec.tag} ${spec.start}`);
                const listening = client.onProgress(workDoneToken, report);
                try {
                    const result = await client.sendRequest<R>(
                        spec.method, { ...spec.params, workDoneToken }, source.token);
                    return { status: 'done', result } as const;
                } catch (err) {
                    return this.ended(err, source, spec);
                } finally {
                    listening.dispose();
                }
            });
        } finally {
            this.live.delete(spec.kind);
            source.dispose();
            this.ui.running?.(spec.kind, false);
        }
    }

    private ended(err: unknown, source: CancelSource<T>, spec: JobSpec): JobOutcome<never> {
        if (source.isCancelled || errorCode(err) === REQUEST_CANCELLED) {
            this.ui.log(`${spec.tag} cancelled`);
            this.ui.info(spec.cancelled);
            return { status: 'cancelled' };
        }
        const message = err instanceof Error ? err.message : String(err);
        this.ui.log(`${spec.tag} failed: ${message}`);
        if (spec.failed) {
            spec.failed(message);
        } else {
            this.ui.error(`tilewise: ${spec.what} failed: ${message}`);
        }
        return { status: 'failed', message };
    }
}

function errorCode(err: unknown): number | undefined {
    return typeof err === 'object' && err !== null && 'code' in err ? Number((err as { code: unknown }).code) : undefined;
}
