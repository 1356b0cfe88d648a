//! The RE2 syntax check of `ask.pattern` and `matches`.
//!
//! `regex-syntax` parses the pattern into a syntax tree (its parser only: no Unicode tables, no
//! regex engine), which already refuses what RE2 refuses most often: look-around,
//! back-references, unclosed groups, bad escapes. Where RE2 reads text differently, the pattern
//! is first rewritten into what `regex-syntax` reads the same way ([`rewrite`]). A walk over the
//! tree (`regex_syntax::ast::visit`, which keeps its own stack, so deep patterns cannot overflow
//! ours) then refuses what `regex-syntax` accepts and RE2 does not (RE2's `re2/parse.cc` is the
//! reference, and a test holds the verdicts to those of RE2 itself, release 2025-11-05):
//! - Unicode classes other than RE2's: `\pL` with one of the 7 one-letter categories, `\p{Name}`
//!   and `\p{^Name}` with `Any`, a general category or a script RE2 knows, spelled exactly (RE2
//!   matches names case-sensitively); never `\p{name=value}`. A near miss gets a suggestion.
//! - Flags other than `i`, `m`, `s` and `U` (`x`, `u` and `R` are `regex-syntax` extensions).
//! - The escapes `\u…` and `\U…` (RE2 spells a code point `\x{…}`), and `\1`…`\7` alone
//!   (back-references; `\0`, `\012` and `\101` are octal escapes, which RE2 has).
//! - Capture group names with a character that is not a letter, mark, digit or connector
//!   (RE2's word characters; approximated by Unicode's `XID_Continue`), and POSIX classes
//!   `[[:name:]]` with an unknown name.
//! - A repetition operator applied directly to another one (`a**`, `a{2}{3}`), a count above
//!   1000, and counted repetitions nested past what RE2 allows (RE2's "bad repetition operator"
//!   and "invalid repetition size").
//!
//! Stricter than RE2, on purpose or by `regex-syntax`: nesting deeper than 1000 levels (RE2 has
//! no limit; this one bounds the memory a hostile pattern can take), `(?)`, repeated flags such
//! as `(?ii)`, `[\d-z]`, `\x{D800}`, and nested classes such as `[[a]`. Looser: class set
//! operations (`[a--b]`), which `regex-syntax` has and RE2 refuses. A pattern that would compile
//! to more than [`MAX_PATTERN_PROGRAM`] instructions is refused as too large to run (the
//! runtime's own bound; RE2's memory budget allows fewer: `\pL{1000}` compiles in RE2 to far
//! more than its 1,000 copies, and RE2 refuses it, while this check counts 1,001 and accepts it).
use std::fmt::Write as _;

use regex_syntax::ast::{
    self, Ast, ClassSetItem, ClassUnicode, ClassUnicodeKind, Flag, Flags, FlagsItemKind, GroupKind,
    HexLiteralKind, Literal, LiteralKind, RepetitionKind, RepetitionRange,
};

use crate::suggest;

/// RE2's largest repetition count, and what nested counts are divided into.
const MAX_REPEAT: u32 = 1000;

/// The deepest nesting of groups, classes and repetitions this check parses.
const MAX_NESTING: u32 = 1000;

/// The most instructions a pattern may compile to, counted repetitions unrolled: the runtime's
/// matcher (`botmesh-flow-runtime`, which uses this same bound) refuses larger ones, as RE2
/// refuses patterns past its memory budget. Instructions are counted as that matcher
/// compiles them, or more.
pub const MAX_PATTERN_PROGRAM: usize = 100_000;

/// The one-letter general categories RE2 accepts in `\pN`.
const ONE_LETTER: &[char] = &['C', 'L', 'M', 'N', 'P', 'S', 'Z'];

/// The POSIX class names RE2 accepts in `[[:name:]]` and `[[:^name:]]`.
const POSIX_CLASSES: &[&str] = &[
    "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct",
    "space", "upper", "word", "xdigit",
];

/// The names RE2 accepts in `\p{…}`: `Any`, the general categories and the scripts of
/// RE2's 2025-11-05 release (Unicode 15.1's), spelled as RE2 spells them.
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
    "Georgian",
    "Glagolitic",
    "Gothic",
    "Grantha",
    "Greek",
    "Gujarati",
    "Gunjala_Gondi",
    "Gurmukhi",
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
    "Toto",
    "Ugaritic",
    "Vai",
    "Vithkuqi",
    "Wancho",
    "Warang_Citi",
    "Yezidi",
    "Yi",
    "Zanabazar_Square",
];

/// `pattern` (RE2 syntax) rewritten into text that `regex-syntax`'s parser, built with octal
/// escapes on, reads as RE2 reads `pattern` (capture names become `g0`, `g1`…); `None` when
/// the rewrite itself refuses it (an unknown POSIX class). What the text still means differently
/// from RE2 is left to the caller: `\d`, `\w`, `\s` and `\b` are ASCII-only in RE2 and
/// Unicode-aware in `regex-syntax`.
pub fn as_regex_syntax(pattern: &str) -> Option<String> {
    rewrite(pattern).ok().map(|(text, _)| text)
}

/// Why `pattern` is not RE2 syntax (the end of a sentence), or `None` when it is.
pub(crate) fn problem(pattern: &str) -> Option<String> {
    let (text, names) = match rewrite(pattern) {
        Ok(rewritten) => rewritten,
        Err(problem) => return Some(problem),
    };
    if let Some(problem) = names.iter().find_map(|name| capture_name(name).err()) {
        return Some(problem);
    }
    let tree = ast::parse::ParserBuilder::new()
        .nest_limit(MAX_NESTING)
        .octal(true)
        .build()
        .parse(&text);
    match tree {
        Err(error) => Some(match error.kind() {
            ast::ErrorKind::NestLimitExceeded(limit) => {
                format!("it nests deeper than {limit} levels, the limit of this check")
            }
            kind => kind.to_string(),
        }),
        Ok(tree) => ast::visit(
            &tree,
            Re2 {
                text: &text,
                budgets: Vec::new(),
            },
        )
        .err()
        .or_else(|| {
            let size = program_size(&tree);
            (size > MAX_PATTERN_PROGRAM as u64).then(|| {
                format!(
                    "it is too large to run: its repetitions unrolled, it compiles to {size} \
                     instructions, more than {MAX_PATTERN_PROGRAM}; use smaller repetition \
                     counts or fewer alternatives"
                )
            })
        }),
    }
}

/// The instructions the runtime's matcher compiles `tree` to, plus its final match: one per
/// literal character, class, `.` or assertion; an alternation of n branches adds 2 per branch
/// but the last; a repetition copies its body for each required count, then either loops on one
/// more copy (2 more) or adds each optional copy with 1 more. Saturates instead of overflowing.
/// The matcher may compile fewer (the parser merges an alternation of single characters into
/// one class), never more.
fn program_size(tree: &Ast) -> u64 {
    fn size(tree: &Ast) -> u64 {
        match tree {
            Ast::Empty(_) | Ast::Flags(_) => 0,
            Ast::Literal(_)
            | Ast::Dot(_)
            | Ast::Assertion(_)
            | Ast::ClassUnicode(_)
            | Ast::ClassPerl(_)
            | Ast::ClassBracketed(_) => 1,
            Ast::Group(group) => size(&group.ast),
            Ast::Concat(concat) => concat.asts.iter().map(size).fold(0, u64::saturating_add),
            Ast::Alternation(alternation) => {
                let branches = alternation.asts.len() as u64;
                alternation
                    .asts
                    .iter()
                    .map(size)
                    .fold(0, u64::saturating_add)
                    .saturating_add(2 * branches.saturating_sub(1))
            }
            Ast::Repetition(repetition) => {
                let body = size(&repetition.ast);
                let (min, max) = match &repetition.op.kind {
                    RepetitionKind::ZeroOrOne => (0, Some(1)),
                    RepetitionKind::ZeroOrMore => (0, None),
                    RepetitionKind::OneOrMore => (1, None),
                    RepetitionKind::Range(RepetitionRange::Exactly(n)) => (*n, Some(*n)),
                    RepetitionKind::Range(RepetitionRange::AtLeast(n)) => (*n, None),
                    RepetitionKind::Range(RepetitionRange::Bounded(low, high)) => {
                        (*low, Some(*high))
                    }
                };
                let required = body.saturating_mul(u64::from(min));
                let rest = match max {
                    None => body.saturating_add(2),
                    Some(max) => {
                        u64::from(max.saturating_sub(min)).saturating_mul(body.saturating_add(1))
                    }
                };
                required.saturating_add(rest)
            }
        }
    }
    size(tree).saturating_add(1)
}

/// Rewrites what RE2 reads differently from `regex-syntax` into text `regex-syntax` reads the
/// same way, and takes out the capture names (RE2's rule for them differs; they become `g0`,
/// `g1`…):
/// - a `{` that does not start a count (`{n}`, `{n,}`, `{n,m}`: digits only, no leading zero)
///   is a literal `{` in RE2;
/// - `\Q…\E` quotes literal text, and `\C` matches any byte (here: any character);
/// - `[[:name:]]` must name a POSIX class (`regex-syntax` would read a nested class).
fn rewrite(pattern: &str) -> Result<(String, Vec<String>), String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut names = Vec::new();
    let mut at = 0;
    while let Some(&c) = chars.get(at) {
        let rest = &chars[at..];
        at += match c {
            '\\' => escape(rest, &mut out, true),
            '[' => class(rest, &mut out)?,
            '(' if starts(rest, "(?P<")
                || (starts(rest, "(?<") && !starts(rest, "(?<=") && !starts(rest, "(?<!")) =>
            {
                let open = if starts(rest, "(?P<") { 4 } else { 3 };
                match rest[open..].iter().position(|&c| c == '>') {
                    Some(length) => {
                        names.push(rest[open..open + length].iter().collect());
                        let _ = write!(out, "(?P<g{}>", names.len() - 1);
                        open + length + 1
                    }
                    None => {
                        out.extend(rest);
                        rest.len()
                    }
                }
            }
            '{' => match count_length(rest) {
                Some(length) => {
                    out.extend(&rest[..length]);
                    length
                }
                None => {
                    out.push_str("\\{");
                    1
                }
            },
            c => {
                out.push(c);
                1
            }
        };
    }
    Ok((out, names))
}

fn starts(chars: &[char], prefix: &str) -> bool {
    prefix
        .chars()
        .enumerate()
        .all(|(index, c)| chars.get(index) == Some(&c))
}

/// The escape at the start of `chars`, copied (or rewritten, outside classes); answers how many
/// characters it took.
fn escape(chars: &[char], out: &mut String, outside_class: bool) -> usize {
    match chars.get(1) {
        None => {
            out.push('\\');
            1
        }
        Some('Q') if outside_class => {
            let mut at = 2;
            while let Some(&c) = chars.get(at) {
                if c == '\\' && chars.get(at + 1) == Some(&'E') {
                    return at + 2;
                }
                if regex_syntax::is_meta_character(c) {
                    out.push('\\');
                }
                out.push(c);
                at += 1;
            }
            at
        }
        Some('C') if outside_class => {
            out.push('.');
            2
        }
        Some('p' | 'P' | 'x' | 'u' | 'U') if chars.get(2) == Some(&'{') => {
            let length = chars
                .iter()
                .position(|&c| c == '}')
                .map_or(chars.len(), |close| close + 1);
            out.extend(&chars[..length]);
            length
        }
        Some(&c) => {
            out.push('\\');
            out.push(c);
            2
        }
    }
}

/// The bracketed class at the start of `chars`, copied up to the `]` where RE2 ends it; answers
/// how many characters it took, or why a POSIX class name is unknown.
fn class(chars: &[char], out: &mut String) -> Result<usize, String> {
    out.push('[');
    let mut at = 1;
    if chars.get(at) == Some(&'^') {
        out.push('^');
        at += 1;
    }
    if chars.get(at) == Some(&']') {
        out.push(']');
        at += 1;
    }
    while let Some(&c) = chars.get(at) {
        match c {
            '\\' => at += escape(&chars[at..], out, false),
            ']' => {
                out.push(']');
                return Ok(at + 1);
            }
            '[' if chars.get(at + 1) == Some(&':') => {
                let close = chars[at + 2..]
                    .windows(2)
                    .position(|pair| pair == [':', ']'])
                    .map(|offset| at + 2 + offset);
                match close {
                    Some(close) => {
                        let name: String = chars[at + 2..close].iter().collect();
                        let bare = name.strip_prefix('^').unwrap_or(&name);
                        if !POSIX_CLASSES.contains(&bare) {
                            return Err(format!(
                                "unknown POSIX class \"[:{}:]\"{}",
                                suggest::short(&name),
                                suggest::did_you_mean(
                                    POSIX_CLASSES
                                        .iter()
                                        .copied()
                                        .find(|known| known.eq_ignore_ascii_case(bare))
                                )
                            ));
                        }
                        out.extend(&chars[at..close + 2]);
                        at = close + 2;
                    }
                    None => {
                        out.push('[');
                        at += 1;
                    }
                }
            }
            c => {
                out.push(c);
                at += 1;
            }
        }
    }
    Ok(at)
}

/// The length of the count (`{n}`, `{n,}`, `{n,m}`) at the start of `chars`, if RE2 reads one
/// there: digits only, no leading zero (RE2's `ParseInteger`).
fn count_length(chars: &[char]) -> Option<usize> {
    let number = |from: usize| -> Option<usize> {
        let digits = chars[from..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        let leading_zero = digits >= 2 && chars[from] == '0';
        (digits > 0 && !leading_zero).then_some(digits)
    };
    let mut at = 1 + number(1)?;
    if chars.get(at) == Some(&',') {
        at += 1;
        if chars.get(at).is_some_and(char::is_ascii_digit) {
            at += number(at)?;
        }
    }
    (chars.get(at) == Some(&'}')).then_some(at + 1)
}

/// The walk over the syntax tree of the rewritten `text`; `budgets` holds, for each enclosing
/// counted repetition, what is left of RE2's 1000 once divided by its count (RE2's
/// `RepetitionWalker`).
struct Re2<'t> {
    text: &'t str,
    budgets: Vec<u32>,
}

impl ast::Visitor for Re2<'_> {
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
                GroupKind::CaptureName { .. } | GroupKind::CaptureIndex(_) => Ok(()),
            },
            Ast::Literal(literal) => self.literal(literal),
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
            ClassSetItem::Literal(literal) => self.literal(literal),
            ClassSetItem::Range(range) => {
                self.literal(&range.start)?;
                self.literal(&range.end)
            }
            ClassSetItem::Unicode(class) => unicode_class(class),
            _ => Ok(()),
        }
    }
}

impl Re2<'_> {
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
                "nested repetition counts are too large (RE2 divides {MAX_REPEAT} by each \
                 enclosing count, and this reaches 0)"
            ));
        }
        self.budgets.push(left);
        Ok(())
    }

    /// `\u…` and `\U…` are `regex-syntax` spellings (RE2 writes `\x{…}`); `\1`…`\7` alone are
    /// back-references, which RE2 does not have.
    fn literal(&self, literal: &Literal) -> Result<(), String> {
        match &literal.kind {
            LiteralKind::HexFixed(HexLiteralKind::UnicodeShort | HexLiteralKind::UnicodeLong)
            | LiteralKind::HexBrace(HexLiteralKind::UnicodeShort | HexLiteralKind::UnicodeLong) => {
                Err(format!(
                    "the escapes \\u and \\U are not supported (write \\x{{{:X}}})",
                    u32::from(literal.c)
                ))
            }
            LiteralKind::Octal
                if literal.c != '\0'
                    && self
                        .text
                        .get(literal.span.start.offset..literal.span.end.offset)
                        .is_some_and(|written| written.len() == 2) =>
            {
                Err("backreferences are not supported".to_owned())
            }
            _ => Ok(()),
        }
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

/// RE2 accepts capture group names of word characters: letters, marks, digits and
/// connectors (`_`), in any order.
fn capture_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        Err("a capture group name cannot be empty".to_owned())
    } else if name.chars().all(unicode_ident::is_xid_continue) {
        Ok(())
    } else {
        Err(format!(
            "the capture group name \"{}\" must be letters, digits and \"_\"",
            suggest::short(name)
        ))
    }
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
