// The convergence of a tiling search: best-so-far time against evaluations (a step line), every candidate as a
// point (failed ones as red diamonds, screened ones as triangles on a row at the top, cached ones hollow), the
// shipped tiling as a horizontal line and the strategy in the title. It updates in place while the search runs.
// Clicking a point shows its configuration, with "Apply" in VS Code (a hint in the HTML report).
import { ChartHandle, Host, Point, axisStyle, drawing, element, mount, pagePoint } from './chart';
import { bestSoFar, pointXs, pointY, speedup, state, tally, xMax, xMin, yTop } from './convergenceModel';
import { escapeHtml, formatConfig, formatUs } from './format';
import { Config, ConvergencePayload, ConvergencePoint } from './payloads';
import { Theme, textStyle, tooltipStyle } from './theme';

export function drawConvergence(
    section: HTMLElement, payload: ConvergencePayload, theme: Theme, host: Host,
): ChartHandle<ConvergencePayload> {
    let p = payload;
    let th = theme;
    let selected: number | undefined; // the clicked point, kept across live updates

    const info = section.appendChild(element('p', 'tw-info'));
    const legend = section.appendChild(element('div', 'tw-legend'));
    const el = section.appendChild(element('div', 'tw-chart'));
    el.dataset.chart = 'convergence';
    el.style.height = '340px';
    const details = section.appendChild(element('div', 'tw-details'));
    details.dataset.control = 'details';

    const chart = mount(el, 'svg', () => ({ points: (p.points ?? []).length }));
    chart.on('click', (e: { seriesName?: string; dataIndex?: number }) => {
        if (e.seriesName === 'candidates' && typeof e.dataIndex === 'number') {
            selected = e.dataIndex;
            showDetails();
        }
    });

    function describe(): void {
        const t = tally(p.points ?? []);
        const s = state(p);
        const parts = [`${p.operator} · strategy ${p.strategy}`,
            `${t.ok + t.failed} of ${p.budget} measured` + (s === 'running' ? ' (running)' : s === 'stopped' ? ' (stopped)' : '')];
        if (t.failed) {
            parts.push(`${t.failed} failed`);
        }
        if (t.screened) {
            parts.push(`${t.screened} screened out`);
        }
        if (t.cached) {
            parts.push(`${t.cached} from the cache`);
        }
        const best = p.best_us ?? bestSoFar(p.points ?? []).at(-1)?.[1];
        if (typeof best === 'number') {
            const x = speedup(p);
            parts.push(`best ${formatUs(best)}` + (x ? ` (${x.toFixed(2)}× the shipped tiling)` : ''));
        }
        if (p.cases && p.cases.length) {
            parts.push(`cases ${p.cases.join(', ')}`);
        }
        info.textContent = parts.join(' · ');
        legend.replaceChildren();
        const keys: [string, string, string][] = [
            ['tw-key', th.accent, 'measured'], ['tw-key tw-key-hollow', th.accent, 'from the cache'],
            ['tw-key tw-key-diamond', th.red, 'failed'], ['tw-key tw-key-triangle', th.yellow, 'screened out (no run)'],
            ['tw-key tw-key-line', th.muted, 'shipped tiling'],
        ];
        for (const [cls, color, text] of keys) {
            legend.appendChild(element('span', cls, text)).style.setProperty('--tw-swatch', color);
        }
    }

    function option(): Record<string, unknown> {
        const points = p.points ?? [];
        const xs = pointXs(points);
        const top = yTop(p);
        const axis = axisStyle(th);
        const state_ = state(p);
        return {
            animation: false,
            textStyle: textStyle(th),
            title: {
                text: `${p.strategy}${state_ === 'running' ? ' — running' : state_ === 'stopped' ? ' — stopped' : ''}`,
                left: 'center', top: 0, textStyle: { ...textStyle(th), fontWeight: 'bold' },
            },
            tooltip: { ...tooltipStyle(th), trigger: 'item', formatter: tooltip },
            // right: room for the shipped line's label, outside the plot where it covers no point
            grid: { left: 72, right: typeof p.shipped_us === 'number' ? 76 : 32, top: 36, bottom: 48 },
            xAxis: {
                // half an evaluation of padding each side: the first and last points drawn whole
                type: 'value', min: xMin(p), max: xMax(p), minInterval: 1, name: 'evaluations', nameLocation: 'middle',
                nameGap: 28, ...axis, splitLine: { show: false },
                axisLabel: { ...(axis.axisLabel as object), formatter: (v: number) => Number.isInteger(v) ? String(v) : '' },
            },
            yAxis: {
                type: 'value', min: 0, max: top, name: 'time', ...axis,
                axisLabel: { ...(axis.axisLabel as object), formatter: (v: number) => formatUs(v) },
            },
            series: [
                {
                    type: 'line', name: 'best so far', step: 'end', data: bestSoFar(points), symbol: 'none', silent: true,
                    lineStyle: { color: th.accent, width: 2 }, z: 2,
                    markLine: typeof p.shipped_us === 'number' ? {
                        silent: true, symbol: 'none', animation: false,
                        lineStyle: { color: th.muted, type: 'dashed', width: 1.5 },
                        label: {
                            formatter: `shipped\n${formatUs(p.shipped_us)}`, color: th.muted, position: 'end', distance: 6,
                            lineHeight: 14, align: 'left',
                        },
                        data: [{ yAxis: p.shipped_us }],
                    } : undefined,
                },
                {
                    type: 'scatter', name: 'candidates', z: 3, cursor: 'pointer',
                    data: points.map((pt, i) => item(pt, i, top, xs[i])),
                },
            ],
        };
    }

    function item(pt: ConvergencePoint, i: number, top: number, x: number): Record<string, unknown> {
        const color = pt.status === 'failed' ? th.red : pt.status === 'screened' ? th.yellow : th.accent;
        const hollow = pt.cached && pt.status === 'ok';
        return {
            value: [x, pointY(pt, top)],
            symbol: pt.status === 'failed' ? 'diamond' : pt.status === 'screened' ? 'triangle' : 'circle',
            symbolSize: i === selected ? 14 : 9,
            itemStyle: {
                color: hollow ? th.background : color, borderColor: i === selected ? th.foreground : color,
                borderWidth: hollow || i === selected ? 2 : th.border ? 1 : 0,
            },
        };
    }

    function tooltip(params: { seriesName?: string; dataIndex?: number }): string {
        const pt = params.seriesName === 'candidates' ? (p.points ?? [])[params.dataIndex ?? -1] : undefined;
        if (!pt) {
            return '';
        }
        const head = pt.status === 'ok' ? `<b>${formatUs(pt.time_us)}</b>${pt.cached ? ' (from the cache)' : ''}`
            : pt.status === 'failed' ? '<b>failed</b>' : '<b>screened out</b>';
        const lines = [`${head} · evaluation ${pt.evaluation}`, escapeHtml(formatConfig(pt.config))];
        if (pt.reason) {
            lines.push(escapeHtml(pt.reason));
        }
        lines.push('<i>click: show the configuration</i>');
        return lines.join('<br>');
    }

    /** The clicked point's configuration (else the best one's), with Apply in VS Code and a hint in the report. */
    function showDetails(): void {
        details.replaceChildren();
        const pt = selected !== undefined ? (p.points ?? [])[selected] : undefined;
        const config: Config | null | undefined = pt ? pt.config : p.best_config;
        if (!config) {
            return;
        }
        const title = pt
            ? `Evaluation ${pt.evaluation}: ${pt.status === 'ok' ? formatUs(pt.time_us) : pt.status === 'failed' ? 'failed' : 'screened out'}`
            : `Best so far: ${formatUs(p.best_us)}`;
        details.appendChild(element('div', 'tw-details-title', title));
        if (pt?.reason) {
            details.appendChild(element('div', 'tw-muted', pt.reason));
        }
        const table = details.appendChild(element('table', 'tw-config'));
        for (const [k, v] of Object.entries(config)) {
            const tr = table.appendChild(element('tr', ''));
            tr.appendChild(element('th', '', k));
            const shipped = p.shipped_config?.[k];
            tr.appendChild(element('td', '', String(v) + (shipped !== undefined && shipped !== v ? `  (shipped ${shipped})` : '')));
        }
        const applicable = !pt || pt.status === 'ok';
        if (host.apply && applicable) {
            const button = details.appendChild(element('button', 'tw-button', 'Apply'));
            button.type = 'button';
            button.dataset.control = 'apply';
            button.title = 'Write this configuration into the operator\'s tiling';
            button.addEventListener('click', () => host.apply?.(config));
        } else if (applicable) {
            details.appendChild(element('div', 'tw-hint',
                'To apply it: in VS Code, run "tilewise: Show tuning convergence", click this point and press Apply ' +
                '(or set these values in the tiling function).'));
        } else {
            details.appendChild(element('div', 'tw-hint', 'This candidate did not run correctly: there is nothing to apply.'));
        }
    }

    function render(notMerge: boolean): void {
        describe();
        drawing(el);
        chart.setOption(option(), { notMerge });
        showDetails();
    }

    render(true);
    return {
        update(next) {
            if (next.operator !== p.operator || next.strategy !== p.strategy) {
                selected = undefined; // another search: the old selection means nothing
            }
            p = next;
            render(false);
        },
        retheme(next) {
            th = next;
            render(false);
        },
        locate(index): Point | undefined {
            const pt = (p.points ?? [])[index];
            if (!pt) {
                return undefined;
            }
            const px = chart.convertToPixel({ seriesIndex: 1 }, [pointXs(p.points ?? [])[index], pointY(pt, yTop(p))]);
            return pagePoint(el, px as number[]);
        },
        dispose() {
            chart.dispose();
        },
    };
}
