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
//! not reported again here. Normalization and whole words ("letter or digit" is general
//! category L or N) are the runtime's own functions, from `botmesh-flow-schema`, and each
//! keyword is normalized once, when the set is compiled.

use botmesh_flow_schema::{contains_words, starts_with_words};

use crate::dataflow::Found;
use crate::lint::Code;
use crate::set::FlowSet;

/// One keyword of the set.
struct Keyword<'a> {
    flow: usize,
    index: usize,
    text: &'a str,
    normalized: &'a str,
    folded: String,
    mode: &'static str,
}

/// `keyword-shadowed`, `unmatchable-keyword` and `multiple-fallbacks` over the set.
pub(crate) fn triggers(set: &FlowSet<'_>) -> Vec<Found> {
    let mut found = Vec::new();
    let mut keywords = Vec::new();
    let mut first_fallback: Option<usize> = None;
    for (flow_index, flow) in set.flows.iter().enumerate() {
        let Some(trigger) = &flow.trigger else {
            continue;
        };
        if trigger.fallback {
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
        let mode = trigger.mode.as_str();
        for (index, keyword) in trigger.keywords.iter().enumerate() {
            keywords.push(Keyword {
                flow: flow_index,
                index,
                text: keyword.text,
                normalized: &keyword.normalized,
                folded: keyword.text.trim().to_lowercase(),
                mode,
            });
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
                    "startsWith" => starts_with_words(keyword.normalized, other.normalized),
                    _ => contains_words(keyword.normalized, other.normalized),
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
