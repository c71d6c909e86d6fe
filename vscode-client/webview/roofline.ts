// The roofline of a run and its pipes: on the left the measured time against the launch overhead and the
// roofline (launch + the time HBM needs for the bytes moved: no kernel moving them is faster), on the right each
// pipe's busy ratio, the bottleneck outlined and named. The verdict sentence from the payload sits under them.
import { ChartHandle, Point, axisStyle, drawing, element, mount } from './chart';
import { formatBytes, formatRatio, formatUs } from './format';
import { RooflinePayload } from './payloads';
import {
    RooflineLayout, barCount, bottleneckIndex, labelPx, measuredLabel, rooflineLayout, timeAxisMax, timeBars,
} from './rooflineModel';
import { Theme, pipeColor, textStyle, tooltipStyle } from './theme';

export function drawRoofline(section: HTMLElement, payload: RooflinePayload, theme: Theme): ChartHandle<RooflinePayload> {
    let p = payload;
    let th = theme;
    const info = section.appendChild(element('p', 'tw-info'));
    const el = section.appendChild(element('div', 'tw-chart'));
    el.dataset.chart = 'roofline';
    let layout: RooflineLayout = rooflineLayout(section.clientWidth);
    el.style.height = `${layout.height}px`;
    const verdict = section.appendChild(element('p', 'tw-verdict'));
    const chart = mount(el, 'svg', () => ({ bars: barCount(p) }));
    // the layout follows the width (side by side, or stacked in a narrow panel): redrawn when the width changes
    let drawnWidth = el.clientWidth;
    const resize = new ResizeObserver(() => {
        if (Math.abs(el.clientWidth - drawnWidth) >= 1) {
            render();
        }
    });
    resize.observe(el);

    function describe(): void {
        const parts = [p.operator];
        if (p.case) {
            parts.push(`case ${p.case}`);
        }
        const hbm = p.hbm_bytes !== undefined ? ` (${formatBytes(p.hbm_bytes)} through HBM)` : '';
        parts.push(p.chip, `${formatBytes(p.bytes_read)} read, ${formatBytes(p.bytes_written)} written${hbm}`,
            `HBM ${p.hbm_gbps} GB/s`, `${formatRatio(p.efficiency)} of the roofline's speed`);
        info.textContent = parts.join(' · ');
        const b = bottleneckIndex(p);
        const name = b >= 0 ? (p.pipes ?? [])[b].pipe.toUpperCase() : undefined;
        verdict.replaceChildren();
        if (name) {
            verdict.appendChild(element('strong', 'tw-bottleneck', `Bottleneck: ${name}. `));
            verdict.dataset.bottleneck = name;
        }
        verdict.appendChild(document.createTextNode(p.verdict ?? ''));
    }

    function option(): Record<string, unknown> {
        const bars = timeBars(p);
        const pipes = p.pipes ?? [];
        const b = bottleneckIndex(p);
        const axis = axisStyle(th);
        const roleColor = { launch: th.muted, floor: th.pipeColors[2], measured: th.accent };
        const L = layout;
        const labels = bars.map((x) => x.role === 'measured' ? measuredLabel(p, formatUs(x.us), L.twoLineLabel) : formatUs(x.us));
        const axisMax = timeAxisMax(bars.map((x, i) => ({ us: x.us, label: labelPx(labels[i]) })), L.plotPx, L.spillPx);
        return {
            animation: false,
            textStyle: textStyle(th),
            tooltip: { ...tooltipStyle(th), trigger: 'item' },
            title: [
                { text: 'Time against the roofline', ...L.titles[0], textStyle: { ...textStyle(th), fontWeight: 'bold' } },
                { text: 'Pipes busy', ...L.titles[1], textStyle: { ...textStyle(th), fontWeight: 'bold' } },
            ],
            grid: L.grids,
            xAxis: [
                {
                    // headroom right of each bar for its label ("80.0 µs (10.5× the roofline)") inside the chart
                    gridIndex: 0, type: 'value', min: 0, max: axisMax, splitNumber: L.timeTicks, ...axis,
                    axisLabel: {
                        ...(axis.axisLabel as object), showMaxLabel: false, hideOverlap: true, formatter: (v: number) => formatUs(v),
                    },
                },
                {
                    gridIndex: 1, type: 'category', data: pipes.map((x) => x.pipe), ...axis, axisTick: { show: false },
                    // every pipe named, however narrow: smaller or slanted rather than left out
                    axisLabel: {
                        ...(axis.axisLabel as object), interval: 0, hideOverlap: false, fontSize: L.pipeFont, rotate: L.pipeRotate,
                    },
                },
            ],
            yAxis: [
                {
                    gridIndex: 0, type: 'category', data: bars.map((x) => x.name), ...axis, axisTick: { show: false },
                    axisLabel: {
                        ...(axis.axisLabel as object), interval: 0, lineHeight: 14,
                        ...(L.categoryWidth ? { width: L.categoryWidth, overflow: 'break' } : {}),
                    },
                },
                {
                    gridIndex: 1, type: 'value', min: 0, max: 1, interval: 0.25, ...axis,
                    axisLabel: { ...(axis.axisLabel as object), formatter: (v: number) => formatRatio(v) },
                },
            ],
            series: [
                {
                    type: 'bar', name: 'time', xAxisIndex: 0, yAxisIndex: 0, barMaxWidth: 28,
                    data: bars.map((x) => ({
                        value: x.us, name: x.name,
                        itemStyle: { color: roleColor[x.role], borderColor: th.border || undefined, borderWidth: th.border ? 1 : 0 },
                    })),
                    label: {
                        show: true, position: 'right', color: th.foreground, fontFamily: th.font, lineHeight: 15,
                        formatter: (e: { dataIndex: number }) => labels[e.dataIndex],
                    },
                    tooltip: {
                        formatter: (e: { dataIndex: number; value: number }) => {
                            const x = bars[e.dataIndex];
                            const extra = x.role === 'floor'
                                ? `<br>launch ${formatUs(p.launch_us)} + HBM floor ${formatUs(p.hbm_floor_us)}`
                                : x.role === 'measured' ? `<br>launch ${formatUs(p.launch_us)} + kernel ${formatUs(p.kernel_us)}` : '';
                            return `<b>${x.name}</b>: ${formatUs(x.us)}${extra}`;
                        },
                    },
                    markLine: {
                        silent: true, symbol: 'none', animation: false,
                        lineStyle: { color: th.pipeColors[2], type: 'dashed' },
                        label: { formatter: 'roofline', color: th.muted },
                        data: [{ xAxis: p.floor_us }],
                    },
                },
                {
                    type: 'bar', name: 'busy', xAxisIndex: 1, yAxisIndex: 1, barMaxWidth: 36,
                    data: pipes.map((x, i) => ({
                        value: x.ratio,
                        itemStyle: {
                            color: pipeColor(th, x.pipe, i),
                            borderColor: i === b ? th.foreground : th.border || undefined,
                            borderWidth: i === b ? 2 : th.border ? 1 : 0,
                        },
                        label: i === b ? { show: true, position: 'top', formatter: `bottleneck ${formatRatio(x.ratio)}`, color: th.foreground, fontWeight: 'bold' } : undefined,
                    })),
                    label: { show: true, position: 'top', color: th.muted, formatter: (e: { value: number }) => formatRatio(e.value) },
                    tooltip: {
                        formatter: (e: { dataIndex: number }) => {
                            const x = pipes[e.dataIndex];
                            return `<b>${x.pipe}</b>${e.dataIndex === b ? ' (bottleneck)' : ''}<br>busy ${formatRatio(x.ratio)} of the blocks' span<br>${formatUs(x.busy_us)} summed over the blocks`;
                        },
                    },
                },
            ],
        };
    }

    function render(): void {
        drawnWidth = el.clientWidth;
        layout = rooflineLayout(el.clientWidth || section.clientWidth, (p.pipes ?? []).length);
        if (el.style.height !== `${layout.height}px`) {
            el.style.height = `${layout.height}px`;
            chart.resize();
        }
        describe();
        drawing(el);
        chart.setOption(option(), { notMerge: true });
    }

    render();
    return {
        update(next) {
            p = next;
            render();
        },
        retheme(next) {
            th = next;
            render();
        },
        locate(): Point | undefined {
            return undefined; // nothing to click on a roofline
        },
        dispose() {
            resize.disconnect();
            chart.dispose();
        },
    };
}
