//! Text as the runtime compares it (runtime §2): normalization, letters and digits, and the
//! two whole-word ways a trigger keyword matches a message. The runtime picks flows with
//! these, and lint's `keyword-shadowed` and `unmatchable-keyword` reason with the same ones.

use std::sync::OnceLock;

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// `text` normalized for matching: trimmed (Unicode `White_Space`), lowercased (Unicode),
/// decomposed (NFD) and stripped of every character of general category M. Inner whitespace is
/// kept as it is.
pub fn normalize(text: &str) -> String {
    let trimmed = text.trim();
    if trimmed.is_ascii() {
        return trimmed.to_ascii_lowercase();
    }
    trimmed
        .to_lowercase()
        .nfd()
        .filter(|&c| !is_combining_mark(c))
        .collect()
}

/// True for a character of general category L (letter) or N (number).
pub fn is_letter_or_digit(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric();
    }
    in_ranges(letter_or_digit_ranges(), c)
}

/// True when `c` is in one of the sorted, disjoint inclusive `ranges` (a binary search).
pub fn in_ranges(ranges: &[(char, char)], c: char) -> bool {
    ranges
        .binary_search_by(|&(start, end)| {
            if end < c {
                std::cmp::Ordering::Less
            } else if start > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// The ranges of general categories L and N, read once from `regex-syntax`'s Unicode tables
/// (the ones RE2's `\pL` and `\pN` use in the runtime too).
fn letter_or_digit_ranges() -> &'static [(char, char)] {
    static RANGES: OnceLock<Vec<(char, char)>> = OnceLock::new();
    RANGES.get_or_init(|| {
        let hir = regex_syntax::ParserBuilder::new()
            .build()
            .parse(r"[\pL\pN]");
        match hir.as_ref().map(regex_syntax::hir::Hir::kind) {
            Ok(regex_syntax::hir::HirKind::Class(regex_syntax::hir::Class::Unicode(class))) => {
                class
                    .ranges()
                    .iter()
                    .map(|r| (r.start(), r.end()))
                    .collect()
            }
            // Unreachable with the tables compiled in; ASCII still works without them.
            _ => Vec::new(),
        }
    })
}

/// True when the character before byte `start` and the one at byte `end` of `text` (where
/// there are such characters) are not letters or digits.
fn bounded(text: &str, start: usize, end: usize) -> bool {
    let before = text[..start].chars().next_back();
    let after = text[end..].chars().next();
    !before.is_some_and(is_letter_or_digit) && !after.is_some_and(is_letter_or_digit)
}

/// `startsWith`: the normalized `message` starts with the normalized `keyword` as whole words.
pub fn starts_with_words(message: &str, keyword: &str) -> bool {
    !keyword.is_empty() && message.starts_with(keyword) && bounded(message, 0, keyword.len())
}

/// `contains`: the normalized `keyword` occurs in the normalized `message` as whole words (the
/// characters around some occurrence are not letters or digits; the keyword's own first and
/// last characters are not examined). Every occurrence is tried, overlapping ones included.
pub fn contains_words(message: &str, keyword: &str) -> bool {
    if keyword.is_empty() {
        return false;
    }
    let mut from = 0;
    while let Some(offset) = message[from..].find(keyword) {
        let start = from + offset;
        if bounded(message, start, start + keyword.len()) {
            return true;
        }
        // The next occurrence may overlap this one: go on one character later.
        let step = message[start..].chars().next().map_or(1, char::len_utf8);
        from = start + step;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalization_trims_lowercases_and_strips_marks() {
        assert_eq!(normalize("  ¡Cita!  "), "¡cita!");
        assert_eq!(normalize("Menú"), "menu");
        assert_eq!(normalize("\u{a0}ÑANDÚ  Grande\t"), "nandu  grande");
        assert_eq!(normalize("İstanbul"), "istanbul");
        assert_eq!(normalize("\u{301}"), "");
    }

    #[test]
    fn letters_and_digits_are_categories_l_and_n() {
        for c in ['a', 'Z', '7', 'ñ', 'ß', 'ж', '中', '٣', 'Ⅻ', '½'] {
            assert!(is_letter_or_digit(c), "{c}");
        }
        // `_`, punctuation, symbols (Ⓐ is alphabetic in Rust's sense but a symbol, So).
        for c in ['_', '-', '!', '¡', ' ', 'Ⓐ', '€', '\u{301}'] {
            assert!(!is_letter_or_digit(c), "{c:?}");
        }
        assert!(
            'Ⓐ'.is_alphanumeric(),
            "the case Rust's is_alphanumeric gets wrong here"
        );
    }

    #[test]
    fn keywords_match_whole_words() {
        assert!(contains_words("quiero una cita", "cita"));
        assert!(contains_words("cita_hoy", "cita"));
        assert!(!contains_words("felicitaciones", "cita"));
        // A later occurrence counts when the first is inside a word, overlapping too.
        assert!(contains_words("felicitaciones, cita", "cita"));
        assert!(contains_words("aaa a", "a"));
        assert!(!contains_words("aaa", "aa"));
        // The keyword's own edges are not examined, only the message's characters around it.
        assert!(contains_words("x -!", "-!"));
        assert!(!contains_words("x-!", "-!"));
        assert!(contains_words("¿cita?", "¿cita?"));
        // A symbol is a boundary, as it is for the runtime.
        assert!(contains_words("ⓐcita", "cita"));
        assert!(starts_with_words("hola amigo", "hola"));
        assert!(starts_with_words("hola, amigo", "hola"));
        assert!(starts_with_words("holaⓐ", "hola"));
        assert!(!starts_with_words("holanda", "hola"));
        assert!(!starts_with_words("una hola", "hola"));
        assert!(!contains_words("anything", ""));
        assert!(!starts_with_words("anything", ""));
    }
}
