// The page's stylesheet, injected by the bundle so that the HTML report needs only the one script file. Every
// colour is a --vscode-* variable (with a fallback for the report page), so the editor's theme restyles the page
// by itself; the charts' own colours are re-read on a theme change (theme.ts).
export const CSS = `
.tw-page { color: var(--vscode-foreground, #1f1f1f); font-family: var(--vscode-font-family, system-ui, sans-serif);
  font-size: var(--vscode-font-size, 13px); }
.tw-page h1 { font-size: 1.5em; font-weight: 600; margin: 0.4em 0 0.1em; }
.tw-page h2 { font-size: 1.2em; font-weight: 600; margin: 1.2em 0 0.3em; padding-bottom: 0.2em;
  border-bottom: 1px solid var(--vscode-panel-border, rgba(128,128,128,0.35)); }
.tw-subtitle, .tw-info, .tw-note, .tw-muted, .tw-hint { color: var(--vscode-descriptionForeground, #717171); }
.tw-info { margin: 0.2em 0 0.5em; }
.tw-note { font-size: 0.92em; margin: 0.3em 0 0; }
.tw-empty { padding: 2em 0; color: var(--vscode-descriptionForeground, #717171); }
.tw-error { color: var(--vscode-errorForeground, #e51400); }
.tw-chart { width: 100%; min-height: 160px; position: relative; }
.tw-controls { margin: 0.3em 0; display: flex; align-items: center; gap: 0.4em; }
.tw-controls:empty { display: none; }
.tw-select { background: var(--vscode-dropdown-background, Field); color: var(--vscode-dropdown-foreground, FieldText);
  border: 1px solid var(--vscode-dropdown-border, rgba(128,128,128,0.5)); padding: 2px 4px; font: inherit; }
.tw-legend { display: flex; flex-wrap: wrap; gap: 0.4em 1.2em; margin: 0.2em 0 0.4em; font-size: 0.92em; }
.tw-key::before { content: ""; display: inline-block; width: 10px; height: 10px; margin-right: 5px;
  vertical-align: -1px; background: var(--tw-swatch); border: 1px solid var(--tw-swatch); }
.tw-key-wait::before { opacity: 0.35; border-style: dashed; }
.tw-key-hollow::before { background: transparent; border-radius: 50%; border-width: 2px; width: 7px; height: 7px; }
.tw-key-diamond::before { transform: rotate(45deg) scale(0.8); }
.tw-key-triangle::before { background: transparent; border: none; width: 0; height: 0;
  border-left: 6px solid transparent; border-right: 6px solid transparent; border-bottom: 10px solid var(--tw-swatch); }
.tw-key-none { color: var(--vscode-descriptionForeground, #717171); }
.tw-key-none::before { background: transparent; border-style: dashed; }
.tw-key-line::before { height: 0; border: none; border-top: 2px dashed var(--tw-swatch); vertical-align: 3px; width: 16px; }
body.vscode-high-contrast .tw-key::before, body.vscode-high-contrast-light .tw-key::before {
  outline: 1px solid var(--vscode-contrastBorder, currentColor); }
.tw-details { margin: 0.6em 0; }
.tw-details:empty { display: none; }
.tw-details-title { font-weight: 600; margin-bottom: 0.3em; }
.tw-config { border-collapse: collapse; margin: 0.3em 0 0.6em; }
.tw-config th, .tw-config td { text-align: left; padding: 2px 12px 2px 0; font-family: var(--vscode-editor-font-family, monospace); }
.tw-config th { font-weight: normal; color: var(--vscode-descriptionForeground, #717171); }
.tw-button { background: var(--vscode-button-background, #005fb8); color: var(--vscode-button-foreground, #fff);
  border: 1px solid var(--vscode-button-border, transparent); padding: 4px 14px; font: inherit; cursor: pointer; }
.tw-button:hover { background: var(--vscode-button-hoverBackground, #0258a8); }
.tw-button:focus-visible, .tw-select:focus-visible { outline: 1px solid var(--vscode-focusBorder, #0078d4); outline-offset: 2px; }
.tw-hint { font-style: italic; }
.tw-verdict { margin: 0.4em 0 0; }
`;

/** Adds the stylesheet once (the page may be re-rendered many times). */
export function injectStyle(doc: Document = document): void {
    if (doc.getElementById('tilewise-style')) {
        return;
    }
    const style = doc.createElement('style');
    style.id = 'tilewise-style';
    style.textContent = CSS;
    doc.head.appendChild(style);
}
