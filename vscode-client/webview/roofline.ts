// The roofline of a run and its pipes: on the left the measured time against the launch overhead and the
// roofline (launch + the time HBM needs for the bytes moved: no kernel moving them is faster), on the right each
// pipe's busy ratio, the bottleneck outlined and named. The verdict sentence from the payload sits under them.
import { ChartHandle, Point, axisStyle, drawing, element, mount } from './chart';
import { formatBytes, formatRatio, formatUs } from './format';
import { RooflinePayload } from './payloads';
import { barCount, bottleneckIndex, overRoofline, timeBars } from './rooflineModel';
import { Theme, pipeColor, textStyle, tooltipStyle } from './theme';

export function drawRoofline(section: HTMLElement, payload: RooflinePayload, theme: Theme): ChartHandle<RooflinePayload> {
    let p = payload;
    let th = theme;
    const info = section.appendChild(element('p', 'tw-info'));
    const el = section.appendChild(element('div', 'tw-chart'));
    el.dataset.chart = 'roofline';
    el.style.height = '280px';
    const verdict = section.appendChild(element('p', 'tw-verdict'));
    const chart = mount(el, 'svg', () => ({ bars: barCount(p) }));

    function describe(): void {
        const parts = [p.operator];
        if (p.case) {
            parts.push(`case ${p.case}`);
        }
        parts.push(p.chip, `${formatBytes(p.bytes_read)} read, ${formatBytes(p.bytes_written)} written`,
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
        const over = overRoofline(p);
        return {
            animation: false,
            textStyle: textStyle(th),
            tooltip: { ...tooltipStyle(th), trigger: 'item' },
            title: [
                { text: 'Time against the roofline', left: '2%', top: 0, textStyle: { ...textStyle(th), fontWeight: 'bold' } },
                { text: 'Pipes busy', left: '63%', top: 0, textStyle: { ...textStyle(th), fontWeight: 'bold' } },
            ],
            grid: [
                { left: 190, right: '47%', top: 32, bottom: 36 },
                { left: '66%', right: 16, top: 32, bottom: 36 },
            ],
            xAxis: [
                {
                    // headroom right of the longest bar for its label ("80.0 µs (10.5× the roofline)")
                    gridIndex: 0, type: 'value', min: 0, max: (v: { max: number }) => v.max * 1.45, ...axis,
                    axisLabel: { ...(axis.axisLabel as object), showMaxLabel: false, formatter: (v: number) => formatUs(v) },
                },
                { gridIndex: 1, type: 'category', data: pipes.map((x) => x.pipe), ...axis, axisTick: { show: false } },
            ],
            yAxis: [
                { gridIndex: 0, type: 'category', data: bars.map((x) => x.name), ...axis, axisTick: { show: false } },
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
                        show: true, position: 'right', color: th.foreground, fontFamily: th.font,
                        formatter: (e: { dataIndex: number; value: number }) => bars[e.dataIndex].role === 'measured' && Number.isFinite(over)
                            ? `${formatUs(e.value)} (${over.toFixed(2)}× the roofline)` : formatUs(e.value),
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
            chart.dispose();
        },
    };
}
