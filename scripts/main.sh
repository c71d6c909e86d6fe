#!/usr/bin/env bash
# The main job: set up, then analyse every example operator (the tiling search replaces this once it exists).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/tilewise lint examples/ "$@"
