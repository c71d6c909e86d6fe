// Which documents are AscendC. Pure (no vscode import) so node's test runner can check the rule.

/** C/C++ suffixes that may hold AscendC; `.asc` is contributed statically in package.json. */
const CPP_SUFFIXES = ['.cpp', '.cc', '.cxx', '.h', '.hpp', '.hh'];

/** Only documents VS Code opened as plain C or C++ are re-labelled: a language the user picked stays. */
const TAKEOVER_FROM = new Set(['cpp', 'c']);

/** Folders of an msopgen operator project: everything in them is AscendC (kernel or host tiling). */
const OPERATOR_FOLDERS = ['op_kernel', 'op_host'];

/** How much of a file's start is searched for the kernel header; includes sit at the top. */
export const HEAD_CHARS = 16_000;

const KERNEL_INCLUDE = /^\s*#\s*include\s*[<"](?:[\w./]*\/)?kernel_operator\.h[>"]/m;

function hasCppSuffix(path: string): boolean {
    const lower = path.toLowerCase();
    return CPP_SUFFIXES.some((s) => lower.endsWith(s));
}

function inOperatorFolder(path: string): boolean {
    const parts = path.split(/[\\/]/);
    parts.pop(); // the file name itself does not count
    return parts.some((p) => OPERATOR_FOLDERS.includes(p));
}

/**
 * True when a document VS Code opened as `languageId` should become `ascendc`: a C/C++ file inside
 * `op_kernel/` or `op_host/`, or one whose first lines include `kernel_operator.h`.
 */
export function shouldBeAscendc(path: string, languageId: string, head: string): boolean {
    if (!TAKEOVER_FROM.has(languageId) || !hasCppSuffix(path)) {
        return false;
    }
    return inOperatorFolder(path) || KERNEL_INCLUDE.test(head.slice(0, HEAD_CHARS));
}
