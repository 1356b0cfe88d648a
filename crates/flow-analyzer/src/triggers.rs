//! `keyword-shadowed`, `unmatchable-keyword` and `multiple-fallbacks`: triggers that can never
//! pick their flow.
//!
//! A keyword that normalizes to `""` (only spaces, or only combining marks) never matches
//! (runtime section 2): `unmatchable-keyword`.
//!
//! Keywords are matched as runtime section 2 says: the message and the keyword are normalized
//! (trimmed, lowercased, NFD, marks of general category M removed); `exact` compares them,
//! `startsWith` and `contains` look for the keyword as whole words (the characters around an
//! occurrence are not letters or digits). Priority: any `exact` match, then `startsWith`, then
//! `contains`; within a tier the first flow of the set. So a keyword K of flow F is shadowed
//! by a keyword K' of an earlier flow G when every message K matches is also matched by K' in
//! the same tier:
//! - `exact` K by `exact` K' with the same normalized text;
//! - `startsWith` K by `startsWith` K' that is a whole-word prefix of K;
//! - `contains` K by `contains` K' that occurs in K as whole words.
//!
//! No keyword of a lower tier, and no keyword of a later flow, can win every time, so nothing
//! else shadows. Two keywords equal after trimming and lowercasing are `duplicate-keyword`'s,
//! not reported again here. "Letter or digit" is Rust's `char::is_alphanumeric` (Unicode
//! `Alphabetic` or `Numeric`, which adds a few symbols such as circled letters to the
//! categories L and N).

use serde_json::Value;
use unicode_normalization::UnicodeNormalization as _;
use unicode_normalization::char::is_combining_mark;

use crate::dataflow::Found;
use crate::flow::FlowSet;
use crate::lint::Code;

/// A message or keyword as the runtime compares them (section 2).
pub(crate) fn normalize(text: &str) -> String {
    text.trim()
        .to_lowercase()
        .nfd()
        .filter(|c| !is_combining_mark(*c))
        .collect()
}

fn word_char(c: Option<char>) -> bool {
    c.is_some_and(char::is_alphanumeric)
}

/// True when `inner` occurs in `outer` with no letter or digit right around it.
fn whole_words_in(outer: &str, inner: &str, prefix_only: bool) -> bool {
    if inner.is_empty() {
        return false;
    }
    let mut from = 0;
    while let Some(at) = outer[from..].find(inner) {
        let start = from + at;
        let after = outer[start + inner.len()..].chars().next();
        if prefix_only {
            return start == 0 && !word_char(after);
        }
        let before = outer[..start].chars().next_back();
        if !word_char(before) && !word_char(after) {
            return true;
        }
        // The next occurrence may overlap this one: search again one character on.
        from = start + outer[start..].chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// One keyword of the set.
struct Keyword<'a> {
    flow: usize,
    index: usize,
    text: &'a str,
    normalized: String,
    folded: String,
    mode: &'a str,
}

/// `keyword-shadowed`, `unmatchable-keyword` and `multiple-fallbacks` over the set.
pub(crate) fn triggers(set: &FlowSet<'_>) -> Vec<Found> {
    let mut found = Vec::new();
    let mut keywords = Vec::new();
    let mut first_fallback: Option<usize> = None;
    for (flow_index, flow) in set.flows.iter().enumerate() {
        let Some(trigger) = flow.document.get("trigger") else {
            continue;
        };
        if trigger.get("fallback").and_then(Value::as_bool) == Some(true) {
            match first_fallback {
                None => first_fallback = Some(flow_index),
                Some(first) => found.push((
                    flow_index,
                    None,
                    Code::MultipleFallbacks,
                    "/trigger/fallback".to_owned(),
                    format!(
                        "flow \"{}\" is a fallback too, but only the first fallback of the set, flow \"{}\", is ever used; keep fallback: true on one flow",
                        flow.id, set.flows[first].id
                    ),
                )),
            }
        }
        let mode = trigger
            .get("match")
            .and_then(Value::as_str)
            .unwrap_or("exact");
        let list = trigger.get("keywords").and_then(Value::as_array);
        for (index, keyword) in list.into_iter().flatten().enumerate() {
            if let Some(text) = keyword.as_str() {
                keywords.push(Keyword {
                    flow: flow_index,
                    index,
                    text,
                    normalized: normalize(text),
                    folded: text.trim().to_lowercase(),
                    mode,
                });
            }
        }
    }
    for keyword in &keywords {
        if keyword.normalized.is_empty() {
            found.push((
                keyword.flow,
                None,
                Code::UnmatchableKeyword,
                format!("/trigger/keywords/{}", keyword.index),
                format!(
                    "keyword {:?} of flow \"{}\" is empty once trimmed and stripped of accents, so no message ever matches it; remove it or write the word it should match",
                    keyword.text,
                    set.flows[keyword.flow].id
                ),
            ));
            continue;
        }
        let shadow = keywords.iter().find(|other| {
            other.flow < keyword.flow
                && other.mode == keyword.mode
                && other.folded != keyword.folded
                && !other.normalized.is_empty()
                && match keyword.mode {
                    "exact" => other.normalized == keyword.normalized,
                    "startsWith" => whole_words_in(&keyword.normalized, &other.normalized, true),
                    _ => whole_words_in(&keyword.normalized, &other.normalized, false),
                }
        });
        if let Some(other) = shadow {
            // Also a same-text keyword of an earlier flow is duplicate-keyword's finding.
            if keywords
                .iter()
                .any(|k| k.flow < keyword.flow && k.folded == keyword.folded)
            {
                continue;
            }
            let how = match keyword.mode {
                "exact" => "is the same text once normalized".to_owned(),
                "startsWith" => "starts every message this keyword starts".to_owned(),
                _ => "is found in every message this keyword is found in".to_owned(),
            };
            found.push((
                keyword.flow,
                None,
                Code::KeywordShadowed,
                format!("/trigger/keywords/{}", keyword.index),
                format!(
                    "keyword {:?} can never pick flow \"{}\": keyword {:?} of the earlier flow \"{}\" ({}) {how}, and the first flow wins; remove this keyword or make it more specific than {:?}",
                    keyword.text,
                    set.flows[keyword.flow].id,
                    other.text,
                    set.flows[other.flow].id,
                    other.mode,
                    other.text
                ),
            ));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_as_the_runtime_does() {
        assert_eq!(normalize("  ¡Cita!  "), "¡cita!");
        assert_eq!(normalize("Menú"), "menu");
    }

    #[test]
    fn whole_words_follow_section_2() {
        assert!(whole_words_in("quiero una cita", "cita", false));
        assert!(whole_words_in("cita_hoy", "cita", false));
        assert!(!whole_words_in("felicitaciones", "cita", false));
        assert!(whole_words_in("felicitaciones y cita", "cita", false));
        assert!(whole_words_in("pizza grande", "pizza", true));
        assert!(!whole_words_in("pizzas", "pizza", true));
        assert!(!whole_words_in("una pizza", "pizza", true));
        assert!(whole_words_in("pizza", "pizza", true));
        assert!(!whole_words_in("x", "", false));
    }
}
