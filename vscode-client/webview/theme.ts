// The charts' colours, read from the page: in a VS Code webview the editor defines --vscode-* variables and puts
// vscode-light / vscode-dark / vscode-high-contrast on <body>; the CLI's HTML report defines the few it needs for
// the system's light or dark scheme. ECharts wants concrete colours, not CSS variables, so they are read here and
// read again (and the charts re-drawn) whenever the theme changes.

export type ThemeKind = 'light' | 'dark' | 'high-contrast' | 'high-contrast-light';

export interface Theme {
    kind: ThemeKind;
    foreground: string;
    muted: string; // secondary text, axis labels
    background: string;
    lines: string; // axis and split lines
    border: string; // the high-contrast outline (contrastBorder), or '' when the theme has none
    tooltipBackground: string;
    tooltipBorder: string;
    font: string;
    fontSize: number;
    red: string; // failed candidates
    yellow: string; // screened candidates
    accent: string; // best-so-far line, measured bar
    pipeColors: string[]; // SCALAR, VECTOR, MTE2, MTE3 (then cycled)
}

/** Fallbacks per theme kind, close to VS Code's own defaults, for variables a page does not define. */
const FALLBACK: Record<'light' | 'dark' | 'hc', Record<string, string>> = {
    light: {
        foreground: '#1f1f1f', muted: '#616161', background: '#ffffff', lines: '#d4d4d4', red: '#e51400',
        yellow: '#bf8803', blue: '#1a85ff', orange: '#d18616', green: '#388a34', purple: '#652d90',
    },
    dark: {
        foreground: '#cccccc', muted: '#9d9d9d', background: '#1f1f1f', lines: '#3c3c3c', red: '#f14c4c',
        yellow: '#cca700', blue: '#3794ff', orange: '#d18616', green: '#89d185', purple: '#b180d7',
    },
    hc: {
        foreground: '#ffffff', muted: '#ffffff', background: '#000000', lines: '#6fc3df', red: '#f48771',
        yellow: '#ffd700', blue: '#3794ff', orange: '#ff8c00', green: '#89d185', purple: '#b180d7',
    },
};

/** The theme kind from <body>'s classes (VS Code), else from the system's colour scheme (the HTML report). */
export function themeKind(doc: Document = document): ThemeKind {
    const c = doc.body.classList;
    if (c.contains('vscode-high-contrast-light')) {
        return 'high-contrast-light';
    }
    if (c.contains('vscode-high-contrast')) {
        return 'high-contrast';
    }
    if (c.contains('vscode-dark')) {
        return 'dark';
    }
    if (c.contains('vscode-light')) {
        return 'light';
    }
    const dark = typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;
    return dark ? 'dark' : 'light';
}

export function readTheme(doc: Document = document): Theme {
    const kind = themeKind(doc);
    const fb = FALLBACK[kind === 'high-contrast' ? 'hc' : kind === 'dark' ? 'dark' : 'light'];
    const style = getComputedStyle(doc.body);
    const v = (name: string, fallback: string): string => style.getPropertyValue(`--vscode-${name}`).trim() || fallback;
    const foreground = v('foreground', fb.foreground);
    const background = v('editor-background', fb.background);
    const contrast = v('contrastBorder', '');
    return {
        kind,
        foreground,
        muted: v('descriptionForeground', fb.muted),
        background,
        lines: v('charts-lines', v('panel-border', fb.lines)),
        border: kind.startsWith('high-contrast') ? contrast || foreground : '',
        tooltipBackground: v('editorHoverWidget-background', background),
        tooltipBorder: v('editorHoverWidget-border', v('panel-border', fb.lines)),
        font: v('font-family', 'system-ui, sans-serif'),
        fontSize: parseFloat(v('font-size', '13px')) || 13,
        red: v('charts-red', fb.red),
        yellow: v('charts-yellow', fb.yellow),
        accent: v('charts-blue', fb.blue),
        // purple for the scalar unit, blue vector, orange MTE2 (in), green MTE3 (out): VS Code's chart colours,
        // which every theme (high contrast included) defines legibly against its background
        pipeColors: [v('charts-purple', fb.purple), v('charts-blue', fb.blue), v('charts-orange', fb.orange),
            v('charts-green', fb.green)],
    };
}

/** A pipe's colour: by its position in the payload's pipes, the four known ones fixed so they match across charts. */
export function pipeColor(theme: Theme, pipeName: string, index: number): string {
    const known = ['SCALAR', 'VECTOR', 'MTE2', 'MTE3'].indexOf(pipeName.toUpperCase());
    const i = known >= 0 ? known : index;
    return theme.pipeColors[i % theme.pipeColors.length];
}

/** Calls `onChange` when the theme may have changed: VS Code swaps <body>'s class and rewrites the variables in
 *  <html>'s style; the report follows the system's scheme. Returns a function that stops watching. */
export function watchTheme(onChange: () => void, doc: Document = document): () => void {
    let pending = false;
    const fire = (): void => {
        // one redraw per burst: a theme switch touches several attributes at once
        if (!pending) {
            pending = true;
            requestAnimationFrame(() => {
                pending = false;
                onChange();
            });
        }
    };
    const observer = new MutationObserver(fire);
    observer.observe(doc.body, { attributes: true, attributeFilter: ['class', 'style'] });
    observer.observe(doc.documentElement, { attributes: true, attributeFilter: ['class', 'style'] });
    const media = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : undefined;
    media?.addEventListener('change', fire);
    return () => {
        observer.disconnect();
        media?.removeEventListener('change', fire);
    };
}

/** The text style ECharts should use everywhere: the editor's font and foreground. */
export function textStyle(theme: Theme): { color: string; fontFamily: string; fontSize: number } {
    return { color: theme.foreground, fontFamily: theme.font, fontSize: Math.max(11, theme.fontSize - 1) };
}

/** The tooltip box in the editor's hover colours. */
export function tooltipStyle(theme: Theme): Record<string, unknown> {
    return {
        backgroundColor: theme.tooltipBackground,
        borderColor: theme.tooltipBorder,
        textStyle: textStyle(theme),
        confine: true,
        extraCssText: 'max-width: 480px; white-space: normal;',
    };
}
