// The tilewise wheel the VSIX ships (bundled/, git-ignored; the extension installs it on first use, install.ts).
//   node scripts/wheel.mjs           builds it from the repository (`python -m pip wheel --no-deps`, whose build
//                                    hook also builds the charts bundle, so npm must be there) into bundled/,
//                                    replacing any wheel there before
//   node scripts/wheel.mjs --check   fails unless bundled/ holds exactly one tilewise wheel of the repository's
//                                    version (vscode:prepublish runs it, so `vsce package` never makes a VSIX
//                                    without its server)
// The Python: $TILEWISE_PYTHON, else the repository's .venv/bin/python, else python3.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(path.dirname(fileURLToPath(import.meta.url))); // vscode-client/
const repo = path.dirname(here);
const bundled = path.join(here, 'bundled');
const wheelName = /^tilewise-([^-]+)-.+\.whl$/;

function fail(message) {
    console.error(`wheel.mjs: ${message}`);
    process.exit(1);
}

function repoVersion() {
    const pyproject = path.join(repo, 'pyproject.toml');
    if (!fs.existsSync(pyproject)) {
        return undefined; // packaged from somewhere else: nothing to compare with
    }
    const m = /^version\s*=\s*"([^"]+)"/m.exec(fs.readFileSync(pyproject, 'utf8'));
    return m ? m[1] : undefined;
}

function wheels() {
    return fs.existsSync(bundled) ? fs.readdirSync(bundled).filter((n) => wheelName.test(n)) : [];
}

if (process.argv.includes('--check')) {
    const found = wheels();
    if (found.length !== 1) {
        fail(`bundled/ holds ${found.length} tilewise wheels (${found.join(', ') || 'none'}); the VSIX ships exactly one: ` +
            'run `npm run wheel` (or `npm run package`, which builds it and packages)');
    }
    const version = repoVersion();
    const shipped = wheelName.exec(found[0])[1];
    if (version !== undefined && shipped !== version) {
        fail(`bundled/${found[0]} is tilewise ${shipped}, the repository is ${version}: run \`npm run wheel\``);
    }
    console.log(`wheel.mjs: the VSIX ships bundled/${found[0]}`);
    process.exit(0);
}

const venvPython = path.join(repo, '.venv', process.platform === 'win32' ? 'Scripts/python.exe' : 'bin/python');
const python = process.env.TILEWISE_PYTHON || (fs.existsSync(venvPython) ? venvPython : 'python3');
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'tilewise-wheel-'));
try {
    execFileSync(python, ['-m', 'pip', 'wheel', '--no-deps', '--disable-pip-version-check', '-q', '-w', out, repo],
        { stdio: 'inherit' });
    const built = fs.readdirSync(out).filter((n) => wheelName.test(n));
    if (built.length !== 1) {
        fail(`pip wheel made ${built.length} tilewise wheels in ${out}: ${built.join(', ') || 'none'}`);
    }
    fs.mkdirSync(bundled, { recursive: true });
    for (const old of wheels()) {
        fs.rmSync(path.join(bundled, old));
    }
    fs.copyFileSync(path.join(out, built[0]), path.join(bundled, built[0]));
    console.log(`wheel.mjs: bundled/${built[0]} (${fs.statSync(path.join(bundled, built[0])).size} bytes, built with ${python})`);
} catch (err) {
    fail(`building the wheel with ${python} failed: ${err.message}`);
} finally {
    fs.rmSync(out, { recursive: true, force: true });
}
