"""Pictures of a run and of a tune: the chart payloads (what the VS Code webviews and the `--html` reports draw)
and the self-contained HTML report. The charts themselves are drawn in the browser by the bundle built from
vscode-client/webview (ECharts); this package only says what to draw."""
