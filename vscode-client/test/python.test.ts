import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { VERSION_ARGS, candidates, expandPath, findPython, notFoundMessage, parseVersion } from '../src/python';

const base = { configured: '', workspaceFolders: ['/ws/a', '/ws/b'], platform: 'linux' as NodeJS.Platform, home: '/home/u' };

test('without a setting: workspace .venv, venv per folder, then the Python extension, then python3', () => {
    const list = candidates({ ...base, pythonExtension: '/opt/py/bin/python' }).map((c) => c.python);
    assert.deepEqual(list, [
        '/ws/a/.venv/bin/python', '/ws/a/venv/bin/python',
        '/ws/b/.venv/bin/python', '/ws/b/venv/bin/python',
        '/opt/py/bin/python', 'python3',
    ]);
});

test('the Python extension is optional and duplicates are dropped', () => {
    assert.deepEqual(candidates({ ...base, workspaceFolders: [] }).map((c) => c.python), ['python3']);
    const dup = candidates({ ...base, workspaceFolders: ['/ws/a'], pythonExtension: '/ws/a/.venv/bin/python' });
    assert.deepEqual(dup.map((c) => c.python), ['/ws/a/.venv/bin/python', '/ws/a/venv/bin/python', 'python3']);
    assert.equal(dup[0].why, 'workspace .venv');
});

test('windows venvs live in Scripts', () => {
    const list = candidates({ ...base, workspaceFolders: ['C:\\ws'], platform: 'win32' }).map((c) => c.python);
    assert.equal(list[list.length - 1], 'python');
    assert.ok(list[0].endsWith('python.exe') && list[0].includes('Scripts'), list[0]);
});

test('a configured path is the only candidate, with ~ and ${workspaceFolder} expanded', () => {
    assert.deepEqual(candidates({ ...base, configured: '${workspaceFolder}/.venv/bin/python' }),
        [{ python: '/ws/a/.venv/bin/python', why: 'tilewise.pythonPath' }]);
    assert.equal(candidates({ ...base, configured: ' ~/envs/tw/bin/python ' })[0].python, '/home/u/envs/tw/bin/python');
    assert.equal(expandPath('~', undefined, '/root'), '/root');
    assert.equal(expandPath('/x/~/y', '/ws', '/root'), '/x/~/y');
});

test('findPython returns the first candidate that has tilewise, its version, and what failed before it', async () => {
    const checked: string[] = [];
    const versionOf = async (py: string) => (
        checked.push(py), py === '/ws/b/.venv/bin/python' || py === 'python3' ? '0.1.0' : undefined);
    const { found, tried } = await findPython(candidates(base), versionOf);
    assert.equal(found?.python, '/ws/b/.venv/bin/python');
    assert.equal(found?.version, '0.1.0');
    assert.deepEqual(tried.map((c) => c.python), ['/ws/a/.venv/bin/python', '/ws/a/venv/bin/python']);
    assert.equal(checked.length, 3); // stops at the first that works
});

test('when nothing works the message lists every candidate and says how to fix it', async () => {
    const { found, tried } = await findPython(candidates(base), async () => undefined);
    assert.equal(found, undefined);
    assert.equal(tried.length, 5);
    const msg = notFoundMessage(tried, false);
    assert.match(msg, /\/ws\/a\/\.venv\/bin\/python \(workspace \.venv\)/);
    assert.match(msg, /python3 \(PATH\)/);
    assert.match(msg, /tilewise\.pythonPath/);
    assert.match(msg, /pip install -e/);
    assert.match(notFoundMessage([{ python: '/bad', why: 'tilewise.pythonPath' }], true), /Fix tilewise\.pythonPath/);
});

test('only tilewise\'s own version line counts as tilewise', () => {
    assert.deepEqual(VERSION_ARGS, ['-m', 'tilewise', '--version']);
    assert.equal(parseVersion('tilewise 0.1.0\n'), '0.1.0');
    assert.equal(parseVersion('tilewise 1.2.3rc1'), '1.2.3rc1');
    // another module run as `-m tilewise` (an unrelated one of that name) answers something else, or nothing
    assert.equal(parseVersion(''), undefined);
    assert.equal(parseVersion('server 2.0.1'), undefined);
    assert.equal(parseVersion('usage: cli.py [-h]'), undefined);
    // tilewise imported from a checkout that was never installed has no version to give
    assert.equal(parseVersion('tilewise: not installed (pip install -e <the tilewise checkout>)'), undefined);
    assert.equal(parseVersion('tilewise 0.1.0\nsomething else'), undefined);
});

test('the messages name the version check, not an import', () => {
    const msg = notFoundMessage([{ python: '/bad', why: 'tilewise.pythonPath' }], true);
    assert.match(msg, /python -m tilewise --version/);
    assert.doesNotMatch(msg, /import tilewise/);
    assert.match(notFoundMessage([], false), /no Python with tilewise installed/);
});
