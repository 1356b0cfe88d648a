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
python3 "$here/rename-font.py" "$tmp/subset.ttf" "$here/FlowEmoji-Regular.ttf" FlowEmoji \
  "Version 3.006; subset of Noto Emoji for botmesh-flow-render" \
  "Copyright 2013-2026 Google LLC. Modified (subset, renamed) for botmesh-flow-render."
echo "wrote $here/FlowEmoji-Regular.ttf ($(wc -c <"$here/FlowEmoji-Regular.ttf") bytes, $(wc -l <"$tmp/unicodes.txt") ranges)"
