#!/usr/bin/env bash
# Installs what the project needs on a fresh Debian or Raspberry Pi OS machine:
# system packages through apt when missing, then a virtual environment in .venv with
# the project and its test tools. Safe to run again; it only adds what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
have() { command -v "$1" >/dev/null 2>&1; }

python_ok() {
  have python3 && python3 -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))' \
    2>/dev/null
}
python_ok || need_apt+=(python3 python3-venv python3-dev)
have gcc || need_apt+=(gcc)
have sqlite3 || need_apt+=(sqlite3)
# The test suite composes card scenes from Debian's card designs and drives the dashboard
# in Debian's Chromium (tools/test.sh sets this); Playwright never downloads a browser.
if [ "${HOYLE_FOR_TESTS:-0}" = 1 ]; then
  have chromium || need_apt+=(chromium)
  [ -d /usr/share/aisleriot/cards ] || need_apt+=(gnome-cards-data)
  [ -d /usr/share/carddecks ] || need_apt+=(kdegames-card-data-kf5)
  have rsvg-convert || need_apt+=(librsvg2-bin)
  # Typeset card indices (vision/scenes/card_indices.py) need at least one font.
  [ -d /usr/share/fonts/truetype/dejavu ] || need_apt+=(fonts-dejavu-core)
  # The club tests start their own Mosquitto broker and PostgreSQL cluster on loopback.
  [ -x /usr/sbin/mosquitto ] || need_apt+=(mosquitto)
  compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || need_apt+=(postgresql)
  have openssl || need_apt+=(openssl)
fi

if [ ${#need_apt[@]} -gt 0 ]; then
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  echo "bootstrap: installing system packages: ${need_apt[*]}" >&2
  "${sudo_cmd[@]}" apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q "${need_apt[@]}" >&2
fi
python_ok || { echo "bootstrap: Python 3.11 or newer with venv is required" >&2; exit 1; }

stamp=.venv/.installed
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
extras="test"
if grep -qs "Raspberry Pi" /proc/device-tree/model; then
  extras="test,pi"
fi
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip >&2
  .venv/bin/python -m pip install -q -e ".[$extras]" >&2
  touch "$stamp"
fi
