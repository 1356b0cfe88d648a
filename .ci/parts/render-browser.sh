#!/usr/bin/env bash
# flow-render (issues 14, 30, 41): the SVG renders in a browser as our own PNG shows it. For each
# picture of tools/svg-browser/check.mjs (the example flow, loops, subflows, every step kind, hostile labels with emoji; both themes, all four
# directions; a page of a 150-step flow and one step's neighbourhood) `botmesh-mcp render` writes the SVG and the PNG; Debian's headless Chromium takes a
# screenshot of the SVG at the PNG's scale, which must be the PNG's size with nearly the same
# pixels, its text drawn with the fonts the SVG embeds (FlowSans, FlowEmoji); then, in a
# Chromium that sees only Debian's fonts-dejavu-core (a fontconfig file through FONTCONFIG_FILE),
# every text of every SVG must stay inside its box (tools/svg-browser/check.mjs, metric and
# limits in compare.mjs). Deliberately wrong pictures, and an SVG without its embedded fonts
# with DejaVu only, must fail (the self-check).
# Installs Debian's chromium and fonts-dejavu-core with apt-get when missing; playwright-core
# drives /usr/bin/chromium and downloads no browser. Prints the figures per picture.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"

command -v node >/dev/null || { echo "render-browser.sh: node is not installed" >&2; exit 1; }
need_chromium

# Built here (a no-op when fresh), so the check never runs a stale binary.
build_release
binary="$bin"

cd tools/svg-browser
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error
node check.mjs --binary "$binary"
