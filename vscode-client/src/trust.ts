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

/** Runs tasks one after another, each starting when the one before has settled (a failure does not stop the chain).
 *  The server's start and every restart (trust granted, tilewise.pythonPath or tilewise.importStrategy changed, the
 *  LLM key set, "tilewise: Restart server") go through one, and so does the bundled server's install (install.ts):
 *  trust granted while the first start is still looking for Python would otherwise run a second start beside it,
 *  and the untrusted server could be the one the extension keeps, with the trusted one left running unused. */
export class Serial {
    private last: Promise<unknown> = Promise.resolve();

    run<T>(task: () => Promise<T>): Promise<T> {
        const next = this.last.then(task, task);
        this.last = next.catch(() => undefined);
        return next;
    }
}
