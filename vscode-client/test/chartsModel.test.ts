import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { bestSoFar, pointY, speedup, state, tally, xMax, yTop } from '../webview/convergenceModel';
import { ConvergencePayload, RooflinePayload, TimelinePayload, asReport, isChart } from '../webview/payloads';
import { barCount, bottleneckIndex, overRoofline, timeBars } from '../webview/rooflineModel';
import { causePipe, coreWindows, eventName, extent, lanes, rows } from '../webview/timelineModel';

function timeline(cores: number): TimelinePayload {
    return {
        kind: 'timeline', operator: 'add_custom', core_count: cores,
        sites: [{ api: 'DataCopy', file: '/w/add.cpp', line: 42 }, { api: 'Add', file: '/w/add.cpp', line: 50 }],
        causes: ["DeQue: waits for MTE2's data", 'AllocTensor: waits for VECTOR to free the buffer', 'PipeBarrier'],
        cores: Array.from({ length: cores }, (_, c) => ({
            core: c, end_us: 10 + c,
            events: [[2, 0, 3, 0, 4096, 1], [1, 3, 2, 1, 0, 8]],
            waits: [[1, 0, 3, 0], [2, 3, 1, 1]],
        })),
    };
}

test('core windows page through the cores eight at a time', () => {
    assert.deepEqual(coreWindows(timeline(3)).map((w) => w.label), ['cores 0–2']);
    const w = coreWindows(timeline(20));
    assert.deepEqual(w.map((x) => x.label), ['cores 0–7', 'cores 8–15', 'cores 16–19']);
    assert.deepEqual(w[2].indices, [16, 17, 18, 19]);
    assert.deepEqual(coreWindows(timeline(9), 1)[8], { label: 'core 8', indices: [8] });
    assert.deepEqual(coreWindows({ kind: 'timeline', operator: 'x' }), []);
});

test('lanes: one per pipe per drawn core, core by core', () => {
    const l = lanes(timeline(4), [2, 3]);
    assert.equal(l.length, 8);
    assert.deepEqual(l[0], { core: 2, pipe: 0, label: 'core 2 · SCALAR' });
    assert.deepEqual(l[7], { core: 3, pipe: 3, label: 'core 3 · MTE3' });
    assert.equal(lanes(timeline(1), [0])[2].label, 'MTE2'); // one core: the pipe alone
});

test('rows: events and waits placed in their lanes, waits tied to the pipe they waited on', () => {
    const { events, waits } = rows(timeline(4), [1, 2]);
    assert.equal(events.length, 4);
    // [lane, start, end, pipe, site, bytes, repeats, dur]
    assert.deepEqual(events[0], [2, 0, 3, 2, 0, 4096, 1, 3]);
    assert.deepEqual(events[3], [4 + 1, 3, 5, 1, 1, 0, 8, 2]);
    // [lane, start, end, pipe, cause, dur, waitedOn]
    assert.deepEqual(waits[0], [1, 0, 3, 1, 0, 3, 2]);
    assert.deepEqual(waits[1], [2, 3, 4, 2, 1, 1, 1]);
});

test('a wait cause names the pipe after its colon, or none', () => {
    const pipes = ['SCALAR', 'VECTOR', 'MTE2', 'MTE3'];
    assert.equal(causePipe("DeQue: waits for MTE2's data", pipes), 2);
    assert.equal(causePipe('AllocTensor: waits for VECTOR to free the buffer', pipes), 1);
    assert.equal(causePipe('MTE3 barrier: waits for mte2', pipes), 2); // the API part names no dependency
    assert.equal(causePipe('PipeBarrier', pipes), -1);
});

test('extent and event names', () => {
    assert.equal(extent(timeline(3)), 12);
    assert.equal(extent({ kind: 'timeline', operator: 'x', cores: [{ core: 0, end_us: 1, events: [[0, 5, 2, 0, 0, 0]] }] }), 7);
    assert.equal(eventName(timeline(1), 0, 2), 'DataCopy :42');
    assert.equal(eventName(timeline(1), 9, 2), 'MTE2');
});

function tune(): ConvergencePayload {
    return {
        kind: 'convergence', operator: 'add_custom', strategy: 'evo', budget: 6, shipped_us: 50,
        points: [
            { evaluation: 1, config: { tile: 64 }, time_us: 50, status: 'ok' },
            { evaluation: 1, config: { tile: 8 }, status: 'screened', reason: 'UB overflow' },
            { evaluation: 2, config: { tile: 128 }, time_us: 40, status: 'ok', cached: true },
            { evaluation: 3, config: { tile: 256 }, status: 'failed', reason: 'wrong output' },
            { evaluation: 4, config: { tile: 32 }, time_us: 45, status: 'ok' },
            { evaluation: 5, config: { tile: 96 }, time_us: 30, status: 'ok' },
        ],
    };
}

test('best so far: a step down at each improvement, failed and screened ones ignored', () => {
    assert.deepEqual(bestSoFar(tune().points!), [[1, 50], [2, 40], [4, 40], [5, 30]]);
    assert.deepEqual(bestSoFar([]), []);
});

test('convergence axes, counts and state', () => {
    const p = tune();
    assert.equal(yTop(p), 50 * 1.15);
    assert.equal(pointY(p.points![1], 99), 99); // untimed: on the top row
    assert.equal(pointY(p.points![2], 99), 40);
    assert.equal(xMax(p), 6);
    assert.equal(xMax({ ...p, budget: 2 }), 5);
    assert.deepEqual(tally(p.points!), { ok: 4, failed: 1, screened: 1, cached: 1 });
    assert.equal(state(p), 'running');
    assert.equal(state({ ...p, done: true }), 'done');
    assert.equal(state({ ...p, done: true, stopped: true }), 'stopped');
    assert.equal(speedup(p), 50 / 30);
    assert.equal(speedup({ ...p, shipped_us: null }), undefined);
    assert.equal(yTop({ ...p, points: [], shipped_us: null }), 1);
});

const roof: RooflinePayload = {
    kind: 'roofline', operator: 'add_custom', chip: '910B2', time_us: 40, launch_us: 5, kernel_us: 35,
    bytes_read: 1 << 20, bytes_written: 1 << 19, hbm_gbps: 1600, hbm_floor_us: 15, floor_us: 20, efficiency: 0.5,
    pipes: [{ pipe: 'SCALAR', busy_us: 1, ratio: 0.1 }, { pipe: 'VECTOR', busy_us: 10, ratio: 0.3 },
        { pipe: 'MTE2', busy_us: 30, ratio: 0.8 }, { pipe: 'MTE3', busy_us: 12, ratio: 0.35 }],
    bottleneck: 'mte2', verdict: 'HBM bound',
};

test('roofline: three time bars and the bottleneck', () => {
    assert.deepEqual(timeBars(roof).map((b) => [b.role, b.us]), [['launch', 5], ['floor', 20], ['measured', 40]]);
    assert.equal(bottleneckIndex(roof), 2);
    assert.equal(bottleneckIndex({ ...roof, bottleneck: null }), 2); // the busiest, when not named
    assert.equal(bottleneckIndex({ ...roof, bottleneck: 'vector' }), 1);
    assert.equal(bottleneckIndex({ ...roof, pipes: [] }), -1);
    assert.equal(overRoofline(roof), 2);
    assert.equal(barCount(roof), 7);
});

test('a show message may carry a report, one chart or a list', () => {
    assert.equal(isChart(roof), true);
    assert.equal(isChart({ kind: 'pie' }), false);
    assert.deepEqual(asReport(roof), { title: '', charts: [roof] });
    assert.deepEqual(asReport([roof, { kind: 'pie' }, null]), { title: '', charts: [roof] });
    assert.deepEqual(asReport({ title: 'T', charts: [roof] }), { title: 'T', subtitle: '', charts: [roof] });
    assert.deepEqual(asReport(null), { title: '', charts: [] });
});
