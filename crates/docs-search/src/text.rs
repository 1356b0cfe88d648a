//! Words, folding and identifier splitting: the only place that decides what a term is.
//!
//! A word is a maximal run of alphanumeric characters, underscores and
//! combining marks. Its term is the word folded: Unicode canonical
//! decomposition (NFD), combining marks dropped, then lowercased, so
//! `Configuración`, `configuracion` and `CONFIGURACIÓN` are one term. A word
//! that is an identifier (`appendLog`, `append_log`, `HTTPServer`) also yields
//! its parts (`append`, `log`), so `append log` reaches it.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Whether `c` belongs to a word.
fn is_word_char(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphanumeric() || c == '_'
    } else if ('\u{c0}'..='\u{ff}').contains(&c) {
        // Latin-1 letters (`á`, `ñ`, `Ü`): all alphabetic but `×` and `÷`;
        // Spanish text is full of them, and the general lookup is slow.
        c != '×' && c != '÷'
    } else {
        c.is_alphanumeric() || is_combining_mark(c)
    }
}

/// The words of `text` with their byte offsets, in order.
///
/// Leading and trailing underscores are not part of a word; a run of only
/// underscores is no word.
pub(crate) fn words(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut at = 0;
    std::iter::from_fn(move || {
        loop {
            let start = find_class(text, at, true);
            if start == text.len() {
                return None;
            }
            let end = find_class(text, start, false);
            at = end;
            let word = &text[start..end];
            let bytes = word.as_bytes();
            if bytes.first() != Some(&b'_') && bytes.last() != Some(&b'_') {
                // Nothing to trim (the common case).
                return Some((start, word));
            }
            let trimmed = word.trim_start_matches('_');
            let lead = word.len() - trimmed.len();
            let trimmed = trimmed.trim_end_matches('_');
            if !trimmed.is_empty() {
                return Some((start + lead, trimmed));
            }
        }
    })
}

/// [`BYTE_CLASS`]: an ASCII byte that is a word character.
const WORD_BYTE: u8 = 0;
/// [`BYTE_CLASS`]: an ASCII byte that is not a word character.
const OTHER_BYTE: u8 = 1;
/// [`BYTE_CLASS`]: a byte of a non-ASCII character (decode it to classify it).
const NON_ASCII: u8 = 2;

/// The class of every byte value: one load per byte in [`find_class`].
const BYTE_CLASS: [u8; 256] = {
    let mut table = [NON_ASCII; 256];
    let mut b = 0;
    while b < 128 {
        let byte = b as u8;
        table[b] = if byte.is_ascii_alphanumeric() || byte == b'_' {
            WORD_BYTE
        } else {
            OTHER_BYTE
        };
        b += 1;
    }
    table
};

/// The byte offset of the first character at or after `from` (a character
/// boundary) that is a word character when `word` is set, or is not one
/// otherwise; the text's length when there is none. ASCII bytes are
/// classified without decoding, the common case.
fn find_class(text: &str, from: usize, word: bool) -> usize {
    let bytes = text.as_bytes();
    // The class a matching ASCII byte has in `BYTE_CLASS`.
    let want = if word { WORD_BYTE } else { OTHER_BYTE };
    let mut i = from;
    while i < bytes.len() {
        let b = bytes[i];
        let class = BYTE_CLASS[usize::from(b)];
        if class == want {
            return i;
        }
        if class != NON_ASCII {
            i += 1;
        } else if b == 0xc3
            && bytes
                .get(i + 1)
                .is_some_and(|&next| next != 0x97 && next != 0xb7)
        {
            // U+00C0–U+00FF but `×` and `÷`: Latin-1 letters (`á`, `ñ`), word
            // characters (see `is_word_char`), decoded by hand as they are
            // most of the non-ASCII characters of Spanish text.
            if word {
                return i;
            }
            i += 2;
        } else {
            let Some(c) = text[i..].chars().next() else {
                break;
            };
            if is_word_char(c) == word {
                return i;
            }
            i += c.len_utf8();
        }
    }
    bytes.len()
}

/// Appends the folded form of `word` to `out` (cleared first).
pub(crate) fn fold_into(word: &str, out: &mut String) {
    out.clear();
    if word.is_ascii() {
        out.push_str(word);
        out.make_ascii_lowercase();
    } else {
        // Lowercasing can bring a combining mark back (`İ` → `i` + U+0307): drop it too.
        for c in word.nfd().filter(|c| !is_combining_mark(*c)) {
            out.extend(c.to_lowercase().filter(|l| !is_combining_mark(*l)));
        }
    }
}

/// The folded form of `word`.
pub(crate) fn fold(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    fold_into(word, &mut out);
    out
}

/// The identifier parts of `word` (split at `_` and at camelCase
/// boundaries), or nothing when the word is not a compound.
///
/// `appendLog` → `append`, `Log`; `append_log` → `append`, `log`;
/// `HTTPServer` → `HTTP`, `Server`; `Log` → nothing. A part of two or more
/// letters followed by digits stands for its letters, as a name and its
/// version number are one thing to a reader: `Jinja2Templates` → `Jinja`,
/// `Templates`; `oauth2` → `oauth`; `py310` → `py`; but `v1` stays `v1`.
pub(crate) fn identifier_parts(word: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    // The previous character, when it is in the current part.
    let mut prev: Option<char> = None;
    let mut chars = word.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if c == '_' {
            if start < at {
                parts.push(&word[start..at]);
            }
            start = at + 1;
            prev = None;
            continue;
        }
        if let Some(prev) = prev {
            let next = chars.peek().map(|&(_, n)| n);
            let lower_to_upper = (prev.is_lowercase() || prev.is_numeric()) && c.is_uppercase();
            let acronym_end =
                prev.is_uppercase() && c.is_uppercase() && next.is_some_and(char::is_lowercase);
            if lower_to_upper || acronym_end {
                parts.push(&word[start..at]);
                start = at;
            }
        }
        prev = Some(c);
    }
    if start < word.len() {
        parts.push(&word[start..]);
    }
    let mut versioned = false;
    for part in &mut parts {
        let letters = part.trim_end_matches(|c: char| c.is_ascii_digit());
        if letters.len() < part.len() && letters.chars().count() >= 2 {
            *part = letters;
            versioned = true;
        }
    }
    if parts.len() < 2 && !versioned {
        parts.clear();
    }
    parts
}

/// English and Spanish function words (folded), ignored in a query that has other words.
const STOPWORDS: [&str; 92] = [
    // English.
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "can", "did", "do", "does", "for",
    "from", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of",
    "on", "or", "should", "so", "than", "that", "the", "then", "there", "these", "this", "those",
    "to", "was", "we", "were", "what", "when", "where", "which", "who", "why", "with", "would",
    "you", "your", // Spanish.
    "al", "como", "con", "cual", "cuando", "de", "del", "donde", "el", "en", "es", "esta", "este",
    "esto", "hay", "la", "las", "le", "les", "lo", "los", "mi", "mis", "o", "para", "por", "que",
    "se", "son", "su", "sus", "tu", "un", "una", "unas", "unos", "y", "yo",
];

/// Whether a folded word is a function word that a query can do without.
pub(crate) fn is_stopword(folded: &str) -> bool {
    STOPWORDS.contains(&folded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_is_case_and_accent_insensitive() {
        assert_eq!(fold("Configuración"), "configuracion");
        assert_eq!(fold("ÁRBOL"), "arbol");
        assert_eq!(fold("ñandú"), "nandu");
        // Already decomposed input folds the same way.
        assert_eq!(fold("configuracio\u{301}n"), "configuracion");
        assert_eq!(fold("appendLog"), "appendlog");
        assert_eq!(fold("İSTANBUL"), "istanbul");
        assert_eq!(fold(&fold("İ")), fold("İ"));
    }

    #[test]
    fn words_keep_offsets_and_skip_punctuation() {
        let text = "¿Cómo se usa `appendLog`? __init__ ok";
        let got: Vec<_> = words(text).collect();
        assert_eq!(
            got,
            vec![
                (2, "Cómo"),
                (8, "se"),
                (11, "usa"),
                (16, "appendLog"),
                (30, "init"),
                (37, "ok")
            ]
        );
        assert_eq!(&text[16..25], "appendLog");
    }

    /// A plain reference for [`words`]: runs of word characters, underscores trimmed.
    fn reference_words(text: &str) -> Vec<(usize, &str)> {
        fn push<'a>(text: &'a str, from: usize, to: usize, out: &mut Vec<(usize, &'a str)>) {
            let word = &text[from..to];
            let trimmed = word.trim_start_matches('_');
            let lead = word.len() - trimmed.len();
            let trimmed = trimmed.trim_end_matches('_');
            if !trimmed.is_empty() {
                out.push((from + lead, trimmed));
            }
        }
        let mut out = Vec::new();
        let mut start = None;
        for (i, c) in text.char_indices() {
            match (is_word_char(c), start) {
                (true, None) => start = Some(i),
                (false, Some(from)) => {
                    push(text, from, i, &mut out);
                    start = None;
                }
                _ => {}
            }
        }
        if let Some(from) = start {
            push(text, from, text.len(), &mut out);
        }
        out
    }

    /// The identifier splitter as first written (indexing the characters),
    /// a reference for [`identifier_parts`].
    fn reference_identifier_parts(word: &str) -> Vec<&str> {
        let mut parts = Vec::new();
        let mut start = 0;
        let chars: Vec<(usize, char)> = word.char_indices().collect();
        for (i, &(at, c)) in chars.iter().enumerate() {
            if c == '_' {
                if start < at {
                    parts.push(&word[start..at]);
                }
                start = at + 1;
                continue;
            }
            if i == 0 || at == start {
                continue;
            }
            let prev = chars[i - 1].1;
            let next = chars.get(i + 1).map(|&(_, n)| n);
            let lower_to_upper = (prev.is_lowercase() || prev.is_numeric()) && c.is_uppercase();
            let acronym_end =
                prev.is_uppercase() && c.is_uppercase() && next.is_some_and(char::is_lowercase);
            if lower_to_upper || acronym_end {
                parts.push(&word[start..at]);
                start = at;
            }
        }
        if start < word.len() {
            parts.push(&word[start..]);
        }
        let mut versioned = false;
        for part in &mut parts {
            let chars: Vec<char> = part.chars().collect();
            let digits = chars
                .iter()
                .rev()
                .take_while(|c| c.is_ascii_digit())
                .count();
            if digits > 0 && chars.len() - digits >= 2 {
                *part = &part[..part.len() - digits];
                versioned = true;
            }
        }
        if parts.len() < 2 && !versioned {
            parts.clear();
        }
        parts
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 512,
            rng_seed: proptest::test_runner::RngSeed::Fixed(7),
            failure_persistence: None,
            ..proptest::prelude::ProptestConfig::default()
        })]
        #[test]
        fn words_agree_with_a_plain_reference(text in "[a-zA-Z0-9_ .é́ñ¿😀\\u{300}×÷ÿªµ-]{0,40}") {
            proptest::prop_assert_eq!(words(&text).collect::<Vec<_>>(), reference_words(&text));
        }

        #[test]
        fn identifier_parts_agree_with_the_reference(word in "[a-zA-Z0-9_ÁáÉéñÑ]{0,16}") {
            proptest::prop_assert_eq!(identifier_parts(&word), reference_identifier_parts(&word));
        }
    }

    #[test]
    fn the_latin1_fast_path_classifies_like_unicode() {
        for c in ('\u{80}'..='\u{3ff}').chain(['\u{1e9e}', '\u{ff21}']) {
            assert_eq!(
                is_word_char(c),
                c.is_alphanumeric() || is_combining_mark(c),
                "{c:?}"
            );
        }
    }

    #[test]
    fn identifiers_split_at_case_and_underscores() {
        assert_eq!(identifier_parts("appendLog"), vec!["append", "Log"]);
        assert_eq!(identifier_parts("append_log"), vec!["append", "log"]);
        assert_eq!(identifier_parts("HTTPServer"), vec!["HTTP", "Server"]);
        assert_eq!(identifier_parts("flow_validate2"), vec!["flow", "validate"]);
        assert_eq!(identifier_parts("isError"), vec!["is", "Error"]);
        assert!(identifier_parts("Log").is_empty());
        assert!(identifier_parts("HTTP").is_empty());
        assert!(identifier_parts("v2").is_empty());
    }

    #[test]
    fn a_name_with_a_version_number_also_stands_for_the_name() {
        assert_eq!(
            identifier_parts("Jinja2Templates"),
            vec!["Jinja", "Templates"]
        );
        assert_eq!(identifier_parts("oauth2"), vec!["oauth"]);
        assert_eq!(identifier_parts("base64"), vec!["base"]);
        assert_eq!(
            identifier_parts("tutorial001_py310"),
            vec!["tutorial", "py"]
        );
        // One letter and a number is a name of its own; digits alone are kept.
        assert_eq!(identifier_parts("api_v1"), vec!["api", "v1"]);
        assert_eq!(identifier_parts("x86_64"), vec!["x86", "64"]);
    }
}
