//! `possibly-unset-variable` and `type-mismatch`: what each step may know about the variables
//! when it runs, over every path of the set.
//!
//! `possibly-unset-variable` is sound for conversations that begin at an entry (runtime §2
//! "Entry flows"): whenever a run interpolates a variable that is unset or null at a step, and
//! the caller did not pass that variable in, it is reported at that step (unless nobody writes
//! or declares it anywhere: that is `undefined-variable`). What each edge writes is the compiled
//! form's ([`Effect`]), the same the runtime follows:
//! - an `ask` writes its `save` on the edge of an accepted answer only; its retries can always
//!   run out (an empty reply, which stands for a sticker or a voice note, is never accepted), and
//!   then it goes to `onFail`, or without it to its successor, with `save` left as it was;
//! - a `buttons` or `list` `save` is written on every item's edge (only a pick moves on);
//! - `set` to `null` makes the variable null (it reads as `""` with a warning, as an unset one);
//! - an `action` with `save` writes it: what it holds is the handler's result, which the caller
//!   provides (a mock in a simulation), as it provides initial variables;
//! - a branch case's edge knows the variables its condition can only be true with, set and not
//!   null (`exists`, `eq` a non-null value, `ne` null, `lt`, `contains`, `in` …; `all` of them,
//!   each of `any`); the default edge knows nothing;
//! - a `subflow` step's return does what the called flow does on its paths to its ends (a
//!   missing flow: nothing);
//! - a flow starts with its declared defaults: at the start of a conversation (an entry flow,
//!   where nothing else is set: a declared variable without `default` is unset until written),
//!   and when a call enters it, for its variables that are unset (a variable some `set` makes
//!   null keeps its null then, so there a default counts only for variables no `set` makes
//!   null); a flow no trigger starts and that is not the document's own is entered only through
//!   calls, with what every call site has written;
//! - reads inside `exists` and `eq`/`ne` `null` conditions are how an author checks for an
//!   unset variable: never reported.
//!
//! The analysis follows, for each variable, whether it may be unset or null ("bad"). Each flow
//! is analyzed once, relative to its entry: a step's state is a pair `(a, c)` of bit sets,
//! "bad here" being `(bad at the entry & a) | c` (`a`: some path from the entry leaves the
//! variable as it was; `c`: some path makes it bad). That pair at the flow's ends is the
//! flow's summary, which a `subflow` step's return applies, so a call does not mix what
//! different callers wrote. Then the entry states: an entry flow starts with everything bad but
//! its defaults, and every call site adds what is bad there. Both are fixpoints over finite bit
//! sets that only grow, so they end.
//!
//! `type-mismatch`: the JSON types a variable can hold, from every write and declaration in the
//! set (`ask` by `input`, a menu's `save` a string id, `set` its value's type, a declaration its
//! `type` and `default`, the built-ins strings); an `action`'s `save` can be anything, so a
//! variable it writes is never judged.

use botmesh_flow_schema::program::{
    Body, EdgeKind, Effect, Flow, Literal, ReadAt, SetValue, Target,
};
use botmesh_flow_schema::{BUILT_IN_VARIABLES, StepKind};
use rustc_hash::FxHashMap;
use serde_json::Value;

use crate::label::push_value_summary;
use crate::lint::Code;
use crate::scc::Components;
use crate::set::{FlowSet, UseAt};

/// A finding: flow index, step, code, pointer, message.
pub(crate) type Found = (usize, Option<usize>, Code, String, String);

/// The bit of `bit` in a set of words.
fn has(words: &[u64], bit: usize) -> bool {
    words[bit / 64] & (1 << (bit % 64)) != 0
}

fn set_bit(words: &mut [u64], bit: usize) {
    words[bit / 64] |= 1 << (bit % 64);
}

fn clear_bit(words: &mut [u64], bit: usize) {
    words[bit / 64] &= !(1 << (bit % 64));
}

/// ORs `from` into `into`; true when a bit was added.
fn join(into: &mut [u64], from: &[u64]) -> bool {
    let mut changed = false;
    for (a, b) in into.iter_mut().zip(from) {
        let joined = *a | b;
        changed |= joined != *a;
        *a = joined;
    }
    changed
}

/// What a flow does to the variables on its way to its ends: `(a, c)` as the step states
/// are, `None` when it never returns.
type Summary = Option<(Vec<u64>, Vec<u64>)>;

/// One flow's states relative to its entry: for each step, `a` then `c` (`words` each),
/// `None` when the entry does not reach it.
struct States {
    words: usize,
    /// Per step: `2 * words` words, `a` then `c`.
    flat: Vec<u64>,
    reached: Vec<bool>,
}

impl States {
    fn a(&self, step: usize) -> &[u64] {
        &self.flat[2 * step * self.words..(2 * step + 1) * self.words]
    }

    fn c(&self, step: usize) -> &[u64] {
        &self.flat[(2 * step + 1) * self.words..(2 * step + 2) * self.words]
    }

    /// The variables that may be bad at `step`, given those bad at the flow's entry.
    fn bad(&self, step: usize, entry: &[u64]) -> Vec<u64> {
        self.a(step)
            .iter()
            .zip(self.c(step))
            .zip(entry)
            .map(|((a, c), e)| (e & a) | c)
            .collect()
    }
}

struct Analysis<'s, 'a> {
    set: &'s FlowSet<'a>,
    bit: FxHashMap<&'a str, usize>,
    words: usize,
    /// Per flow, per edge (by its position in `all_edges`): the range of `written` holding the
    /// bits its effect makes good (a write, a guard), and the bit it makes bad (a `set` to
    /// null).
    effects: Vec<Vec<(std::ops::Range<u32>, Option<u32>)>>,
    /// The bits of the writes, for `effects`.
    written: Vec<u32>,
    /// Per flow: its defaults that a call's entry applies (those of variables no `set` makes
    /// null), as bits.
    call_defaults: Vec<Vec<u64>>,
}

impl<'a> Analysis<'_, 'a> {
    fn bit_of(&self, name: &str) -> Option<usize> {
        self.bit.get(name).copied()
    }

    /// Applies edge `e` of `step` in flow `flow` to `(a, c)` (in place); false when the edge is
    /// never taken (a call to a flow that never returns).
    fn apply(
        &self,
        flow: usize,
        step: usize,
        e: usize,
        a: &mut [u64],
        c: &mut [u64],
        summaries: &[Summary],
    ) -> bool {
        let f = &self.set.flows[flow];
        let index = f.first_edge(step) + e;
        let (writes, clears) = &self.effects[flow][index];
        for &bit in &self.written[writes.start as usize..writes.end as usize] {
            clear_bit(a, bit as usize);
            clear_bit(c, bit as usize);
        }
        if let Some(bit) = *clears {
            clear_bit(a, bit as usize);
            set_bit(c, bit as usize);
        }
        if let Effect::Return(Some(callee)) = f.all_edges()[index].effect {
            let Some((ga, gc)) = &summaries[callee] else {
                return false;
            };
            for (((a, c), ga), gc) in a.iter_mut().zip(c.iter_mut()).zip(ga).zip(gc) {
                *c = (*c & ga) | gc;
                *a &= ga;
            }
        }
        true
    }

    /// The states of flow `index` relative to its entry (where a call's defaults were just
    /// applied), given the callees' summaries; and its summary.
    ///
    /// The steps are visited in passes in document order (most edges go forward, so a few
    /// passes settle the flow); no state is allocated per edge.
    fn flow_states(&self, index: usize, summaries: &[Summary]) -> (States, Summary) {
        let flow = &self.set.flows[index];
        let count = flow.steps.len();
        let words = self.words;
        let mut states = States {
            words,
            flat: vec![0; 2 * count * words],
            reached: vec![false; count],
        };
        let mut summary: Summary = None;
        if count == 0 {
            return (states, summary);
        }
        // The entry: everything as it was (`a` all ones, `c` empty).
        states.flat[..words].fill(u64::MAX);
        states.reached[0] = true;
        let mut queued = vec![false; count];
        queued[0] = true;
        let mut a = vec![0u64; words];
        let mut c = vec![0u64; words];
        let mut again = true;
        while again {
            again = false;
            for step in 0..count {
                if !queued[step] {
                    continue;
                }
                queued[step] = false;
                for e in 0..flow.edges(step).len() {
                    a.copy_from_slice(states.a(step));
                    c.copy_from_slice(states.c(step));
                    if !self.apply(index, step, e, &mut a, &mut c, summaries) {
                        continue;
                    }
                    let Target::Step(next) = flow.edges(step)[e].to else {
                        continue;
                    };
                    let base = 2 * next * words;
                    let changed = if states.reached[next] {
                        let (ta, tc) = states.flat[base..base + 2 * words].split_at_mut(words);
                        join(ta, &a) | join(tc, &c)
                    } else {
                        states.reached[next] = true;
                        states.flat[base..base + words].copy_from_slice(&a);
                        states.flat[base + words..base + 2 * words].copy_from_slice(&c);
                        true
                    };
                    if changed && !queued[next] {
                        queued[next] = true;
                        // A step already passed in this pass is visited in the next one.
                        again |= next <= step;
                    }
                }
            }
        }
        // The summary: every way the flow returns (an `end` step, or an edge off the end).
        let mut meet = |a: &[u64], c: &[u64]| match &mut summary {
            None => summary = Some((a.to_vec(), c.to_vec())),
            Some((sa, sc)) => {
                join(sa, a);
                join(sc, c);
            }
        };
        for step in 0..count {
            if !states.reached[step] {
                continue;
            }
            if flow.steps[step].kind == StepKind::End {
                meet(states.a(step), states.c(step));
            }
            for (e, edge) in flow.edges(step).iter().enumerate() {
                if edge.to != Target::End {
                    continue;
                }
                a.copy_from_slice(states.a(step));
                c.copy_from_slice(states.c(step));
                if self.apply(index, step, e, &mut a, &mut c, summaries) {
                    meet(&a, &c);
                }
            }
        }
        // A call applies the flow's defaults before its first step.
        if let Some((sa, _)) = &mut summary {
            for (a, d) in sa.iter_mut().zip(&self.call_defaults[index]) {
                *a &= !d;
            }
        }
        (states, summary)
    }
}

/// `possibly-unset-variable` over the set; `call_order` is the call graph's components, callees
/// first.
pub(crate) fn possibly_unset(set: &FlowSet<'_>, call_order: &Components) -> Vec<Found> {
    // The names worth following: read somewhere, written or declared somewhere, not built in.
    let mut known: Vec<&str> = Vec::new();
    for (flow, uses) in set.flows.iter().zip(&set.uses) {
        known.extend(uses.write_names.iter().copied());
        known.extend(flow.declarations.iter().map(|d| d.name));
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
    let words = names.len().div_ceil(64);
    let bit: FxHashMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let bit_of = |name: &str| bit.get(name).copied();
    // Variables some `set` makes null: a call's defaults do not replace a null.
    let mut nullable = vec![0u64; words];
    for flow in &set.flows {
        for edge in flow.all_edges() {
            if let Effect::Clear(name) = edge.effect
                && let Some(b) = bit_of(name)
            {
                set_bit(&mut nullable, b);
            }
        }
    }
    let defaults = |flow: &Flow<'_>| {
        let mut bits = vec![0u64; words];
        for d in flow.declarations.iter().filter(|d| d.default.is_some()) {
            if let Some(b) = bit_of(d.name) {
                set_bit(&mut bits, b);
            }
        }
        bits
    };
    let fresh_defaults: Vec<Vec<u64>> = set.flows.iter().map(defaults).collect();
    let call_defaults = fresh_defaults
        .iter()
        .map(|d| d.iter().zip(&nullable).map(|(d, n)| d & !n).collect())
        .collect();
    let mut written: Vec<u32> = Vec::new();
    #[expect(
        clippy::cast_possible_truncation,
        reason = "bits and writes count the variables and edges of at most a few thousand steps"
    )]
    let effects = set
        .flows
        .iter()
        .map(|flow| {
            flow.all_edges()
                .iter()
                .map(|edge| {
                    let start = written.len() as u32;
                    let mut clears = None;
                    match &edge.effect {
                        Effect::Write(name) => written.extend(bit_of(name).map(|b| b as u32)),
                        Effect::Guard(names) => {
                            written
                                .extend(names.iter().filter_map(|n| bit_of(n)).map(|b| b as u32));
                        }
                        Effect::Clear(name) => clears = bit_of(name).map(|b| b as u32),
                        Effect::None | Effect::Return(_) => {}
                    }
                    (start..written.len() as u32, clears)
                })
                .collect()
        })
        .collect();
    let analysis = Analysis {
        set,
        bit,
        words,
        effects,
        written,
        call_defaults,
    };
    let flows = set.flows.len();
    // The summaries, callees first; a component of flows calling each other (a subflow cycle)
    // is computed again until its summaries stop growing.
    let mut summaries: Vec<Summary> = vec![None; flows];
    let mut states: Vec<Option<States>> = (0..flows).map(|_| None).collect();
    for component in call_order.iter() {
        loop {
            let mut changed = false;
            for &index in component {
                let (flow_states, summary) = analysis.flow_states(index, &summaries);
                changed |= summary != summaries[index];
                summaries[index] = summary;
                states[index] = Some(flow_states);
            }
            if !changed || component.len() == 1 && !calls_itself(set, component[0]) {
                break;
            }
        }
    }
    // The entry states: an entry flow starts with everything bad but its defaults; each call
    // adds what is bad at its step, but the callee's defaults.
    let mut entries: Vec<Option<Vec<u64>>> = set
        .flows
        .iter()
        .enumerate()
        .map(|(index, flow)| {
            flow.entry.then(|| {
                let mut bits = vec![u64::MAX; words];
                if !names.len().is_multiple_of(64)
                    && let Some(last) = bits.last_mut()
                {
                    *last = (1u64 << (names.len() % 64)) - 1;
                }
                for (b, d) in bits.iter_mut().zip(&fresh_defaults[index]) {
                    *b &= !d;
                }
                bits
            })
        })
        .collect();
    let mut again = true;
    while again {
        again = false;
        for caller in 0..flows {
            let (Some(entry), Some(flow_states)) = (entries[caller].clone(), &states[caller])
            else {
                continue;
            };
            for (step, s) in set.flows[caller].steps.iter().enumerate() {
                let Body::Subflow {
                    callee: Some(callee),
                    ..
                } = s.body
                else {
                    continue;
                };
                if !flow_states.reached[step] {
                    continue;
                }
                let mut bad = flow_states.bad(step, &entry);
                for (b, d) in bad.iter_mut().zip(&analysis.call_defaults[callee]) {
                    *b &= !d;
                }
                match &mut entries[callee] {
                    Some(existing) => again |= join(existing, &bad),
                    slot @ None => {
                        *slot = Some(bad);
                        again = true;
                    }
                }
            }
        }
    }
    let mut found = Vec::new();
    // One breadth-first search per flow and variable, shared by all its reads.
    let mut trees: FxHashMap<(usize, usize), Tree> = FxHashMap::default();
    for (index, uses) in set.uses.iter().enumerate() {
        let (Some(entry), Some(flow_states)) = (&entries[index], &states[index]) else {
            continue;
        };
        let flow = &set.flows[index];
        for read in &uses.reads {
            let Some(b) = analysis.bit_of(read.name) else {
                continue;
            };
            if let UseAt::Read(ReadAt::Condition { case, leaf }) = read.at
                && flow.steps[read.step]
                    .leaf(case, leaf)
                    .is_some_and(|l| l.checks_unset())
            {
                continue;
            }
            if !flow_states.reached[read.step] {
                continue;
            }
            let bad = (has(entry, b) && has(flow_states.a(read.step), b))
                || has(flow_states.c(read.step), b);
            if !bad {
                continue;
            }
            let tree = trees
                .entry((index, b))
                .or_insert_with(|| unset_tree(&analysis, index, has(entry, b), &summaries, b));
            // The message is written into one string, path included.
            let mut message = String::with_capacity(256);
            message.push_str("variable \"");
            message.push_str(read.name);
            message.push_str("\" may be unset here: nothing writes it on the path ");
            unset_path(set, index, read.name, tree, read.step, &mut message);
            message.push_str("; write it on every path, declare it with a default, or check it with exists first");
            found.push((
                index,
                Some(read.step),
                Code::PossiblyUnsetVariable,
                read.pointer(flow),
                message,
            ));
        }
    }
    found
}

/// True when the flow has a `subflow` step calling itself.
fn calls_itself(set: &FlowSet<'_>, index: usize) -> bool {
    set.flows[index]
        .steps
        .iter()
        .any(|s| crate::set::callee(s) == Some(index))
}

/// Breadth-first parents of the steps reached from where `bit` is bad (the entry when it
/// starts bad, a `set` of it to null, a call that may leave it bad) without an edge that makes
/// it good.
struct Tree {
    /// The step before, and the edge taken from it.
    parent: Vec<Option<(usize, usize)>>,
    /// How many edges from where the search started.
    depth: Vec<u32>,
    /// The step's ancestor three edges from the start (itself when nearer): the step after
    /// the shown beginning of a long path.
    top: Vec<usize>,
    seen: Vec<bool>,
    /// True when the search started at the flow's entry.
    from_entry: bool,
}

impl Analysis<'_, '_> {
    /// What edge `e` of `step` does to `bit`: `None` when it is never taken (a call to a flow
    /// that never returns), else whether a bad `bit` stays bad and whether a good one turns bad.
    fn edge_on(
        &self,
        flow: usize,
        step: usize,
        e: usize,
        bit: usize,
        summaries: &[Summary],
    ) -> Option<(bool, bool)> {
        let f = &self.set.flows[flow];
        let index = f.first_edge(step) + e;
        let (writes, clears) = &self.effects[flow][index];
        if *clears == Some(bit as u32) {
            return Some((true, true));
        }
        if self.written[writes.start as usize..writes.end as usize].contains(&(bit as u32)) {
            return Some((false, false));
        }
        match f.all_edges()[index].effect {
            Effect::Return(Some(callee)) => {
                let (ga, gc) = summaries[callee].as_ref()?;
                Some((has(ga, bit) || has(gc, bit), has(gc, bit)))
            }
            _ => Some((true, false)),
        }
    }
}

fn unset_tree(
    analysis: &Analysis<'_, '_>,
    index: usize,
    bad_at_entry: bool,
    summaries: &[Summary],
    bit: usize,
) -> Tree {
    let flow = &analysis.set.flows[index];
    let count = flow.steps.len();
    let mut tree = Tree {
        parent: vec![None; count],
        depth: vec![0; count],
        top: (0..count).collect(),
        seen: vec![false; count],
        from_entry: bad_at_entry,
    };
    let mut queue = std::collections::VecDeque::new();
    if bad_at_entry && count > 0 {
        tree.seen[0] = true;
        queue.push_back(0);
    }
    for step in 0..count {
        // Only a `set` to null or a call can make a good variable bad.
        let starts = flow.edges(step).iter().enumerate().any(|(e, edge)| {
            matches!(edge.effect, Effect::Clear(_) | Effect::Return(Some(_)))
                && analysis
                    .edge_on(index, step, e, bit, summaries)
                    .is_some_and(|(_, turns_bad)| turns_bad)
        });
        if starts && !tree.seen[step] {
            tree.seen[step] = true;
            queue.push_back(step);
        }
    }
    while let Some(step) = queue.pop_front() {
        for (e, edge) in flow.edges(step).iter().enumerate() {
            let Target::Step(next) = edge.to else {
                continue;
            };
            let stays = analysis.edge_on(index, step, e, bit, summaries);
            if tree.seen[next] || !stays.is_some_and(|(stays_bad, _)| stays_bad) {
                continue;
            }
            tree.seen[next] = true;
            tree.parent[next] = Some((step, e));
            tree.depth[next] = tree.depth[step] + 1;
            tree.top[next] = if tree.depth[next] <= 3 {
                next
            } else {
                tree.top[step]
            };
            queue.push_back(next);
        }
    }
    tree
}

/// The first path (fewest steps) to `target` in `tree`, as text: where the variable `name` of
/// flow `index` was left unset (a flow only calls enter, entered without it; an `ask` whose
/// retries ran out; a call whose flow can end without writing it; a branch with no true
/// case). A path of more than 8 steps shows its first three and its last four.
fn unset_path(
    set: &FlowSet<'_>,
    index: usize,
    name: &str,
    tree: &Tree,
    target: usize,
    out: &mut String,
) {
    let flow = &set.flows[index];
    if !tree.seen.get(target).copied().unwrap_or(false) {
        out.push_str("to \"");
        out.push_str(flow.steps[target].id);
        out.push('"');
        return;
    }
    // (step, the edge taken from it), from the end back; `None` for the cut.
    let mut shown: Vec<Option<(usize, Option<usize>)>> = Vec::with_capacity(8);
    let walk = |from: usize, limit: usize, next: Option<usize>, out: &mut Vec<_>| {
        let (mut at, mut edge) = (from, next);
        for _ in 0..limit {
            out.push(Some((at, edge)));
            match tree.parent[at] {
                Some((previous, e)) => (at, edge) = (previous, Some(e)),
                None => break,
            }
        }
    };
    if tree.depth[target] < 8 {
        walk(target, 8, None, &mut shown);
    } else {
        walk(target, 4, None, &mut shown);
        shown.push(None);
        if let Some((third, e)) = tree.parent[tree.top[target]] {
            walk(third, 3, Some(e), &mut shown);
        }
    }
    shown.reverse();
    for (i, item) in shown.into_iter().enumerate() {
        if i > 0 {
            out.push_str(" → ");
        }
        let Some((step, e)) = item else {
            out.push('…');
            continue;
        };
        let mut notes: Vec<String> = Vec::new();
        if i == 0 && step == 0 && tree.from_entry && !flow.entry {
            notes.push("called without it".to_owned());
        }
        if let Some(edge) = e.and_then(|e| flow.edges(step).get(e)) {
            match (edge.kind, &edge.effect) {
                (EdgeKind::RetryExhausted, _) => notes.push("onFail".to_owned()),
                (EdgeKind::Next, _) if !edge.drawn => notes.push("retries run out".to_owned()),
                (EdgeKind::Default, _) => notes.push("no case".to_owned()),
                (EdgeKind::Return, Effect::Return(Some(callee)))
                    if set.uses[*callee].write_names.contains(&name) =>
                {
                    notes.push(format!(
                        "flow \"{}\" can end without writing it",
                        set.flows[*callee].id
                    ));
                }
                _ => {}
            }
        }
        out.push('"');
        out.push_str(flow.steps[step].id);
        out.push('"');
        if !notes.is_empty() {
            out.push_str(" (");
            out.push_str(&notes.join(", "));
            out.push(')');
        }
    }
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

fn literal_type(value: Literal<'_>) -> u8 {
    match value {
        Literal::String(_) => STRING,
        Literal::Number(_) => NUMBER,
        Literal::Bool(_) => BOOLEAN,
        Literal::Null => 0,
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
    // The reason is written only for the first write of each name.
    let mut add = |name: &'a str, types: u8, why: &dyn Fn() -> String| {
        let entry = held.entry(name).or_insert_with(|| (0, why()));
        entry.0 |= types;
    };
    for name in BUILT_IN_VARIABLES {
        add(name, STRING, &|| {
            format!("the built-in \"{name}\" is a string")
        });
    }
    for flow in &set.flows {
        for declaration in &flow.declarations {
            let kind = match declaration.kind {
                "string" => STRING,
                "number" => NUMBER,
                "boolean" => BOOLEAN,
                _ => 0,
            };
            let default = declaration.default.map_or(0, literal_type);
            add(declaration.name, kind | default, &|| {
                format!("it is declared as {}", type_name(kind | default))
            });
        }
        for step in &flow.steps {
            let id = step.id;
            match &step.body {
                Body::Ask(ask) => {
                    let input = ask.input.as_str();
                    let types = match input {
                        "number" => NUMBER,
                        "yesno" => BOOLEAN,
                        _ => STRING,
                    };
                    add(ask.save, types, &|| {
                        format!(
                            "ask \"{id}\" with input \"{input}\" saves {}",
                            type_name(types)
                        )
                    });
                }
                Body::Menu(menu) => {
                    if let Some(name) = menu.save {
                        add(name, STRING, &|| {
                            format!(
                                "{} \"{id}\" saves the picked item's id, a string",
                                step.kind.as_str()
                            )
                        });
                    }
                }
                Body::Set { var, value, .. } => {
                    let types = match value {
                        SetValue::Text(_) => STRING,
                        SetValue::Literal(literal) => literal_type(*literal),
                    };
                    if types != 0 {
                        add(var, types, &|| {
                            format!("set \"{id}\" writes {}", type_name(types))
                        });
                    }
                }
                Body::Action {
                    save: Some(name), ..
                } => add(name, ANY, &String::new),
                _ => {}
            }
        }
    }
    let mut found = Vec::new();
    for (index, uses) in set.uses.iter().enumerate() {
        let flow = &set.flows[index];
        for read in &uses.reads {
            let UseAt::Read(ReadAt::Condition { case, leaf }) = read.at else {
                continue;
            };
            let Some(leaf) = flow.steps[read.step].leaf(case, leaf) else {
                continue;
            };
            let Some((types, why)) = held.get(read.name) else {
                continue;
            };
            if *types == 0 || types & ANY != 0 {
                continue;
            }
            let op = leaf.op.as_str();
            let value = leaf.value.unwrap_or(&Value::Null);
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
            push_value_summary(&mut shown, value);
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
            let mut path = read.pointer(flow);
            path.truncate(path.len().saturating_sub("/var".len()));
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
