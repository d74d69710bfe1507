#!/usr/bin/env bash
# Runs the whole test suite: lint, strict type check, tests. Installs what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
HOYLE_FOR_TESTS=1 bash tools/bootstrap.sh
echo "== ruff" >&2
.venv/bin/ruff check controller drivers vision engine tests bench
echo "== mypy --strict" >&2
.venv/bin/mypy
echo "== card faces" >&2
# Debian's card designs rendered once into the cache before the tests, not inside the first
# test that draws a card (on a busy machine that took longer than a test's time limit).
.venv/bin/python -m vision.scenes.cards --fill-cache
echo "== pytest" >&2
exec .venv/bin/pytest "$@"
