import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { bundledUntrustedNote, chooseStrategy } from '../src/strategy';

test('by default the server is the bundled one', () => {
    assert.deepEqual(chooseStrategy(undefined, undefined, true), { strategy: 'useBundled', configured: '' });
    assert.deepEqual(chooseStrategy('useBundled', { globalValue: '' }, true), { strategy: 'useBundled', configured: '' });
    // an unknown value (a typo in settings.json) is the default, not an error
    assert.equal(chooseStrategy('fromEnv', undefined, true).strategy, 'useBundled');
});

test('fromEnvironment is today\'s search: the configured Python when there is one, else the candidates', () => {
    assert.deepEqual(chooseStrategy('fromEnvironment', undefined, true), { strategy: 'fromEnvironment', configured: '' });
    assert.deepEqual(chooseStrategy('fromEnvironment', { globalValue: ' /opt/tw/bin/python ' }, true),
        { strategy: 'fromEnvironment', configured: '/opt/tw/bin/python' });
});

test('a tilewise.pythonPath the user set wins over useBundled, and the note says where it was set', () => {
    const user = chooseStrategy('useBundled', { globalValue: '/opt/tw/bin/python' }, true);
    assert.equal(user.strategy, 'fromEnvironment');
    assert.equal(user.configured, '/opt/tw/bin/python');
    assert.match(user.note ?? '', /tilewise\.pythonPath is set in the user settings \(\/opt\/tw\/bin\/python\)/);
    assert.match(user.note ?? '', /clear the setting to use the bundled server/);
    // in a trusted workspace the most specific level counts, as getConfiguration().get reads it
    const ws = chooseStrategy(undefined, { globalValue: '/opt/tw/bin/python', workspaceValue: '/ws/.venv/bin/python' }, true);
    assert.equal(ws.configured, '/ws/.venv/bin/python');
    assert.match(ws.note ?? '', /workspace settings/);
    const folder = chooseStrategy(undefined, { workspaceValue: '/a', workspaceFolderValue: '/b' }, true);
    assert.equal(folder.configured, '/b');
    assert.match(folder.note ?? '', /folder settings/);
    // a workspace that clears the user's value gets the bundled server
    assert.deepEqual(chooseStrategy(undefined, { globalValue: '/opt/tw/bin/python', workspaceValue: '' }, true),
        { strategy: 'useBundled', configured: '' });
});

test('an untrusted workspace\'s own tilewise.pythonPath neither wins nor runs; the user\'s still does', () => {
    const left = chooseStrategy(undefined, { workspaceValue: '/ws/evil/python' }, false);
    assert.deepEqual(left, { strategy: 'useBundled', configured: '', ignored: '/ws/evil/python' });
    const user = chooseStrategy(undefined, { globalValue: '/opt/tw/bin/python', workspaceValue: '/ws/evil/python' }, false);
    assert.equal(user.strategy, 'fromEnvironment');
    assert.equal(user.configured, '/opt/tw/bin/python');
    assert.equal(user.ignored, '/ws/evil/python');
    assert.match(user.note ?? '', /user settings/);
    assert.deepEqual(chooseStrategy('fromEnvironment', { workspaceValue: '/ws/evil/python' }, false),
        { strategy: 'fromEnvironment', configured: '', ignored: '/ws/evil/python' });
});

test('the bundled server in an untrusted workspace: the note names what was left aside, and nothing when nothing was', () => {
    const note = bundledUntrustedNote([{ python: '/ws/.venv/bin/python', why: 'Python extension interpreter' }], '/ws/evil/python');
    assert.match(note ?? '', /^This workspace is not trusted, so tilewise runs no Python from it: /);
    assert.match(note ?? '', /its tilewise\.pythonPath \/ws\/evil\/python is ignored/);
    assert.match(note ?? '', /\/ws\/\.venv\/bin\/python \(Python extension interpreter\) is not used as the base/);
    assert.match(note ?? '', /Manage Workspace Trust/);
    assert.doesNotMatch(note ?? '', /Set tilewise\.pythonPath/, 'the bundled server needs no setting');
    assert.equal(bundledUntrustedNote([], undefined), undefined);
});

test('package.json: the setting, its default, the Restart server command, and a VSIX that always ships its wheel', () => {
    const root = path.join(__dirname, '..', '..');
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    const setting = pkg.contributes.configuration.properties['tilewise.importStrategy'];
    assert.deepEqual(setting.enum, ['useBundled', 'fromEnvironment']);
    assert.equal(setting.default, 'useBundled');
    assert.equal(setting.enumDescriptions.length, 2);
    const restart = pkg.contributes.commands.find((c: { command: string }) => c.command === 'tilewise.restartServer');
    assert.equal(restart?.title, 'Restart server');
    // `vsce package` fails without a wheel in bundled/; the VSIX keeps bundled/ (the .vscodeignore leaves it in)
    assert.match(pkg.scripts['vscode:prepublish'], /scripts\/wheel\.mjs --check/);
    assert.match(pkg.scripts.package, /scripts\/wheel\.mjs && vsce package/);
    const ignore = fs.readFileSync(path.join(root, '.vscodeignore'), 'utf8').split('\n').map((l) => l.trim());
    assert.ok(!ignore.some((l) => l.startsWith('bundled') || l === '**/*.whl'), ignore.join(', '));
    assert.ok(ignore.includes('scripts/**'));
});
