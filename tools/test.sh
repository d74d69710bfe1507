#!/usr/bin/env bash
# Runs the whole test suite: lint, strict type check, tests. Installs what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
HOYLE_FOR_TESTS=1 bash tools/bootstrap.sh
echo "== ruff" >&2
.venv/bin/ruff check controller drivers vision engine tests bench
echo "== mypy --strict" >&2
.venv/bin/mypy
echo "== pytest" >&2
exec .venv/bin/pytest "$@"
