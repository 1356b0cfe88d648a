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
python3 - "$tmp/subset.ttf" "$here/FlowSans-Regular.ttf" <<'PY'
import sys
from fontTools.ttLib import TTFont
font = TTFont(sys.argv[1], recalcTimestamp=False)
names = font["name"]
keep = {0, 2, 13, 14}
names.names = [r for r in names.names if r.nameID in keep]
for platform, encoding, language in ((3, 1, 0x409),):
    names.setName("FlowSans", 1, platform, encoding, language)
    names.setName("FlowSans Regular", 4, platform, encoding, language)
    names.setName("Version 2.1.5; subset of Liberation Sans for botmesh-flow-render", 5, platform, encoding, language)
    names.setName("FlowSans-Regular", 6, platform, encoding, language)
    names.setName("Copyright (c) 2012 Red Hat, Inc.; digitized data copyright (c) 2010 Google Corporation. Modified (subset, renamed) for botmesh-flow-render.", 0, platform, encoding, language)
font["head"].created = font["head"].modified = 0
font.save(sys.argv[2], reorderTables=True)
PY
echo "wrote $here/FlowSans-Regular.ttf ($(wc -c <"$here/FlowSans-Regular.ttf") bytes)"
