//! "Did you mean" suggestions for unknown property names, step ids and step kinds.
//!
//! Besides spelling, the suggestions know the names other bot platforms use for the same thing
//! (`transfer` for `handoff`, `question` for `ask`, `goto` for `next`, `choices` for `buttons`)
//! and the names of versions 0 and 1, which `flow_migrate` converts.
//!
//! A candidate is close when its Damerau-Levenshtein distance to the unknown word is at most 2
//! and at most a third of the longer word's length, or when it starts with the unknown word (3
//! characters or more). Ties go to the smaller distance, then to the earlier candidate, so the
//! answer never depends on anything but the inputs. The distance comes from `strsim`, a small,
//! dependency-free and widely used crate.

/// Old or common names for a property, each with the name this version uses (the first one
/// the object allows wins: `options` is `buttons` on a buttons step, `sections` on a list).
const ALIASES: [(&str, &str); 18] = [
    ("type", "kind"),
    ("goto", "next"),
    // A branch's way on when no case holds.
    ("next", "default"),
    ("message", "text"),
    ("variable", "save"),
    // The 2023 dashboard's question: `var` and `validate`; and `set`'s name for a write.
    ("var", "save"),
    ("validate", "pattern"),
    ("save", "var"),
    ("conditions", "cases"),
    ("ms", "seconds"),
    ("options", "buttons"),
    ("choices", "buttons"),
    ("options", "sections"),
    ("choices", "sections"),
    ("else", "default"),
    ("question", "text"),
    ("prompt", "text"),
    ("then", "next"),
];

/// Other names for the values of an enumeration (`op`, `input`, `media`, `match`, a variable's
/// `type`), each with the value this version uses; the first one the field allows wins (`bool`
/// is `boolean` for a variable's type, `yesno` for an `ask`'s input). Compared ignoring case.
const VALUE_ALIASES: [(&str, &str); 52] = [
    ("equals", "eq"),
    ("equal", "eq"),
    ("is", "eq"),
    ("==", "eq"),
    ("=", "eq"),
    ("!=", "ne"),
    ("not_equals", "ne"),
    ("notequals", "ne"),
    ("neq", "ne"),
    ("<", "lt"),
    ("less", "lt"),
    ("less_than", "lt"),
    ("<=", "lte"),
    ("le", "lte"),
    (">", "gt"),
    ("greater", "gt"),
    ("greater_than", "gt"),
    (">=", "gte"),
    ("ge", "gte"),
    ("includes", "contains"),
    ("starts_with", "startsWith"),
    ("prefix", "startsWith"),
    ("regex", "matches"),
    ("match", "matches"),
    ("exist", "exists"),
    ("isset", "exists"),
    ("defined", "exists"),
    ("one_of", "in"),
    ("oneof", "in"),
    ("int", "number"),
    ("integer", "number"),
    ("float", "number"),
    ("decimal", "number"),
    ("numeric", "number"),
    ("bool", "boolean"),
    ("bool", "yesno"),
    ("boolean", "yesno"),
    ("yes_no", "yesno"),
    ("confirm", "yesno"),
    ("string", "text"),
    ("str", "string"),
    ("str", "text"),
    ("mail", "email"),
    ("e-mail", "email"),
    ("tel", "phone"),
    ("telephone", "phone"),
    ("mobile", "phone"),
    ("datetime", "date"),
    ("img", "image"),
    ("photo", "image"),
    ("picture", "image"),
    ("file", "document"),
];

/// The value of `allowed` that `word` surely means: the same word in another case
/// (`startswith`), or another name for it (`greater` for `gt`, `int` for `number`).
pub(crate) fn sure_value<'a>(word: &str, allowed: &[&'a str]) -> Option<&'a str> {
    let lower = word.to_lowercase();
    allowed
        .iter()
        .find(|value| value.to_lowercase() == lower)
        .or_else(|| {
            VALUE_ALIASES
                .iter()
                .filter(|(old, _)| *old == lower)
                .find_map(|(_, new)| allowed.iter().find(|value| *value == new))
        })
        .copied()
}

/// Step kinds of other bot platforms and of versions 0 and 1, each with the kind this version
/// uses and the version that used the name (`None`: another platform's name).
const KIND_ALIASES: [(&str, &str, Option<u64>); 15] = [
    ("transfer", "handoff", None),
    ("agent", "handoff", None),
    ("human", "handoff", None),
    ("input", "ask", None),
    ("question", "ask", Some(0)),
    ("prompt", "ask", None),
    ("text", "message", Some(0)),
    ("say", "message", None),
    ("options", "buttons", None),
    ("choices", "buttons", None),
    ("wait", "delay", Some(0)),
    ("sleep", "delay", None),
    ("image", "media", Some(0)),
    ("condition", "branch", None),
    ("webhook", "action", None),
];

/// What an unknown step kind most likely means.
pub(crate) enum KindHint {
    /// This kind (close in spelling, another platform's name, or an old version's).
    Kind {
        /// The kind of this version.
        kind: &'static str,
        /// The version that used the unknown name, when it is an old name.
        legacy: Option<u64>,
    },
    /// Version 0's `menu`, which becomes `buttons` or `list` by its number of options.
    Menu,
}

/// How close `candidate` is to `word` (lower is closer), or `None` when it is not close: the
/// ranking [`closest`] uses.
fn rank(word: &str, candidate: &str) -> Option<usize> {
    let word_len = word.chars().count();
    let candidate_len = candidate.chars().count();
    if candidate == word {
        return None;
    }
    if word_len.abs_diff(candidate_len) <= 2 {
        let distance = strsim::damerau_levenshtein(word, candidate);
        if distance <= 2 && distance * 3 <= word_len.max(candidate_len) {
            return Some(distance);
        }
    }
    (word_len >= 3 && candidate.starts_with(word)).then_some(3)
}

/// [`closest`], but only when no other candidate is as close: the suggestion a fix may apply.
pub(crate) fn unique_closest<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str> + Clone,
) -> Option<&'a str> {
    let chosen = closest(word, candidates.clone())?;
    let best = rank(word, chosen)?;
    let ties = candidates
        .into_iter()
        .filter(|c| rank(word, c) == Some(best))
        .count();
    (ties == 1).then_some(chosen)
}

/// The property `word` surely means: an alias of this version's name, or the only close one.
pub(crate) fn sure_property<'a>(word: &str, allowed: &[&'a str]) -> Option<&'a str> {
    if word == "ms" {
        return None;
    }
    sure_alias(word, allowed).or_else(|| unique_closest(word, allowed.iter().copied()))
}

/// [`alias`], when renaming is surely right: `ms` is not `seconds` (renaming would change the
/// wait a thousandfold).
pub(crate) fn sure_alias<'a>(word: &str, allowed: &[&'a str]) -> Option<&'a str> {
    if word == "ms" {
        return None;
    }
    alias(word, allowed)
}

/// The property of `allowed` that `word` is another name for (`var` on an `ask` is `save`),
/// the first the object allows.
pub(crate) fn alias<'a>(word: &str, allowed: &[&'a str]) -> Option<&'a str> {
    ALIASES
        .iter()
        .filter(|(old, _)| *old == word)
        .find_map(|(_, new)| allowed.iter().find(|a| *a == new).copied())
}

/// The kind `word` surely means (an alias, an old name, or the only close kind).
pub(crate) fn sure_kind(word: &str, kinds: &[&'static str]) -> Option<&'static str> {
    if word == "image" {
        // Version 0's image also needs "media": "image"; flow_migrate does it.
        return None;
    }
    if let Some((_, kind, _)) = KIND_ALIASES.iter().find(|(old, _, _)| *old == word) {
        return Some(kind);
    }
    unique_closest(word, kinds.iter().copied())
}

/// What the unknown step kind `word` most likely means, if anything is close.
pub(crate) fn kind_hint(word: &str, kinds: &[&'static str]) -> Option<KindHint> {
    if word == "menu" {
        return Some(KindHint::Menu);
    }
    if let Some((_, kind, legacy)) = KIND_ALIASES.iter().find(|(old, _, _)| *old == word) {
        return Some(KindHint::Kind {
            kind,
            legacy: *legacy,
        });
    }
    closest(word, kinds.iter().copied()).map(|kind| KindHint::Kind { kind, legacy: None })
}

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

/// The name of `candidates` nearest to `word`, a name nothing defines (lint's
/// `undefined-variable`: the candidates are the set's written and declared names, then the
/// built-ins), or `None` when none is near.
///
/// Near is, first, a close spelling (the ranking unknown keys and step ids get: `invoic` →
/// `invoice`); else a shared word part: the parts are the runs of letters between `_` and
/// digits, of 3 letters or more, and two parts are shared when they are equal or one ends or
/// starts with the other, itself of 4 letters or more (`name` → `contact_name`,
/// `phone_number` → `contact_phone`, `firstname` → `contact_name`). The most letters shared
/// wins, then the earlier candidate.
///
/// ```
/// use botmesh_flow_schema::{BUILT_IN_VARIABLES, nearest_name};
/// assert_eq!(nearest_name("name", BUILT_IN_VARIABLES), Some("contact_name"));
/// assert_eq!(nearest_name("invoic", ["invoice", "contact_name"]), Some("invoice"));
/// assert_eq!(nearest_name("colour", BUILT_IN_VARIABLES), None);
/// ```
pub fn nearest_name<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str> + Clone,
) -> Option<&'a str> {
    if let Some(close) = closest(word, candidates.clone()) {
        return Some(close);
    }
    let parts = word_parts(word);
    let mut best: Option<(usize, &'a str)> = None;
    for candidate in candidates {
        if candidate == word {
            continue;
        }
        let theirs = word_parts(candidate);
        let shared: usize = parts
            .iter()
            .filter_map(|part| {
                theirs
                    .iter()
                    .filter_map(|other| shared_part(part, other))
                    .max()
            })
            .sum();
        if shared > 0 && best.is_none_or(|(most, _)| shared > most) {
            best = Some((shared, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// The runs of ASCII letters of a name, of 3 letters or more.
fn word_parts(name: &str) -> Vec<&str> {
    name.split(|c: char| !c.is_ascii_alphabetic())
        .filter(|part| part.len() >= 3)
        .collect()
}

/// The letters two word parts share: all of them when equal, the shorter one's when the longer
/// ends or starts with it and it has 4 letters or more.
fn shared_part(a: &str, b: &str) -> Option<usize> {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let shared =
        short == long || (short.len() >= 4 && (long.ends_with(short) || long.starts_with(short)));
    shared.then_some(short.len())
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
    alias(word, allowed).or_else(|| closest(word, allowed.iter().copied()))
}

/// What a value is, for "found …" in a message about a value of the wrong type: `an object`,
/// `an array`, `a string`, `a number`, `a boolean`, `null`.
pub(crate) fn kind_of(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A value as "found …" quotes it where its type may be right but its value is not: a string
/// in quotes (shortened), a number or boolean as written, `null`; a container by its kind.
pub(crate) fn literal(value: &serde_json::Value) -> String {
    use serde_json::Value;
    match value {
        Value::String(s) => quote(s),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".to_owned(),
        Value::Array(_) | Value::Object(_) => kind_of(value).to_owned(),
    }
}

/// User text in double quotes, shortened, with `"`, `\\` and control characters escaped as
/// JSON does (so a quote never looks like it ends early and a message stays on one line).
pub(crate) fn quote(text: &str) -> String {
    serde_json::Value::from(short(text).into_owned()).to_string()
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
        assert_eq!(
            closest_property("options", &["text", "sections"]),
            Some("sections"),
            "the first alias the object allows"
        );
        assert_eq!(
            closest_property("choices", &["text", "buttons"]),
            Some("buttons")
        );
        // A fix applies a suggestion only when it is the only one that close.
        assert_eq!(unique_closest("abcd", ["abxd", "abyd"]), None);
        assert_eq!(
            unique_closest("mesage", ["message", "media"]),
            Some("message")
        );
        assert_eq!(sure_property("type", &["id", "kind"]), Some("kind"));
        assert_eq!(sure_kind("transfer", &["handoff", "end"]), Some("handoff"));
        assert_eq!(sure_kind("image", &["media"]), None);
    }

    #[test]
    fn nearest_names_share_a_spelling_or_a_word_part() {
        use crate::BUILT_IN_VARIABLES;
        let builtin = |word| nearest_name(word, BUILT_IN_VARIABLES);
        assert_eq!(builtin("name"), Some("contact_name"));
        assert_eq!(builtin("firstname"), Some("contact_name"));
        assert_eq!(builtin("phone_number"), Some("contact_phone"));
        assert_eq!(builtin("message"), Some("last_message"));
        assert_eq!(builtin("flowid"), Some("flow_id"), "a close spelling");
        assert_eq!(builtin("colour"), None);
        assert_eq!(
            builtin("id"),
            None,
            "parts of fewer than 3 letters are not compared"
        );
        assert_eq!(
            builtin("nam"),
            None,
            "a part inside another needs 4 letters"
        );
        // A close spelling beats a shared part; more shared letters beat fewer; then the
        // earlier candidate (the document's names come before the built-ins).
        let written = ["invoice_number", "invoice", "user_name"];
        let near = |word| nearest_name(word, written.into_iter().chain(BUILT_IN_VARIABLES));
        assert_eq!(near("invoic"), Some("invoice"));
        assert_eq!(near("number_of_invoice"), Some("invoice_number"));
        assert_eq!(near("name"), Some("user_name"));
        assert_eq!(
            nearest_name("total", ["total"]),
            None,
            "the same name is no suggestion"
        );
    }

    #[test]
    fn kinds_of_other_platforms_and_versions() {
        let kinds = ["message", "ask", "handoff", "media"];
        let hint = |word| match kind_hint(word, &kinds) {
            Some(KindHint::Kind { kind, legacy }) => format!("{kind} {legacy:?}"),
            Some(KindHint::Menu) => "menu".to_owned(),
            None => "none".to_owned(),
        };
        assert_eq!(hint("transfer"), "handoff None");
        assert_eq!(hint("question"), "ask Some(0)");
        assert_eq!(hint("mesage"), "message None");
        assert_eq!(hint("menu"), "menu");
        assert_eq!(hint("colour"), "none");
    }

    #[test]
    fn found_values_are_quoted_and_short() {
        use serde_json::json;
        assert_eq!(literal(&json!("Support Bot")), "\"Support Bot\"");
        assert_eq!(literal(&json!("a\"b\n")), r#""a\"b\n""#);
        assert_eq!(literal(&json!(2.5)), "2.5");
        assert_eq!(literal(&json!({})), "an object");
        assert_eq!(kind_of(&json!([1])), "an array");
        assert_eq!(literal(&json!("x".repeat(100))).chars().count(), 64 + 3);
    }
}
