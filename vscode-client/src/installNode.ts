// The real file system, processes and clock for install.ts (Node's), kept apart so install.ts stays pure.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InstallDeps, InstallFs, RunResult, Runner } from './install';

export const nodeFs: InstallFs = {
    async list(dir) {
        return fs.promises.readdir(dir).catch(() => []);
    },
    async read(file) {
        return fs.promises.readFile(file, 'utf8').catch(() => undefined);
    },
    async sha256(file) {
        const hash = createHash('sha256');
        for await (const chunk of fs.createReadStream(file)) {
            hash.update(chunk as Buffer);
        }
        return hash.digest('hex');
    },
    async exists(p) {
        return fs.promises.access(p).then(() => true, () => false);
    },
    async mkdirp(dir) {
        await fs.promises.mkdir(dir, { recursive: true });
    },
    async remove(p) {
        await fs.promises.rm(p, { recursive: true, force: true, maxRetries: 3 });
    },
    async writeAtomic(file, text) {
        const tmp = `${file}.${process.pid}.tmp`;
        await fs.promises.writeFile(tmp, text);
        await fs.promises.rename(tmp, file); // atomic on one file system: the old record or the new, never half
    },
    async createExclusive(file, text) {
        try {
            await fs.promises.writeFile(file, text, { flag: 'wx' });
            return true;
        } catch (err) {
            if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
                return false;
            }
            throw err;
        }
    },
};

/** Runs a program away from any checkout (cwd: the temp folder), collecting stdout's and stderr's lines as one text
 *  and handing each line to `onLine`; never throws. */
export const nodeRunner: Runner = {
    run(command, args, { timeoutMs, onLine, signal }) {
        return new Promise<RunResult>((resolve) => {
            const lines: string[] = []; // whole lines, in the order they came (the two streams' never mixed in one)
            const partial = { stdout: '', stderr: '' }; // each stream's unfinished last line, kept apart
            const output = () => [...lines, partial.stdout, partial.stderr].filter((l) => l !== '').join('\n');
            let settled = false;
            const done = (r: RunResult) => {
                if (!settled) {
                    settled = true;
                    clearTimeout(timer);
                    resolve(r);
                }
            };
            const child = spawn(command, args, { cwd: os.tmpdir(), signal, windowsHide: true });
            const timer = setTimeout(() => {
                child.kill();
                done({ code: null, output: output(), error: `timed out after ${timeoutMs / 1000} s` });
            }, timeoutMs);
            const take = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
                const split = (partial[stream] + chunk.toString()).split(/\r?\n/);
                partial[stream] = split.pop() ?? '';
                for (const line of split) {
                    lines.push(line);
                    onLine?.(line);
                }
            };
            child.stdout.on('data', take('stdout'));
            child.stderr.on('data', take('stderr'));
            child.on('error', (err) => done({
                code: null, output: output(), error: signal?.aborted ? 'cancelled' : err.message,
            }));
            child.on('close', (code) => {
                for (const rest of [partial.stdout, partial.stderr]) {
                    if (rest) {
                        onLine?.(rest);
                    }
                }
                done(signal?.aborted ? { code: null, output: output(), error: 'cancelled' } : { code, output: output() });
            });
        });
    },
};

/** install.ts's dependencies on this machine; `versionOf` is the extension's `python -m tilewise --version`. */
export function nodeDeps(versionOf: (python: string) => Promise<string | undefined>): InstallDeps {
    return {
        fs: nodeFs,
        runner: nodeRunner,
        versionOf,
        platform: process.platform,
        pid: process.pid,
        isAlive(pid) {
            try {
                process.kill(pid, 0); // signal 0: only asks whether the process exists
                return true;
            } catch (err) {
                return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
            }
        },
        sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
        now: () => Date.now(),
    };
}

/** `<globalStorage>/server`: where the bundled server's environment lives. */
export function serverDir(globalStorage: string): string {
    return path.join(globalStorage, 'server');
}
