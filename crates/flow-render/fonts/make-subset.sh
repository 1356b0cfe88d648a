#!/usr/bin/env bash
# Regenerates FlowSans-Regular.ttf, the font that botmesh-flow-render embeds.
#
# Source: Liberation Sans Regular 2.1.5 (SIL Open Font License 1.1, see OFL.txt), as shipped by
# the Debian package `fonts-liberation2` (`apt-get install fonts-liberation2`).
# Tool: fonttools 4.x from PyPI (`pip install fonttools`), `pyftsubset`.
#
# The subset keeps Basic Latin, Latin-1, Latin Extended-A, Greek, basic Cyrillic, general
# punctuation (… – — ‘ ’ “ ” •), € ™ arrows, − and □ (U+25A1, drawn for characters outside the
# font); no hinting, no layout tables (the renderer neither kerns nor shapes).
# "Liberation" and "Arimo" are Reserved Font Names under the OFL, so the modified (subset) font
# is renamed "FlowSans".
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source_font="${1:-/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
pyftsubset "$source_font" \
  --unicodes="U+0020-007E,U+00A0-017F,U+0192,U+0218-021B,U+02C6-02DD,U+0370-03FF,U+0400-045F,U+0490-0491,U+2010-2027,U+2030-203A,U+20AC,U+2122,U+2190-2195,U+2212,U+25A1" \
  --no-hinting --desubroutinize --layout-features='' \
  --drop-tables+=GSUB,GPOS,GDEF,kern,DSIG,gasp,prep,fpgm,cvt,FFTM \
  --output-file="$tmp/subset.ttf"
python3 "$here/rename-font.py" "$tmp/subset.ttf" "$here/FlowSans-Regular.ttf" FlowSans \
  "Version 2.1.5; subset of Liberation Sans for botmesh-flow-render" \
  "Copyright (c) 2012 Red Hat, Inc.; digitized data copyright (c) 2010 Google Corporation. Modified (subset, renamed) for botmesh-flow-render."
echo "wrote $here/FlowSans-Regular.ttf ($(wc -c <"$here/FlowSans-Regular.ttf") bytes)"
