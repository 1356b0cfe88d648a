//! "Did you mean" suggestions for unknown property names, step ids and step kinds.
//!
//! A candidate is close when its Damerau-Levenshtein distance to the unknown word is at most 2
//! and at most a third of the longer word's length, or when it starts with the unknown word (3
//! characters or more). Ties go to the smaller distance, then to the earlier candidate, so the
//! answer never depends on anything but the inputs. The distance comes from `strsim`, a small,
//! dependency-free and widely used crate.

/// Old or common names for a property, each with the name this version uses.
const ALIASES: [(&str, &str); 8] = [
    ("type", "kind"),
    ("goto", "next"),
    ("message", "text"),
    ("variable", "save"),
    ("conditions", "cases"),
    ("ms", "seconds"),
    ("options", "buttons"),
    ("else", "default"),
];

/// The candidate closest to `word`, if any is close enough.
pub(crate) fn closest<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let word_len = word.chars().count();
    let mut best: Option<(usize, &'a str)> = None;
    for candidate in candidates {
        if candidate == word {
            continue;
        }
        let candidate_len = candidate.chars().count();
        let prefix = word_len >= 3 && candidate.starts_with(word);
        // The edit distance is at least the length gap: skip the quadratic computation when it
        // cannot come out at 2 or less (this keeps long or many words cheap).
        if word_len.abs_diff(candidate_len) > 2 && !prefix {
            continue;
        }
        let distance = if word_len.abs_diff(candidate_len) <= 2 {
            strsim::damerau_levenshtein(word, candidate)
        } else {
            usize::MAX
        };
        let close = distance <= 2 && distance * 3 <= word_len.max(candidate_len);
        // A prefix match ranks after every edit-distance match.
        let rank = if close {
            distance
        } else if word_len >= 3 && candidate.starts_with(word) {
            3
        } else {
            continue;
        };
        if best.is_none_or(|(best_rank, _)| rank < best_rank) {
            best = Some((rank, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// User text quoted in a message: at most 64 characters, cut at a character boundary with an
/// ellipsis, so a message stays one short sentence whatever the document holds.
pub(crate) fn short(text: &str) -> std::borrow::Cow<'_, str> {
    const MAX: usize = 64;
    match text.char_indices().nth(MAX) {
        None => std::borrow::Cow::Borrowed(text),
        Some((cut, _)) => std::borrow::Cow::Owned(format!("{}…", &text[..cut])),
    }
}

/// Like [`closest`], but first maps old names (`type` → `kind`) when the new name is allowed.
pub(crate) fn closest_property<'a>(word: &str, allowed: &[&'a str]) -> Option<&'a str> {
    if let Some((_, new)) = ALIASES.iter().find(|(old, _)| *old == word)
        && let Some(found) = allowed.iter().find(|a| *a == new)
    {
        return Some(found);
    }
    closest(word, allowed.iter().copied())
}

/// `" (did you mean \"x\"?)"`, or nothing.
pub(crate) fn did_you_mean(suggestion: Option<&str>) -> String {
    suggestion.map_or_else(String::new, |s| format!(" (did you mean \"{s}\"?)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_words_and_aliases() {
        assert_eq!(
            closest_property("type", &["id", "kind", "next"]),
            Some("kind")
        );
        assert_eq!(
            closest_property("txet", &["id", "kind", "text"]),
            Some("text")
        );
        assert_eq!(closest_property("colour", &["id", "kind", "text"]), None);
        assert_eq!(closest("pay", ["start", "pay_now"]), Some("pay_now"));
        assert_eq!(closest("a", ["b", "c"]), None);
        // Ties go to the earlier candidate.
        assert_eq!(closest("ab", ["ax", "ay"]), None);
        assert_eq!(closest("abcd", ["abxd", "abyd"]), Some("abxd"));
        assert_eq!(closest("mesage", ["message", "media"]), Some("message"));
    }
}
