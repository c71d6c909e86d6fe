"""The self-contained HTML report of `tilewise run --html` and `tilewise tune --html`: one file holding the charts
bundle (vscode-client/webview, built to vscode-client/media/charts.js by `npm run bundle`) and the report's data,
which opens from disk with no network, for CLI users and as a CI artefact.

A wheel carries the bundle as tilewise/report/charts.js (its build hook, build_hook.py, puts it there); an editable
install of a checkout has no such copy and reads the checkout's vscode-client/media/charts.js.

The data sits in a `<script type="application/json">` block the bundle reads (never executed); the page's content
security policy allows the one inline script by its hash and nothing from the network. The file is written to a
temporary name and renamed, so an interrupted write never leaves half a report under the asked-for name.
"""

from __future__ import annotations

import base64
import hashlib
import html
import os
import tempfile
from pathlib import Path

from tilewise.analysis.errors import TilewiseError
from tilewise.report.payloads import ReportPayload

BUNDLE_ENV = "TILEWISE_CHARTS_JS"
PACKAGED_BUNDLE = Path(__file__).resolve().with_name("charts.js")  # in a wheel: put there by its build hook
# In a checkout (src/tilewise/report/html.py): the bundle scripts/npm_ci.sh builds. Nothing when installed.
CHECKOUT_BUNDLE = Path(__file__).resolve().parents[3] / "vscode-client" / "media" / "charts.js"

# The page's colours when no editor theme sets them: the bundle styles the charts from these variables, which a
# VS Code webview defines (--vscode-*) and this page defines for light and dark systems alike.
_PAGE_STYLE = """
:root { color-scheme: light dark;
  --vscode-font-family: system-ui, -apple-system, "Segoe UI", sans-serif; --vscode-font-size: 13px;
  --vscode-foreground: #1f1f1f; --vscode-editor-background: #ffffff; --vscode-descriptionForeground: #616161;
  --vscode-panel-border: #d4d4d4; --vscode-button-background: #005fb8; --vscode-button-foreground: #ffffff; }
@media (prefers-color-scheme: dark) { :root {
  --vscode-foreground: #cccccc; --vscode-editor-background: #1f1f1f; --vscode-descriptionForeground: #9d9d9d;
  --vscode-panel-border: #3c3c3c; --vscode-button-background: #0078d4; --vscode-button-foreground: #ffffff; } }
body { margin: 0 auto; max-width: 1400px; padding: 16px 24px; background: var(--vscode-editor-background);
  color: var(--vscode-foreground); font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); }
"""


def charts_bundle() -> Path:
    """Where the built charts bundle is: $TILEWISE_CHARTS_JS, else the package's own copy (a wheel's), else the
    checkout's vscode-client/media/charts.js (an editable install's)."""
    packaged, checkout = PACKAGED_BUNDLE, CHECKOUT_BUNDLE
    given = os.environ.get(BUNDLE_ENV)
    if given:
        path = Path(given)
    elif packaged.is_file():
        return packaged
    else:
        path = checkout
    if path.is_file():
        return path
    if given or (checkout.parent.parent / "package.json").is_file():  # a checkout, or a bundle of the user's
        fix = (
            "build it with `npm --prefix vscode-client ci && npm --prefix vscode-client run bundle` "
            f"(scripts/setup.sh does when npm is present), or set {BUNDLE_ENV}"
        )
    else:  # an installed package built without it: only a rebuilt install, or a bundle named by hand, helps
        path = packaged
        fix = f"reinstall tilewise from a wheel built with npm present (its build adds the bundle), or set {BUNDLE_ENV}"
    raise TilewiseError(str(path), 0, f"the charts bundle is missing: {fix}")


def render_report(report: ReportPayload, bundle: str) -> str:
    """The page's text: `bundle` is the charts bundle's JavaScript."""
    data = report.model_dump_json()
    # Inside <script>, only "</script" and "<!--" could end or confuse the block: escaping every "<" as a JSON
    # \\u escape keeps the data valid JSON and leaves no markup in it.
    data = data.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    script = bundle.replace("</script", "<\\/script")
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    csp = (
        "default-src 'none'; img-src data:; style-src 'unsafe-inline'; "  # the charts set inline styles
        f"script-src 'sha256-{digest}'"
    )
    title = html.escape(report.title)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{title}</title>\n<style>{_PAGE_STYLE}</style>\n</head>\n<body>\n"
        f'<div id="tilewise-root"></div>\n'
        f'<script type="application/json" id="tilewise-report">{data}</script>\n'
        f"<script>{script}</script>\n</body>\n</html>\n"
    )


def write_report(path: str | Path, report: ReportPayload) -> Path:
    """Write the report to `path` (atomically) and return its absolute path."""
    bundle = charts_bundle().read_text(encoding="utf-8")
    target = Path(path).resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    text = render_report(report, bundle)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp's 0600 would keep a CI artefact from its readers
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def _umask() -> int:
    mask = os.umask(0o022)  # reading the umask means setting it: put it straight back
    os.umask(mask)
    return mask
