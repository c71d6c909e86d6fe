#!/usr/bin/env bash
# The main job: set up, then tune the host tiling of an example operator on the emulator (a profiling-in-the-loop
# evolutionary search). Extra arguments go to `tilewise tune`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/tilewise tune examples/add_custom_slow_tiny_tiles --case fp16_large --budget 24 "$@"
