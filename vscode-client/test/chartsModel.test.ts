import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { bestSoFar, niceCeil, pointXs, pointY, speedup, state, tally, xMax, xMin, yTop } from '../webview/convergenceModel';
import { ConvergencePayload, ConvergencePoint, RooflinePayload, TimelinePayload, asReport, isChart } from '../webview/payloads';
import {
    STACK_BELOW_PX, barCount, bottleneckIndex, headroom, labelPx, measuredLabel, overRoofline, rooflineLayout, timeAxisMax,
    timeBars,
} from '../webview/rooflineModel';
import { causePipe, coreWindows, eventName, extent, hiddenPipes, lanes, rows, shownPipes } from '../webview/timelineModel';

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

/** The same, with work on every pipe (a GetValue on SCALAR, a copy out on MTE3): every pipe gets its lanes. */
function timelineAll(cores: number): TimelinePayload {
    const p = timeline(cores);
    for (const c of p.cores!) {
        c.events!.push([0, 5, 1, 1, 0, 1], [3, 6, 1, 0, 2048, 1]);
    }
    return p;
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
    const l = lanes(timelineAll(4), [2, 3]);
    assert.equal(l.length, 8);
    assert.deepEqual(l[0], { core: 2, pipe: 0, label: 'core 2 · SCALAR' });
    assert.deepEqual(l[7], { core: 3, pipe: 3, label: 'core 3 · MTE3' });
    assert.equal(lanes(timelineAll(1), [0])[2].label, 'MTE2'); // one core: the pipe alone
});

test('a pipe with no event and no wait on any core gets no lanes', () => {
    // timeline(): work on VECTOR and MTE2 only (SCALAR's issue costs are no events; nothing copied out here)
    assert.deepEqual(shownPipes(timeline(3)), [1, 2]);
    assert.deepEqual(hiddenPipes(timeline(3)), [0, 3]);
    const l = lanes(timeline(4), [2, 3]);
    assert.deepEqual(l.map((x) => x.label), ['core 2 · VECTOR', 'core 2 · MTE2', 'core 3 · VECTOR', 'core 3 · MTE2']);
    assert.deepEqual(l[1], { core: 2, pipe: 2, label: 'core 2 · MTE2' });
    // a wait alone keeps a pipe's lanes, and on any core, not only the drawn ones
    const p = timeline(3);
    p.cores![2].waits!.push([3, 1, 1, 2]);
    assert.deepEqual(shownPipes(p), [1, 2, 3]);
    assert.equal(lanes(p, [0]).length, 3);
    assert.deepEqual(shownPipes(timelineAll(2)), [0, 1, 2, 3]);
    assert.deepEqual(hiddenPipes(timelineAll(2)), []);
    // nothing traced at all: every pipe keeps its lane (an empty chart says so better than no lanes)
    const idle: TimelinePayload = { kind: 'timeline', operator: 'x', cores: [{ core: 0, end_us: 1 }] };
    assert.deepEqual(shownPipes(idle), [0, 1, 2, 3]);
    assert.deepEqual(hiddenPipes(idle), []);
    // a row naming a pipe the payload does not have makes no lane
    const odd = timeline(1);
    odd.cores![0].events!.push([7, 0, 1, 0, 0, 0]);
    assert.deepEqual(shownPipes(odd), [1, 2]);
});

test('rows: events and waits placed in their lanes, waits tied to the pipe they waited on', () => {
    const { events, waits } = rows(timelineAll(4), [1, 2]);
    assert.equal(events.length, 8);
    // [lane, start, end, pipe, site, bytes, repeats, dur]
    assert.deepEqual(events[0], [2, 0, 3, 2, 0, 4096, 1, 3]);
    assert.deepEqual(events[5], [4 + 1, 3, 5, 1, 1, 0, 8, 2]);
    assert.deepEqual(events[7], [4 + 3, 6, 7, 3, 0, 2048, 1, 1]);
    // [lane, start, end, pipe, cause, dur, waitedOn]
    assert.deepEqual(waits[0], [1, 0, 3, 1, 0, 3, 2]);
    assert.deepEqual(waits[1], [2, 3, 4, 2, 1, 1, 1]);
});

test('rows: with pipes hidden, lanes count only the shown pipes (the lane is the row the chart draws it in)', () => {
    const { events, waits } = rows(timeline(4), [1, 2]); // lanes per core: VECTOR, MTE2
    assert.equal(events.length, 4);
    assert.deepEqual(events[0], [1, 0, 3, 2, 0, 4096, 1, 3]);
    assert.deepEqual(events[3], [2 + 0, 3, 5, 1, 1, 0, 8, 2]);
    assert.deepEqual(waits[0], [0, 0, 3, 1, 0, 3, 2]);
    assert.deepEqual(waits[1], [1, 3, 4, 2, 1, 1, 1]);
    const max = Math.max(...events.map((e) => e[0]), ...waits.map((w) => w[0]));
    assert.equal(max, lanes(timeline(4), [1, 2]).length - 1); // every row in a drawn lane
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
    assert.equal(yTop(p), 60); // 50 µs and headroom, up to a round top tick
    assert.equal(pointY(p.points![1], 99), 99); // untimed: on the top row
    assert.equal(pointY(p.points![2], 99), 40);
    assert.equal(xMax(p), 6.5); // the budget and half an evaluation: the last point drawn whole
    assert.equal(xMax({ ...p, budget: 2 }), 5.5);
    assert.equal(xMin(p), 0);
    assert.equal(xMin({ ...p, points: [{ evaluation: 0, config: {}, time_us: 1, status: 'ok' }] }), -0.5);
    assert.deepEqual(tally(p.points!), { ok: 4, failed: 1, screened: 1, cached: 1 });
    assert.equal(state(p), 'running');
    assert.equal(state({ ...p, done: true }), 'done');
    assert.equal(state({ ...p, done: true, stopped: true }), 'stopped');
    assert.equal(speedup(p), 50 / 30);
    assert.equal(speedup({ ...p, shipped_us: null }), undefined);
    assert.equal(yTop({ ...p, points: [], shipped_us: null }), 1);
});

test('candidates screened after the same measurement spread apart, in order, short of the next evaluation', () => {
    const ok = (evaluation: number): ConvergencePoint => ({ evaluation, config: {}, time_us: 1, status: 'ok' });
    const screened = (evaluation: number): ConvergencePoint => ({ evaluation, config: {}, status: 'screened' });
    const xs = pointXs([ok(1), screened(1), screened(1), screened(1), ok(2), screened(2)]);
    assert.deepEqual([xs[0], xs[4]], [1, 2]); // measured points stay at their evaluation
    assert.ok(xs[1] > 1 && xs[1] < xs[2] && xs[2] < xs[3] && xs[3] < 2); // no two at one place, before the next
    assert.ok(Math.abs(xs[5] - 2.4) < 1e-9); // a lone one half-way into the gap's spread
    assert.deepEqual(pointXs([]), []);
});

const roof: RooflinePayload = {
    kind: 'roofline', operator: 'add_custom', chip: '910B2', time_us: 40, launch_us: 5, kernel_us: 35,
    bytes_read: 1 << 20, bytes_written: 1 << 19, hbm_gbps: 1600, hbm_floor_us: 15, floor_us: 20, efficiency: 0.5,
    pipes: [{ pipe: 'SCALAR', busy_us: 1, ratio: 0.1 }, { pipe: 'VECTOR', busy_us: 10, ratio: 0.3 },
        { pipe: 'MTE2', busy_us: 30, ratio: 0.8 }, { pipe: 'MTE3', busy_us: 12, ratio: 0.35 }],
    bottleneck: 'mte2', verdict: 'HBM bound',
};

test('the convergence y axis tops out at a round number', () => {
    assert.equal(niceCeil(54), 60);
    assert.equal(niceCeil(4.2), 5);
    assert.equal(niceCeil(41.8), 50);
    assert.equal(niceCeil(1.1), 1.2);
    assert.equal(niceCeil(0.0131), 0.015);
    assert.equal(niceCeil(3), 3);
    assert.equal(niceCeil(9.2), 10);
    assert.equal(niceCeil(0), 1);
    // the tune of the browser test: 38.7 µs slowest, top 50 (was 44.5, crowding the 40 tick)
    assert.equal(yTop({ kind: 'convergence', operator: 'x', strategy: 'evo', budget: 6, shipped_us: 4.84,
        points: [{ evaluation: 5, config: {}, time_us: 38.72, status: 'ok' }] }), 50);
});

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

test('roofline layout: side by side when wide, stacked in a narrow panel', () => {
    const wide = rooflineLayout(1250);
    assert.equal(wide.stacked, false);
    assert.equal(wide.height, 280);
    const narrow = rooflineLayout(490);
    assert.equal(narrow.stacked, true);
    assert.ok(narrow.height > wide.height);
    assert.equal(narrow.twoLineLabel, true);
    assert.ok(narrow.categoryWidth! > 0); // the long bar names wrap
    assert.ok(narrow.grids[1].top > narrow.grids[0].top + narrow.grids[0].height!); // pipes below the times
    assert.equal(rooflineLayout(STACK_BELOW_PX - 1).stacked, true);
    assert.equal(rooflineLayout(STACK_BELOW_PX).stacked, false);
    assert.equal(rooflineLayout(0).stacked, false); // not laid out yet: a desktop width
    // every pipe named: slanted only when a pipe has less than 48 px
    assert.equal(narrow.pipeRotate, 0);
    assert.equal(rooflineLayout(300, 4).pipeRotate, 0);
    assert.equal(rooflineLayout(220, 4).pipeRotate, 30);
    assert.equal(rooflineLayout(300, 4).pipeFont, 10);
});

test('roofline labels stay inside the chart: the time axis leaves room right of each bar', () => {
    assert.equal(measuredLabel(roof, '40.0 µs', false), '40.0 µs (2.00× the roofline)');
    assert.equal(measuredLabel(roof, '40.0 µs', true), '40.0 µs\n2.00× the roofline');
    assert.equal(measuredLabel({ ...roof, floor_us: 0 }, '40.0 µs', false), '40.0 µs');
    assert.ok(labelPx('40.0 µs\n2.00× the roofline') < labelPx('40.0 µs (2.00× the roofline)'));
    assert.equal(headroom(400, 0, 0), 1.15); // at least a little room
    assert.equal(headroom(400, 200, 0), 2); // the bar ends half-way: its label fills the other half
    assert.equal(headroom(100, 200, 0), 4); // no room at all: capped
    // the narrow panel of the browser test (a 490 px chart): every label ends within the plot and its spill
    const L = rooflineLayout(490);
    const bars = [{ us: 2.66, text: '2.66 µs' }, { us: 3.45, text: '3.45 µs' },
        { us: 3.56, text: measuredLabel({ ...roof, time_us: 3.56, floor_us: 3.45 }, '3.56 µs', true) }];
    const max = timeAxisMax(bars.map((b) => ({ us: b.us, label: labelPx(b.text) })), L.plotPx, L.spillPx);
    for (const b of bars) {
        assert.ok(b.us / max * L.plotPx + labelPx(b.text) <= L.plotPx + L.spillPx + 1e-9, b.text);
    }
    assert.equal(timeAxisMax([], 300, 0), 1);
});
