import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
    candidates, findPython, insideWorkspace, notFoundMessage, untrustedNote, userPythonPath, withheld,
} from '../src/python';
import { Serial, UNTRUSTED_RUN_MESSAGE, initializationOptions } from '../src/trust';

const base = { configured: '', workspaceFolders: ['/ws/a', '/ws/b'], platform: 'linux' as NodeJS.Platform, home: '/home/u' };

test('an untrusted workspace tries no venv of its own; the Python extension and PATH stay', () => {
    const src = { ...base, pythonExtension: '/opt/py/bin/python', trusted: false };
    assert.deepEqual(candidates(src).map((c) => c.python), ['/opt/py/bin/python', 'python3']);
    assert.deepEqual(withheld(src).map((c) => c.why), ['workspace .venv', 'workspace venv', 'workspace .venv', 'workspace venv']);
    // trusted (or not said): the workspace venvs come first, and nothing is withheld
    assert.equal(candidates({ ...src, trusted: true })[0].python, '/ws/a/.venv/bin/python');
    assert.equal(candidates({ ...base })[0].python, '/ws/a/.venv/bin/python');
    assert.deepEqual(withheld({ ...src, trusted: true }), []);
});

test('an untrusted workspace drops an interpreter inside it, whichever source names it', () => {
    // the Python extension's interpreter: the workspace can select its own venv there too
    const ext = { ...base, pythonExtension: '/ws/b/tools/env/bin/python', trusted: false };
    assert.deepEqual(candidates(ext).map((c) => c.python), ['python3']);
    // a user-level pythonPath that expands into the workspace: not tried, and no fallback to another interpreter
    const user = { ...base, configured: '${workspaceFolder}/.venv/bin/python', trusted: false };
    assert.deepEqual(candidates(user), []);
    assert.deepEqual(withheld(user), [{ python: '/ws/a/.venv/bin/python', why: 'tilewise.pythonPath' }]);
    // a user-level pythonPath outside the workspace is the one candidate, as in a trusted workspace
    assert.deepEqual(candidates({ ...base, configured: '/opt/tw/bin/python', trusted: false }),
        [{ python: '/opt/tw/bin/python', why: 'tilewise.pythonPath' }]);
});

test('inside a workspace folder means under it, not beside it', () => {
    assert.ok(insideWorkspace('/ws/a/.venv/bin/python', ['/ws/a']));
    assert.ok(insideWorkspace('/ws/a/x/../.venv/bin/python', ['/ws/a']));
    assert.ok(!insideWorkspace('/ws/ab/.venv/bin/python', ['/ws/a']));
    assert.ok(!insideWorkspace('/ws/a/../b/bin/python', ['/ws/a']));
    assert.ok(!insideWorkspace('python3', ['/ws/a'])); // looked up on PATH
    assert.ok(!insideWorkspace('/usr/bin/python3', []));
});

test('in an untrusted workspace only the user\'s pythonPath counts; a workspace value is named as ignored', () => {
    assert.deepEqual(userPythonPath({ globalValue: '/opt/tw/bin/python', workspaceValue: '/ws/a/evil/python' }),
        { value: '/opt/tw/bin/python', ignored: '/ws/a/evil/python' });
    assert.deepEqual(userPythonPath({ workspaceFolderValue: './bin/python' }), { value: '', ignored: './bin/python' });
    assert.deepEqual(userPythonPath({ globalValue: '/opt/tw/bin/python', workspaceValue: ' ' }), { value: '/opt/tw/bin/python' });
    assert.deepEqual(userPythonPath(undefined), { value: '' });
});

test('the untrusted note says what was not tried and how to get a server', async () => {
    const src = { ...base, trusted: false };
    const note = untrustedNote(withheld(src), '/ws/a/evil/python');
    assert.ok(note);
    assert.match(note, /not trusted/);
    assert.match(note, /\/ws\/a\/\.venv\/bin\/python \(workspace \.venv\)/);
    assert.match(note, /the workspace's tilewise\.pythonPath \/ws\/a\/evil\/python/);
    assert.match(note, /user settings/);
    assert.match(note, /Manage Workspace Trust/);
    assert.equal(untrustedNote([], undefined), undefined);
    // nothing outside the workspace has tilewise: the error lists what was tried and why the rest was not
    const { tried } = await findPython(candidates(src), async () => undefined);
    assert.deepEqual(tried.map((c) => c.python), ['python3']);
    const msg = notFoundMessage(tried, false, note);
    assert.match(msg, /tried python3 \(PATH\)/);
    assert.match(msg, /not trusted/);
    assert.doesNotMatch(notFoundMessage(tried, false), /trusted/);
    // nothing was left to try at all
    assert.match(notFoundMessage([], true, note), /^tilewise: no Python to start the server with\. This workspace is not trusted/);
});

test('run, tune and optimize are refused with the reason, and the server is told', () => {
    assert.match(UNTRUSTED_RUN_MESSAGE, /untrusted workspace is disabled; trust the workspace to run, tune or optimize/);
    assert.deepEqual(initializationOptions(false), { trusted: false });
    assert.deepEqual(initializationOptions(true), { trusted: true });
});

test('package.json declares limited support and restricts the settings that could run or leak workspace code', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));
    const trust = pkg.capabilities.untrustedWorkspaces;
    assert.equal(trust.supported, 'limited');
    assert.deepEqual(trust.restrictedConfigurations, ['tilewise.pythonPath', 'tilewise.llm.baseUrl']);
    assert.match(trust.description, /builds and runs nothing/);
});

test('trust granted while the first start is still finding Python: the restart waits, and the trusted server is the one left', async () => {
    // startClient as the extension runs it: it reads trust when it begins, and takes a while to find Python
    const serial = new Serial();
    let isTrusted = false;
    const running: { trusted: boolean }[] = [];
    const events: string[] = [];
    const start = async () => {
        const options = initializationOptions(isTrusted);
        await new Promise((r) => setTimeout(r, 30));
        running.push(options);
        events.push(`start ${options.trusted}`);
    };
    const stop = async () => {
        events.push(`stop ${running.pop()?.trusted}`);
    };
    const first = serial.run(start);
    await new Promise((r) => setTimeout(r, 5));
    isTrusted = true; // onDidGrantWorkspaceTrust, before the first start has a server
    const restart = serial.run(async () => { await stop(); await start(); });
    await Promise.all([first, restart]);
    assert.deepEqual(events, ['start false', 'stop false', 'start true']);
    assert.deepEqual(running, [{ trusted: true }]);
});

test('a failed start does not stop the restarts after it', async () => {
    const serial = new Serial();
    const failed = serial.run(async () => { throw new Error('no Python'); });
    await assert.rejects(failed, /no Python/);
    assert.equal(await serial.run(async () => 'started'), 'started');
});
