#!/usr/bin/env bash
# The test suite: set up, check the code (ruff lint and format, mypy, the layer contract), then pytest on every core
# (pytest-xdist; one emulator build cache for the whole session, tests/conftest.py).
#   scripts/test.sh          the fast suite: every test not marked `slow` (pyproject.toml's markers)
#   scripts/test.sh --all    everything, the slow tests too: what CI runs (.ci/run)
# Any other argument goes to pytest (a path, -k EXPR, -x). TILEWISE_TEST_WORKERS is xdist's -n (default auto: one
# worker per core); TILEWISE_BUILD_CACHE, when set, keeps the session's builds there for the next run.
# Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
select=(-m "not slow")
args=()
for arg in "$@"; do
    if [ "$arg" = "--all" ]; then
        select=()
    else
        args+=("$arg")
    fi
done
bash scripts/setup.sh
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/lint-imports --no-cache --no-logo  # the layer contract in pyproject.toml
# --dist loadgroup: tests marked xdist_group(name) share one worker (a Ray cluster); the rest go wherever a worker is
# free. The slowest tests named: a slow suite is a skipped one.
.venv/bin/python -m pytest -q --durations=15 -n "${TILEWISE_TEST_WORKERS:-auto}" --dist loadgroup \
    "${select[@]}" "${args[@]}"
