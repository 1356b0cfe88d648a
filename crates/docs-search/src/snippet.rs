//! Snippets: at most 200 characters of a section's plain text around the best match.

use crate::text::words;

/// The longest snippet, in characters (ellipses included).
pub(crate) const MAX_CHARS: usize = 200;
/// How many characters of context to keep before the match.
const LEAD_CHARS: usize = 40;
/// The span (in bytes) in which matches are counted to pick the best window.
const WINDOW_BYTES: usize = 150;

/// The byte offset of the best match: the match whose following
/// [`WINDOW_BYTES`] hold the most distinct query terms (the first on ties).
fn best_match(text: &str, group_of: &mut impl FnMut(&str) -> Option<usize>) -> Option<usize> {
    let hits: Vec<(usize, usize)> = words(text)
        .filter_map(|(at, word)| group_of(word).map(|t| (at, t)))
        .collect();
    let mut best: Option<(usize, usize)> = None;
    for (i, &(at, _)) in hits.iter().enumerate() {
        let mut seen = Vec::new();
        for &(other_at, term) in &hits[i..] {
            if other_at > at + WINDOW_BYTES {
                break;
            }
            if !seen.contains(&term) {
                seen.push(term);
            }
        }
        if best.is_none_or(|(count, _)| seen.len() > count) {
            best = Some((seen.len(), at));
        }
    }
    best.map(|(_, at)| at)
}

/// At most [`MAX_CHARS`] characters of `text` around the best match,
/// cut at character boundaries (at a space where one is near), with `…`
/// where text was cut. `group_of` tells which query word (if any) a word of
/// the text matches.
pub(crate) fn snippet(text: &str, group_of: &mut impl FnMut(&str) -> Option<usize>) -> String {
    let total = text.chars().count();
    if total <= MAX_CHARS {
        return text.to_owned();
    }
    let at = best_match(text, group_of).unwrap_or(0);
    let at_char = text[..at].chars().count();
    let mut start = at_char.saturating_sub(LEAD_CHARS);
    let chars: Vec<char> = text.chars().collect();
    if start > 0 {
        // Start at a word: just after the nearest space before the match.
        if let Some(space) = chars[start..at_char].iter().position(|c| *c == ' ') {
            start += space + 1;
        }
    }
    // Keep a full-length snippet when the match is near the end.
    let budget = MAX_CHARS - usize::from(start > 0);
    if total - start < budget {
        start = total - (MAX_CHARS - 1);
    }
    let lead = start > 0;
    let room = MAX_CHARS - usize::from(lead);
    let mut end = total;
    if total - start > room {
        end = start + room - 1;
        // End at a word when a space is in the last fifth.
        if let Some(space) = chars[start..end].iter().rposition(|c| *c == ' ')
            && space > room * 4 / 5
        {
            end = start + space;
        }
    }
    let mut out = String::new();
    if lead {
        out.push('…');
    }
    out.extend(&chars[start..end]);
    if end < total {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::fold;
    use proptest::prelude::*;

    fn snippet(text: &str, terms: &[String]) -> String {
        super::snippet(text, &mut |word: &str| {
            let word = fold(word);
            terms
                .iter()
                .position(|t| *t == word || word.starts_with(t.as_str()))
        })
    }

    #[test]
    fn short_text_is_whole() {
        assert_eq!(snippet("Short text.", &["text".to_owned()]), "Short text.");
    }

    #[test]
    fn snippet_is_around_the_best_match() {
        let text = format!(
            "{} appendLog adds a line. {}",
            "filler ".repeat(60),
            "tail ".repeat(60)
        );
        let got = snippet(&text, &["append".to_owned(), "log".to_owned()]);
        assert!(got.starts_with('…'), "{got}");
        assert!(got.ends_with('…'), "{got}");
        assert!(got.contains("appendLog adds a line."), "{got}");
        assert!(got.chars().count() <= MAX_CHARS);
    }

    #[test]
    fn match_near_the_end_keeps_a_full_snippet() {
        let text = format!("{}configuración final", "palabra ".repeat(60));
        let got = snippet(&text, &["configuracion".to_owned()]);
        assert!(got.ends_with("configuración final"), "{got}");
        assert_eq!(got.chars().count(), MAX_CHARS);
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, rng_seed: proptest::test_runner::RngSeed::Fixed(5), ..ProptestConfig::default() })]
        #[test]
        fn snippets_are_bounded_and_taken_from_the_text(
            text in "[a-zñé ÁÜ😀]{0,400}",
            term in "[a-zé]{1,3}",
        ) {
            let got = snippet(&text, &[fold(&term)]);
            prop_assert!(got.chars().count() <= MAX_CHARS);
            let inner = got.trim_start_matches('…').trim_end_matches('…');
            prop_assert!(text.contains(inner));
        }
    }
}
