//! Lint (spec §8): the twelve stable codes of the spec over a set of valid flows, and five more
//! our users asked for: `possibly-unset-variable` and `type-mismatch` (`dataflow.rs`),
//! `multiple-fallbacks`, `keyword-shadowed` and `unmatchable-keyword` (`triggers.rs`). The
//! code `unreachable-on-fail` is withdrawn (every `ask` can run out of retries, runtime §4) and
//! reserved: it is never reported again.

use std::borrow::Cow;

use rustc_hash::{FxHashMap, FxHashSet};

use serde::Serialize;
use serde_json::Value;

use botmesh_flow_schema::program::{Body, EdgeKind, Flow, Problem, Target, lower_cased};
use botmesh_flow_schema::{BUILT_IN_VARIABLES, StepKind, escape_token, nearest_name};

use crate::scc::{self, Adjacency, Components};
use crate::set::{FlowSet, Uses, callee};

/// More sending steps than this in a row without waiting is a `message-burst`.
pub const BURST_LIMIT: usize = 5;

/// The lint codes: the twelve of spec §8, then five more. The kebab-case spellings are stable.
///
/// `unreachable-on-fail` (issue 28) is withdrawn and reserved: it said a text `ask` without a
/// `pattern` never takes its `onFail`, but an empty reply (a sticker, a voice note) is never
/// accepted, so every `ask` can run out of retries (runtime §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Code {
    /// No path from the entry reaches the step.
    UnreachableStep,
    /// A cycle in which no step waits for the user.
    InfiniteLoop,
    /// A `subflow` names a flow that is not in the set.
    MissingSubflow,
    /// Flows call each other recursively.
    SubflowCycle,
    /// Read but never written in the set, not declared, not built-in.
    UndefinedVariable,
    /// Written but never read anywhere in the set.
    UnusedVariable,
    /// Two buttons or rows of one step share a title (case-insensitive).
    DuplicateTitle,
    /// A branch case repeats an earlier case's condition.
    DuplicateCase,
    /// Two flows of the set are triggered by the same keyword.
    DuplicateKeyword,
    /// More than [`BURST_LIMIT`] sending steps in a row without waiting for the user.
    MessageBurst,
    /// A path falls off the end of `steps` without `end` or `handoff`.
    ImplicitEnd,
    /// `{{` without `}}`, or an empty or invalid name inside braces.
    MalformedPlaceholder,
    /// A placeholder or condition reads a variable that some path from the entry reaches
    /// without writing it.
    PossiblyUnsetVariable,
    /// More than one flow of the set has `fallback: true`; only the first is used.
    MultipleFallbacks,
    /// A condition compares a variable with a value of a type the variable never holds.
    TypeMismatch,
    /// A trigger keyword that an earlier flow's keyword always beats.
    KeywordShadowed,
    /// A trigger keyword that is empty once normalized, so it never matches.
    UnmatchableKeyword,
}

impl Code {
    /// Every code: spec §8's order, then `possibly-unset-variable`, `multiple-fallbacks`,
    /// `type-mismatch`, `keyword-shadowed` (issue 28), then `unmatchable-keyword`.
    pub const ALL: [Self; 17] = [
        Self::UnreachableStep,
        Self::InfiniteLoop,
        Self::MissingSubflow,
        Self::SubflowCycle,
        Self::UndefinedVariable,
        Self::UnusedVariable,
        Self::DuplicateTitle,
        Self::DuplicateCase,
        Self::DuplicateKeyword,
        Self::MessageBurst,
        Self::ImplicitEnd,
        Self::MalformedPlaceholder,
        Self::PossiblyUnsetVariable,
        Self::MultipleFallbacks,
        Self::TypeMismatch,
        Self::KeywordShadowed,
        Self::UnmatchableKeyword,
    ];

    /// The stable spelling, e.g. `unreachable-step`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::UnreachableStep => "unreachable-step",
            Self::InfiniteLoop => "infinite-loop",
            Self::MissingSubflow => "missing-subflow",
            Self::SubflowCycle => "subflow-cycle",
            Self::UndefinedVariable => "undefined-variable",
            Self::UnusedVariable => "unused-variable",
            Self::DuplicateTitle => "duplicate-title",
            Self::DuplicateCase => "duplicate-case",
            Self::DuplicateKeyword => "duplicate-keyword",
            Self::MessageBurst => "message-burst",
            Self::ImplicitEnd => "implicit-end",
            Self::MalformedPlaceholder => "malformed-placeholder",
            Self::PossiblyUnsetVariable => "possibly-unset-variable",
            Self::MultipleFallbacks => "multiple-fallbacks",
            Self::TypeMismatch => "type-mismatch",
            Self::KeywordShadowed => "keyword-shadowed",
            Self::UnmatchableKeyword => "unmatchable-keyword",
        }
    }

    /// The severity spec §8 gives the code.
    pub fn severity(self) -> Severity {
        match self {
            Self::InfiniteLoop | Self::MissingSubflow | Self::SubflowCycle => Severity::Error,
            Self::UnusedVariable | Self::ImplicitEnd => Severity::Info,
            _ => Severity::Warning,
        }
    }
}

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The flow is broken: `check` exits 1.
    Error,
    /// Probably a mistake.
    Warning,
    /// Worth a look.
    Info,
}

impl Severity {
    /// `error`, `warning` or `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warning => "warning",
            Self::Info => "info",
        }
    }
}

/// One lint finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// The stable code.
    pub code: Code,
    /// The code's severity.
    pub severity: Severity,
    /// The id of the flow the finding is in.
    pub flow: String,
    /// The id of the step the finding is about, when it is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// RFC 6901 JSON Pointer into that flow's document.
    pub path: String,
    /// One sentence saying what is wrong and what to change.
    pub message: String,
    /// Which document of the set: `document` or `subflows/N` (N counts from 0).
    pub source: String,
    /// The repair, when it is determined: a patch of that flow's document.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<botmesh_flow_schema::Fix>,
}

/// The `source` of the flow at `index` in a set whose first flow is the document.
pub fn source_name(index: usize) -> String {
    match index {
        0 => "document".to_owned(),
        n => format!("subflows/{}", n - 1),
    }
}

/// Lints a set of valid flow documents (the entry document first, then its subflows).
///
/// Diagnostics are ordered by flow (the set's order), then by document order of their path
/// (top-level keys in the order `$schema`, `version`, `id`, `metadata`, `trigger`, `variables`,
/// `steps`; array indexes numerically), then by code. When flow ids repeat, `subflow` steps
/// resolve to the first flow with the id.
pub fn lint(flows: &[&Value]) -> Vec<Diagnostic> {
    // The checks that read only one flow's JSON run as each flow is compiled, while the flow
    // is in cache; the rest read the compiled set.
    let mut early = Vec::new();
    let set = FlowSet::compile_each(flows, |_, flow, uses| {
        flow_checks(&mut early, flow, uses);
    });
    set_checks(&set, early)
}

/// A diagnostic of flow `index`, tagged with that index for sorting.
fn diagnostic(
    index: usize,
    flow: &Flow<'_>,
    step: Option<usize>,
    code: Code,
    path: String,
    message: String,
) -> (usize, Diagnostic) {
    (
        index,
        Diagnostic {
            code,
            severity: code.severity(),
            flow: flow.id.to_owned(),
            step: step
                .and_then(|s| flow.steps.get(s))
                .map(|s| s.id.to_owned()),
            path,
            message,
            source: source_name(index),
            fix: None,
        },
    )
}

/// Diagnostics over the compiled set.
struct Sink<'s, 'a> {
    set: &'s FlowSet<'a>,
    out: Vec<(usize, Diagnostic)>,
}

impl Sink<'_, '_> {
    fn push(
        &mut self,
        flow: usize,
        step: Option<usize>,
        code: Code,
        path: String,
        message: String,
    ) {
        let entry = diagnostic(flow, &self.set.flows[flow], step, code, path, message);
        self.out.push(entry);
    }
}

/// Diagnostics of one flow, found before the set is complete.
struct FlowSink<'s, 'f, 'a> {
    flow: &'f Flow<'a>,
    out: &'s mut Vec<(usize, Diagnostic)>,
}

impl FlowSink<'_, '_, '_> {
    fn push(&mut self, step: Option<usize>, code: Code, path: String, message: String) {
        let entry = diagnostic(self.flow.index, self.flow, step, code, path, message);
        self.out.push(entry);
    }
}

/// `duplicate-title`, `duplicate-case` and `malformed-placeholder`: they need one flow only.
pub(crate) fn flow_checks<'a>(
    out: &mut Vec<(usize, Diagnostic)>,
    flow: &Flow<'a>,
    uses: &Uses<'a>,
) {
    let mut sink = FlowSink { flow, out };
    options_and_cases(&mut sink);
    for bad in &uses.malformed {
        let message = match &bad.problem {
            Problem::Unclosed(at) => format!(
                "\"{{{{\" at character {at} has no closing \"}}}}\"; close the placeholder or remove the braces"
            ),
            Problem::Empty => {
                "empty placeholder \"{{}}\"; put a variable name between the braces or remove them"
                    .to_owned()
            }
            Problem::Invalid(inner) => match lower_cased(inner) {
                Some(lower) => format!(
                    "placeholder {:?} does not name a variable (variable names are lower case), so it is sent as written; did you mean {{{{{lower}}}}}?",
                    format!("{{{{{inner}}}}}")
                ),
                None => format!(
                    "placeholder {:?} does not name a variable; use lowercase letters, digits and underscores (spaces only around the name), e.g. {{{{name}}}}",
                    format!("{{{{{inner}}}}}")
                ),
            },
        };
        let pointer = flow
            .steps
            .get(bad.step)
            .map_or_else(String::new, |step| bad.field.pointer(bad.step, step));
        sink.push(Some(bad.step), Code::MalformedPlaceholder, pointer, message);
    }
}

/// The checks that need the whole set (calls, control flow through subflows, variables,
/// keywords), then every diagnostic in order.
pub(crate) fn set_checks(set: &FlowSet<'_>, early: Vec<(usize, Diagnostic)>) -> Vec<Diagnostic> {
    let mut sink = Sink { set, out: early };
    let call_order = subflow_cycles(&mut sink);
    let mut finishes = vec![false; set.flows.len()];
    for component in call_order.iter() {
        for &flow in component {
            finishes[flow] = can_finish_without_waiting(set, flow, &finishes);
        }
    }
    for (index, flow) in set.flows.iter().enumerate() {
        control_flow(&mut sink, index, flow, &finishes);
    }
    variables(&mut sink, &set.uses);
    keywords(&mut sink);
    let more = crate::dataflow::possibly_unset(set, &call_order)
        .into_iter()
        .chain(crate::dataflow::type_mismatch(set))
        .chain(crate::triggers::triggers(set));
    for (flow, step, code, path, message) in more {
        sink.push(flow, step, code, path, message);
    }
    let out = sink.out;
    // Each path's sort key is made once (a comparison that parsed both paths again was most
    // of the cost of sorting many diagnostics).
    // Most diagnostics are told apart by their flow and step: those lead the key, so most
    // comparisons never look at a token's text.
    let mut keyed: Vec<(usize, u64, PathKey<'_>, Code, usize)> = out
        .iter()
        .enumerate()
        .map(|(i, (flow, d))| {
            let key = path_key(&d.path);
            (*flow, key_prefix(&key), key, d.code, i)
        })
        .collect();
    // The checks append their findings in order, so the list is a few sorted runs, which a
    // stable sort merges in about linear time.
    keyed.sort();
    let order: Vec<usize> = keyed.into_iter().map(|(.., i)| i).collect();
    let mut out: Vec<Option<Diagnostic>> = out.into_iter().map(|(_, d)| Some(d)).collect();
    order.into_iter().filter_map(|i| out[i].take()).collect()
}

/// Intra-flow successors of every step (edges to `(end)` left out).
fn successors(flow: &Flow<'_>) -> Adjacency {
    let count = flow.steps.len();
    let mut graph = Adjacency::with_capacity(count, 2 * count);
    for step in 0..count {
        graph.push_node(flow.edges(step).iter().filter_map(|e| match e.to {
            Target::Step(i) => Some(i),
            Target::End => None,
        }));
    }
    graph
}

/// Reports `subflow-cycle` and `missing-subflow`; returns the call graph's components, callees
/// first.
fn subflow_cycles(sink: &mut Sink<'_, '_>) -> Components {
    let set = sink.set;
    let mut calls = Adjacency::with_capacity(set.flows.len(), set.flows.len());
    for flow in &set.flows {
        calls.push_node(flow.steps.iter().filter_map(callee));
    }
    let components = scc::components(&calls);
    let mut component_of = vec![0usize; set.flows.len()];
    for (c, component) in components.iter().enumerate() {
        for &f in component {
            component_of[f] = c;
        }
    }
    for (c, component) in components.iter().enumerate() {
        if !scc::is_cyclic(component, &calls) {
            continue;
        }
        let mut names: Vec<String> = component
            .iter()
            .take(5)
            .map(|&f| format!("\"{}\"", set.flows[f].id))
            .collect();
        if component.len() > 5 {
            names.push("…".to_owned());
        }
        for &f in component {
            let flow = &set.flows[f];
            for (i, step) in flow.steps.iter().enumerate() {
                let Some(callee) = callee(step) else {
                    continue;
                };
                if component_of[callee] != c {
                    continue;
                }
                let message = if callee == f {
                    format!(
                        "flow \"{}\" calls itself; use a loop back to an earlier step (through a step that waits) instead of a recursive subflow",
                        flow.id
                    )
                } else {
                    format!(
                        "calling \"{}\" leads back to \"{}\" (flows {} call each other); remove one of the subflow steps of the cycle",
                        set.flows[callee].id,
                        flow.id,
                        names.join(", ")
                    )
                };
                sink.push(
                    f,
                    Some(i),
                    Code::SubflowCycle,
                    format!("/steps/{i}/flow"),
                    message,
                );
            }
        }
    }
    for (f, flow) in set.flows.iter().enumerate() {
        for (i, step) in flow.steps.iter().enumerate() {
            let Body::Subflow {
                flow: called,
                callee: None,
            } = step.body
            else {
                continue;
            };
            sink.push(
                f,
                Some(i),
                Code::MissingSubflow,
                format!("/steps/{i}/flow"),
                format!(
                    "flow \"{called}\" is not in the set; pass it in subflows or correct the flow id"
                ),
            );
        }
    }
    components
}

/// Steps control passes through without waiting for the user: not `buttons`, `list`, `ask`,
/// `end` or `handoff`, and for `subflow` steps only when the called flow can finish without
/// waiting.
fn passes(flow: &Flow<'_>, step: usize, finishes: &[bool]) -> bool {
    match &flow.steps[step].body {
        Body::Menu(_) | Body::Ask(_) | Body::Closing { .. } => false,
        Body::Subflow { callee, .. } => callee.is_some_and(|c| finishes[c]),
        _ => true,
    }
}

/// True when some path from the flow's entry reaches an `end` step or falls off the end of
/// `steps` without waiting for the user.
fn can_finish_without_waiting(set: &FlowSet<'_>, index: usize, finishes: &[bool]) -> bool {
    let flow = &set.flows[index];
    if flow.steps.is_empty() {
        return true;
    }
    let mut seen = vec![false; flow.steps.len()];
    let mut stack = vec![0usize];
    seen[0] = true;
    while let Some(step) = stack.pop() {
        if flow.steps[step].kind == StepKind::End {
            return true;
        }
        if !passes(flow, step, finishes) {
            continue;
        }
        for edge in flow.edges(step) {
            match edge.to {
                Target::End => return true,
                Target::Step(next) => {
                    if !seen[next] {
                        seen[next] = true;
                        stack.push(next);
                    }
                }
            }
        }
    }
    false
}

fn sends(flow: &Flow<'_>, step: usize) -> bool {
    match &flow.steps[step].body {
        Body::Message { .. }
        | Body::Media { .. }
        | Body::Template { .. }
        | Body::Location { .. } => true,
        Body::Closing { text, .. } => text.is_some(),
        _ => false,
    }
}

fn quoted_list(flow: &Flow<'_>, steps: &[usize]) -> String {
    let mut names: Vec<String> = steps
        .iter()
        .take(5)
        .map(|&s| format!("\"{}\"", flow.steps[s].id))
        .collect();
    if steps.len() > 5 {
        names.push("…".to_owned());
    }
    names.join(", ")
}

/// `unreachable-step`, `implicit-end`, `infinite-loop` and `message-burst`.
fn control_flow(sink: &mut Sink<'_, '_>, index: usize, flow: &Flow<'_>, finishes: &[bool]) {
    let count = flow.steps.len();
    if count == 0 {
        return;
    }
    let succ = successors(flow);
    // Reachability: one iterative DFS from the entry.
    let mut reached = vec![false; count];
    let mut stack = vec![0usize];
    reached[0] = true;
    while let Some(step) = stack.pop() {
        for &next in succ.successors(step) {
            if !reached[next] {
                reached[next] = true;
                stack.push(next);
            }
        }
    }
    let entry = flow.steps[0].id;
    for (i, step) in flow.steps.iter().enumerate() {
        if !reached[i] {
            sink.push(
                index,
                Some(i),
                Code::UnreachableStep,
                format!("/steps/{i}"),
                format!(
                    "no path from the entry step \"{entry}\" reaches step \"{}\"; point a next, button, row or case at it, or remove it",
                    step.id
                ),
            );
        } else if flow.edges(i).iter().any(|e| e.to == Target::End) {
            sink.push(
                index,
                Some(i),
                Code::ImplicitEnd,
                format!("/steps/{i}"),
                format!(
                    "a path through step \"{}\" falls off the end of steps; add an end (or handoff) step so the flow ends on purpose",
                    step.id
                ),
            );
            if let Some((_, last)) = sink.out.last_mut() {
                last.fix = implicit_end_fix(flow);
            }
        }
    }
    // The steps control flows through without waiting, plus the terminals (for bursts).
    let flowing: Vec<bool> = (0..count)
        .map(|i| passes(flow, i, finishes) || matches!(flow.steps[i].body, Body::Closing { .. }))
        .collect();
    let mut quiet = Adjacency::with_capacity(count, 2 * count);
    for i in 0..count {
        let successors = if flowing[i] { succ.successors(i) } else { &[] };
        quiet.push_node(successors.iter().copied().filter(|&n| flowing[n]));
    }
    let components = scc::components(&quiet);
    let mut in_loop = vec![false; count];
    for component in components.iter() {
        if scc::is_cyclic(component, &quiet) {
            for &s in component {
                in_loop[s] = true;
            }
            let first = component[0];
            // The way back: the first step (in document order) with an edge of the loop to a
            // step at or before it (the component is sorted).
            let back = component.iter().find_map(|&s| {
                quiet
                    .successors(s)
                    .iter()
                    .find(|&&t| t <= s && component.binary_search(&t).is_ok())
                    .map(|&t| (s, t))
            });
            let leave = back
                .and_then(|(from, to)| way_back(flow, from, to))
                .unwrap_or_else(|| {
                    "point a next, case or default of the loop at a step outside it, such as an end"
                        .to_owned()
                });
            sink.push(
                index,
                Some(first),
                Code::InfiniteLoop,
                format!("/steps/{first}"),
                format!(
                    "{}, so the bot would spin; to give it an exit, {leave}; to keep the loop, add an ask, buttons or list step to it, so the bot waits for the user each time round",
                    match component {
                        [only] => format!(
                            "step \"{}\" leads back to itself without waiting for the user",
                            flow.steps[*only].id
                        ),
                        _ => format!(
                            "steps {} form a loop in which no step waits for the user",
                            quoted_list(flow, component)
                        ),
                    }
                ),
            );
        }
    }
    // Bursts: the longest run of sending steps ending at each step, in topological order of
    // the quiet graph (loops count as a reset: they are reported as infinite loops).
    let mut incoming = vec![0usize; count];
    for component in components.iter().rev() {
        for &s in component {
            if !flowing[s] || in_loop[s] {
                continue;
            }
            let run = incoming[s] + usize::from(sends(flow, s));
            if run == BURST_LIMIT + 1 && sends(flow, s) {
                sink.push(
                    index,
                    Some(s),
                    Code::MessageBurst,
                    format!("/steps/{s}"),
                    format!(
                        "step \"{}\" is the {} message sent in a row without waiting for the user; merge some messages or put a buttons, list or ask step between them",
                        flow.steps[s].id,
                        ordinal(BURST_LIMIT + 1)
                    ),
                );
            }
            for &n in quiet.successors(s) {
                incoming[n] = incoming[n].max(run);
            }
        }
    }
}

/// How to break a loop at its way back from step `from` to step `to`: the field that leads
/// back, with its pointer, to point elsewhere.
fn way_back(flow: &Flow<'_>, from: usize, to: usize) -> Option<String> {
    let edge = flow
        .edges(from)
        .iter()
        .find(|edge| edge.to == Target::Step(to))?;
    let (field, pointer) = match edge.kind {
        EdgeKind::Case => (
            format!("the \"next\" of case {}", edge.index),
            format!("/steps/{from}/cases/{}/next", edge.index),
        ),
        EdgeKind::Default => (
            "the \"default\"".to_owned(),
            format!("/steps/{from}/default"),
        ),
        _ => ("the \"next\"".to_owned(), format!("/steps/{from}/next")),
    };
    Some(format!(
        "point {field} of step \"{}\" ({pointer}, back to \"{}\") at a step outside the loop, such as an end",
        flow.steps[from].id, flow.steps[to].id
    ))
}

/// An `end` step appended to `steps` (with a free id), so no path falls off: unsafe, since a
/// path meant to continue somewhere now ends.
fn implicit_end_fix(flow: &Flow<'_>) -> Option<botmesh_flow_schema::Fix> {
    let last = flow.steps.len().checked_sub(1)?;
    let taken = |id: &str| flow.steps.iter().any(|s| s.id == id);
    let id = if taken("end") {
        (2..).map(|n| format!("end_{n}")).find(|id| !taken(id))?
    } else {
        "end".to_owned()
    };
    Some(botmesh_flow_schema::Fix::risky(
        format!("add an end step \"{id}\" after the last step, so paths that fall off end there"),
        vec![
            serde_json::json!({ "op": "test", "path": format!("/steps/{last}/id"), "value": flow.steps[last].id }),
            serde_json::json!({ "op": "add", "path": "/steps/-", "value": { "id": id, "kind": "end" } }),
        ],
    ))
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// `duplicate-title` and `duplicate-case`.
fn options_and_cases<'a>(sink: &mut FlowSink<'_, '_, 'a>) {
    let flow = sink.flow;
    // The titles seen so far in the step, with where each is; reused from step to step.
    let mut titles: Vec<(Cow<'a, str>, OptionAt)> = Vec::new();
    for (i, step) in flow.steps.iter().enumerate() {
        titles.clear();
        let mut check_title = |sink: &mut FlowSink<'_, '_, 'a>, title: &'a str, at: OptionAt| {
            // Titles compare trimmed and lower-cased. An ASCII title is kept as it is and
            // compared ignoring ASCII case; any other is lower-cased in full. Both sides are
            // then lower-case or ASCII, so `eq_ignore_ascii_case` is exactly the equality of
            // the lower-cased titles, without an allocation per ASCII title.
            let trimmed = title.trim();
            let folded = if trimmed.is_ascii() {
                Cow::Borrowed(trimmed)
            } else {
                Cow::Owned(trimmed.to_lowercase())
            };
            if let Some((_, first)) = titles.iter().find(|(t, _)| t.eq_ignore_ascii_case(&folded)) {
                let (what, first) = (at.what(), first.path(i));
                let message = format!(
                    "{what} title {title:?} repeats the title at {first} (ignoring case); give each {what} a distinct title"
                );
                sink.push(Some(i), Code::DuplicateTitle, at.path(i), message);
            } else {
                titles.push((folded, at));
            }
        };
        match &step.body {
            Body::Menu(menu) if step.kind == StepKind::Buttons => {
                for (j, button) in menu.items.iter().enumerate() {
                    check_title(sink, button.title, OptionAt::Button(j));
                }
            }
            Body::Menu(menu) => {
                for (s, section) in menu.sections.iter().enumerate() {
                    let rows = menu.items.get(section.rows.clone()).unwrap_or(&[]);
                    for (r, row) in rows.iter().enumerate() {
                        check_title(sink, row.title, OptionAt::Row(s, r));
                    }
                }
            }
            Body::Branch { cases, .. } => {
                for (j, case) in cases.iter().enumerate() {
                    let earlier = cases[..j].iter().position(|c| c.when.same(&case.when));
                    if let Some(k) = earlier {
                        sink.push(
                            Some(i),
                            Code::DuplicateCase,
                            format!("/steps/{i}/cases/{j}/when"),
                            format!(
                                "this case repeats the condition of /steps/{i}/cases/{k}/when, so it can never be taken; change its condition or remove it"
                            ),
                        );
                    }
                }
            }
            _ => {}
        }
    }
}

/// Where a button or row is in its step; its pointer is built only for a diagnostic.
#[derive(Debug, Clone, Copy)]
enum OptionAt {
    /// `buttons/N`.
    Button(usize),
    /// `sections/S/rows/R`.
    Row(usize, usize),
}

impl OptionAt {
    fn what(self) -> &'static str {
        match self {
            Self::Button(_) => "button",
            Self::Row(..) => "row",
        }
    }

    /// The pointer of the option's title in step `step`.
    fn path(self, step: usize) -> String {
        match self {
            Self::Button(j) => format!("/steps/{step}/buttons/{j}/title"),
            Self::Row(s, r) => format!("/steps/{step}/sections/{s}/rows/{r}/title"),
        }
    }
}

/// `undefined-variable` and `unused-variable`, over the whole set.
fn variables(sink: &mut Sink<'_, '_>, uses: &[Uses<'_>]) {
    let set = sink.set;
    let mut defined: FxHashSet<&str> = BUILT_IN_VARIABLES.into_iter().collect();
    for flow in &set.flows {
        defined.extend(flow.declarations.iter().map(|d| d.name));
    }
    let mut read: FxHashSet<&str> = FxHashSet::default();
    for flow_uses in uses {
        defined.extend(flow_uses.write_names.iter().copied());
        read.extend(flow_uses.read_names.iter().copied());
    }
    // Find the few names that need a diagnostic from each flow's unique names; only then
    // look at every use (hashing every use's name again costs a cache miss each on a large
    // set, and most sets have no such name).
    let mut undefined: FxHashSet<&str> = FxHashSet::default();
    let mut unused: FxHashSet<&str> = FxHashSet::default();
    for flow_uses in uses {
        undefined.extend(
            flow_uses
                .read_names
                .iter()
                .filter(|n| !defined.contains(*n)),
        );
        unused.extend(flow_uses.write_names.iter().filter(|n| !read.contains(*n)));
    }
    if undefined.is_empty() && unused.is_empty() {
        return;
    }
    // The names a misspelt one may have meant: the set's own, sorted, then the built-ins.
    let mut known: Vec<&str> = defined
        .iter()
        .copied()
        .filter(|name| !BUILT_IN_VARIABLES.contains(name))
        .collect();
    known.sort_unstable();
    known.extend(BUILT_IN_VARIABLES);
    let mut nearest: FxHashMap<&str, Option<&str>> = FxHashMap::default();
    let mut reported_unused: FxHashSet<&str> = FxHashSet::default();
    for (index, flow_uses) in uses.iter().enumerate() {
        let flow = &set.flows[index];
        for u in &flow_uses.reads {
            if !undefined.contains(u.name) {
                continue;
            }
            let near = *nearest
                .entry(u.name)
                .or_insert_with(|| nearest_name(u.name, known.iter().copied()));
            let message = match near {
                Some(near) => {
                    let built_in = if BUILT_IN_VARIABLES.contains(&near) {
                        "the built-in "
                    } else {
                        ""
                    };
                    format!(
                        "variable \"{}\" is read but never written, declared or built in; did you mean {built_in}\"{near}\"? If not, declare it under variables or write it before this step",
                        u.name
                    )
                }
                None => format!(
                    "variable \"{}\" is read but never written, declared or built in; declare it under variables, write it before this step, or fix the name",
                    u.name
                ),
            };
            sink.push(
                index,
                Some(u.step),
                Code::UndefinedVariable,
                u.pointer(flow),
                message,
            );
        }
        for u in &flow_uses.writes {
            if !unused.contains(u.name) || !reported_unused.insert(u.name) {
                continue;
            }
            sink.push(
                index,
                Some(u.step),
                Code::UnusedVariable,
                u.pointer(flow),
                format!(
                    "variable \"{}\" is written but never read in any flow of the set; remove the write or use the value",
                    u.name
                ),
            );
        }
    }
}

/// `duplicate-keyword`: the same keyword (ignoring case and surrounding spaces) triggers two
/// flows of the set.
fn keywords(sink: &mut Sink<'_, '_>) {
    let set = sink.set;
    let mut first: FxHashMap<String, usize> = FxHashMap::default();
    for (index, flow) in set.flows.iter().enumerate() {
        let list = flow.trigger.as_ref().map_or(&[][..], |t| &t.keywords);
        for (k, keyword) in list.iter().enumerate() {
            let keyword = keyword.text;
            let folded = keyword.trim().to_lowercase();
            match first.get(&folded) {
                Some(&owner) if owner != index => {
                    let message = format!(
                        "keyword {keyword:?} also triggers flow \"{}\"; keep it in one flow only",
                        set.flows[owner].id
                    );
                    sink.push(
                        index,
                        None,
                        Code::DuplicateKeyword,
                        format!("/trigger/keywords/{k}"),
                        message,
                    );
                }
                Some(_) => {}
                None => {
                    first.insert(folded, index);
                }
            }
        }
    }
}

/// The first two tokens of a path key as one number (the top-level key's rank, then the
/// index under it, `/steps/N`), ordered as the key is; a path under an unknown top-level key
/// gets the largest, so the whole key orders those.
fn key_prefix(key: &PathKey<'_>) -> u64 {
    let known = botmesh_flow_schema::TOP_LEVEL_KEYS.len();
    match key.as_slice() {
        [(rank, ..), rest @ ..] if *rank < known => {
            let index = rest
                .first()
                .map_or(0, |(_, n, _)| (*n).min(u64::from(u32::MAX)));
            (*rank as u64) << 32 | index
        }
        _ => u64::MAX,
    }
}

/// The document-order key of a JSON Pointer, one `(rank, index, key)` per token.
type PathKey<'p> = Vec<(usize, u64, &'p str)>;

/// The document-order key of a JSON Pointer: top-level keys in the spec's order, array indexes
/// numerically, other keys alphabetically.
fn path_key(path: &str) -> PathKey<'_> {
    path.split('/')
        .skip(1)
        .enumerate()
        .map(|(depth, token)| {
            let rank = if depth == 0 {
                botmesh_flow_schema::TOP_LEVEL_KEYS
                    .iter()
                    .position(|k| escape_token(k) == token)
                    .unwrap_or(botmesh_flow_schema::TOP_LEVEL_KEYS.len())
            } else {
                0
            };
            match token.parse::<u64>() {
                Ok(n) => (rank, n, ""),
                Err(_) => (rank, u64::MAX, token),
            }
        })
        .collect()
}
