import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { runMessage, statusText, suggestMessage, tuneMessage } from '../src/format';

const good = { ok: true, correct: true, time_us: 44.31, bottleneck: 'mte2', block_dim: 48, case: 'fp16_base' };

test('status bar: time and bottleneck, errors, nothing yet', () => {
    assert.equal(statusText(good), '$(pulse) 44.3 µs · MTE2');
    assert.equal(statusText({ ...good, bottleneck: null }), '$(pulse) 44.3 µs');
    assert.equal(statusText({ ...good, correct: false }), '$(pulse) 44.3 µs · MTE2 $(warning)');
    assert.equal(statusText({ ok: false, error: { kind: 'compile', message: 'x' } }), '$(error) compile');
    assert.equal(statusText(undefined), '$(pulse) tilewise');
});

test('run message: time, bottleneck, blocks, correctness', () => {
    assert.deepEqual(runMessage(good), {
        severity: 'info', text: 'Ran (case fp16_base): 44.3 µs, bottleneck MTE2, 48 blocks, outputs correct',
    });
    const wrong = runMessage({ ...good, correct: false, max_abs_err: 0.5 });
    assert.equal(wrong.severity, 'warning');
    assert.match(wrong.text, /outputs are wrong \(max abs error 0\.5\)/);
});

test('run message: an error names its kind and place', () => {
    const m = runMessage({
        ok: false, case: 'fp16_base',
        error: { kind: 'gm-out-of-bounds', message: 'DataCopy reads past x', file: '/w/op_kernel/add.cpp', line: 42 },
    });
    assert.deepEqual(m, {
        severity: 'error', text: 'Run failed (case fp16_base): gm-out-of-bounds at add.cpp:42: DataCopy reads past x',
    });
    assert.equal(runMessage({ ok: false, error: { kind: 'timeout', message: 'over 60 s' } }).text, 'Run failed: timeout: over 60 s');
});

test('tune message: best time, speedup and configuration', () => {
    const r = { operator: 'AddCustom', best: { BUFFER_NUM: 2, TILE_LENGTH: 8192 }, best_us: 31.24, baseline_us: 44.3, speedup: 1.418, evaluations: 8 };
    const m = tuneMessage(r);
    assert.equal(m.severity, 'info');
    assert.match(m.text, /best 31\.2 µs \(1\.42x\) with BUFFER_NUM=2, TILE_LENGTH=8192 after 8 evaluations/);
    assert.match(m.text, /apply it/);
    assert.doesNotMatch(tuneMessage({ ...r, speedup: 1.0 }).text, /apply it/);
    assert.match(tuneMessage({ ...r, stopped: true }).text, /stopped early/);
    const none = tuneMessage({ operator: 'AddCustom', best: null, best_us: null, evaluations: 3 });
    assert.equal(none.severity, 'warning');
    assert.match(none.text, /no correct configuration in 3 evaluations/);
});

test('suggest message: the best measured motif, or why none is offered', () => {
    const fits = (speedup: number | null, correct = true) => ({
        motif: 'pipe-sync', title: 'Order the stages', verified: { correct, speedup, time_us: 4.4 },
    });
    assert.deepEqual(suggestMessage({ operator: 'Scale', suggestions: [fits(1.05), { motif: 'x', title: 'X', verified: null }] }), {
        severity: 'info',
        text: 'Scale: 1 of 1 verified suggestions are faster; best 1.05x: Order the stages. Apply it from the "tilewise motifs" problem.',
    });
    assert.equal(suggestMessage({ operator: 'Scale', suggestions: [fits(0.98), fits(1.2, false)] }).severity, 'warning');
    assert.match(suggestMessage({ operator: 'Scale', suggestions: [] }).text, /no motif fits/);
});
