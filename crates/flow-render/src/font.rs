//! The embedded fonts: metrics for measuring, outlines for the PNG, and what is written for
//! characters neither has.
//!
//! Text is set in `fonts/FlowSans-Regular.ttf`, a subset of Liberation Sans 2.1.5 (SIL Open
//! Font License 1.1, `fonts/OFL.txt`) made by `fonts/make-subset.sh`; a character it lacks is
//! taken from `fonts/FlowEmoji-Regular.ttf`, a subset of the monochrome Noto Emoji 3.006 (SIL
//! Open Font License 1.1, `fonts/OFL-FlowEmoji.txt`) made by `fonts/make-emoji-subset.sh` for
//! the emoji listed in `fonts/emoji-set.txt`. A character neither draws is written as its
//! code point, `‹U+4F60›`, and reported (see [`Picture::missing_glyphs`](crate::Picture)).

use std::collections::BTreeSet;
use std::sync::OnceLock;

use crate::error::Error;

/// The embedded text font file.
pub(crate) static FONT_DATA: &[u8] = include_bytes!("../fonts/FlowSans-Regular.ttf");
/// The embedded emoji font file.
pub(crate) static EMOJI_DATA: &[u8] = include_bytes!("../fonts/FlowEmoji-Regular.ttf");

/// Which embedded font a glyph comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Face {
    /// FlowSans.
    Text,
    /// FlowEmoji.
    Emoji,
}

/// One glyph of one of the embedded fonts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Glyph {
    pub(crate) face: Face,
    pub(crate) id: ttf_parser::GlyphId,
}

/// The parsed fonts and the few numbers the renderer needs.
pub(crate) struct Font {
    text: ttf_parser::Face<'static>,
    emoji: ttf_parser::Face<'static>,
    /// Font units per em of the text font (every advance is given in them).
    pub(crate) units_per_em: i64,
    /// Ascender in font units (positive).
    pub(crate) ascender: i64,
    /// Descender in font units (negative).
    pub(crate) descender: i64,
    /// The glyph and advance of each Latin-1 character, looked up once (most flow text is
    /// Latin-1, and every label is measured and drawn character by character).
    latin1: Vec<(Option<Glyph>, i64)>,
}

/// The embedded fonts, parsed once.
pub(crate) fn font() -> Result<&'static Font, Error> {
    static FONT: OnceLock<Option<Font>> = OnceLock::new();
    FONT.get_or_init(|| {
        let text = ttf_parser::Face::parse(FONT_DATA, 0).ok()?;
        let emoji = ttf_parser::Face::parse(EMOJI_DATA, 0).ok()?;
        let mut font = Font {
            units_per_em: i64::from(text.units_per_em()),
            ascender: i64::from(text.ascender()),
            descender: i64::from(text.descender()),
            text,
            emoji,
            latin1: Vec::new(),
        };
        font.latin1 = ('\0'..='\u{FF}').map(|c| font.lookup(c)).collect();
        Some(font)
    })
    .as_ref()
    .ok_or(Error::Font)
}

impl Face {
    /// The font file.
    pub(crate) fn data(self) -> &'static [u8] {
        match self {
            Self::Text => FONT_DATA,
            Self::Emoji => EMOJI_DATA,
        }
    }

    /// The family name the SVG gives the font (the name inside the file).
    pub(crate) fn family(self) -> &'static str {
        match self {
            Self::Text => "FlowSans",
            Self::Emoji => "FlowEmoji",
        }
    }
}

impl Font {
    /// The parsed font a glyph comes from.
    pub(crate) fn face(&self, face: Face) -> &ttf_parser::Face<'static> {
        match face {
            Face::Text => &self.text,
            Face::Emoji => &self.emoji,
        }
    }

    /// The glyph that draws `c` (the text font's, else the emoji font's) and its advance in
    /// the text font's units; no glyph and half an em for a character neither has.
    fn lookup(&self, c: char) -> (Option<Glyph>, i64) {
        let found = [Face::Text, Face::Emoji].into_iter().find_map(|face| {
            let parsed = self.face(face);
            let id = parsed.glyph_index(c)?;
            let advance = i64::from(parsed.glyph_hor_advance(id)?);
            let per_em = i64::from(parsed.units_per_em());
            Some((Glyph { face, id }, advance * self.units_per_em / per_em))
        });
        match found {
            Some((glyph, advance)) => (Some(glyph), advance),
            None => (None, self.units_per_em / 2),
        }
    }

    /// The glyph that draws `c` and its advance in font units (see [`Font::lookup`]).
    pub(crate) fn glyph(&self, c: char) -> (Option<Glyph>, i64) {
        match self.latin1.get(c as usize) {
            Some(&known) => known,
            None => self.lookup(c),
        }
    }

    /// The advance of one character in font units.
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

    /// True when one of the fonts draws `c`.
    pub(crate) fn has(&self, c: char) -> bool {
        self.glyph(c).0.is_some()
    }
}

/// True for the characters that are dropped rather than drawn: joiners, variation selectors,
/// emoji modifiers, the keycap and tags (they only modify a neighbour, which is drawn alone).
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

/// How a character neither font draws is written: its code point between `‹` and `›`
/// (`‹U+4F60›`), in the text font, so the picture says what is there instead of a box.
pub(crate) fn missing_glyph_text(c: char) -> String {
    format!("\u{2039}U+{:04X}\u{203A}", c as u32)
}

/// The text as it is drawn: white space (line breaks and tabs included) collapsed to one
/// space and trimmed; control characters dropped; joiners, variation selectors, emoji
/// modifiers and tags dropped; every other character neither font draws (CJK, Arabic, a rare
/// emoji…) written as its code point (see [`missing_glyph_text`]) and added to `missing`.
pub(crate) fn displayable(font: &Font, text: &str, missing: &mut BTreeSet<char>) -> String {
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
        if font.has(c) {
            out.push(c);
        } else {
            missing.insert(c);
            out.push_str(&missing_glyph_text(c));
        }
    }
    out
}
