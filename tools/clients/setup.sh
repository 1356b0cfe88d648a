#!/usr/bin/env bash
# Installs what the client checks need into git-ignored folders next to this file:
# node_modules/ (`npm ci` from package-lock.json) and .venv/ (`pip install -r requirements.txt`).
# An install is redone only when its lock file changed since the last one, so a second run is
# instant. Quiet on success.
set -euo pipefail
cd "$(dirname "$0")"
if ! cmp -s package-lock.json node_modules/.installed-package-lock.json 2>/dev/null; then
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
  cp package-lock.json node_modules/.installed-package-lock.json
fi
if ! cmp -s requirements.txt .venv/.installed-requirements.txt 2>/dev/null; then
  rm -rf .venv
  python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
  cp requirements.txt .venv/.installed-requirements.txt
fi
