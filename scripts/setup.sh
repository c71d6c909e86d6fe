#!/usr/bin/env bash
# Create .venv beside the project (once) and install tilewise with its test tools into it.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip >/dev/null 2>&1 || true
# pip's own output (setuptools deprecation notices and the like) goes to a log, shown only when the install fails
log=$(mktemp)
if ! .venv/bin/python -m pip install --quiet -e ".[test]" >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "setup: installing tilewise into .venv failed (pip's output above)" >&2
    exit 1
fi
rm -f "$log"
.venv/bin/python -c "import tilewise.cli, tree_sitter_cpp, pygls" # fail loudly if the install did not work
# The charts bundle that `--html` reports inline, built with npm; without npm everything else works, and --html
# says how to build it.
if command -v npm >/dev/null 2>&1; then
    log=$(mktemp)
    if ! bash scripts/npm_ci.sh >"$log" 2>&1; then
        cat "$log" >&2
        echo "setup: building the charts bundle failed (npm's output above); --html reports will say how to retry" >&2
    fi
    rm -f "$log"
else
    echo "setup: npm not found: the charts bundle for --html reports is not built (everything else is)" >&2
fi
