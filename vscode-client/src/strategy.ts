// Where the server comes from (`tilewise.importStrategy`, after microsoft/vscode-python-tools-extension-template):
// `useBundled` (the default) runs the tilewise wheel the VSIX ships, installed by the extension into a virtual
// environment of its own (install.ts); `fromEnvironment` runs a Python the user has, with tilewise installed
// (python.ts). A `tilewise.pythonPath` the user set is an explicit choice of Python and wins over `useBundled`.
// Pure, so the tests need no editor.
import { Candidate, userPythonPath } from './python';

export type ImportStrategy = 'useBundled' | 'fromEnvironment';

/** A setting's value at each level, as `WorkspaceConfiguration.inspect` gives it. */
export interface SettingLevels<T> {
    globalValue?: T;
    workspaceValue?: T;
    workspaceFolderValue?: T;
}

export interface StrategyChoice {
    strategy: ImportStrategy;
    /** The `tilewise.pythonPath` that counts ('' when none): the one candidate of `fromEnvironment` when set. */
    configured: string;
    /** A workspace-level `tilewise.pythonPath` an untrusted workspace leaves aside. */
    ignored?: string;
    /** For the output channel: why a `useBundled` setting does not use the bundled server. */
    note?: string;
}

/** The strategy for these settings. In a trusted workspace `tilewise.pythonPath` counts at every level (the most
 *  specific one that is set, as `getConfiguration().get` reads it); in an untrusted one only the user's own. */
export function chooseStrategy(
    importStrategy: string | undefined,
    pythonPath: SettingLevels<string> | undefined,
    trusted: boolean,
): StrategyChoice {
    const { value, ignored, where } = trusted ? effective(pythonPath) : untrustedValue(pythonPath);
    const configured = value.trim();
    const base = { configured, ...(ignored !== undefined ? { ignored } : {}) };
    if (importStrategy === 'fromEnvironment') {
        return { strategy: 'fromEnvironment', ...base };
    }
    if (configured !== '') {
        return {
            strategy: 'fromEnvironment',
            ...base,
            note: `tilewise.pythonPath is set in the ${where} (${configured}): the server runs from that Python, ` +
                'not from the wheel the extension ships (clear the setting to use the bundled server).',
        };
    }
    return { strategy: 'useBundled', ...base };
}

function effective(levels: SettingLevels<string> | undefined): { value: string; ignored?: string; where: string } {
    if (levels?.workspaceFolderValue !== undefined) {
        return { value: levels.workspaceFolderValue, where: 'folder settings' };
    }
    if (levels?.workspaceValue !== undefined) {
        return { value: levels.workspaceValue, where: 'workspace settings' };
    }
    return { value: levels?.globalValue ?? '', where: 'user settings' };
}

function untrustedValue(levels: SettingLevels<string> | undefined): { value: string; ignored?: string; where: string } {
    return { ...userPythonPath(levels), where: 'user settings' };
}

/** What an untrusted workspace kept from the bundled server (its own `tilewise.pythonPath`, an interpreter inside it
 *  as the environment's base); undefined when nothing was. The bundled server itself lives outside the workspace. */
export function bundledUntrustedNote(withheld: Candidate[], ignored: string | undefined): string | undefined {
    const parts = [
        ...(ignored !== undefined ? [`its tilewise.pythonPath ${ignored} is ignored`] : []),
        ...withheld.map((c) => `${c.python} (${c.why}) is not used as the base of the bundled server's environment`),
    ];
    if (parts.length === 0) {
        return undefined;
    }
    return `This workspace is not trusted, so tilewise runs no Python from it: ${parts.join('; ')}. The bundled ` +
        'server (in the extension\'s storage) lints as usual; trust the workspace (Manage Workspace Trust) to run, ' +
        'tune or optimize.';
}
