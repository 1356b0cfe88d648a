//! The RE2 syntax check of `ask.pattern` and `matches`.
//!
//! `regex-syntax` parses the pattern into a syntax tree (no Unicode tables, no regex engine),
//! which already refuses what RE2 refuses most often: look-around, back-references, unclosed
//! groups, bad escapes. A walk over the tree (`regex_syntax::ast::visit`, which keeps its own
//! stack, so deep patterns cannot overflow ours) then refuses what `regex-syntax` accepts and RE2
//! does not (RE2's `re2/parse.cc` is the reference):
//! - Unicode classes other than RE2's: `\pL` with one of the 7 one-letter categories, `\p{Name}`
//!   and `\p{^Name}` with `Any`, a general category or a script, spelled exactly (RE2 matches
//!   names case-sensitively); never `\p{name=value}`. A near miss gets a suggestion.
//! - Flags other than `i`, `m`, `s` and `U` (`x`, `u` and `R` are `regex-syntax` extensions).
//! - The escapes `\u…` and `\U…` (RE2 spells a code point `\x{…}`), and the assertions `\<`,
//!   `\>` and `\b{…}`.
//! - Capture group names with characters other than letters, digits and `_`.
//! - A repetition operator applied directly to another one (`a**`, `a{2}{3}`), a count above
//!   1000, and counted repetitions whose nested counts multiply past 1000 (RE2's "bad
//!   repetition operator" and "invalid repetition size").
//!
//! Nesting is limited to 1000 levels, as in RE2. What stays looser than RE2: class set
//! operations (`[a&&b]`) and nested classes, which RE2 reads as literal characters; what stays
//! stricter: `\Q…\E` quoting and `\C`, which `regex-syntax` does not parse. Scripts are Unicode
//! 16.0's, so a script newer than a deployment's RE2 passes here and fails there.
use regex_syntax::ast::{
    self, Assertion, AssertionKind, Ast, ClassSetItem, ClassUnicode, ClassUnicodeKind, Flag, Flags,
    FlagsItemKind, GroupKind, HexLiteralKind, Literal, LiteralKind, RepetitionKind,
    RepetitionRange,
};

use crate::suggest;

/// RE2's largest repetition count, and the largest product of nested counts.
const MAX_REPEAT: u32 = 1000;

/// RE2's deepest nesting of groups, classes and repetitions.
const MAX_NESTING: u32 = 1000;

/// The one-letter general categories RE2 accepts in `\pN`.
const ONE_LETTER: &[char] = &['C', 'L', 'M', 'N', 'P', 'S', 'Z'];

/// The names RE2 accepts in `\p{…}`: `Any`, the general categories and Unicode 16.0's scripts,
/// spelled as RE2 spells them.
const CLASS_NAMES: &[&str] = &[
    "Any",
    "C",
    "Cc",
    "Cf",
    "Co",
    "Cs",
    "L",
    "Ll",
    "Lm",
    "Lo",
    "Lt",
    "Lu",
    "M",
    "Mc",
    "Me",
    "Mn",
    "N",
    "Nd",
    "Nl",
    "No",
    "P",
    "Pc",
    "Pd",
    "Pe",
    "Pf",
    "Pi",
    "Po",
    "Ps",
    "S",
    "Sc",
    "Sk",
    "Sm",
    "So",
    "Z",
    "Zl",
    "Zp",
    "Zs", // General categories, then scripts.
    "Adlam",
    "Ahom",
    "Anatolian_Hieroglyphs",
    "Arabic",
    "Armenian",
    "Avestan",
    "Balinese",
    "Bamum",
    "Bassa_Vah",
    "Batak",
    "Bengali",
    "Bhaiksuki",
    "Bopomofo",
    "Brahmi",
    "Braille",
    "Buginese",
    "Buhid",
    "Canadian_Aboriginal",
    "Carian",
    "Caucasian_Albanian",
    "Chakma",
    "Cham",
    "Cherokee",
    "Chorasmian",
    "Common",
    "Coptic",
    "Cuneiform",
    "Cypriot",
    "Cypro_Minoan",
    "Cyrillic",
    "Deseret",
    "Devanagari",
    "Dives_Akuru",
    "Dogra",
    "Duployan",
    "Egyptian_Hieroglyphs",
    "Elbasan",
    "Elymaic",
    "Ethiopic",
    "Garay",
    "Georgian",
    "Glagolitic",
    "Gothic",
    "Grantha",
    "Greek",
    "Gujarati",
    "Gunjala_Gondi",
    "Gurmukhi",
    "Gurung_Khema",
    "Han",
    "Hangul",
    "Hanifi_Rohingya",
    "Hanunoo",
    "Hatran",
    "Hebrew",
    "Hiragana",
    "Imperial_Aramaic",
    "Inherited",
    "Inscriptional_Pahlavi",
    "Inscriptional_Parthian",
    "Javanese",
    "Kaithi",
    "Kannada",
    "Katakana",
    "Kawi",
    "Kayah_Li",
    "Kharoshthi",
    "Khitan_Small_Script",
    "Khmer",
    "Khojki",
    "Khudawadi",
    "Kirat_Rai",
    "Lao",
    "Latin",
    "Lepcha",
    "Limbu",
    "Linear_A",
    "Linear_B",
    "Lisu",
    "Lycian",
    "Lydian",
    "Mahajani",
    "Makasar",
    "Malayalam",
    "Mandaic",
    "Manichaean",
    "Marchen",
    "Masaram_Gondi",
    "Medefaidrin",
    "Meetei_Mayek",
    "Mende_Kikakui",
    "Meroitic_Cursive",
    "Meroitic_Hieroglyphs",
    "Miao",
    "Modi",
    "Mongolian",
    "Mro",
    "Multani",
    "Myanmar",
    "Nabataean",
    "Nag_Mundari",
    "Nandinagari",
    "New_Tai_Lue",
    "Newa",
    "Nko",
    "Nushu",
    "Nyiakeng_Puachue_Hmong",
    "Ogham",
    "Ol_Chiki",
    "Ol_Onal",
    "Old_Hungarian",
    "Old_Italic",
    "Old_North_Arabian",
    "Old_Permic",
    "Old_Persian",
    "Old_Sogdian",
    "Old_South_Arabian",
    "Old_Turkic",
    "Old_Uyghur",
    "Oriya",
    "Osage",
    "Osmanya",
    "Pahawh_Hmong",
    "Palmyrene",
    "Pau_Cin_Hau",
    "Phags_Pa",
    "Phoenician",
    "Psalter_Pahlavi",
    "Rejang",
    "Runic",
    "Samaritan",
    "Saurashtra",
    "Sharada",
    "Shavian",
    "Siddham",
    "SignWriting",
    "Sinhala",
    "Sogdian",
    "Sora_Sompeng",
    "Soyombo",
    "Sundanese",
    "Sunuwar",
    "Syloti_Nagri",
    "Syriac",
    "Tagalog",
    "Tagbanwa",
    "Tai_Le",
    "Tai_Tham",
    "Tai_Viet",
    "Takri",
    "Tamil",
    "Tangsa",
    "Tangut",
    "Telugu",
    "Thaana",
    "Thai",
    "Tibetan",
    "Tifinagh",
    "Tirhuta",
    "Todhri",
    "Toto",
    "Tulu_Tigalari",
    "Ugaritic",
    "Vai",
    "Vithkuqi",
    "Wancho",
    "Warang_Citi",
    "Yezidi",
    "Yi",
    "Zanabazar_Square",
];

/// Why `pattern` is not RE2 syntax (the end of a sentence), or `None` when it is.
pub(crate) fn problem(pattern: &str) -> Option<String> {
    let tree = ast::parse::ParserBuilder::new()
        .nest_limit(MAX_NESTING)
        .build()
        .parse(pattern);
    match tree {
        Err(error) => Some(error.kind().to_string()),
        Ok(tree) => ast::visit(&tree, Re2::default()).err(),
    }
}

/// The walk over the syntax tree; `budgets` holds, for each enclosing counted repetition, what
/// is left of RE2's 1000 once divided by its count (RE2's `RepetitionWalker`).
#[derive(Default)]
struct Re2 {
    budgets: Vec<u32>,
}

impl ast::Visitor for Re2 {
    type Output = ();
    type Err = String;

    fn finish(self) -> Result<(), String> {
        Ok(())
    }

    fn visit_pre(&mut self, tree: &Ast) -> Result<(), String> {
        match tree {
            Ast::Flags(set) => flags(&set.flags),
            Ast::Group(group) => match &group.kind {
                GroupKind::NonCapturing(set) => flags(set),
                GroupKind::CaptureName { name, .. } => capture_name(&name.name),
                GroupKind::CaptureIndex(_) => Ok(()),
            },
            Ast::Literal(literal) => self::literal(literal),
            Ast::Assertion(assertion) => self::assertion(assertion),
            Ast::ClassUnicode(class) => unicode_class(class),
            Ast::Repetition(repetition) => {
                if let Ast::Repetition(_) = &*repetition.ast {
                    return Err(NESTED_REPETITION.to_owned());
                }
                self.enter_repetition(&repetition.op.kind)
            }
            _ => Ok(()),
        }
    }

    fn visit_post(&mut self, tree: &Ast) -> Result<(), String> {
        if let Ast::Repetition(repetition) = tree
            && let RepetitionKind::Range(_) = repetition.op.kind
        {
            self.budgets.pop();
        }
        Ok(())
    }

    fn visit_class_set_item_pre(&mut self, item: &ClassSetItem) -> Result<(), String> {
        match item {
            ClassSetItem::Literal(literal) => self::literal(literal),
            ClassSetItem::Range(range) => {
                self::literal(&range.start)?;
                self::literal(&range.end)
            }
            ClassSetItem::Unicode(class) => unicode_class(class),
            _ => Ok(()),
        }
    }
}

impl Re2 {
    /// A counted repetition: at most 1000, and within what the enclosing counts leave.
    fn enter_repetition(&mut self, kind: &RepetitionKind) -> Result<(), String> {
        let RepetitionKind::Range(range) = kind else {
            return Ok(());
        };
        let (low, high) = match *range {
            RepetitionRange::Exactly(n) => (n, Some(n)),
            RepetitionRange::AtLeast(n) => (n, None),
            RepetitionRange::Bounded(low, high) => (low, Some(high)),
        };
        if let Some(count) = [Some(low), high]
            .into_iter()
            .flatten()
            .find(|&n| n > MAX_REPEAT)
        {
            return Err(format!(
                "a repetition count is at most {MAX_REPEAT} (found {count})"
            ));
        }
        let budget = self.budgets.last().copied().unwrap_or(MAX_REPEAT);
        let count = high.unwrap_or(low);
        let left = budget.checked_div(count).unwrap_or(budget);
        if left == 0 {
            return Err(format!(
                "nested repetition counts multiply to more than {MAX_REPEAT}"
            ));
        }
        self.budgets.push(left);
        Ok(())
    }
}

/// `a**`, `a{2}{3}`: RE2 refuses a repetition of a repetition (a lazy `a*?` is one operator).
const NESTED_REPETITION: &str = "a repetition operator cannot follow another one (as in a** or \
     a{2}{3}); put the first in a group: (?:a*)*";

/// `(?flags)` and `(?flags:…)`: RE2 knows `i`, `m`, `s` and `U`.
fn flags(set: &Flags) -> Result<(), String> {
    for item in &set.items {
        let letter = match item.kind {
            FlagsItemKind::Flag(Flag::Unicode) => 'u',
            FlagsItemKind::Flag(Flag::CRLF) => 'R',
            FlagsItemKind::Flag(Flag::IgnoreWhitespace) => 'x',
            _ => continue,
        };
        return Err(format!(
            "the flag \"{letter}\" is not supported (RE2 has i, m, s and U)"
        ));
    }
    Ok(())
}

/// RE2 accepts capture group names made of letters, digits and `_`.
fn capture_name(name: &str) -> Result<(), String> {
    if name.chars().all(|c| c == '_' || c.is_alphanumeric()) {
        Ok(())
    } else {
        Err(format!(
            "the capture group name \"{}\" may only hold letters, digits and \"_\"",
            suggest::short(name)
        ))
    }
}

/// `\u…` and `\U…` are `regex-syntax` spellings; RE2 writes `\x{…}`.
fn literal(literal: &Literal) -> Result<(), String> {
    match &literal.kind {
        LiteralKind::HexFixed(HexLiteralKind::UnicodeShort | HexLiteralKind::UnicodeLong)
        | LiteralKind::HexBrace(HexLiteralKind::UnicodeShort | HexLiteralKind::UnicodeLong) => {
            Err(format!(
                "the escapes \\u and \\U are not supported (write \\x{{{:X}}})",
                u32::from(literal.c)
            ))
        }
        _ => Ok(()),
    }
}

/// RE2's assertions: `^`, `$`, `\A`, `\z`, `\b` and `\B`.
fn assertion(assertion: &Assertion) -> Result<(), String> {
    let spelling = match assertion.kind {
        AssertionKind::WordBoundaryStart => "\\b{start}",
        AssertionKind::WordBoundaryEnd => "\\b{end}",
        AssertionKind::WordBoundaryStartAngle => "\\<",
        AssertionKind::WordBoundaryEndAngle => "\\>",
        AssertionKind::WordBoundaryStartHalf => "\\b{start-half}",
        AssertionKind::WordBoundaryEndHalf => "\\b{end-half}",
        _ => return Ok(()),
    };
    Err(format!(
        "the assertion {spelling} is not supported (RE2 has ^, $, \\A, \\z, \\b and \\B)"
    ))
}

/// `\pN`, `\p{Name}` and `\p{^Name}` with RE2's names, spelled exactly.
fn unicode_class(class: &ClassUnicode) -> Result<(), String> {
    match &class.kind {
        ClassUnicodeKind::OneLetter(letter) if ONE_LETTER.contains(letter) => Ok(()),
        ClassUnicodeKind::OneLetter(letter) => Err(format!(
            "unknown Unicode class \"{letter}\" (the one-letter classes are C, L, M, N, P, S \
             and Z)"
        )),
        ClassUnicodeKind::Named(name) => {
            // `regex-syntax` reads `\p{^Greek}` as a class named "^Greek".
            let bare = name.strip_prefix('^').unwrap_or(name);
            if CLASS_NAMES.contains(&bare) {
                Ok(())
            } else {
                Err(unknown_class(bare))
            }
        }
        ClassUnicodeKind::NamedValue { name, value, .. } => {
            let hint = match name.as_str() {
                "sc" | "Script" | "gc" | "General_Category" if CLASS_NAMES.contains(&&**value) => {
                    format!("; write \\p{{{value}}}")
                }
                _ => String::new(),
            };
            Err(format!(
                "Unicode classes of the form \\p{{name=value}} are not supported{hint}"
            ))
        }
    }
}

fn unknown_class(name: &str) -> String {
    // RE2 spells names exactly; the usual slip is case, spaces or hyphens for "_".
    let loose = |text: &str| -> String {
        text.chars()
            .filter(|c| !matches!(c, '_' | '-' | ' '))
            .flat_map(char::to_lowercase)
            .collect()
    };
    let wanted = loose(name);
    let suggestion = CLASS_NAMES
        .iter()
        .copied()
        .find(|candidate| loose(candidate) == wanted)
        .or_else(|| suggest::closest(name, CLASS_NAMES.iter().copied()));
    format!(
        "unknown Unicode class \"{}\"{}",
        suggest::short(name),
        suggest::did_you_mean(suggestion)
    )
}

#[cfg(test)]
mod tests;
