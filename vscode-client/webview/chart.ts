// What the three chart modules share: the tree-shaken ECharts (only the charts, components and renderers they
// use are registered, which keeps media/charts.js small), the host the page runs in (a VS Code webview can reveal
// a source line and apply a configuration; the HTML report can do neither), and the testable state every chart
// container carries once ECharts has finished drawing (data-rendered and the counts).
import { BarChart, CustomChart, LineChart, ScatterChart } from 'echarts/charts';
import {
    DataZoomInsideComponent, DataZoomSliderComponent, GridComponent, MarkLineComponent, TitleComponent,
    TooltipComponent,
} from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer, SVGRenderer } from 'echarts/renderers';
import { Config } from './payloads';
import { Theme } from './theme';

echarts.use([
    BarChart, CustomChart, LineChart, ScatterChart,
    DataZoomInsideComponent, DataZoomSliderComponent, GridComponent, MarkLineComponent, TitleComponent,
    TooltipComponent, SVGRenderer, CanvasRenderer,
]);

export { echarts };

/** What the page can do beyond drawing. Absent members: the HTML report, where there is no editor. */
export interface Host {
    reveal?(file: string, line: number): void;
    apply?(config: Config): void;
}

/** A page point, as MouseEvent.clientX/Y are: where a test moves the mouse to hover or click. */
export interface Point {
    x: number;
    y: number;
}

/** A drawn chart: updated in place by a newer payload of the same kind (keeping zoom and selection). */
export interface ChartHandle<P> {
    update(payload: P): void;
    retheme(theme: Theme): void;
    /** The page coordinates of the index-th drawn item (timeline event, convergence point); undefined if none. */
    locate(index: number): Point | undefined;
    dispose(): void;
}

/** Above this many drawn timeline events the canvas renderer takes over: SVG keeps every event a DOM node (good
 *  for inspection and tests), which gets slow past a few thousand. data-renderer says which one drew. */
export const SVG_MAX_ITEMS = 4000;

/** An ECharts instance on `el` that resizes with it and, each time it finishes drawing, marks `el` with
 *  data-rendered="true" and the counts `counts()` returns (data-lanes, data-events, ...). */
export function mount(el: HTMLElement, renderer: 'svg' | 'canvas', counts: () => Record<string, number>): echarts.EChartsType {
    const chart = echarts.init(el, null, { renderer });
    el.dataset.renderer = renderer;
    chart.on('finished', () => {
        for (const [k, v] of Object.entries(counts())) {
            el.dataset[k] = String(v);
        }
        el.dataset.rendered = 'true';
    });
    const resize = new ResizeObserver(() => chart.resize());
    resize.observe(el);
    // dispose() of the chart does not know about the observer: stop it when the chart goes
    const dispose = chart.dispose.bind(chart);
    chart.dispose = () => {
        resize.disconnect();
        dispose();
    };
    return chart;
}

/** Before a new option is set: the next 'finished' sets data-rendered again. */
export function drawing(el: HTMLElement): void {
    el.dataset.rendered = 'false';
}

/** A page point from a pixel of the chart (ECharts pixels are relative to its container). */
export function pagePoint(el: HTMLElement, px: number[] | number | undefined): Point | undefined {
    if (!Array.isArray(px) || !Number.isFinite(px[0]) || !Number.isFinite(px[1])) {
        return undefined;
    }
    const box = el.getBoundingClientRect();
    return { x: box.left + px[0], y: box.top + px[1] };
}

/** A DOM element with a class and optional text: the charts' headings, notes and controls. */
export function element<K extends keyof HTMLElementTagNameMap>(
    tag: K, className: string, text?: string,
): HTMLElementTagNameMap[K] {
    const e = document.createElement(tag);
    e.className = className;
    if (text !== undefined) {
        e.textContent = text;
    }
    return e;
}

/** Axis styling shared by the charts: theme-coloured labels, lines and split lines. */
export function axisStyle(theme: Theme): Record<string, unknown> {
    return {
        axisLabel: { color: theme.muted, fontFamily: theme.font },
        axisLine: { lineStyle: { color: theme.lines } },
        axisTick: { lineStyle: { color: theme.lines } },
        splitLine: { lineStyle: { color: theme.lines, opacity: 0.5 } },
        nameTextStyle: { color: theme.muted, fontFamily: theme.font },
    };
}
