#!/usr/bin/env bash
# Regenerates FlowEmoji-Regular.ttf, the emoji font that botmesh-flow-render embeds for the
# characters FlowSans lacks (the PNG draws them from its outlines; the SVG embeds the glyphs
# it uses).
#
# Source: Noto Emoji Regular 3.006, the monochrome outline Noto Emoji (SIL Open Font License
# 1.1, see OFL-FlowEmoji.txt), as shipped by the npm package @expo-google-fonts/noto-emoji
# 0.4.7 (`npm pack @expo-google-fonts/noto-emoji@0.4.7`, file
# package/400Regular/NotoEmoji_400Regular.ttf, sha256 24aaa2a2…817eb504).
# Tool: fonttools 4.x from PyPI (`pip install fonttools`), `pyftsubset`.
#
# The subset keeps the code points listed in emoji-set.txt (which and why: there); no hinting,
# no layout tables (the renderer neither shapes nor kerns), no vertical metrics. "Noto" is a
# trademark of Google, so the modified (subset) font is renamed "FlowEmoji".
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source_font="${1:?usage: make-emoji-subset.sh path/to/NotoEmoji_400Regular.ttf}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
grep -v '^#' "$here/emoji-set.txt" | grep -v '^$' >"$tmp/unicodes.txt"
pyftsubset "$source_font" \
  --unicodes-file="$tmp/unicodes.txt" \
  --no-hinting --desubroutinize --layout-features='' \
  --drop-tables+=GSUB,GPOS,GDEF,STAT,vhea,vmtx,gasp,DSIG \
  --output-file="$tmp/subset.ttf"
python3 - "$tmp/subset.ttf" "$here/FlowEmoji-Regular.ttf" <<'PY'
import sys
from fontTools.ttLib import TTFont
font = TTFont(sys.argv[1], recalcTimestamp=False)
names = font["name"]
keep = {0, 2, 13, 14}
names.names = [r for r in names.names if r.nameID in keep]
for platform, encoding, language in ((3, 1, 0x409),):
    names.setName("FlowEmoji", 1, platform, encoding, language)
    names.setName("FlowEmoji Regular", 4, platform, encoding, language)
    names.setName("Version 3.006; subset of Noto Emoji for botmesh-flow-render", 5, platform, encoding, language)
    names.setName("FlowEmoji-Regular", 6, platform, encoding, language)
    names.setName("Copyright 2013-2026 Google LLC. Modified (subset, renamed) for botmesh-flow-render.", 0, platform, encoding, language)
font["head"].created = font["head"].modified = 0
font.save(sys.argv[2], reorderTables=True)
PY
echo "wrote $here/FlowEmoji-Regular.ttf ($(wc -c <"$here/FlowEmoji-Regular.ttf") bytes, $(wc -l <"$tmp/unicodes.txt") ranges)"
