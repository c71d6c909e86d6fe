import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { baseName, escapeHtml, formatBytes, formatConfig, formatRatio, formatUs } from '../webview/format';

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
