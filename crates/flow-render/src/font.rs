//! The embedded font: metrics for measuring, outlines for the PNG, and the fallback for
//! characters it does not have.
//!
//! The font is `fonts/FlowSans-Regular.ttf`, a subset of Liberation Sans 2.1.5 (SIL Open Font
//! License 1.1, `fonts/OFL.txt`) made by `fonts/make-subset.sh`. Liberation Sans has the
//! advance widths of Arial, so the SVG names `Liberation Sans`, `Arimo` and `Arial` after it and
//! a browser without the embedded font still fits every label in its box.

use std::sync::OnceLock;

use crate::error::Error;

/// The embedded font file.
pub(crate) static FONT_DATA: &[u8] = include_bytes!("../fonts/FlowSans-Regular.ttf");

/// What a character outside the font is drawn as: U+25A1 WHITE SQUARE.
pub const FALLBACK_CHAR: char = '\u{25A1}';

/// The parsed font and the few numbers the renderer needs.
pub(crate) struct Font {
    pub(crate) face: ttf_parser::Face<'static>,
    /// Font units per em.
    pub(crate) units_per_em: i64,
    /// Ascender in font units (positive).
    pub(crate) ascender: i64,
    /// Descender in font units (negative).
    pub(crate) descender: i64,
    /// The glyph and advance of each Latin-1 character, looked up once (most flow text is
    /// Latin-1, and every label is measured and drawn character by character).
    latin1: Vec<(Option<ttf_parser::GlyphId>, i64)>,
}

/// The embedded font, parsed once.
pub(crate) fn font() -> Result<&'static Font, Error> {
    static FONT: OnceLock<Option<Font>> = OnceLock::new();
    FONT.get_or_init(|| {
        let face = ttf_parser::Face::parse(FONT_DATA, 0).ok()?;
        let units_per_em = i64::from(face.units_per_em());
        let latin1 = ('\0'..='\u{FF}')
            .map(|c| lookup(&face, units_per_em, c))
            .collect();
        Some(Font {
            units_per_em,
            ascender: i64::from(face.ascender()),
            descender: i64::from(face.descender()),
            face,
            latin1,
        })
    })
    .as_ref()
    .ok_or(Error::Font)
}

/// The glyph that draws `c` (the fallback's for a missing one) and its advance in font units.
fn lookup(
    face: &ttf_parser::Face<'_>,
    units_per_em: i64,
    c: char,
) -> (Option<ttf_parser::GlyphId>, i64) {
    let glyph = face
        .glyph_index(c)
        .or_else(|| face.glyph_index(FALLBACK_CHAR));
    let advance = glyph
        .and_then(|glyph| face.glyph_hor_advance(glyph))
        .map_or(units_per_em / 2, i64::from);
    (glyph, advance)
}

impl Font {
    /// The glyph that draws `c` (the fallback's for a missing one) and its advance in font
    /// units.
    pub(crate) fn glyph(&self, c: char) -> (Option<ttf_parser::GlyphId>, i64) {
        match self.latin1.get(c as usize) {
            Some(&known) => known,
            None => lookup(&self.face, self.units_per_em, c),
        }
    }

    /// The advance of one character in font units (the fallback's for a missing one).
    pub(crate) fn advance(&self, c: char) -> i64 {
        self.glyph(c).1
    }

    /// The width of `text` at `size` pixels, rounded up to whole pixels.
    pub(crate) fn width(&self, text: &str, size: i64) -> i64 {
        let units: i64 = text.chars().map(|c| self.advance(c)).sum();
        (units * size + self.units_per_em - 1) / self.units_per_em
    }

    /// The ascender at `size` pixels, rounded to whole pixels.
    pub(crate) fn ascent(&self, size: i64) -> i64 {
        (self.ascender * size + self.units_per_em / 2) / self.units_per_em
    }

    /// True when the font draws `c`.
    pub(crate) fn has(&self, c: char) -> bool {
        self.face.glyph_index(c).is_some()
    }
}

/// True for the characters that are dropped rather than replaced: joiners, variation
/// selectors, emoji modifiers and tags (they only modify a neighbour, which is replaced).
fn is_modifier(c: char) -> bool {
    matches!(
        c,
        '\u{200B}'..='\u{200F}'
            | '\u{2060}'..='\u{2064}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{20D0}'..='\u{20FF}'
            | '\u{1F3FB}'..='\u{1F3FF}'
            | '\u{E0000}'..='\u{E007F}'
            | '\u{E0100}'..='\u{E01EF}'
            | '\u{FEFF}'
    )
}

/// The text as it is drawn: white space (line breaks and tabs included) collapsed to one
/// space and trimmed; control characters dropped; joiners, variation selectors, emoji
/// modifiers and tags dropped; every other character the font lacks (emoji, CJK, Arabic…)
/// replaced by [`FALLBACK_CHAR`], one per character.
pub(crate) fn displayable(font: &Font, text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            space = !out.is_empty();
            continue;
        }
        if c.is_control() || is_modifier(c) {
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        out.push(if font.has(c) { c } else { FALLBACK_CHAR });
    }
    out
}
