// The CLI's HTML reports in a headless Chromium with the network off (issue 21): `tilewise run --html` and
// `tilewise tune --html` write self-contained pages (the charts bundle inlined, the data in the page); each is
// opened from its file:// URL in an offline browser context where every request that is not a file: URL is aborted
// and counted. Every chart must finish drawing ([data-chart] with data-rendered="true", no [data-error]) with its
// items (timeline lanes and events, convergence points, roofline bars and the bottleneck), with no request leaving
// the page, no console error (a CSP violation is one) and no uncaught exception. Full-page screenshots are saved.
//
// node e2e/report.mjs --tilewise BIN --example DIR --shots DIR [--budget N]
// Environment: TILEWISE_OPT / TILEWISE_CACHE pass through to the CLI.
// Prints one line per step and closes with "N passed, M failed"; exits 1 on any failure.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';

const { values: opt } = parseArgs({
    options: {
        tilewise: { type: 'string' },
        example: { type: 'string' },
        shots: { type: 'string' },
        budget: { type: 'string', default: '4' },
        chromium: { type: 'string', default: '/usr/bin/chromium' },
    },
});
for (const k of ['tilewise', 'example']) {
    if (!opt[k]) {
        console.error(`missing --${k}`);
        process.exit(2);
    }
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tilewise-report-'));
const shots = opt.shots ?? fs.mkdtempSync(path.join(os.tmpdir(), 'tilewise-e2e-shots-'));
fs.mkdirSync(shots, { recursive: true });
console.log(`screenshots: ${shots}`);

const reports = [
    {
        name: 'run', args: ['run', opt.example], file: path.join(tmp, 'run.html'),
        expect: { timeline: 1, roofline: 1 },
    },
    {
        name: 'tune', args: ['tune', opt.example, '--budget', opt.budget], file: path.join(tmp, 'tune.html'),
        expect: { convergence: 1, roofline: 1, timeline: 1 },
    },
];

let passed = 0;
let failed = 0;
let browser;
try {
    for (const r of reports) {
        await step(`tilewise ${r.args.join(' ')} --html writes a self-contained report`, async () => {
            execFileSync(opt.tilewise, [...r.args, '--html', r.file], {
                stdio: ['ignore', 'ignore', 'pipe'], timeout: 300_000, env: process.env,
            });
            const html = fs.readFileSync(r.file, 'utf8');
            // nothing to fetch: no script, style or image source outside the page
            const external = html.match(/<(?:script|link|img)\b[^>]*\b(?:src|href)=/gi);
            if (external) {
                throw new Error(`the report loads ${external.length} external resource(s): ${external[0]}`);
            }
            return `${(html.length / 1024).toFixed(0)} KiB`;
        });
    }
    browser = await chromium.launch({
        executablePath: opt.chromium, headless: true,
        args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
            '--disable-component-update', '--disable-sync'],
    });
    for (const r of reports) {
        await step(`the ${r.name} report draws its charts from a file URL with the network off`, () => openReport(r));
    }
} catch (err) {
    failed++;
    console.log(`FAIL setup: ${err.stack ?? err}`);
} finally {
    await browser?.close().catch(() => undefined);
}
if (!failed) {
    fs.rmSync(tmp, { recursive: true, force: true });
} else {
    console.log(`the reports are kept in ${tmp}`);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);

async function step(name, fn) {
    try {
        const detail = await fn();
        passed++;
        console.log(`PASS ${name}${detail ? ` (${detail})` : ''}`);
    } catch (err) {
        failed++;
        console.log(`FAIL ${name}: ${err.message}`);
        throw err;
    }
}

async function openReport(r) {
    const context = await browser.newContext({ offline: true, viewport: { width: 1400, height: 900 }, colorScheme: 'light' });
    try {
        const blocked = [];
        await context.route('**/*', (route) => {
            const url = route.request().url();
            if (url.startsWith('file:') || url.startsWith('data:')) {
                return route.continue();
            }
            blocked.push(url);
            return route.abort('internetdisconnected');
        });
        const page = await context.newPage();
        const requests = [];
        page.on('request', (req) => {
            if (!/^(file|data|blob):/.test(req.url())) {
                requests.push(req.url()); // also what the router cannot see (e.g. a websocket)
            }
        });
        const errors = [];
        page.on('console', (m) => {
            if (m.type() === 'error') {
                errors.push(`console: ${m.text()}`);
            }
        });
        page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
        // a CSP violation is a console error too; the event says which directive, for the report
        await page.addInitScript(() => {
            document.addEventListener('securitypolicyviolation', (e) => {
                console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || 'inline'}`);
            });
        });
        await page.goto(pathToFileURL(r.file).href, { waitUntil: 'load' });
        const kinds = Object.keys(r.expect);
        await page.waitForFunction((expected) => {
            const charts = [...document.querySelectorAll('[data-chart]')];
            return expected.every((k) => charts.some((c) => c.dataset.chart === k))
                && charts.every((c) => c.dataset.rendered === 'true');
        }, kinds, { timeout: 30_000 });
        await page.waitForTimeout(300); // a late error or request would show now
        const found = await page.evaluate(() => ({
            charts: [...document.querySelectorAll('[data-chart]')].map((c) => ({
                kind: c.dataset.chart, ...c.dataset,
                svg: c.querySelectorAll('svg path, svg rect, svg text').length,
                canvas: c.querySelectorAll('canvas').length,
            })),
            errors: [...document.querySelectorAll('[data-error]')].map((e) => e.textContent),
            bottleneck: document.querySelector('[data-bottleneck]')?.getAttribute('data-bottleneck') ?? null,
            verdict: document.querySelector('.tw-verdict')?.textContent ?? '',
            title: document.title,
        }));
        await page.screenshot({ path: path.join(shots, `report-${r.name}.png`), fullPage: true });
        const problems = [];
        for (const k of kinds) {
            const n = found.charts.filter((c) => c.kind === k).length;
            if (n !== r.expect[k]) {
                problems.push(`${n} ${k} chart(s), expected ${r.expect[k]}`);
            }
        }
        for (const c of found.charts) {
            if (c.svg === 0 && c.canvas === 0) {
                problems.push(`the ${c.kind} chart has no drawing in it`);
            }
            if (c.kind === 'timeline' && !(Number(c.lanes) >= 4 && Number(c.events) > 0)) {
                problems.push(`timeline: ${c.lanes} lanes, ${c.events} events (expected >= 4 lanes and some events)`);
            }
            if (c.kind === 'convergence' && !(Number(c.points) >= 1)) {
                problems.push(`convergence: ${c.points} points`);
            }
            if (c.kind === 'roofline' && !(Number(c.bars) > 0)) {
                problems.push(`roofline: ${c.bars} bars`);
            }
        }
        if (!found.bottleneck || !/Bottleneck: [A-Z0-9]+/.test(found.verdict)) {
            problems.push(`no bottleneck in the roofline's verdict: "${found.verdict}"`);
        }
        if (found.errors.length) {
            problems.push(`chart errors: ${found.errors.join('; ')}`);
        }
        if (errors.length) {
            problems.push(errors.join('; '));
        }
        if (blocked.length || requests.length) {
            problems.push(`${new Set([...blocked, ...requests]).size} network request(s) attempted: ${[...blocked, ...requests][0]}`);
        }
        if (problems.length) {
            throw new Error(`${problems.join('; ')} (see ${path.join(shots, `report-${r.name}.png`)})`);
        }
        const summary = found.charts.map((c) => c.kind === 'timeline' ? `timeline ${c.lanes} lanes/${c.events} events`
            : c.kind === 'convergence' ? `convergence ${c.points} points` : `roofline ${c.bars} bars`).join(', ');
        return `${summary}; bottleneck ${found.bottleneck}; 0 requests, 0 console errors`;
    } finally {
        await context.close();
    }
}
