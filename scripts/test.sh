#!/usr/bin/env bash
# The whole test suite: set up, check the code (ruff lint and format, mypy), run pytest. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/lint-imports --no-cache --no-logo  # the layer contract in pyproject.toml
.venv/bin/python -m pytest -q --durations=15 "$@"  # the slowest tests named: a slow suite is a skipped one
