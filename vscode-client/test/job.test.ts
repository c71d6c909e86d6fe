import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { CancelSource, JobClient, JobSpec, JobUi, Jobs, REQUEST_CANCELLED } from '../src/job';

interface Token {
    id: number;
}

/** The editor: records the notification, messages and log lines; `pressCancel` is the notification's button. */
class FakeUi implements JobUi<Token> {
    titles: string[] = [];
    shown: string[] = []; // the notification's messages, in order
    logs: string[] = [];
    infos: string[] = [];
    errors: string[] = [];
    events: string[] = [];
    sources: (CancelSource<Token> & { disposed: boolean })[] = [];
    private cancelButton: (() => void) | undefined;

    progress<R>(title: string, task: (report: (m: string) => void, onCancel: (c: () => void) => void) => Promise<R>): Promise<R> {
        this.titles.push(title);
        return task((m) => this.shown.push(m), (c) => { this.cancelButton = c; });
    }

    pressCancel(): void {
        assert.ok(this.cancelButton, 'the notification has a Cancel button');
        this.cancelButton();
    }

    cancellation(): CancelSource<Token> {
        const source = {
            token: { id: this.sources.length },
            isCancelled: false,
            disposed: false,
            cancel() { this.isCancelled = true; },
            dispose() { this.disposed = true; },
        };
        this.sources.push(source);
        return source;
    }

    log(line: string): void { this.logs.push(line); }
    info(text: string): void { this.infos.push(text); }
    error(text: string): void { this.errors.push(text); }
    running(kind: string, on: boolean): void { this.events.push(`${kind} ${on}`); }
}

/** The language client: each request waits until the test answers it (`answer`, `fail`); `progress` is the server
 *  reporting on a token. */
class FakeClient implements JobClient<Token> {
    requests: { method: string; params: Record<string, unknown>; token: Token; answer(r: unknown): void; fail(e: unknown): void }[] = [];
    listeners = new Map<string, (m: string) => void>();

    onProgress(token: string, report: (m: string) => void) {
        this.listeners.set(token, report);
        return { dispose: () => { this.listeners.delete(token); } };
    }

    sendRequest<R>(method: string, params: Record<string, unknown>, token: Token): Promise<R> {
        return new Promise<R>((resolve, reject) => {
            this.requests.push({ method, params, token, answer: (r) => resolve(r as R), fail: reject });
        });
    }

    progress(token: unknown, message: string): void {
        this.listeners.get(String(token))?.(message);
    }
}

function spec(kind = 'tune', extra: Partial<JobSpec> = {}): JobSpec {
    return {
        kind, title: `tilewise: ${kind} of k.cpp`, method: `tilewise/${kind}`, params: { uri: 'file:///w/k.cpp' },
        first: 'starting', tag: `[${kind}]`, start: '/w/k.cpp', busy: `a ${kind} is already running`,
        cancelled: `${kind} cancelled`, what: kind === 'tune' ? 'Tune' : kind, ...extra,
    };
}

const tick = () => new Promise((r) => setImmediate(r));

test('a job shows its notification, the server\'s progress on its own token, and returns the result', async () => {
    const ui = new FakeUi();
    const client = new FakeClient();
    const jobs = new Jobs(ui);
    const done = jobs.run<{ best_us: number }>(client, spec());
    await tick();
    assert.equal(jobs.isRunning('tune'), true);
    const [req] = client.requests;
    assert.equal(req.method, 'tilewise/tune');
    assert.equal(req.params.uri, 'file:///w/k.cpp');
    const token = req.params.workDoneToken;
    assert.match(String(token), /^tilewise-tune-/);
    assert.equal(req.token, ui.sources[0].token); // the cancellation the notification's button drives
    client.progress(token, '3/32 configurations, best 20.1 µs');
    client.progress('someone-else', 'not ours');
    req.answer({ best_us: 20.1 });
    assert.deepEqual(await done, { status: 'done', result: { best_us: 20.1 } });
    assert.deepEqual(ui.titles, ['tilewise: tune of k.cpp']);
    assert.deepEqual(ui.shown, ['starting', '3/32 configurations, best 20.1 µs']);
    assert.deepEqual(ui.logs, ['[tune] /w/k.cpp']);
    assert.deepEqual(ui.events, ['tune true', 'tune false']);
    assert.deepEqual([ui.infos, ui.errors], [[], []]);
    assert.equal(client.listeners.size, 0, 'the progress listener is disposed');
    assert.equal(ui.sources[0].disposed, true);
    assert.equal(jobs.isRunning('tune'), false);
});

test('one job of a kind at a time; another kind runs beside it; two jobs never share a progress token', async () => {
    const ui = new FakeUi();
    const client = new FakeClient();
    const jobs = new Jobs(ui);
    const first = jobs.run(client, spec('tune'));
    assert.deepEqual(await jobs.run(client, spec('tune')), { status: 'busy' });
    assert.deepEqual(ui.infos, ['a tune is already running']);
    const verify = jobs.run(client, spec('verify'));
    await tick();
    assert.deepEqual(client.requests.map((r) => r.method), ['tilewise/tune', 'tilewise/verify']);
    assert.notEqual(client.requests[0].params.workDoneToken, client.requests[1].params.workDoneToken);
    client.requests[0].answer(1);
    client.requests[1].answer(2);
    assert.deepEqual(await Promise.all([first, verify]), [{ status: 'done', result: 1 }, { status: 'done', result: 2 }]);
    // once it ended, the kind is free again
    const again = jobs.run(client, spec('tune'));
    await tick();
    client.requests[2].answer(3);
    assert.deepEqual(await again, { status: 'done', result: 3 });
});

test('the notification\'s Cancel cancels the request: "cancelled" is said and logged, no error', async () => {
    const ui = new FakeUi();
    const client = new FakeClient();
    const jobs = new Jobs(ui);
    const job = jobs.run(client, spec());
    await tick();
    ui.pressCancel();
    assert.equal(ui.sources[0].isCancelled, true);
    client.requests[0].fail(new Error('Request tilewise/tune failed with message: cancelled'));
    assert.deepEqual(await job, { status: 'cancelled' });
    assert.deepEqual(ui.infos, ['tune cancelled']);
    assert.deepEqual(ui.logs, ['[tune] /w/k.cpp', '[tune] cancelled']);
    assert.deepEqual(ui.errors, []);
    assert.equal(jobs.isRunning('tune'), false);
});

test('cancel(kind) stops the running job of that kind (the "Cancel tuning" command), and says when none runs', async () => {
    const ui = new FakeUi();
    const client = new FakeClient();
    const jobs = new Jobs(ui);
    assert.equal(jobs.cancel('tune'), false);
    const tune = jobs.run(client, spec('tune'));
    const verify = jobs.run(client, spec('verify'));
    await tick();
    assert.equal(jobs.cancel('tune'), true);
    assert.deepEqual(ui.sources.map((s) => s.isCancelled), [true, false]); // the verify goes on
    client.requests[0].fail({ code: REQUEST_CANCELLED, message: 'cancelled' });
    client.requests[1].answer('ok');
    assert.deepEqual(await tune, { status: 'cancelled' });
    assert.deepEqual(await verify, { status: 'done', result: 'ok' });
});

test('the server answering RequestCancelled counts as cancelled even without our cancel', async () => {
    const ui = new FakeUi();
    const client = new FakeClient();
    const job = new Jobs(ui).run(client, spec('run'));
    await tick();
    client.requests[0].fail({ code: REQUEST_CANCELLED, message: 'cancelled by the server' });
    assert.deepEqual(await job, { status: 'cancelled' });
    assert.deepEqual(ui.infos, ['run cancelled']);
});

test('a failure logs the server\'s line and shows it, or hands it to the command\'s own handler', async () => {
    const ui = new FakeUi();
    const client = new FakeClient();
    const jobs = new Jobs(ui);
    const job = jobs.run(client, spec());
    await tick();
    client.requests[0].fail(new Error('tilewise.toml:3: no case named big'));
    assert.deepEqual(await job, { status: 'failed', message: 'tilewise.toml:3: no case named big' });
    assert.deepEqual(ui.errors, ['tilewise: Tune failed: tilewise.toml:3: no case named big']);
    assert.equal(ui.logs.at(-1), '[tune] failed: tilewise.toml:3: no case named big');

    const handled: string[] = [];
    const own = jobs.run(client, spec('optimize', { failed: (m) => handled.push(m) }));
    await tick();
    client.requests[1].fail('no API key');
    assert.deepEqual(await own, { status: 'failed', message: 'no API key' });
    assert.deepEqual(handled, ['no API key']);
    assert.equal(ui.errors.length, 1, 'the default message is not shown as well');
    assert.equal(ui.logs.at(-1), '[optimize] failed: no API key');
});

test('dispose cancels every running job', async () => {
    const ui = new FakeUi();
    const client = new FakeClient();
    const jobs = new Jobs(ui);
    const jobsRunning = [jobs.run(client, spec('tune')), jobs.run(client, spec('optimize'))];
    await tick();
    jobs.dispose();
    assert.deepEqual(ui.sources.map((s) => s.isCancelled), [true, true]);
    for (const r of client.requests) {
        r.fail(new Error('stopped'));
    }
    assert.deepEqual(await Promise.all(jobsRunning), [{ status: 'cancelled' }, { status: 'cancelled' }]);
});
