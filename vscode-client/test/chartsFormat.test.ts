import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import {
    baseName, escapeHtml, formatAt, formatBytes, formatConfig, formatIn, formatRatio, formatTick, formatUs, timeUnit,
} from '../webview/format';

test('durations: ns, µs, ms, s with three significant digits', () => {
    assert.equal(formatUs(0), '0 µs');
    assert.equal(formatUs(0.02), '20.0 ns');
    assert.equal(formatUs(0.35), '350 ns');
    assert.equal(formatUs(1.234), '1.23 µs');
    assert.equal(formatUs(44.31), '44.3 µs');
    assert.equal(formatUs(512), '512 µs');
    assert.equal(formatUs(2500), '2.50 ms');
    assert.equal(formatUs(3.2e6), '3.20 s');
    assert.equal(formatUs(null), '–');
    assert.equal(formatUs(Number.NaN), '–');
});

test('bytes: binary units, whole numbers without a decimal', () => {
    assert.equal(formatBytes(0), '0 B');
    assert.equal(formatBytes(512), '512 B');
    assert.equal(formatBytes(32768), '32 KiB');
    assert.equal(formatBytes(1536), '1.5 KiB');
    assert.equal(formatBytes(3 * 1024 * 1024), '3 MiB');
    assert.equal(formatBytes(undefined), '–');
});

test('ratios, configurations, names, escaping', () => {
    assert.equal(formatRatio(0.724), '72%');
    assert.equal(formatRatio(0.004), '0.4%');
    assert.equal(formatRatio(0), '0%');
    assert.equal(formatConfig({ tile: 64, buffers: 2 }), 'tile=64, buffers=2');
    assert.equal(formatConfig(null), '');
    assert.equal(baseName('/w/op_kernel/add.cpp'), 'add.cpp');
    assert.equal(baseName('C:\\w\\add.cpp'), 'add.cpp');
    assert.equal(escapeHtml('<a href="x">&\'</a>'), '&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;');
});

test('one time unit per axis, from its span: ticks and durations in it', () => {
    assert.equal(timeUnit(0.901).name, 'ns'); // a 901 ns run: 0, 200, ... 800 ns, not "0 µs" then "200 ns"
    assert.equal(timeUnit(1).name, 'µs');
    assert.equal(timeUnit(10.9).name, 'µs');
    assert.equal(timeUnit(999).name, 'µs');
    assert.equal(timeUnit(2500).name, 'ms');
    assert.equal(timeUnit(3e6).name, 's');
    assert.equal(timeUnit(0).name, 'µs');
    assert.equal(timeUnit(Number.NaN).name, 'µs');
    const ns = timeUnit(0.9);
    const us = timeUnit(10);
    assert.equal(formatTick(0, ns), '0');
    assert.equal(formatTick(0.2, ns), '200');
    assert.equal(formatTick(0.3, ns), '300'); // 300.00000000000006 rounded away
    assert.equal(formatTick(0.3, us), '0.3');
    assert.equal(formatTick(2500, timeUnit(2500)), '2.5');
    assert.equal(formatIn(0.35, ns), '350 ns');
    assert.equal(formatIn(0.35, us), '0.350 µs');
    assert.equal(formatIn(0.02, us), '0.0200 µs');
    assert.equal(formatIn(1.234, us), '1.23 µs');
    assert.equal(formatIn(12.34, us), '12.3 µs');
    assert.equal(formatIn(0, ns), '0 ns');
    assert.equal(formatIn(0.00002, timeUnit(2000)), '0.0000000200 ms');
    assert.equal(formatIn(null, us), '–');
    assert.equal(formatAt(0.0032, us), '0.003 µs'); // a place on the axis: to a thousandth of its unit
    assert.equal(formatAt(1.23456, us), '1.235 µs');
    assert.equal(formatAt(0.0032, ns), '3.2 ns');
    assert.equal(formatAt(0, us), '0 µs');
});
