import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { nodeDeps, nodeFs, nodeRunner } from '../src/installNode';

const node = process.execPath;

function tempDir(): string {
    return fs.mkdtempSync(path.join(os.tmpdir(), 'tilewise-install-test-'));
}

test('the runner gives the exit code, stdout and stderr as one text, and each line as it comes', async () => {
    const lines: string[] = [];
    const script = 'console.log("Collecting numpy"); console.error("warning: x"); process.stdout.write("last"); process.exit(3)';
    const r = await nodeRunner.run(node, ['-e', script], { timeoutMs: 60_000, onLine: (l) => lines.push(l) });
    assert.equal(r.code, 3);
    assert.match(r.output, /Collecting numpy/);
    assert.match(r.output, /warning: x/);
    assert.deepEqual([...lines].sort(), ['Collecting numpy', 'last', 'warning: x']);
    assert.deepEqual(r.output.split('\n').sort(), ['Collecting numpy', 'last', 'warning: x'], 'whole lines, never mixed');
});

test('the runner never throws: a missing program, a timeout and a cancel are a null code with the reason', async () => {
    const missing = await nodeRunner.run('/no/such/python3', ['-V'], { timeoutMs: 60_000 });
    assert.equal(missing.code, null);
    assert.match(missing.error ?? '', /ENOENT/);
    const slow = await nodeRunner.run(node, ['-e', 'setTimeout(() => {}, 60000)'], { timeoutMs: 300 });
    assert.equal(slow.code, null);
    assert.match(slow.error ?? '', /timed out after 0.3 s/);
    const abort = new AbortController();
    const cancelled = nodeRunner.run(node, ['-e', 'setTimeout(() => {}, 60000)'], { timeoutMs: 60_000, signal: abort.signal });
    abort.abort();
    const c = await cancelled;
    assert.equal(c.code, null);
    assert.equal(c.error, 'cancelled');
});

test('the file system: exclusive create, atomic write, list, hash and remove', async () => {
    const dir = tempDir();
    try {
        const lock = path.join(dir, 'install.lock');
        assert.equal(await nodeFs.createExclusive(lock, '123'), true);
        assert.equal(await nodeFs.createExclusive(lock, '456'), false);
        assert.equal(await nodeFs.read(lock), '123');
        const record = path.join(dir, 'installed.json');
        await nodeFs.writeAtomic(record, '{"a": 1}');
        await nodeFs.writeAtomic(record, '{"a": 2}');
        assert.equal(await nodeFs.read(record), '{"a": 2}');
        assert.deepEqual((await nodeFs.list(dir)).sort(), ['install.lock', 'installed.json'], 'no temporary file left');
        assert.equal(await nodeFs.sha256(record), createHash('sha256').update('{"a": 2}').digest('hex'));
        await nodeFs.mkdirp(path.join(dir, 'env-1', 'bin'));
        fs.writeFileSync(path.join(dir, 'env-1', 'bin', 'python'), '');
        await nodeFs.remove(path.join(dir, 'env-1'));
        assert.equal(await nodeFs.exists(path.join(dir, 'env-1')), false);
        await nodeFs.remove(path.join(dir, 'env-1')); // gone already: no error
        assert.deepEqual(await nodeFs.list(path.join(dir, 'missing')), []);
        assert.equal(await nodeFs.read(path.join(dir, 'missing')), undefined);
    } finally {
        fs.rmSync(dir, { recursive: true, force: true });
    }
});

test('a lock\'s owner is alive while its process runs', () => {
    const deps = nodeDeps(async () => undefined);
    assert.equal(deps.isAlive(process.pid), true);
    assert.equal(deps.isAlive(2 ** 22 + 12345), false); // above Linux's pid_max: no such process
});
