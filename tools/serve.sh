#!/usr/bin/env bash
# Starts the table service; with no arguments, on the simulated lane at 127.0.0.1:8000.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/bootstrap.sh
exec .venv/bin/hoyle serve "$@"
