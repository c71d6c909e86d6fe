#!/usr/bin/env bash
# Create .venv beside the project (once) and install tilewise with its test tools into it.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip >/dev/null 2>&1 || true
.venv/bin/python -m pip install --quiet -e ".[test]" 2>&1 | grep -v "^WARNING: Location" || true
.venv/bin/python -c "import analysis, server, tree_sitter_cpp, pygls" # fail loudly if the install did not work
