// Builds the two bundles with esbuild: the extension (src/extension.ts -> out/extension.js, with
// vscode-languageclient inside it, so the VSIX ships no node_modules) and the charts (webview/main.ts ->
// media/charts.js, one IIFE file the webviews load and the CLI's HTML reports inline). Type-checking is tsc's job
// (`tsc -p .`); esbuild only strips the types. `node esbuild.mjs --watch` rebuilds on change.
import * as esbuild from 'esbuild';

const watch = process.argv.includes('--watch');

/** @type {esbuild.BuildOptions[]} */
const builds = [
    {
        entryPoints: ['src/extension.ts'],
        outfile: 'out/extension.js',
        bundle: true,
        platform: 'node',
        format: 'cjs',
        target: 'node20',
        external: ['vscode'], // provided by the editor at run time
        minify: true,
        sourcemap: true, // kept out of the VSIX (.vscodeignore); for debugging from the repository
        logLevel: 'info',
    },
    {
        entryPoints: ['webview/main.ts'],
        outfile: 'media/charts.js',
        bundle: true,
        platform: 'browser',
        format: 'iife',
        // webviews run the editor's Chromium; the HTML report any current browser
        target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
        minify: true,
        banner: {
            js: '/* tilewise charts. Includes Apache ECharts (Apache-2.0, https://echarts.apache.org) and ZRender (BSD-3-Clause). */',
        },
        logLevel: 'info',
    },
];

if (watch) {
    for (const b of builds) {
        const ctx = await esbuild.context(b);
        await ctx.watch();
    }
} else {
    await Promise.all(builds.map((b) => esbuild.build(b)));
}
