//! Cutting an embedded font down to the glyphs one SVG uses, so the SVG can carry its own
//! font (a base64 `@font-face`) and a browser draws its text with our metrics whatever fonts
//! it has.
//!
//! The glyphs kept are renumbered, and `glyf`, `loca`, `hmtx` and `cmap` written anew for
//! them alone (`head`, `hhea` and `maxp` get their new counts); the other tables (`name`,
//! `OS/2`, `post`) are copied, about 1 KB.

use std::collections::{BTreeMap, BTreeSet};

/// Big-endian reads at `at`, `None` past the end.
fn u16_at(data: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(data.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(data: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(data.get(at..at + 4)?.try_into().ok()?))
}

/// The table records of a TrueType file: (tag, offset, length), in file order.
fn tables(data: &[u8]) -> Option<Vec<([u8; 4], usize, usize)>> {
    let count = usize::from(u16_at(data, 4)?);
    (0..count)
        .map(|k| {
            let at = 12 + 16 * k;
            let tag: [u8; 4] = data.get(at..at + 4)?.try_into().ok()?;
            let offset = u32_at(data, at + 8)? as usize;
            let length = u32_at(data, at + 12)? as usize;
            data.get(offset..offset + length)?;
            Some((tag, offset, length))
        })
        .collect()
}

/// The sum of a table's big-endian 32-bit words (zero-padded), as the table directory keeps it.
fn checksum(table: &[u8]) -> u32 {
    table.chunks(4).fold(0u32, |sum, word| {
        let mut padded = [0u8; 4];
        padded[..word.len()].copy_from_slice(word);
        sum.wrapping_add(u32::from_be_bytes(padded))
    })
}

/// The glyphs a composite glyph is made of, each with the place of its glyph index in the
/// outline (none for a simple glyph).
fn components(glyph: &[u8]) -> Vec<(usize, u16)> {
    const WORDS: u16 = 0x0001;
    const SCALE: u16 = 0x0008;
    const MORE: u16 = 0x0020;
    const XY_SCALE: u16 = 0x0040;
    const TWO_BY_TWO: u16 = 0x0080;
    let mut out = Vec::new();
    if u16_at(glyph, 0).is_none_or(|contours| contours as i16 >= 0) {
        return out;
    }
    let mut at = 10;
    while let (Some(flags), Some(id)) = (u16_at(glyph, at), u16_at(glyph, at + 2)) {
        out.push((at + 2, id));
        at += 4 + if flags & WORDS != 0 { 4 } else { 2 };
        at += if flags & SCALE != 0 {
            2
        } else if flags & XY_SCALE != 0 {
            4
        } else if flags & TWO_BY_TWO != 0 {
            8
        } else {
            0
        };
        if flags & MORE == 0 {
            break;
        }
    }
    out
}

/// The font file `data` cut down to the characters of `chars` (each with its glyph in this
/// font): their glyphs, the glyphs their composites use and `.notdef`, renumbered in their
/// old order, with a `cmap` of those characters alone; every other table is copied (`hhea`,
/// `maxp` and `head` with their counts and formats set anew). `None` when `data` is not a
/// TrueType font this code understands (the embedded fonts are, tested).
pub(crate) fn subset(data: &[u8], chars: &BTreeMap<char, u16>) -> Option<Vec<u8>> {
    let records = tables(data)?;
    let find = |tag: &[u8; 4]| {
        records
            .iter()
            .find(|r| &r.0 == tag)
            .map(|&(_, offset, length)| &data[offset..offset + length])
    };
    let (head, hhea, maxp) = (find(b"head")?, find(b"hhea")?, find(b"maxp")?);
    let (hmtx, loca, glyf) = (find(b"hmtx")?, find(b"loca")?, find(b"glyf")?);
    let count = usize::from(u16_at(maxp, 4)?);
    let metrics = usize::from(u16_at(hhea, 34)?).max(1);
    let long = u16_at(head, 50)? != 0;
    let offset = |g: usize| -> Option<usize> {
        if long {
            u32_at(loca, 4 * g).map(|o| o as usize)
        } else {
            u16_at(loca, 2 * g).map(|o| 2 * usize::from(o))
        }
    };
    let outline = |g: usize| -> Option<&[u8]> { glyf.get(offset(g)?..offset(g + 1)?) };
    // The glyphs kept: those of the characters, `.notdef`, and every component, transitively.
    let mut kept = BTreeSet::new();
    let mut stack: Vec<u16> = chars.values().copied().chain([0]).collect();
    while let Some(g) = stack.pop() {
        if usize::from(g) >= count || !kept.insert(g) {
            continue;
        }
        stack.extend(
            components(outline(usize::from(g))?)
                .into_iter()
                .map(|(_, id)| id),
        );
    }
    let new_id: BTreeMap<u16, u16> = kept
        .iter()
        .enumerate()
        .map(|(new, &old)| Some((old, u16::try_from(new).ok()?)))
        .collect::<Option<_>>()?;
    // Outlines (components renumbered), offsets, and metrics, in the new order.
    let mut new_glyf = Vec::new();
    let mut offsets = Vec::with_capacity(kept.len() + 1);
    let mut new_hmtx = Vec::with_capacity(4 * kept.len());
    for &old in &kept {
        let g = usize::from(old);
        offsets.push(new_glyf.len());
        let start = new_glyf.len();
        let glyph = outline(g)?;
        new_glyf.extend_from_slice(glyph);
        for (at, component) in components(glyph) {
            let id = new_id.get(&component)?;
            new_glyf
                .get_mut(start + at..start + at + 2)?
                .copy_from_slice(&id.to_be_bytes());
        }
        if new_glyf.len() % 2 == 1 {
            new_glyf.push(0);
        }
        let advance = u16_at(hmtx, 4 * g.min(metrics - 1))?;
        let bearing = if g < metrics {
            u16_at(hmtx, 4 * g + 2)?
        } else {
            u16_at(hmtx, 4 * metrics + 2 * (g - metrics))?
        };
        new_hmtx.extend_from_slice(&advance.to_be_bytes());
        new_hmtx.extend_from_slice(&bearing.to_be_bytes());
    }
    offsets.push(new_glyf.len());
    let short = new_glyf.len() / 2 <= usize::from(u16::MAX);
    let mut new_loca = Vec::with_capacity(4 * offsets.len());
    for offset in offsets {
        if short {
            new_loca.extend_from_slice(&u16::try_from(offset / 2).ok()?.to_be_bytes());
        } else {
            new_loca.extend_from_slice(&u32::try_from(offset).ok()?.to_be_bytes());
        }
    }
    let glyphs = u16::try_from(kept.len()).ok()?.to_be_bytes();
    let mut new_head = head.to_vec();
    new_head.get_mut(8..12)?.copy_from_slice(&[0; 4]);
    new_head
        .get_mut(50..52)?
        .copy_from_slice(&u16::from(!short).to_be_bytes());
    let mut new_hhea = hhea.to_vec();
    new_hhea.get_mut(34..36)?.copy_from_slice(&glyphs);
    let mut new_maxp = maxp.to_vec();
    new_maxp.get_mut(4..6)?.copy_from_slice(&glyphs);
    let mapped: Vec<(u32, u16)> = chars
        .iter()
        .map(|(&c, old)| Some((c as u32, *new_id.get(old)?)))
        .collect::<Option<_>>()?;
    let new_cmap = cmap(&mapped)?;
    // The file: the same tables in the same order, each 4-byte aligned.
    let body: Vec<([u8; 4], Vec<u8>)> = records
        .iter()
        .map(|&(tag, offset, length)| {
            let table = match &tag {
                b"glyf" => new_glyf.clone(),
                b"loca" => new_loca.clone(),
                b"hmtx" => new_hmtx.clone(),
                b"head" => new_head.clone(),
                b"hhea" => new_hhea.clone(),
                b"maxp" => new_maxp.clone(),
                b"cmap" => new_cmap.clone(),
                _ => data[offset..offset + length].to_vec(),
            };
            (tag, table)
        })
        .collect();
    let mut out = data.get(..12)?.to_vec();
    let mut at = 12 + 16 * body.len();
    for (tag, table) in &body {
        out.extend_from_slice(tag);
        out.extend_from_slice(&checksum(table).to_be_bytes());
        out.extend_from_slice(&u32::try_from(at).ok()?.to_be_bytes());
        out.extend_from_slice(&u32::try_from(table.len()).ok()?.to_be_bytes());
        at += table.len().next_multiple_of(4);
    }
    let mut head_at = 0;
    for (tag, table) in &body {
        if tag == b"head" {
            head_at = out.len();
        }
        out.extend_from_slice(table);
        out.resize(out.len().next_multiple_of(4), 0);
    }
    // head.checkSumAdjustment: the whole file then sums to 0xB1B0AFBA.
    let adjustment = 0xB1B0_AFBAu32.wrapping_sub(checksum(&out));
    out.get_mut(head_at + 8..head_at + 12)?
        .copy_from_slice(&adjustment.to_be_bytes());
    Some(out)
}

/// A `cmap` table for `mapped` (code point, glyph), sorted by code point: a format 4 subtable
/// (Windows, BMP) for the characters below U+10000 and, when there are others, a format 12
/// subtable (Windows, full repertoire) for all of them.
fn cmap(mapped: &[(u32, u16)]) -> Option<Vec<u8>> {
    let push16 = |out: &mut Vec<u8>, v: u16| out.extend_from_slice(&v.to_be_bytes());
    // Format 4: one segment per character, then the closing 0xFFFF one.
    let bmp: Vec<(u16, u16)> = mapped
        .iter()
        .filter_map(|&(c, g)| Some((u16::try_from(c).ok().filter(|&c| c != 0xFFFF)?, g)))
        .collect();
    let segments = bmp.len() + 1;
    let mut four = Vec::new();
    push16(&mut four, 4);
    push16(&mut four, u16::try_from(16 + 8 * segments).ok()?);
    push16(&mut four, 0);
    let search = 2 * (1u16 << (usize::BITS - 1 - segments.leading_zeros()));
    push16(&mut four, u16::try_from(2 * segments).ok()?);
    push16(&mut four, search);
    push16(&mut four, u16::try_from(search.trailing_zeros() - 1).ok()?);
    push16(&mut four, u16::try_from(2 * segments).ok()? - search);
    for &(c, _) in &bmp {
        push16(&mut four, c);
    }
    push16(&mut four, 0xFFFF);
    push16(&mut four, 0);
    for &(c, _) in &bmp {
        push16(&mut four, c);
    }
    push16(&mut four, 0xFFFF);
    for &(c, g) in &bmp {
        push16(&mut four, g.wrapping_sub(c));
    }
    push16(&mut four, 1);
    for _ in 0..segments {
        push16(&mut four, 0);
    }
    let wide = mapped.len() > bmp.len();
    let mut twelve = Vec::new();
    if wide {
        let groups = u32::try_from(mapped.len()).ok()?;
        push16(&mut twelve, 12);
        push16(&mut twelve, 0);
        twelve.extend_from_slice(&(16 + 12 * groups).to_be_bytes());
        twelve.extend_from_slice(&0u32.to_be_bytes());
        twelve.extend_from_slice(&groups.to_be_bytes());
        for &(c, g) in mapped {
            twelve.extend_from_slice(&c.to_be_bytes());
            twelve.extend_from_slice(&c.to_be_bytes());
            twelve.extend_from_slice(&u32::from(g).to_be_bytes());
        }
    }
    let subtables: u16 = if wide { 2 } else { 1 };
    let mut out = Vec::new();
    push16(&mut out, 0);
    push16(&mut out, subtables);
    let first = 4 + 8 * u32::from(subtables);
    push16(&mut out, 3);
    push16(&mut out, 1);
    out.extend_from_slice(&first.to_be_bytes());
    if wide {
        push16(&mut out, 3);
        push16(&mut out, 10);
        out.extend_from_slice(&(first + u32::try_from(four.len()).ok()?).to_be_bytes());
    }
    out.extend_from_slice(&four);
    out.extend_from_slice(&twelve);
    Some(out)
}

/// Standard base64 with padding (RFC 4648 §4): the SVG's embedded fonts, and the images of
/// `flow_render`.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod subset_tests {
    use super::*;
    use crate::font::Face;

    /// The outline of a glyph as the path commands ttf-parser reads.
    #[derive(Default)]
    struct Path(Vec<String>);

    impl ttf_parser::OutlineBuilder for Path {
        fn move_to(&mut self, x: f32, y: f32) {
            self.0.push(format!("M{x},{y}"));
        }
        fn line_to(&mut self, x: f32, y: f32) {
            self.0.push(format!("L{x},{y}"));
        }
        fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
            self.0.push(format!("Q{x1},{y1},{x},{y}"));
        }
        fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
            self.0.push(format!("C{x1},{y1},{x2},{y2},{x},{y}"));
        }
        fn close(&mut self) {
            self.0.push("Z".to_owned());
        }
    }

    fn outline(face: &ttf_parser::Face<'_>, c: char) -> (u16, Vec<String>) {
        let id = face.glyph_index(c).unwrap();
        let mut path = Path::default();
        face.outline_glyph(id, &mut path);
        (face.glyph_hor_advance(id).unwrap(), path.0)
    }

    #[test]
    fn a_subset_draws_its_characters_as_the_whole_font_does_and_nothing_else() {
        // Accented letters are composites of a base letter and an accent: both come along.
        for (face, text) in [(Face::Text, "Aé€ñ?"), (Face::Emoji, "🍕✅😀")] {
            let whole = ttf_parser::Face::parse(face.data(), 0).unwrap();
            let chars: BTreeMap<char, u16> = text
                .chars()
                .map(|c| (c, whole.glyph_index(c).unwrap().0))
                .collect();
            let file = subset(face.data(), &chars).unwrap();
            assert!(file.len() < face.data().len() / 4, "{} bytes", file.len());
            // Every table's checksum and the whole file's adjustment are right.
            assert_eq!(checksum(&file), 0xB1B0_AFBA);
            let part = ttf_parser::Face::parse(&file, 0).unwrap();
            for c in text.chars() {
                assert_eq!(outline(&part, c), outline(&whole, c), "{c}");
            }
            assert_eq!(part.glyph_index('B'), None);
            assert!(usize::from(part.number_of_glyphs()) <= 2 * chars.len() + 1);
        }
    }

    #[test]
    fn base64_matches_rfc_4648_test_vectors() {
        for (input, output) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(input.as_bytes()), output);
        }
    }
}
