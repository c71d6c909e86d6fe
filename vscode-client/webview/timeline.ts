// The pipeline timeline: one lane per pipe per core, each event a bar coloured by its pipe and named by its API
// and line, the idle gaps where a pipe waited on another shaded in the colour of the pipe it waited on. Zoom with
// the wheel or the slider, pan by dragging; a core selector pages through big block counts. Hover: the call, its
// bytes or repeats, the duration; click (in VS Code): the source line.
import {
    ChartHandle, Host, Point, SVG_MAX_ITEMS, axisStyle, drawing, echarts, element, mount, pagePoint,
} from './chart';
import {
    TimeUnit, baseName, escapeHtml, formatAt, formatBytes, formatIn, formatTick, formatUs, timeUnit,
} from './format';
import { TimelinePayload } from './payloads';
import { Theme, pipeColor, textStyle, tooltipStyle } from './theme';
import {
    CoreWindow, EventRow, Lane, WaitRow, coreWindows, eventName, extent, hiddenPipes, lanes, pipesOf, rows, shownPipes,
} from './timelineModel';

/** The narrowest an event is drawn, in pixels: a 20 ns copy in a 2 ms run must still be seen and hovered. */
const MIN_EVENT_PX = 2;
/** Events at least this wide carry their name inside the bar. */
const LABEL_MIN_PX = 56;
const LANE_PX = 22;

interface RenderParams {
    coordSys: { x: number; y: number; width: number; height: number };
}
interface RenderApi {
    value(dim: number): number;
    coord(v: number[]): number[];
    size(v: number[]): number[];
}

export function drawTimeline(
    section: HTMLElement, payload: TimelinePayload, theme: Theme, host: Host,
): ChartHandle<TimelinePayload> {
    let p = payload;
    let th = theme;
    let windows: CoreWindow[] = [];
    let current = 0;
    let laneList: Lane[] = [];
    let drawn: { events: EventRow[]; waits: WaitRow[] } = { events: [], waits: [] };
    // the zoom window in percent of the axis, and the one time unit of the axis, ticks and tooltips (from its span)
    let zoom = { start: 0, end: 100 };
    let unit: TimeUnit = timeUnit(1);

    const info = section.appendChild(element('p', 'tw-info'));
    const controls = section.appendChild(element('div', 'tw-controls'));
    const legend = section.appendChild(element('div', 'tw-legend'));
    const el = section.appendChild(element('div', 'tw-chart'));
    el.dataset.chart = 'timeline';
    const note = section.appendChild(element('p', 'tw-note'));
    let chart: echarts.EChartsType | undefined;

    const counts = (): Record<string, number> => ({ lanes: laneList.length, events: drawn.events.length });

    function chartFor(renderer: 'svg' | 'canvas'): echarts.EChartsType {
        if (chart && el.dataset.renderer === renderer) {
            return chart;
        }
        chart?.dispose();
        chart = mount(el, renderer, counts);
        chart.on('datazoom', () => {
            const dz = ((chart?.getOption() as { dataZoom?: { start?: number; end?: number }[] }).dataZoom ?? [])[0];
            if (!dz) {
                return;
            }
            const before = axisKey();
            zoom = { start: dz.start ?? 0, end: dz.end ?? 100 };
            unit = unitOf();
            if (axisKey() !== before) {
                chart?.setOption({ xAxis: xAxis() });
            }
        });
        chart.on('click', (e: { seriesName?: string; value?: unknown }) => {
            if (e.seriesName !== 'events' || !host.reveal || !Array.isArray(e.value)) {
                return;
            }
            const site = (p.sites ?? [])[e.value[4] as number];
            if (site) {
                host.reveal(site.file, site.line);
            }
        });
        return chart;
    }

    function describe(): void {
        const parts = [p.operator];
        if (p.case) {
            parts.push(`case ${p.case}`);
        }
        if (p.chip) {
            parts.push(p.chip);
        }
        if (typeof p.time_us === 'number') {
            parts.push(`${formatUs(p.time_us)} in all` + (typeof p.launch_us === 'number' ? `, launch ${formatUs(p.launch_us)}` : ''));
        }
        const blocks = p.block_dim ?? p.core_count;
        if (blocks) {
            parts.push(`${blocks} block${blocks === 1 ? '' : 's'}`);
        }
        info.textContent = parts.join(' · ');
        const notes = [];
        const cores = p.cores ?? [];
        if ((p.core_count ?? 0) > cores.length) {
            notes.push(`The trace holds ${cores.length} of the run's ${p.core_count} cores.`);
        }
        if (p.truncated) {
            notes.push('The trace hit its event cap: later events are missing.');
        }
        if (cores.length === 0) {
            notes.push('No events were traced.');
        }
        if (!host.reveal && cores.length > 0) {
            notes.push('Times are from the kernel\'s start (launch overhead excluded). In VS Code, clicking an event opens its line.');
        } else if (cores.length > 0) {
            notes.push('Times are from the kernel\'s start (launch overhead excluded). Click an event to open its line; scroll to zoom, drag to pan.');
        }
        note.textContent = notes.join(' ');
    }

    function drawLegend(): void {
        legend.replaceChildren();
        const pipes = pipesOf(p);
        for (const i of shownPipes(p)) {
            const item = legend.appendChild(element('span', 'tw-key', pipes[i]));
            item.style.setProperty('--tw-swatch', pipeColor(th, pipes[i], i));
        }
        const wait = legend.appendChild(element('span', 'tw-key tw-key-wait', 'waiting (shaded in the colour of the pipe waited on)'));
        wait.style.setProperty('--tw-swatch', th.muted);
        if ((p.cores ?? []).length === 0) {
            return;
        }
        for (const i of hiddenPipes(p)) {
            // no lane for a pipe with nothing on it (SCALAR, usually: the scalar unit's issue costs are no events)
            const name = pipes[i];
            const what = /^MTE/i.test(name) ? name : name.toLowerCase();
            const item = legend.appendChild(element('span', 'tw-key tw-key-none', `${name}: no ${what} work traced`));
            item.style.setProperty('--tw-swatch', pipeColor(th, name, i));
            item.dataset.hiddenPipe = name;
            item.title = `No ${name} event or wait on any traced core: its lanes are left out.`;
        }
    }

    function drawControls(): void {
        controls.replaceChildren();
        if (windows.length <= 1) {
            return;
        }
        const label = controls.appendChild(element('label', 'tw-select-label', 'Cores '));
        const select = label.appendChild(element('select', 'tw-select'));
        select.dataset.control = 'cores';
        windows.forEach((w, i) => {
            const o = select.appendChild(element('option', '', w.label));
            o.value = String(i);
            o.selected = i === current;
        });
        select.addEventListener('change', () => {
            current = Number(select.value);
            render(true);
        });
        controls.appendChild(element('span', 'tw-muted', ` of ${(p.cores ?? []).length} traced`));
    }

    function render(fresh: boolean): void {
        windows = coreWindows(p);
        current = Math.min(current, Math.max(0, windows.length - 1));
        const indices = windows[current]?.indices ?? [];
        laneList = lanes(p, indices);
        drawn = rows(p, indices);
        if (fresh) {
            zoom = { start: 0, end: 100 };
        }
        unit = unitOf();
        describe();
        drawLegend();
        drawControls();
        el.style.height = `${Math.max(160, laneList.length * LANE_PX + 96)}px`;
        const c = chartFor(drawn.events.length + drawn.waits.length > SVG_MAX_ITEMS ? 'canvas' : 'svg');
        drawing(el);
        c.resize();
        c.setOption(option(), { notMerge: fresh });
    }

    /** The axis's unit: from the span in view (the whole run, or the zoomed window). */
    function unitOf(): TimeUnit {
        return timeUnit((extent(p) || 1) * (zoom.end - zoom.start) / 100);
    }

    /** What the x axis's option depends on beyond the payload: redrawn when it changes with the zoom. */
    function axisKey(): string {
        return `${unit.name} ${zoom.start <= 0}`;
    }

    function xAxis(): Record<string, unknown> {
        const axis = axisStyle(th);
        const u = unit;
        return {
            type: 'value', min: 0, max: extent(p) || 1, name: `${u.name} from the kernel's start`, nameLocation: 'middle',
            nameGap: 26, ...axis,
            axisLabel: {
                ...(axis.axisLabel as object), hideOverlap: true, formatter: (v: number) => formatTick(v, u),
                // only round ticks: the ends of the run or of the zoomed window (8.8583) are not labelled, 0 is
                showMinLabel: zoom.start <= 0, showMaxLabel: false,
            },
        };
    }

    function option(): Record<string, unknown> {
        const pipes = pipesOf(p);
        const colors = pipes.map((name, i) => pipeColor(th, name, i));
        const axis = axisStyle(th);
        return {
            animation: false,
            textStyle: textStyle(th),
            tooltip: { ...tooltipStyle(th), trigger: 'item', formatter: tooltip },
            grid: { left: laneList.length && laneList[0].label.includes('·') ? 120 : 70, right: 24, top: 12, bottom: 64 },
            xAxis: xAxis(),
            yAxis: {
                type: 'category', inverse: true, data: laneList.map((l) => l.label), ...axis,
                splitLine: { show: false }, axisTick: { show: false },
            },
            dataZoom: [
                { type: 'inside', xAxisIndex: 0, filterMode: 'weakFilter' },
                {
                    type: 'slider', xAxisIndex: 0, filterMode: 'weakFilter', height: 16, bottom: 6,
                    borderColor: th.lines, textStyle: { color: th.muted }, labelFormatter: (v: number) => formatAt(v, unit),
                    fillerColor: 'rgba(128,128,128,0.2)', dataBackground: { lineStyle: { color: th.lines }, areaStyle: { color: th.lines } },
                },
            ],
            series: [
                {
                    type: 'custom', name: 'waits', data: drawn.waits, encode: { x: [1, 2], y: 0 }, progressive: 0,
                    renderItem: (params: RenderParams, api: RenderApi) => {
                        const on = api.value(6);
                        const color = on >= 0 ? colors[on] : th.muted;
                        const shape = bar(params, api, 0.72);
                        return shape && {
                            type: 'rect', shape, z2: 0,
                            style: { fill: color, fillOpacity: 0.22, stroke: color, strokeOpacity: 0.7, lineDash: [3, 2], lineWidth: 1 },
                        };
                    },
                },
                {
                    type: 'custom', name: 'events', data: drawn.events, encode: { x: [1, 2], y: 0 }, progressive: 0,
                    renderItem: (params: RenderParams & { dataIndex: number }, api: RenderApi) => {
                        const shape = bar(params, api, 0.72);
                        if (!shape) {
                            return undefined;
                        }
                        const row = drawn.events[params.dataIndex];
                        const text = shape.width >= LABEL_MIN_PX && row ? eventName(p, row[4], row[3]) : '';
                        return {
                            type: 'rect', shape, z2: 1,
                            style: { fill: colors[api.value(3)], stroke: th.border || undefined, lineWidth: th.border ? 1 : 0 },
                            emphasis: { style: { stroke: th.foreground, lineWidth: 2 } },
                            textContent: text ? {
                                style: {
                                    text, fill: th.background, fontSize: 10, fontFamily: th.font, width: shape.width - 6,
                                    overflow: 'truncate',
                                },
                            } : undefined,
                            textConfig: text ? { position: 'inside' } : undefined,
                        };
                    },
                },
            ],
        };
    }

    function tooltip(params: { seriesName?: string; value?: unknown }): string {
        if (!Array.isArray(params.value)) {
            return '';
        }
        const pipes = pipesOf(p);
        if (params.seriesName === 'waits') {
            const [lane, start, , pipe, cause, dur] = params.value as WaitRow;
            const why = (p.causes ?? [])[cause] ?? 'waiting on a dependency';
            return `<b>${escapeHtml(pipes[pipe] ?? '')} idle</b> (core ${laneList[lane]?.core})<br>${escapeHtml(why)}<br>` +
                `${duration(dur)} from ${formatAt(start, unit)}`;
        }
        const [lane, start, , pipe, siteIdx, bytes, repeats, dur] = params.value as EventRow;
        const site = (p.sites ?? [])[siteIdx];
        const lines = [`<b>${escapeHtml(site?.api ?? pipes[pipe] ?? '')}</b> · ${escapeHtml(pipes[pipe] ?? '')} (core ${laneList[lane]?.core})`];
        if (site) {
            lines.push(`${escapeHtml(baseName(site.file))}:${site.line}`);
        }
        const amount = [];
        if (bytes > 0) {
            amount.push(formatBytes(bytes));
        }
        if (repeats > 0) {
            amount.push(`${repeats} repeat${repeats === 1 ? '' : 's'}`);
        }
        if (amount.length) {
            lines.push(amount.join(' · '));
        }
        lines.push(`<b>${duration(dur)}</b> from ${formatAt(start, unit)}`);
        if (host.reveal && site) {
            lines.push('<i>click: open the line</i>');
        }
        return lines.join('<br>');
    }

    /** A duration in the axis's unit; one far below it (a 20 ns copy on a ms axis) also in its own. */
    function duration(us: number): string {
        const own = formatUs(us);
        const inUnit = formatIn(us, unit);
        return Math.abs(us) > 0 && Math.abs(us) < 0.1 * unit.us && own !== inUnit ? `${inUnit} (${own})` : inUnit;
    }

    render(true);
    return {
        update(next) {
            const sameCores = (next.cores ?? []).length === (p.cores ?? []).length;
            p = next;
            render(!sameCores);
        },
        retheme(next) {
            th = next;
            render(false);
        },
        locate(index): Point | undefined {
            const row = drawn.events[index];
            if (!row || !chart) {
                return undefined;
            }
            const a = chart.convertToPixel({ gridIndex: 0 }, [row[1], row[0]]) as number[];
            const b = chart.convertToPixel({ gridIndex: 0 }, [row[2], row[0]]) as number[];
            if (!Array.isArray(a) || !Array.isArray(b)) {
                return undefined;
            }
            // the middle of the bar as drawn: at least MIN_EVENT_PX wide from its start
            return pagePoint(el, [a[0] + Math.max(b[0] - a[0], MIN_EVENT_PX) / 2, a[1]]);
        },
        dispose() {
            chart?.dispose();
            chart = undefined;
        },
    };
}

/** The rectangle of a row (lane, start, end) in pixels, clipped to the plot; undefined when out of view. */
function bar(params: RenderParams, api: RenderApi, fill: number): { x: number; y: number; width: number; height: number } | undefined {
    const lane = api.value(0);
    const a = api.coord([api.value(1), lane]);
    const b = api.coord([api.value(2), lane]);
    const h = api.size([0, 1])[1] * fill;
    const rect = echarts.graphic.clipRectByRect(
        { x: a[0], y: a[1] - h / 2, width: Math.max(b[0] - a[0], MIN_EVENT_PX), height: h }, params.coordSys);
    return rect ?? undefined;
}
