//! Migration of version 0 and 1 documents to version 2 (spec §4).
//!
//! Every change is reported as a sentence in [`AppliedStep::changes`], and nothing is
//! dropped silently: what cannot be carried over stays in the document (where validation
//! then reports it) or is quoted in a sentence. Choices the spec leaves open:
//!
//! - A document that is not a JSON object is a caller error ([`Error::NotAnObject`]).
//! - 0 → 1, `id`: taken from `name`: accents folded (Unicode NFD, combining marks dropped),
//!   ASCII letters lower-cased, `a-z`, `0-9` and `_` kept, every run of other characters
//!   turned into one `-`, leading `-`/`_` and trailing `-` trimmed, cut to 64 characters.
//!   A result that starts with a digit gets the prefix `flow-` (so `24h Soporte` becomes
//!   `flow-24h-soporte`); an empty result, or no string `name`, gives `flow`. A version 0
//!   document that already has a valid flow id keeps it; an `id` that is not one (the 2023
//!   dashboard's `"Support Bot"`) is turned into one the same way (a number as written, so
//!   `2023` becomes `flow-2023`), else from `name`, else `flow`, and the old value is quoted.
//! - 0 → 1, the 2023 dashboard's words: kind `input` is `question` (→ `ask`), with `var` →
//!   `variable` and `validate` → `pattern` (also on a `question`); kind `transfer` → `handoff`,
//!   keeping `queue` (its `message` becomes `text` as on every step). A menu option written as
//!   an object `{ "label", "goto" }` or `{ "title", "next" }` gives its button or row the title
//!   and the `next`; with both names the new one is read and the old one kept on the item
//!   (validation points at it); its other keys are kept on the item and named (an `id` is then
//!   the item's id). One sentence per menu says which keys were read. A menu's `var` (or
//!   `variable`) is the `save` of the buttons or list it becomes.
//! - 0 → 1, a `handoff` or `end` step (a dashboard `transfer` included) with a `goto` loses it
//!   (quoted in a sentence): such a step never goes on, and version 1 forbids `next` on it.
//! - 0 → 1, variable names with capitals (`Invoice`) are lower-cased wherever the document
//!   names a variable (an `ask`'s `variable`, a menu's or `action`'s `save`, a `set`'s `var`,
//!   branch conditions, `variables`, and every `{{Invoice}}` of an interpolated field, found by
//!   the one placeholder scanner: see `rename.rs`), one sentence per variable naming the steps
//!   and counting the placeholders; only when the lower-cased name is a valid variable name that
//!   no other variable, built-in or capitalised variable of the document already has (a clash is
//!   reported and left: the sentence names what it clashes with). A `{{Name}}` that nothing
//!   writes is lower-cased too (the runtime would send it as written); lint then says whether
//!   `name` is defined.
//! - 0 → 1, `message` becomes `text` on every step (so a menu's prompt is the `text` of
//!   the `buttons` or `list` step it becomes). A `list` needs a `button` label, which
//!   version 0 has no field for: it gets `Menu` (reported) unless the step has one.
//! - 0 → 1, menu option titles longer than the limit (20 for buttons, 24 for rows) are cut
//!   at a character boundary, trailing spaces removed, and the full title is quoted in the
//!   sentence. A menu of more than 10 options keeps every row, is reported, and the
//!   document stays invalid. An option that is not a string is kept as the title as it is.
//! - 0 → 1, a step without `id` gets `s<position + 1>`, or the next free number when that
//!   is taken by another step. An `id` that is present but not a string is left alone.
//! - When an old key and its new name are both present (`goto` and `next`), the new one is
//!   kept and the old one stays where it is (validation reports it as unknown).
//! - A `goto`/`next` that names a missing step is kept: validation reports it.
//! - 1 → 2, `name`/`description` move into `metadata` unless `metadata` already holds a
//!   different `title`/`description`, in which case they stay (and validation reports them).
//! - 1 → 2, `delay.ms` becomes `seconds` = `ceil(ms / 1000)`, at least 1; an `ms` that is
//!   not a number is left as it is.
//!
//! Dependency: `unicode-normalization` provides the NFD decomposition and the combining-mark
//! table used to fold accents when a flow id is derived from a name (Unicode tables are not
//! something to copy by hand).

#[cfg(test)]
pub(crate) mod tests;

use crate::canonical::{canonical_eq, integer_value};
use crate::error::{json_type, short_json};
use crate::limits::{MAX_BUTTON_TITLE, MAX_BUTTONS, MAX_FLOW_ID, MAX_LIST_ROWS, MAX_ROW_TITLE};
use crate::rename;
use crate::{CURRENT_VERSION, Error, Issue};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use unicode_normalization::UnicodeNormalization as _;
use unicode_normalization::char::is_combining_mark;

/// One migration step taken.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct AppliedStep {
    /// Version before.
    pub from: u64,
    /// Version after.
    pub to: u64,
    /// Every change, as sentences.
    pub changes: Vec<String>,
}

/// The result of [`migrate`].
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Migration {
    /// The migrated document.
    pub document: Value,
    /// Version of the input.
    pub from: u64,
    /// Version of the output.
    pub to: u64,
    /// Steps taken.
    pub applied: Vec<AppliedStep>,
    /// Validation issues of the result when `to` is 2.
    pub issues: Vec<Issue>,
}

/// Migrates a document to version `target`, one version at a time.
///
/// A document without `version` is version 0. The same version and target apply no step.
///
/// # Errors
///
/// [`Error::NotAnObject`] when the document is not an object, [`Error::BadVersion`] when
/// its `version` is not an integer 0–2, [`Error::BadTarget`] when `target` is above 2 or
/// below the document's version.
///
/// ```
/// let legacy = serde_json::json!({
///     "name": "Hola",
///     "steps": [{ "type": "text", "message": "¡Hola!" }],
/// });
/// let migration = botmesh_flow_schema::migrate(&legacy, 2)?;
/// assert_eq!(migration.from, 0);
/// assert_eq!(migration.document["id"], "hola");
/// assert_eq!(migration.document["steps"][0]["kind"], "message");
/// # Ok::<(), botmesh_flow_schema::Error>(())
/// ```
pub fn migrate(document: &Value, target: u64) -> Result<Migration, Error> {
    let Value::Object(map) = document else {
        return Err(Error::NotAnObject {
            found: json_type(document).into(),
        });
    };
    let from = version_of(map)?;
    if target > CURRENT_VERSION || target < from {
        return Err(Error::BadTarget { from, target });
    }
    let mut map = map.clone();
    let mut applied = Vec::new();
    if from == 0 && target >= 1 {
        applied.push(AppliedStep {
            from: 0,
            to: 1,
            changes: with_unknown_keys(zero_to_one(&mut map), &map),
        });
    }
    if from <= 1 && target >= 2 {
        applied.push(AppliedStep {
            from: 1,
            to: 2,
            changes: with_unknown_keys(one_to_two(&mut map), &map),
        });
    }
    let document = Value::Object(map);
    let issues = if target == CURRENT_VERSION {
        crate::validate(&document).issues
    } else {
        Vec::new()
    };
    Ok(Migration {
        document,
        from,
        to: target,
        applied,
        issues,
    })
}

/// A step's changes followed by the keys no version has (each step names them: each keeps
/// them as they are, so migrating in two hops says what one hop says).
fn with_unknown_keys(mut changes: Vec<String>, doc: &Map<String, Value>) -> Vec<String> {
    changes.extend(unknown_keys(doc));
    changes
}

/// Keys no version has, at the top level and in each step, named with what became of them
/// (kept as they are: validation then reports them).
fn unknown_keys(doc: &Map<String, Value>) -> Vec<String> {
    // Version 0 and 1 names that migration renames, and version 1's top-level keys.
    const OLD: [&str; 8] = [
        "type",
        "message",
        "goto",
        "options",
        "variable",
        "conditions",
        "ms",
        "name",
    ];
    let known_top = |key: &str| {
        crate::validate::TOP_LEVEL_KEYS.contains(&key) || OLD.contains(&key) || key == "description"
    };
    let mut notes = Vec::new();
    let mut top: Vec<&String> = doc.keys().filter(|k| !known_top(k)).collect();
    top.sort();
    for key in top {
        notes.push(format!(
            "kept as is: no version has the top-level key {}{}",
            quote(&crate::suggest::short(key)),
            did_you_mean_plain(crate::suggest::closest_property(
                key,
                &crate::validate::TOP_LEVEL_KEYS
            ))
        ));
    }
    let steps = doc.get("steps").and_then(Value::as_array);
    for (index, step) in steps.into_iter().flatten().enumerate() {
        let Value::Object(step) = step else {
            continue;
        };
        let fields: Vec<&str> = crate::model::StepKind::ALL
            .iter()
            .flat_map(|kind| kind.fields().iter().copied())
            .collect();
        let mut keys: Vec<&String> = step
            .keys()
            .filter(|k| !fields.contains(&k.as_str()) && !OLD.contains(&k.as_str()))
            .collect();
        keys.sort();
        for key in keys {
            notes.push(format!(
                "step {}: kept as is: no version has the key {}{}",
                step_name(index, step),
                quote(&crate::suggest::short(key)),
                did_you_mean_plain(crate::suggest::closest_property(key, &fields))
            ));
        }
    }
    notes
}

/// `"; did you mean x?"`, or nothing.
fn did_you_mean_plain(suggestion: Option<&str>) -> String {
    suggestion.map_or_else(String::new, |s| format!("; did you mean {s}?"))
}

/// The version of a document object: absent is 0, otherwise an integer 0–2.
pub(crate) fn version_of(map: &Map<String, Value>) -> Result<u64, Error> {
    match map.get("version") {
        None => Ok(0),
        Some(value) => match value {
            Value::Number(number) => integer_value(number).filter(|v| *v <= CURRENT_VERSION),
            _ => None,
        }
        .ok_or_else(|| Error::BadVersion {
            found: short_json(value),
        }),
    }
}

/// The list button label given to a menu that becomes a list.
const LIST_BUTTON: &str = "Menu";

/// A string as it is quoted in a sentence (JSON string syntax).
fn quote(text: &str) -> String {
    crate::canonical::json_string(text)
}

/// `1 step`, `2 steps`.
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// How a step is named in a sentence: its id when it is a string, else its pointer.
fn step_name(index: usize, step: &Map<String, Value>) -> String {
    match step.get("id") {
        Some(Value::String(id)) => quote(id),
        _ => format!("/steps/{index}"),
    }
}

/// A flow id derived from a name; empty when nothing usable is left.
pub(crate) fn flow_id_from_name(name: &str) -> String {
    let mut id = String::with_capacity(name.len());
    let mut gap = false;
    for ch in name.nfd().filter(|ch| !is_combining_mark(*ch)) {
        let ch = ch.to_ascii_lowercase();
        if ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_' {
            if gap && !id.is_empty() {
                id.push('-');
            }
            gap = false;
            id.push(ch);
        } else {
            gap = true;
        }
    }
    let id = id.trim_start_matches(['_', '-']);
    let mut id = if id.starts_with(|ch: char| ch.is_ascii_digit()) {
        format!("flow-{id}")
    } else {
        id.to_owned()
    };
    // Only ASCII is left, so a byte length is a character count.
    id.truncate(MAX_FLOW_ID);
    id.truncate(id.trim_end_matches('-').len());
    id
}

/// The flow id a version 0 `id` that is not one becomes: its text (a string, or a number as
/// written) turned into an id as a `name` is, else the `name`'s, else `flow`.
fn flow_id_of(old: &Value, name: Option<&str>) -> String {
    let text = match old {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    };
    [text.as_deref(), name]
        .into_iter()
        .flatten()
        .map(flow_id_from_name)
        .find(|id| !id.is_empty())
        .unwrap_or_else(|| "flow".to_owned())
}

/// Renames `old` to `new` in step `index`. Returns whether it did; a conflict is reported.
fn rename(
    step: &mut Map<String, Value>,
    old: &str,
    new: &str,
    index: usize,
    notes: &mut Vec<String>,
) -> bool {
    if !step.contains_key(old) {
        return false;
    }
    if step.contains_key(new) {
        let name = step_name(index, step);
        notes.push(format!(
            "step {name} has both \"{old}\" and \"{new}\": kept \"{new}\" and left \"{old}\" as it was"
        ));
        return false;
    }
    if let Some(value) = step.remove(old) {
        step.insert(new.to_owned(), value);
    }
    true
}

/// One kind of change made in many steps: `{verb} "{old}" to "{new}"{extra} in {n} {noun}s`.
#[derive(PartialEq, Eq)]
struct Change {
    verb: &'static str,
    old: &'static str,
    new: &'static str,
    extra: &'static str,
    noun: &'static str,
}

/// Counts of changes done in many steps, reported as one sentence each.
#[derive(Default)]
struct Tally {
    counts: Vec<(Change, usize)>,
}

impl Tally {
    /// Counts one more step with this change.
    fn add(&mut self, change: Change) {
        match self.counts.iter_mut().find(|(seen, _)| *seen == change) {
            Some((_, n)) => *n += 1,
            None => self.counts.push((change, 1)),
        }
    }

    /// `renamed "type" to "kind" in 4 steps`, in first-seen order.
    fn sentences(self) -> impl Iterator<Item = String> {
        self.counts.into_iter().map(|(change, n)| {
            let Change {
                verb,
                old,
                new,
                extra,
                noun,
            } = change;
            format!("{verb} \"{old}\" to \"{new}\"{extra} in {}", count(n, noun))
        })
    }
}

/// A renamed key, counted per step.
fn renamed(old: &'static str, new: &'static str, noun: &'static str) -> Change {
    Change {
        verb: "renamed",
        old,
        new,
        extra: "",
        noun,
    }
}

fn zero_to_one(doc: &mut Map<String, Value>) -> Vec<String> {
    let mut changes = vec!["set \"version\" to 1".to_owned()];
    doc.insert("version".into(), Value::from(1));

    match doc.get("id") {
        None => {
            let name = doc.get("name").and_then(Value::as_str);
            let id = name.map(flow_id_from_name).unwrap_or_default();
            match name {
                Some(name) if !id.is_empty() => changes.push(format!(
                    "set \"id\" to {} from \"name\" {}",
                    quote(&id),
                    quote(name)
                )),
                _ => changes
                    .push("set \"id\" to \"flow\" because there is no usable \"name\"".into()),
            }
            let id = if id.is_empty() { "flow".to_owned() } else { id };
            doc.insert("id".into(), Value::from(id));
        }
        Some(Value::String(id)) if crate::validate::is_flow_id(id) => {}
        Some(old) => {
            let old = old.clone();
            let id = flow_id_of(&old, doc.get("name").and_then(Value::as_str));
            changes.push(format!(
                "changed \"id\" {} to {}: a flow id is a lowercase letter, then lowercase letters, digits, \"_\" or \"-\"",
                old,
                quote(&id)
            ));
            doc.insert("id".into(), Value::from(id));
        }
    }

    let steps = match doc.get_mut("steps") {
        Some(Value::Array(steps)) => steps,
        Some(other) => {
            changes.push(format!(
                "\"steps\" is {} instead of an array and was left as it was",
                json_type(other)
            ));
            return changes;
        }
        None => return changes,
    };

    let mut taken: BTreeSet<String> = steps
        .iter()
        .filter_map(|step| step.get("id")?.as_str().map(str::to_owned))
        .collect();
    let mut tally = Tally::default();
    let mut notes = Vec::new();
    let mut last_assigned = 0;
    for (index, step) in steps.iter_mut().enumerate() {
        let Value::Object(step) = step else {
            notes.push(format!(
                "/steps/{index} is {} instead of an object and was left as it was",
                json_type(step)
            ));
            continue;
        };
        if !step.contains_key("id") {
            let wanted = format!("s{}", index + 1);
            // Every number from an earlier step's wanted id up to its assigned one is taken,
            // so the search resumes after the last assignment: linear, not quadratic.
            let mut number = (index + 1).max(last_assigned + 1);
            while taken.contains(&format!("s{number}")) {
                number += 1;
            }
            last_assigned = number;
            let id = format!("s{number}");
            let also = if id == wanted {
                String::new()
            } else {
                format!(" ({} is taken)", quote(&wanted))
            };
            notes.push(format!(
                "step /steps/{index} had no id and is now {}{also}",
                quote(&id)
            ));
            taken.insert(id.clone());
            step.insert("id".into(), Value::from(id));
        }
        for (old, new) in [("type", "kind"), ("message", "text"), ("goto", "next")] {
            if rename(step, old, new, index, &mut notes) {
                tally.add(renamed(old, new, "step"));
            }
        }
        let Some(kind) = step.get("kind").and_then(Value::as_str) else {
            continue;
        };
        match kind {
            "text" => set_kind(step, "text", "message", "", &mut tally),
            "question" => question(step, "question", index, &mut tally, &mut notes),
            "input" => question(step, "input", index, &mut tally, &mut notes),
            "transfer" => set_kind(step, "transfer", "handoff", "", &mut tally),
            "wait" => set_kind(step, "wait", "delay", "", &mut tally),
            "image" => {
                set_kind(
                    step,
                    "image",
                    "media",
                    " (with \"media\": \"image\")",
                    &mut tally,
                );
                match step.get("media") {
                    None => {
                        step.insert("media".into(), Value::from("image"));
                    }
                    Some(existing) if existing == "image" => {}
                    Some(existing) => notes.push(format!(
                        "image step {} already has \"media\" {}: it was kept instead of \"image\"",
                        step_name(index, step),
                        short_json(existing)
                    )),
                }
            }
            "menu" => {
                let name = step_name(index, step);
                menu(step, &name, &mut notes);
                // The variable a menu saves the picked option's id in, by the question's words.
                for old in ["var", "variable"] {
                    if rename(step, old, "save", index, &mut notes) {
                        tally.add(renamed(old, "save", "menu step"));
                    }
                }
            }
            other if crate::model::StepKind::parse(other).is_none() => {
                let hint = match crate::suggest::kind_hint(other, crate::model::StepKind::NAMES) {
                    Some(crate::suggest::KindHint::Kind { kind, .. }) => {
                        format!("; did you mean {kind}?")
                    }
                    _ => String::new(),
                };
                notes.push(format!(
                    "step {}: kept as is: no version has kind {}{hint}",
                    step_name(index, step),
                    quote(other)
                ));
            }
            _ => {}
        }
        // A transfer (or an end) that the dashboard gave a `goto`: the step never goes on, so
        // the target is dropped and quoted.
        let terminal = match step.get("kind").and_then(Value::as_str) {
            Some("handoff") => {
                Some("a handoff step never goes on (the conversation leaves the bot)")
            }
            Some("end") => Some("an end step never goes on (it ends the flow)"),
            _ => None,
        };
        if let Some(why) = terminal
            && let Some(next) = step.remove("next")
        {
            notes.push(format!(
                "step {}: removed \"next\" {next}: {why}",
                step_name(index, step)
            ));
        }
    }
    changes.extend(tally.sentences());
    changes.extend(notes);
    changes.extend(lower_case_variables(doc));
    changes
}

/// Lower-cases the variable names written with capitals (the 2023 dashboard's `Invoice`)
/// everywhere a version 1 document names them ([`crate::rename`]: writes, branch conditions,
/// placeholders of the interpolated fields, declarations), when that gives a variable name
/// nothing else in the document is called; a clash is reported and left for the author. One
/// sentence per variable, in document order.
fn lower_case_variables(doc: &mut Map<String, Value>) -> Vec<String> {
    let mut document = Value::Object(std::mem::take(doc));
    let places = rename::places(&document);
    let names = rename::Names::of(&places);
    // Each name with capitals, in document order, with its places.
    let mut order: Vec<(&str, Vec<&rename::Place>)> = Vec::new();
    for place in &places {
        match order.iter_mut().find(|(name, _)| *name == place.name) {
            Some((_, seen)) => seen.push(place),
            None => order.push((&place.name, vec![place])),
        }
    }
    let steps = document.get("steps").and_then(Value::as_array);
    let step_at = |index: usize| match steps.and_then(|steps| steps.get(index)) {
        Some(Value::Object(step)) => step_name(index, step),
        _ => format!("/steps/{index}"),
    };
    let mut renames: BTreeMap<String, String> = BTreeMap::new();
    let mut sentences = Vec::new();
    for (name, places) in &order {
        let Some(lowering) = names.lowering(name) else {
            continue;
        };
        match lowering {
            rename::Lowering::Clash(lower, clash) => {
                let why = match clash {
                    rename::Clash::BuiltIn => "which is a built-in variable; rename it".to_owned(),
                    rename::Clash::Used(place) => {
                        let at = place.step.map_or_else(
                            || "its declaration".to_owned(),
                            |step| format!("step {}", step_at(step)),
                        );
                        format!("which this document also uses (in {at}); rename one of them")
                    }
                    rename::Clash::Also(other) => {
                        format!("as is {}; rename one of them", quote(&other))
                    }
                };
                sentences.push(format!(
                    "left the variable {} as it is: lower-cased it would be {}, {why}",
                    quote(name),
                    quote(&lower)
                ));
            }
            rename::Lowering::Rename(lower) => {
                sentences.push(format!(
                    "renamed the variable {} to {} (variable names are lower case) in {}",
                    quote(name),
                    quote(&lower),
                    where_named(places, &step_at)
                ));
                renames.insert((*name).to_owned(), lower);
            }
        }
    }
    let patch = rename::patch(&document, &places, &renames);
    if let Err(error) = crate::fix::apply_patch(&mut document, &patch) {
        // The patch is made from this very document, so this does not happen; if it did, the
        // names stay as they were and the sentences say so.
        sentences.push(format!(
            "the renames above could not be made ({error}): the names were left as they were"
        ));
    }
    if let Value::Object(map) = document {
        *doc = map;
    }
    sentences
}

/// Where a variable is named, for a sentence: `step "a", step "b", its declaration and 2
/// placeholders of step "c"`.
fn where_named(places: &[&rename::Place], step_at: &dyn Fn(usize) -> String) -> String {
    let mut named: Vec<String> = Vec::new();
    let mut placeholders = 0;
    let mut placeholder_steps: Vec<String> = Vec::new();
    for place in places {
        match (place.kind, place.step) {
            (rename::Use::Placeholder, Some(step)) => {
                placeholders += 1;
                let step = format!("step {}", step_at(step));
                if !placeholder_steps.contains(&step) {
                    placeholder_steps.push(step);
                }
            }
            (rename::Use::Declaration, _) | (_, None) => {
                named.push("its declaration".to_owned());
            }
            (_, Some(step)) => {
                let step = format!("step {}", step_at(step));
                if !named.contains(&step) {
                    named.push(step);
                }
            }
        }
    }
    let mut text = named.join(", ");
    if placeholders > 0 {
        if !text.is_empty() {
            text.push_str(" and ");
        }
        text.push_str(&format!(
            "{} of {}",
            count(placeholders, "placeholder"),
            placeholder_steps.join(", ")
        ));
    }
    text
}

/// A `question` (or the 2023 dashboard's `input`) becomes an `ask`; the dashboard's `var`
/// is the question's `variable` and its `validate` the `pattern`.
fn question(
    step: &mut Map<String, Value>,
    old: &'static str,
    index: usize,
    tally: &mut Tally,
    notes: &mut Vec<String>,
) {
    set_kind(step, old, "ask", "", tally);
    for (old, new) in [("var", "variable"), ("validate", "pattern")] {
        if rename(step, old, new, index, notes) {
            tally.add(renamed(old, new, "ask step"));
        }
    }
}

/// Sets the kind and counts the change; `extra` ends the sentence's head.
fn set_kind(
    step: &mut Map<String, Value>,
    old: &'static str,
    new: &'static str,
    extra: &'static str,
    tally: &mut Tally,
) {
    step.insert("kind".into(), Value::from(new));
    tally.add(Change {
        verb: "changed kind",
        old,
        new,
        extra,
        noun: "step",
    });
}

/// A title cut to `limit` characters, trailing spaces removed; `None` when it fits.
fn cut_title(title: &str, limit: usize) -> Option<String> {
    let (at, _) = title.char_indices().nth(limit)?;
    let cut = title[..at].trim_end();
    Some(if cut.is_empty() { &title[..at] } else { cut }.to_owned())
}

/// Inserts `key` into a converted menu; an existing value is quoted in a note, not lost.
fn put(
    step: &mut Map<String, Value>,
    key: &str,
    value: Value,
    name: &str,
    notes: &mut Vec<String>,
) {
    if let Some(old) = step.insert(key.to_owned(), value) {
        notes.push(format!(
            "menu step {name} already had \"{key}\" {}, which was replaced",
            old
        ));
    }
}

/// `menu` with `options` → `buttons` (up to 3) or a `list` with one section.
fn menu(step: &mut Map<String, Value>, name: &str, notes: &mut Vec<String>) {
    let options = match step.remove("options") {
        Some(Value::Array(options)) => options,
        Some(other) => {
            notes.push(format!(
                "menu step {name} has \"options\" that is {} instead of an array: it became buttons and \"options\" was left as it was",
                json_type(&other)
            ));
            step.insert("options".into(), other);
            step.insert("kind".into(), Value::from("buttons"));
            return;
        }
        None => {
            notes.push(format!(
                "menu step {name} has no \"options\": it became buttons without any"
            ));
            step.insert("kind".into(), Value::from("buttons"));
            step.insert("buttons".into(), Value::Array(Vec::new()));
            return;
        }
    };
    let as_list = options.len() > MAX_BUTTONS;
    let limit = if as_list {
        MAX_ROW_TITLE
    } else {
        MAX_BUTTON_TITLE
    };
    let total = options.len();
    let noun = if as_list { "row" } else { "button" };
    let mut items = Vec::with_capacity(total);
    let mut title_notes = Vec::new();
    let mut objects = OptionObjects::default();
    for (index, option) in options.into_iter().enumerate() {
        let mut item = Map::new();
        item.insert("id".into(), Value::from(format!("opt{}", index + 1)));
        let title = match option {
            Value::String(title) => Some(Value::from(title)),
            Value::Object(fields) => {
                let option = OptionAt {
                    step: name,
                    number: index + 1,
                    noun,
                };
                objects.read(fields, &option, &mut item, &mut title_notes)
            }
            other => {
                title_notes.push(format!(
                    "menu step {name}: option {} is {} instead of a string and was kept as its title",
                    index + 1,
                    json_type(&other)
                ));
                Some(other)
            }
        };
        if let Some(title) = title {
            let title = match title {
                Value::String(title) => match cut_title(&title, limit) {
                    Some(cut) => {
                        title_notes.push(format!(
                            "menu step {name}: option title {} cut to {limit} characters {}",
                            quote(&title),
                            quote(&cut)
                        ));
                        Value::from(cut)
                    }
                    None => Value::from(title),
                },
                other => other,
            };
            item.insert("title".into(), title);
        }
        items.push(Value::Object(item));
    }
    if let Some(sentence) = objects.sentence(name, noun) {
        title_notes.insert(0, sentence);
    }
    if as_list {
        step.insert("kind".into(), Value::from("list"));
        let label = if step.contains_key("button") {
            String::new()
        } else {
            step.insert("button".into(), Value::from(LIST_BUTTON));
            format!(" and the list button {}", quote(LIST_BUTTON))
        };
        let mut section = Map::new();
        section.insert("rows".into(), Value::Array(items));
        put(
            step,
            "sections",
            Value::Array(vec![Value::Object(section)]),
            name,
            notes,
        );
        notes.push(format!(
            "menu step {name} became a list with {} in one section{label}",
            count(total, "row")
        ));
        if total > MAX_LIST_ROWS {
            notes.push(format!(
                "menu step {name} has {total} options, more than the {MAX_LIST_ROWS} rows a list allows: all were kept and the document stays invalid until some are removed"
            ));
        }
    } else {
        step.insert("kind".into(), Value::from("buttons"));
        put(step, "buttons", Value::Array(items), name, notes);
        notes.push(format!(
            "menu step {name} became buttons with {}",
            count(total, "button")
        ));
    }
    notes.extend(title_notes);
}

/// Which menu option this is, for the sentences about it.
struct OptionAt<'a> {
    /// The menu step, as named in a sentence.
    step: &'a str,
    /// The option's number, from 1.
    number: usize,
    /// `button` or `row`: what the option becomes.
    noun: &'static str,
}

/// What the options written as objects of one menu held (the 2023 dashboard writes
/// `{ "label", "goto" }`, also `{ "title", "next" }`): how many, and the keys read as titles
/// and targets, for one sentence per menu.
#[derive(Default)]
struct OptionObjects {
    count: usize,
    titles: BTreeSet<&'static str>,
    targets: BTreeSet<&'static str>,
}

impl OptionObjects {
    /// Reads an option object into its button or row `item` (which has its `id`): the title
    /// to give it (`title`, else `label`) and the `next` (`next`, else `goto`) set on `item`.
    /// When both names are there, the new one is read and the old one kept on the item as it
    /// is (validation then points at it); every other key is kept on the item too, and named.
    fn read(
        &mut self,
        mut fields: Map<String, Value>,
        at: &OptionAt<'_>,
        item: &mut Map<String, Value>,
        notes: &mut Vec<String>,
    ) -> Option<Value> {
        self.count += 1;
        let OptionAt { step, number, noun } = *at;
        // The old names left beside the new ones, kept on the item as they are.
        let mut both = Vec::new();
        let mut pick = |new: &'static str, old: &'static str, read: &mut BTreeSet<&'static str>| {
            let key = if fields.contains_key(new) { new } else { old };
            let value = fields.remove(key)?;
            read.insert(key);
            if key == new
                && let Some(old_value) = fields.remove(old)
            {
                notes.push(format!(
                    "menu step {step}: option {number} has both \"{new}\" and \"{old}\": read \"{new}\" and left \"{old}\" on its {noun} as it was"
                ));
                both.push((old, old_value));
            }
            Some(value)
        };
        let title = pick("title", "label", &mut self.titles);
        let target = pick("next", "goto", &mut self.targets);
        if let Some(target) = target {
            item.insert("next".into(), target);
        }
        for (old, value) in both {
            item.insert(old.to_owned(), value);
        }
        if title.is_none() {
            notes.push(format!(
                "menu step {step}: option {number} is an object without \"label\" or \"title\": its {noun} has no title"
            ));
        }
        for (key, value) in fields {
            notes.push(format!(
                "menu step {step}: option {number}'s {} {value} was kept on its {noun} as it is",
                quote(&key)
            ));
            item.insert(key, value);
        }
        title
    }

    /// `menu step "m": 3 options were objects: "label" became each button's "title" and
    /// "goto" its "next"`, or nothing when no option was an object.
    fn sentence(&self, step: &str, noun: &str) -> Option<String> {
        let keys = |read: &BTreeSet<&str>| {
            read.iter()
                .map(|key| format!("\"{key}\""))
                .collect::<Vec<_>>()
                .join(" or ")
        };
        let options = match self.count {
            0 => return None,
            1 => "1 option was an object".to_owned(),
            n => format!("{n} options were objects"),
        };
        let mut sentence = format!("menu step {step}: {options}");
        if !self.titles.is_empty() {
            sentence.push_str(&format!(
                ": {} became each {noun}'s \"title\"",
                keys(&self.titles)
            ));
        }
        if !self.targets.is_empty() {
            let joint = if self.titles.is_empty() { ":" } else { " and" };
            sentence.push_str(&format!(
                "{joint} {} each {noun}'s \"next\"",
                keys(&self.targets)
            ));
        }
        Some(sentence)
    }
}

fn one_to_two(doc: &mut Map<String, Value>) -> Vec<String> {
    let mut changes = vec!["set \"version\" to 2".to_owned()];
    doc.insert("version".into(), Value::from(2));

    for (old, new) in [("name", "title"), ("description", "description")] {
        move_to_metadata(doc, old, new, &mut changes);
    }

    let Some(Value::Array(steps)) = doc.get_mut("steps") else {
        return changes;
    };
    let mut tally = Tally::default();
    let mut notes = Vec::new();
    for (index, step) in steps.iter_mut().enumerate() {
        let Value::Object(step) = step else {
            continue;
        };
        let kind = step.get("kind").and_then(Value::as_str).unwrap_or_default();
        let rename_in = match kind {
            "ask" => Some(("variable", "save", "ask step")),
            "branch" => Some(("conditions", "cases", "branch step")),
            "delay" => {
                let name = step_name(index, step);
                delay_seconds(step, &name, &mut notes);
                None
            }
            _ => None,
        };
        if let Some((old, new, noun)) = rename_in
            && rename(step, old, new, index, &mut notes)
        {
            tally.add(renamed(old, new, noun));
        }
    }
    changes.extend(tally.sentences());
    changes.extend(notes);
    changes
}

fn move_to_metadata(doc: &mut Map<String, Value>, old: &str, new: &str, changes: &mut Vec<String>) {
    let Some(value) = doc.get(old) else {
        return;
    };
    match doc.get("metadata") {
        Some(Value::Object(metadata)) => {
            if let Some(existing) = metadata.get(new) {
                if canonical_eq(existing, value) {
                    doc.remove(old);
                    changes.push(format!(
                        "removed \"{old}\", which equals \"metadata.{new}\""
                    ));
                } else {
                    changes.push(format!(
                        "left \"{old}\" in place because \"metadata.{new}\" already has a different value"
                    ));
                }
                return;
            }
        }
        None => {}
        Some(other) => {
            changes.push(format!(
                "left \"{old}\" in place because \"metadata\" is {} instead of an object",
                json_type(other)
            ));
            return;
        }
    }
    if let Some(value) = doc.remove(old) {
        let metadata = doc
            .entry("metadata")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(metadata) = metadata {
            metadata.insert(new.to_owned(), value);
        }
        changes.push(format!("moved \"{old}\" to \"metadata.{new}\""));
    }
}

/// `delay.ms` → `seconds`, rounded up, at least 1.
fn delay_seconds(step: &mut Map<String, Value>, name: &str, notes: &mut Vec<String>) {
    let Some(ms) = step.get("ms") else {
        return;
    };
    if step.contains_key("seconds") {
        notes.push(format!(
            "step {name} has both \"ms\" and \"seconds\": kept \"seconds\" and left \"ms\" as it was"
        ));
        return;
    }
    let Some(millis) = ms.as_f64() else {
        notes.push(format!(
            "delay step {name}: \"ms\" is {} instead of a number and was left as it was",
            json_type(ms)
        ));
        return;
    };
    let seconds = (millis / 1000.0).ceil().max(1.0);
    // Up to 2^53 the f64 is an exact integer; beyond that keep the (huge) f64 as it is.
    let value = if seconds <= 9_007_199_254_740_992.0 {
        Value::from(seconds as u64)
    } else {
        Value::from(seconds)
    };
    notes.push(format!(
        "delay step {name}: {ms} ms became {value} {}",
        if value == 1 { "second" } else { "seconds" }
    ));
    step.remove("ms");
    step.insert("seconds".into(), value);
}
