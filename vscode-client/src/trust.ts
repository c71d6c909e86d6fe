// Workspace trust: opening a repository must not run its code. In an untrusted workspace (restricted mode) the
// extension lints and analyses, and refuses what builds or runs the operator: its kernel, host code and golden are
// the repository's code. The server is told too (initializationOptions.trusted) and refuses on its own.

/** What run, trace, tune, verify suggestions and optimize answer in an untrusted workspace. */
export const UNTRUSTED_RUN_MESSAGE =
    'tilewise: running code from an untrusted workspace is disabled; trust the workspace to run, tune or optimize ' +
    '(Manage Workspace Trust)';

/** The button on that message, and the VS Code command it runs. */
export const MANAGE_TRUST = 'Manage Workspace Trust';
export const MANAGE_TRUST_COMMAND = 'workbench.trust.manage';

/** What the server learns at initialize (server/lsp/features/trust.py): nothing is built or run when untrusted. */
export function initializationOptions(trusted: boolean): { trusted: boolean } {
    return { trusted };
}
