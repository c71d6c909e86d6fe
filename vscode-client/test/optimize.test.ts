import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import {
    DEFAULT_OPTIMIZE_BUDGET, LLM_KEY_ENV, OptimizeResult, OptimizeStep, applyMessage, bestTry, changedFiles, diffTitle,
    improved, optimizeBudget, planApply, sameText, serverEnv, stepLine, summaryMessage,
} from '../src/optimize';

const baseline: OptimizeStep = {
    index: 0, stage: 'baseline', what: 'the operator as it is', accepted: true, time_us: 27.1333, speedup: null,
    detail: 'measured', evaluations: 0,
};
const tune: OptimizeStep = {
    index: 1, stage: 'tune', what: "tiling {'TILE_LENGTH': 8192}", accepted: true, time_us: 25.8806, speedup: 1.0484,
    detail: 'correct on every case, 27.13 µs -> 25.88 µs', evaluations: 8,
};
const motif: OptimizeStep = {
    index: 2, stage: 'motif', what: 'pipe-sync', accepted: true, time_us: 23.3769, speedup: 1.1071,
    detail: 'correct on every case, 25.88 µs -> 23.38 µs', evaluations: 1,
};
const noTune: OptimizeStep = {
    index: 3, stage: 'tune', what: 'tiling', accepted: false, time_us: null, speedup: null,
    detail: '2 configurations: none beat the current one', evaluations: 2,
};
const kernel = { path: '/w/op/op_kernel/add_custom.cpp', original: 'a\nPipeBarrier<PIPE_ALL>();\n', optimized: 'a\n' };
const host = { path: '/w/op/op_host/add_custom.cpp', original: 'T = 2048;\n', optimized: 'T = 8192;\n' };
const faster: OptimizeResult = {
    operator: 'AddCustom', baseline_us: 27.1333, best_us: 23.3769, speedup: 1.1607,
    steps: [baseline, tune, motif, noTune], files: [host, kernel], evaluations: 13,
};

test('step lines: stage, what, time and gain, verdict with its detail', () => {
    assert.equal(stepLine(baseline), '#0 baseline: 27.1 µs (the operator as it is)');
    assert.equal(stepLine(motif),
        '#2 motif pipe-sync: 23.4 µs (1.11x), 1 measured, accepted: correct on every case, 25.88 µs -> 23.38 µs');
    assert.equal(stepLine(noTune), '#3 tune tiling: not run, 2 measured, rejected: 2 configurations: none beat the current one');
});

test('summary: the gain over the baseline, in the steps taken', () => {
    assert.deepEqual(summaryMessage(faster), {
        severity: 'info', text: 'AddCustom 1.16x faster (27.1 µs -> 23.4 µs) in 2 steps',
    });
    assert.match(summaryMessage({ ...faster, steps: [baseline, motif], stopped: true }).text, /in 1 step, stopped early$/);
});

test('summary: nothing faster names the closest try', () => {
    const slower = { ...motif, accepted: false, speedup: 0.97, detail: 'not faster over every case (0.970x)' };
    const wrong = { ...tune, index: 2, accepted: false, speedup: null, time_us: null, detail: 'case fp16_base: wrong outputs' };
    const none: OptimizeResult = {
        operator: 'AddCustom', baseline_us: 27.1, best_us: 27.1, speedup: 1.0, steps: [baseline, slower, wrong],
        files: [], evaluations: 6,
    };
    assert.equal(improved(none), false);
    assert.equal(bestTry(none), slower);
    assert.deepEqual(summaryMessage(none), {
        severity: 'info',
        text: 'AddCustom: no faster version found in 6 evaluations; closest: motif pipe-sync: not faster over every case (0.970x)',
    });
    assert.equal(bestTry({ ...none, steps: [baseline, wrong] }), wrong); // nothing measured: the last try
    assert.equal(summaryMessage({ ...none, steps: [baseline] }).text, 'AddCustom: no faster version found in 6 evaluations');
});

test('summary: an operator that could not be measured says why', () => {
    const failed: OptimizeResult = {
        operator: 'AddCustom', baseline_us: null, steps: [], files: [], evaluations: 1,
        problems: ['case fp16_base: compile error at add_custom.cpp:12'],
    };
    assert.deepEqual(summaryMessage(failed), {
        severity: 'error',
        text: 'AddCustom: could not measure the operator as it is: case fp16_base: compile error at add_custom.cpp:12',
    });
});

test('a speedup without a changed file is no improvement', () => {
    assert.equal(improved(faster), true);
    const same = { ...kernel, optimized: kernel.original.replace(/\n/g, '\r\n') };
    assert.deepEqual(changedFiles({ ...faster, files: [same] }), []);
    assert.equal(improved({ ...faster, files: [same] }), false);
});

test('diff title: the file and the gain', () => {
    assert.equal(diffTitle(kernel.path, 1.5234), 'add_custom.cpp: original ↔ optimised (1.52x)');
    assert.equal(diffTitle('C:\\w\\k.cpp', null), 'k.cpp: original ↔ optimised');
});

test('apply: only files still as the server optimised them', () => {
    const now: Record<string, string | undefined> = {
        [kernel.path]: kernel.original.replace(/\n/g, '\r\n'), // the editor's CRLF is the same text
        [host.path]: 'T = 4096;\n', // edited since the optimisation started
    };
    const plan = planApply([kernel, host], (p) => now[p]);
    assert.deepEqual(plan.apply, [kernel]);
    assert.deepEqual(plan.refused, [{ path: host.path, reason: 'changed since the optimisation started; optimise again' }]);
    assert.deepEqual(applyMessage(plan, true), {
        severity: 'warning',
        text: 'applied to add_custom.cpp (undo restores the original); add_custom.cpp not applied: it changed since ' +
            'the optimisation started; optimise again',
    });
});

test('apply: a file already optimised or unreadable is not written', () => {
    const plan = planApply([kernel, host], (p) => (p === kernel.path ? kernel.optimized : undefined));
    assert.deepEqual(plan.apply, []);
    assert.deepEqual(plan.already, [kernel.path]);
    assert.deepEqual(plan.refused, [{ path: host.path, reason: 'cannot be read' }]);
    assert.equal(applyMessage({ apply: [], already: [kernel.path], refused: [] }, false).text, 'add_custom.cpp already optimised');
    assert.equal(applyMessage({ apply: [host], already: [], refused: [] }, false).severity, 'warning');
    assert.equal(applyMessage({ apply: [], already: [], refused: [] }, false).text, 'nothing to apply');
});

test('line endings do not make texts differ', () => {
    assert.equal(sameText('a\r\nb\r\n', 'a\nb\n'), true);
    assert.equal(sameText('a\nb', 'a\nc'), false);
});

test('the budget: the user\'s setting wherever set, else the optimisation\'s own', () => {
    assert.equal(optimizeBudget(undefined), DEFAULT_OPTIMIZE_BUDGET);
    assert.equal(optimizeBudget({}), 48);
    assert.equal(optimizeBudget({ globalValue: 20 }), 20);
    assert.equal(optimizeBudget({ globalValue: 20, workspaceValue: 64 }), 64);
    assert.equal(optimizeBudget({ workspaceFolderValue: 0 }), 48);
});

test('the server\'s environment carries the key only when one is stored', () => {
    const base = { PATH: '/usr/bin', TILEWISE_CACHE: '/c' };
    assert.equal(serverEnv(base, undefined), base);
    assert.equal(serverEnv(base, ''), base);
    const env = serverEnv(base, 'sk-test');
    assert.equal(env[LLM_KEY_ENV], 'sk-test');
    assert.equal(env.PATH, '/usr/bin');
    assert.equal((base as Record<string, string>)[LLM_KEY_ENV], undefined); // the editor's own env is not changed
});
