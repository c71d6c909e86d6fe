import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { configText, nothingYet, parsePageMessage, timelineLensAt, webviewHtml } from '../src/chartsHtml';

test('the panel page: strict policy, the bundle by its nonce, no inline handlers', () => {
    const html = webviewHtml({ cspSource: 'vscode-webview://x', nonce: 'abc123', script: 'vscode-webview://x/media/charts.js', title: 'a<b' });
    const csp = /content="([^"]+)"/.exec(html)![1];
    assert.match(csp, /^default-src 'none'/);
    assert.match(csp, /script-src 'nonce-abc123'/);
    assert.doesNotMatch(csp, /unsafe-eval|script-src[^;]*unsafe-inline|https?:/);
    assert.match(html, /<script nonce="abc123" src="vscode-webview:\/\/x\/media\/charts.js"><\/script>/);
    assert.match(html, /<div id="tilewise-root"><\/div>/);
    assert.match(html, /<title>a&lt;b<\/title>/);
    assert.doesNotMatch(html, /\son[a-z]+=/);
    assert.equal((html.match(/<script/g) ?? []).length, 1);
});

test('page messages are checked before they are acted on', () => {
    assert.deepEqual(parsePageMessage({ type: 'ready' }), { type: 'ready' });
    assert.deepEqual(parsePageMessage({ type: 'reveal', file: '/w/add.cpp', line: 42 }), { type: 'reveal', file: '/w/add.cpp', line: 42 });
    assert.equal(parsePageMessage({ type: 'reveal', file: '/w/add.cpp', line: 0 }), undefined);
    assert.equal(parsePageMessage({ type: 'reveal', file: '', line: 3 }), undefined);
    assert.equal(parsePageMessage({ type: 'reveal', file: '/w/add.cpp', line: 1.5 }), undefined);
    assert.deepEqual(parsePageMessage({ type: 'apply', config: { tile: 64 } }), { type: 'apply', config: { tile: 64 } });
    assert.equal(parsePageMessage({ type: 'apply', config: { tile: '64' } }), undefined);
    assert.equal(parsePageMessage({ type: 'apply', config: {} }), undefined);
    assert.equal(parsePageMessage({ type: 'apply', config: [1] }), undefined);
    assert.equal(parsePageMessage({ type: 'run' }), undefined);
    assert.equal(parsePageMessage(null), undefined);
    assert.equal(parsePageMessage('ready'), undefined);
});

test('messages and the timeline lens', () => {
    assert.equal(configText({ tile: 64, buffers: 2 }), 'tile=64, buffers=2');
    assert.match(nothingYet('timeline', 'add.cpp'), /no run of add\.cpp yet\. Run the operator first/);
    assert.match(nothingYet('convergence', 'add.cpp'), /no tune of add\.cpp yet/);
    const lenses = [{ title: 'Run on emulator', command: 'tilewise.run' }, { title: 'Tune tiling', command: 'tilewise.tune' },
        { title: 'last: 44.3 µs, bottleneck MTE2', command: '' }];
    assert.equal(timelineLensAt(lenses), 2);
    assert.equal(timelineLensAt(lenses.slice(0, 2)), -1); // no run yet
    assert.equal(timelineLensAt([...lenses.slice(0, 2), { title: 'last: failed (compile)', command: '' }]), -1);
    assert.equal(timelineLensAt([...lenses, { title: 'Show pipeline timeline', command: 'tilewise.showTimeline' }]), -1);
});
