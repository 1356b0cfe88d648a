//! `possibly-unset-variable` and `type-mismatch`: what each step may know about the variables
//! when it runs, over every path of the set.
//!
//! `possibly-unset-variable` is a "definitely written" analysis (a forward must-analysis, as a
//! compiler's definite assignment): the set of variables written on **every** path from the
//! flow's entry to a step. Choices where runtime section 3 leaves room:
//! - an `ask` writes its `save` on the way to its successor (an accepted answer), not on its
//!   `onFail` edge (retries ran out: the variable is unchanged);
//! - a `buttons` or `list` `save` is written on every item's edge (only a pick moves on);
//! - `set` to `null` clears the variable (a read then interpolates `""`, as for an unset one);
//! - an `action` with `save` writes it (without a mock the result is `null`, but the step meant
//!   to write it);
//! - a branch case's edge knows the variables its condition can only be true with (`exists`,
//!   `eq` a non-null value, `lt`, `contains`, `in` …; `all` of them, each of `any`), and the
//!   default edge knows nothing;
//! - a `subflow` step writes what the called flow writes on every path to its ends; a flow
//!   that only the set's calls enter (not the document, no trigger) starts with what every
//!   caller has written at its calls; every flow starts with its declared defaults and the
//!   built-ins;
//! - reads inside `exists` and `eq`/`ne` `null` conditions are how an author checks for an
//!   unset variable: never reported. A name never written nor declared in the set is
//!   `undefined-variable`'s, not this check's.
//!
//! `type-mismatch`: the JSON types a variable can hold, from every write and declaration in the
//! set (`ask` by `input`, a menu's `save` a string id, `set` its value's type, a declaration its
//! `type` and `default`, the built-ins strings); an `action`'s `save` can be anything, so a
//! variable it writes is never judged.

use rustc_hash::FxHashMap;
use serde_json::Value;

use crate::flow::{Flow, FlowSet, Key, Kind, Target};
use crate::graph::EdgeKind;
use crate::lint::Code;
use crate::text::BUILT_IN_VARIABLES;
use crate::vars::Site;

/// A finding: flow index, step, code, pointer, message.
pub(crate) type Found = (usize, Option<usize>, Code, String, String);

/// A set of variables, one bit per name of the analysis.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Bits(Vec<u64>);

impl Bits {
    fn empty(width: usize) -> Self {
        Bits(vec![0; width.div_ceil(64)])
    }

    fn full(width: usize) -> Self {
        let mut bits = Bits(vec![u64::MAX; width.div_ceil(64)]);
        if !width.is_multiple_of(64)
            && let Some(last) = bits.0.last_mut()
        {
            *last = (1u64 << (width % 64)) - 1;
        }
        bits
    }

    fn set(&mut self, bit: usize) {
        self.0[bit / 64] |= 1 << (bit % 64);
    }

    fn clear(&mut self, bit: usize) {
        self.0[bit / 64] &= !(1 << (bit % 64));
    }

    fn has(&self, bit: usize) -> bool {
        self.0[bit / 64] & (1 << (bit % 64)) != 0
    }

    fn meet(&mut self, other: &Bits) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a &= b;
        }
    }

    fn join(&mut self, other: &Bits) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }
}

/// The variables a condition can only be true with (runtime section 6).
fn guards<'a>(condition: &'a Value, out: &mut Vec<&'a str>) {
    if let Some(items) = condition.get("all").and_then(Value::as_array) {
        for item in items {
            guards(item, out);
        }
        return;
    }
    if let Some(items) = condition.get("any").and_then(Value::as_array) {
        // Each child's guards; only the names every child guards.
        let mut common: Option<Vec<&'a str>> = None;
        for item in items {
            let mut these = Vec::new();
            guards(item, &mut these);
            common = Some(match common {
                None => these,
                Some(before) => before.into_iter().filter(|n| these.contains(n)).collect(),
            });
        }
        out.extend(common.unwrap_or_default());
        return;
    }
    if condition.get("not").is_some() {
        return;
    }
    let (Some(var), Some(op)) = (
        condition.get("var").and_then(Value::as_str),
        condition.get("op").and_then(Value::as_str),
    ) else {
        return;
    };
    let needs_set = match op {
        "ne" => false,
        "eq" => !condition.get("value").is_some_and(Value::is_null),
        _ => true,
    };
    if needs_set {
        out.push(var);
    }
}

/// True when a condition leaf that reads its variable is a check for an unset one.
fn checks_unset(leaf: &Value) -> bool {
    match leaf.get("op").and_then(Value::as_str) {
        Some("exists") => true,
        Some("eq" | "ne") => leaf.get("value").is_some_and(Value::is_null),
        _ => false,
    }
}

/// What a step does to the variables on one of its edges.
struct Effect {
    writes: Vec<usize>,
    clears: Vec<usize>,
    /// The callee whose summary the edge adds (a `subflow`'s return).
    callee: Option<usize>,
}

struct Analysis<'s, 'a> {
    set: &'s FlowSet<'a>,
    bit: FxHashMap<&'a str, usize>,
    width: usize,
}

impl<'a> Analysis<'_, 'a> {
    fn bit_of(&self, name: &str) -> Option<usize> {
        self.bit.get(name).copied()
    }

    fn effect(&self, flow: &Flow<'a>, step: usize, edge: usize) -> Effect {
        let s = &flow.steps[step];
        let edges = flow.edges(step);
        let kind = edges.get(edge).map(|e| e.kind);
        let mut effect = Effect {
            writes: Vec::new(),
            clears: Vec::new(),
            callee: None,
        };
        let save = |key: Key| s.str_field(key).and_then(|n| self.bit_of(n));
        match s.kind {
            Kind::Ask if kind != Some(EdgeKind::RetryExhausted) => {
                effect.writes.extend(save(Key::Save));
            }
            Kind::Buttons | Kind::List | Kind::Action => effect.writes.extend(save(Key::Save)),
            Kind::Set => {
                if let Some(bit) = save(Key::Var) {
                    if s.field(Key::Value).is_some_and(Value::is_null) {
                        effect.clears.push(bit);
                    } else {
                        effect.writes.push(bit);
                    }
                }
            }
            Kind::Subflow => effect.callee = self.set.callee(s),
            Kind::Branch if kind == Some(EdgeKind::Case) => {
                if let Some(when) = s
                    .array_field(Key::Cases)
                    .get(edge)
                    .and_then(|c| c.get("when"))
                {
                    let mut names = Vec::new();
                    guards(when, &mut names);
                    effect
                        .writes
                        .extend(names.into_iter().filter_map(|n| self.bit_of(n)));
                }
            }
            _ => {}
        }
        effect
    }

    fn apply(&self, state: &Bits, effect: &Effect, summaries: &[Bits]) -> Bits {
        let mut out = state.clone();
        for &bit in &effect.writes {
            out.set(bit);
        }
        if let Some(callee) = effect.callee {
            out.join(&summaries[callee]);
        }
        for &bit in &effect.clears {
            out.clear(bit);
        }
        out
    }

    /// The variables defined when each step runs (`None`: not reached from the entry), given
    /// the flow's entry state and the callees' summaries.
    fn flow_states(&self, index: usize, entry: &Bits, summaries: &[Bits]) -> Vec<Option<Bits>> {
        let flow = &self.set.flows[index];
        let count = flow.steps.len();
        let mut states: Vec<Option<Bits>> = vec![None; count];
        if count == 0 {
            return states;
        }
        states[0] = Some(entry.clone());
        let mut work = vec![0usize];
        let mut queued = vec![false; count];
        queued[0] = true;
        while let Some(step) = work.pop() {
            queued[step] = false;
            let Some(state) = states[step].clone() else {
                continue;
            };
            for (e, edge) in flow.edges(step).iter().enumerate() {
                let Target::Step(next) = edge.to else {
                    continue;
                };
                let out = self.apply(&state, &self.effect(flow, step, e), summaries);
                let changed = match &mut states[next] {
                    slot @ None => {
                        *slot = Some(out);
                        true
                    }
                    Some(existing) => {
                        let before = existing.clone();
                        existing.meet(&out);
                        *existing != before
                    }
                };
                if changed && !queued[next] {
                    queued[next] = true;
                    work.push(next);
                }
            }
        }
        states
    }

    /// What the flow has written on every path to its ends (an `end` step or falling off).
    fn summary(&self, index: usize, states: &[Option<Bits>], summaries: &[Bits]) -> Bits {
        let flow = &self.set.flows[index];
        let mut out: Option<Bits> = None;
        let mut meet = |bits: Bits| match &mut out {
            None => out = Some(bits),
            Some(o) => o.meet(&bits),
        };
        for (step, state) in states.iter().enumerate() {
            let Some(state) = state else { continue };
            if flow.steps[step].kind == Kind::End {
                meet(state.clone());
            }
            for (e, edge) in flow.edges(step).iter().enumerate() {
                if edge.to == Target::End {
                    meet(self.apply(state, &self.effect(flow, step, e), summaries));
                }
            }
        }
        out.unwrap_or_else(|| Bits::full(self.width))
    }
}

/// The names declared with a default by a flow.
fn defaults<'a>(flow: &Flow<'a>) -> Vec<&'a str> {
    flow.document
        .get("variables")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(_, d)| d.get("default").is_some())
        .map(|(n, _)| n.as_str())
        .collect()
}

/// True when a flow can be entered other than by a call: the document itself, or a trigger.
fn entered_fresh(index: usize, flow: &Flow<'_>) -> bool {
    let trigger = flow.document.get("trigger");
    index == 0
        || trigger
            .and_then(|t| t.get("keywords"))
            .and_then(Value::as_array)
            .is_some_and(|k| !k.is_empty())
        || trigger
            .and_then(|t| t.get("fallback"))
            .and_then(Value::as_bool)
            == Some(true)
}

/// `possibly-unset-variable` over the set.
pub(crate) fn possibly_unset(set: &FlowSet<'_>) -> Vec<Found> {
    // The names worth following: read somewhere, written or declared somewhere, not built in.
    let mut known: Vec<&str> = Vec::new();
    for (flow, uses) in set.flows.iter().zip(&set.uses) {
        known.extend(uses.write_names.iter().copied());
        if let Some(declared) = flow.document.get("variables").and_then(Value::as_object) {
            known.extend(declared.keys().map(String::as_str));
        }
    }
    let mut names: Vec<&str> = set
        .uses
        .iter()
        .flat_map(|u| u.read_names.iter().copied())
        .filter(|n| known.contains(n) && !BUILT_IN_VARIABLES.contains(n))
        .collect();
    names.sort_unstable();
    names.dedup();
    if names.is_empty() {
        return Vec::new();
    }
    let width = names.len();
    let analysis = Analysis {
        set,
        bit: names.iter().enumerate().map(|(i, n)| (*n, i)).collect(),
        width,
    };
    let flows = set.flows.len();
    let mut summaries = vec![Bits::full(width); flows];
    let mut entries = vec![Bits::full(width); flows];
    let mut states: Vec<Vec<Option<Bits>>> = vec![Vec::new(); flows];
    // Whole-set fixpoint: every state only shrinks from "everything", so this ends.
    loop {
        let mut changed = false;
        for index in 0..flows {
            let flow = &set.flows[index];
            let mut entry = if entered_fresh(index, flow) {
                Bits::empty(width)
            } else {
                // What every call site of the set has written when it calls this flow.
                let mut common = Bits::full(width);
                for (caller, caller_states) in states.iter().enumerate() {
                    for (step, state) in caller_states.iter().enumerate() {
                        if let Some(state) = state
                            && set.callee(&set.flows[caller].steps[step]) == Some(index)
                        {
                            common.meet(state);
                        }
                    }
                }
                common
            };
            for name in defaults(flow) {
                if let Some(bit) = analysis.bit_of(name) {
                    entry.set(bit);
                }
            }
            let flow_states = analysis.flow_states(index, &entry, &summaries);
            let summary = analysis.summary(index, &flow_states, &summaries);
            changed |= entry != entries[index]
                || summary != summaries[index]
                || flow_states != states[index];
            entries[index] = entry;
            summaries[index] = summary;
            states[index] = flow_states;
        }
        if !changed {
            break;
        }
    }
    let mut found = Vec::new();
    for (index, uses) in set.uses.iter().enumerate() {
        let flow = &set.flows[index];
        for read in &uses.reads {
            let Some(bit) = analysis.bit_of(read.name) else {
                continue;
            };
            if let Site::Condition { leaf, .. } = read.site
                && checks_unset(leaf)
            {
                continue;
            }
            let Some(Some(state)) = states[index].get(read.step) else {
                continue;
            };
            if state.has(bit) {
                continue;
            }
            let path = unset_path(
                &analysis,
                index,
                &entries[index],
                &summaries,
                bit,
                read.step,
            );
            found.push((
                index,
                Some(read.step),
                Code::PossiblyUnsetVariable,
                read.site.pointer(flow, read.step),
                format!(
                    "variable \"{}\" may be unset here: nothing writes it on the path {path}; write it on every path, declare it with a default, or check it with exists first",
                    read.name
                ),
            ));
        }
    }
    found
}

/// The first path (fewest steps) on which `bit` is not written before `target`, as text.
fn unset_path(
    analysis: &Analysis<'_, '_>,
    index: usize,
    entry: &Bits,
    summaries: &[Bits],
    bit: usize,
    target: usize,
) -> String {
    let flow = &analysis.set.flows[index];
    let count = flow.steps.len();
    // parent[step] = (previous step, the edge's kind)
    let mut parent: Vec<Option<(usize, EdgeKind)>> = vec![None; count];
    let mut seen = vec![false; count];
    let mut queue = std::collections::VecDeque::new();
    if !entry.has(bit) {
        seen[0] = true;
        queue.push_back(0);
    }
    // A `set` to null clears the variable: a path may start there too.
    for (step, s) in flow.steps.iter().enumerate() {
        if s.kind == Kind::Set
            && s.field(Key::Value).is_some_and(Value::is_null)
            && s.str_field(Key::Var).and_then(|n| analysis.bit_of(n)) == Some(bit)
            && !seen[step]
        {
            seen[step] = true;
            queue.push_back(step);
        }
    }
    let mut reached = None;
    while let Some(step) = queue.pop_front() {
        if step == target {
            reached = Some(step);
            break;
        }
        for (e, edge) in flow.edges(step).iter().enumerate() {
            let Target::Step(next) = edge.to else {
                continue;
            };
            let effect = analysis.effect(flow, step, e);
            let probe = analysis.apply(&Bits::empty(analysis.width), &effect, summaries);
            if probe.has(bit) || seen[next] {
                continue;
            }
            seen[next] = true;
            parent[next] = Some((step, edge.kind));
            queue.push_back(next);
        }
    }
    let Some(mut at) = reached else {
        return format!("to \"{}\"", flow.steps[target].id);
    };
    let mut steps = vec![(at, None)];
    while let Some((previous, kind)) = parent[at] {
        steps.push((previous, Some(kind)));
        at = previous;
    }
    steps.reverse();
    let mut parts: Vec<String> = Vec::new();
    for (step, kind) in &steps {
        let mut part = format!("\"{}\"", flow.steps[*step].id);
        if *kind == Some(EdgeKind::RetryExhausted) {
            part.push_str(" (onFail)");
        } else if *kind == Some(EdgeKind::Default) && flow.steps[*step].kind == Kind::Branch {
            part.push_str(" (no case)");
        }
        parts.push(part);
    }
    if parts.len() > 8 {
        let tail = parts.split_off(parts.len() - 4);
        parts.truncate(3);
        parts.push("…".to_owned());
        parts.extend(tail);
    }
    parts.join(" → ")
}

/// JSON types a variable holds.
const STRING: u8 = 1;
const NUMBER: u8 = 2;
const BOOLEAN: u8 = 4;
/// Anything (an action's result).
const ANY: u8 = 8;

fn type_of(value: &Value) -> u8 {
    match value {
        Value::String(_) => STRING,
        Value::Number(_) => NUMBER,
        Value::Bool(_) => BOOLEAN,
        _ => 0,
    }
}

fn type_name(types: u8) -> &'static str {
    if types & STRING != 0 {
        "a string"
    } else if types & NUMBER != 0 {
        "a number"
    } else {
        "a boolean"
    }
}

/// `strings`, `strings and numbers`, …
fn plural_name(types: u8) -> String {
    let names: Vec<&str> = [
        (STRING, "strings"),
        (NUMBER, "numbers"),
        (BOOLEAN, "booleans"),
    ]
    .into_iter()
    .filter(|(t, _)| types & t != 0)
    .map(|(_, n)| n)
    .collect();
    names.join(" and ")
}

/// `type-mismatch` over the set.
pub(crate) fn type_mismatch<'a>(set: &FlowSet<'a>) -> Vec<Found> {
    // Name → (types it can hold, the first write that says so).
    let mut held: FxHashMap<&'a str, (u8, String)> = FxHashMap::default();
    let mut add = |name: &'a str, types: u8, why: String| {
        let entry = held.entry(name).or_insert((0, why));
        entry.0 |= types;
    };
    for name in BUILT_IN_VARIABLES {
        add(name, STRING, format!("the built-in \"{name}\" is a string"));
    }
    for flow in &set.flows {
        if let Some(declared) = flow.document.get("variables").and_then(Value::as_object) {
            for (name, declaration) in declared {
                let kind = match declaration.get("type").and_then(Value::as_str) {
                    Some("string") => STRING,
                    Some("number") => NUMBER,
                    Some("boolean") => BOOLEAN,
                    _ => 0,
                };
                let default = declaration.get("default").map_or(0, type_of);
                add(
                    name,
                    kind | default,
                    format!("it is declared as {}", type_name(kind | default)),
                );
            }
        }
        for step in &flow.steps {
            let id = step.id;
            match step.kind {
                Kind::Ask => {
                    if let Some(name) = step.str_field(Key::Save) {
                        let input = step
                            .value
                            .get("input")
                            .and_then(Value::as_str)
                            .unwrap_or("text");
                        let types = match input {
                            "number" => NUMBER,
                            "yesno" => BOOLEAN,
                            _ => STRING,
                        };
                        add(
                            name,
                            types,
                            format!(
                                "ask \"{id}\" with input \"{input}\" saves {}",
                                type_name(types)
                            ),
                        );
                    }
                }
                Kind::Buttons | Kind::List => {
                    if let Some(name) = step.str_field(Key::Save) {
                        add(
                            name,
                            STRING,
                            format!(
                                "{} \"{id}\" saves the picked item's id, a string",
                                step.kind.as_str()
                            ),
                        );
                    }
                }
                Kind::Set => {
                    if let (Some(name), Some(value)) =
                        (step.str_field(Key::Var), step.field(Key::Value))
                    {
                        let types = type_of(value);
                        if types != 0 {
                            add(
                                name,
                                types,
                                format!("set \"{id}\" writes {}", type_name(types)),
                            );
                        }
                    }
                }
                Kind::Action => {
                    if let Some(name) = step.str_field(Key::Save) {
                        add(name, ANY, String::new());
                    }
                }
                _ => {}
            }
        }
    }
    let mut found = Vec::new();
    for (index, uses) in set.uses.iter().enumerate() {
        let flow = &set.flows[index];
        for read in &uses.reads {
            let Site::Condition { leaf, .. } = read.site else {
                continue;
            };
            let Some((types, why)) = held.get(read.name) else {
                continue;
            };
            if *types == 0 || types & ANY != 0 {
                continue;
            }
            let op = leaf.get("op").and_then(Value::as_str).unwrap_or("");
            let value = leaf.get("value").unwrap_or(&Value::Null);
            let needed = match op {
                "lt" | "lte" | "gt" | "gte" => NUMBER,
                "contains" | "startsWith" | "matches" => STRING,
                "eq" | "ne" => type_of(value),
                "in" => value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .fold(0, |t, v| t | type_of(v)),
                _ => 0,
            };
            if needed == 0 || types & needed != 0 {
                continue;
            }
            let mut shown = String::new();
            crate::text::push_value_summary(&mut shown, value);
            let outcome = match op {
                "ne" => format!("the comparison ne {shown} is always true"),
                "in" => format!("the comparison in {shown} never matches"),
                _ => format!("the comparison {op} {shown} is never true"),
            };
            let fix = match op {
                "contains" | "startsWith" | "matches" => {
                    "compare it another way or save a string".to_owned()
                }
                _ => format!(
                    "compare it with {} or save {} there",
                    type_name(*types),
                    type_name(needed)
                ),
            };
            let mut path = read.site.pointer(flow, read.step);
            path.truncate(path.len() - "/var".len());
            path.push_str("/value");
            found.push((
                index,
                Some(read.step),
                Code::TypeMismatch,
                path,
                format!(
                    "variable \"{}\" only holds {} ({why}), so {outcome}; {fix}",
                    read.name,
                    plural_name(*types),
                ),
            ));
        }
    }
    found
}
