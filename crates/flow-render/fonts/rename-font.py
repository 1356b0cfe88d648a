"""Renames a subset font, as the SIL Open Font License asks of a modified font, and clears its
timestamps (so the same source gives the same bytes). Used by make-subset.sh and
make-emoji-subset.sh.

Usage: python3 rename-font.py IN.ttf OUT.ttf FAMILY VERSION COPYRIGHT
"""
import sys

from fontTools.ttLib import TTFont

source, target, family, version, copyright_notice = sys.argv[1:6]
font = TTFont(source, recalcTimestamp=False)
names = font["name"]
keep = {0, 2, 13, 14}
names.names = [r for r in names.names if r.nameID in keep]
for platform, encoding, language in ((3, 1, 0x409),):
    names.setName(family, 1, platform, encoding, language)
    names.setName(f"{family} Regular", 4, platform, encoding, language)
    names.setName(version, 5, platform, encoding, language)
    names.setName(f"{family}-Regular", 6, platform, encoding, language)
    names.setName(copyright_notice, 0, platform, encoding, language)
font["head"].created = font["head"].modified = 0
font.save(target, reorderTables=True)
