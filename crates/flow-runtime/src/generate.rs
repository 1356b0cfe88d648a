//! Generated suites: a breadth-first search over the choices a conversation offers, then a
//! greedy pick of the runs that add new graph edges, written as a test file whose cases pass
//! now (their expectations are what the bot does on that path).
//!
//! The choices: at a `buttons` or `list` step, a tap on each item; at an `ask`, the replies of
//! [`ask_replies`] (one valid and one invalid of its input kind, and the values on each side of
//! every number and string constant the set's conditions compare with); for handler results,
//! one search per candidate value (every constant of the conditions, and `null`), all handlers
//! returning it. Each reply goes on from a copy of the conversation so far. A waiting
//! conversation is explored further when its run took an edge no earlier run took, when it is
//! the first to wait at its step with its run of replies there, or within `CREDIT` levels of
//! a run that took a new edge (a choice whose effect shows a few waits later).

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashSet, VecDeque};

use serde_json::{Value, json};

use crate::conversation::{Conversation, EdgeKind, OutcomeKind, Transition};
use crate::input::{Mock, Reply, Setup, Start};
use crate::set::FlowSet;
use crate::value::{Scalar, js_number};
use botmesh_flow_schema::program::{Body, Cond, Op};

/// The most conversations one generation runs (then it stops searching and writes what it
/// found; the uncovered edges say so).
pub const MAX_GENERATED_RUNS: usize = 20_000;

/// Levels explored below a run that took a new edge even where nothing new happens.
const CREDIT: usize = 3;

/// The most replies of one generated case.
pub const MAX_GENERATED_DEPTH: usize = 200;

/// One run the search kept.
#[derive(Debug, Clone)]
struct Found {
    mock: Option<Scalar>,
    replies: Vec<Reply>,
    edges: HashSet<(usize, usize, &'static str, usize)>,
}

fn edge_key(t: &Transition) -> (usize, usize, &'static str, usize) {
    let position = match t.kind {
        EdgeKind::Button(i) | EdgeKind::Row(i) | EdgeKind::Case(i) => i,
        _ => 0,
    };
    (t.flow, t.from, t.kind.as_str(), position)
}

fn constants(cond: &Cond<'_>, out: &mut Vec<Scalar>) {
    cond.for_each_leaf(&mut |leaf| match &leaf.op {
        Op::Eq(v) | Op::Ne(v) => out.push(Scalar::of_literal(*v)),
        Op::Lt(n) | Op::Lte(n) | Op::Gt(n) | Op::Gte(n) => {
            out.extend([n - 1.0, *n, n + 1.0].map(Scalar::Number));
        }
        Op::Contains(_, s) | Op::StartsWith(_, s) => out.push(Scalar::String(s.clone())),
        Op::In(values) => out.extend(values.iter().map(|v| Scalar::of_literal(*v))),
        Op::Matches(_) | Op::Exists => {}
    });
}

/// Every constant the set's conditions compare with (numbers with their neighbours), in
/// set order, without repeats.
fn condition_constants(set: &FlowSet<'_>) -> Vec<Scalar> {
    let mut out = Vec::new();
    for flow in set.flows() {
        for step in &flow.steps {
            if let Body::Branch { cases, .. } = &step.body {
                for case in cases {
                    constants(&case.when, &mut out);
                }
            }
        }
    }
    let mut unique: Vec<Scalar> = Vec::new();
    for value in out {
        if !unique.contains(&value) {
            unique.push(value);
        }
    }
    unique
}

/// The replies tried at an `ask` of this input kind: a valid one, an invalid one (the empty
/// text, which no input kind accepts), and each constant of the conditions as text.
pub fn ask_replies(input: botmesh_flow_schema::InputKind, constants: &[String]) -> Vec<String> {
    use botmesh_flow_schema::InputKind as K;
    let mut out: Vec<String> = match input {
        K::Text => vec!["hello".into()],
        K::Number => vec!["3".into()],
        K::Email => vec!["ana@example.com".into()],
        K::Phone => vec!["+15551234567".into()],
        K::Date => vec!["2026-01-15".into()],
        K::Yesno => vec!["yes".into(), "no".into()],
    };
    out.push(String::new());
    for constant in constants {
        if !out.contains(constant) {
            out.push(constant.clone());
        }
    }
    out
}

fn scalar_text(value: &Scalar) -> Option<String> {
    match value {
        Scalar::String(s) => Some(s.clone()),
        Scalar::Number(n) => Some(js_number(*n)),
        Scalar::Bool(b) => Some(if *b { "yes" } else { "no" }.to_owned()),
        Scalar::Null => None,
    }
}

fn setup(set: &FlowSet<'_>, mock: Option<&Scalar>) -> Setup {
    let mut setup = Setup::default();
    if let Some(value) = mock {
        for flow in set.flows() {
            for step in &flow.steps {
                if let Body::Action { handler, .. } = &step.body {
                    setup
                        .handlers
                        .insert((*handler).to_owned(), Mock::Returns(value.clone()));
                }
            }
        }
    }
    setup
}

#[cfg(test)]
fn replay<'s>(set: &'s FlowSet<'s>, setup: &Setup, replies: &[Reply]) -> Conversation<'s> {
    let mut conversation = Conversation::start(set, &Start::Default, setup);
    for reply in replies {
        conversation.reply(reply);
    }
    conversation
}

/// The choices at the step the conversation waits at.
fn choices(set: &FlowSet<'_>, flow: usize, step: usize, texts: &[String]) -> Vec<Reply> {
    match &set.step(flow, step).body {
        Body::Menu(menu) => menu
            .items
            .iter()
            .map(|item| Reply::Tap(item.id.to_owned()))
            .collect(),
        Body::Ask(ask) => ask_replies(ask.input, texts)
            .into_iter()
            .map(Reply::Text)
            .collect(),
        _ => Vec::new(),
    }
}

/// What a generation found: the test file and what it could not cover.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The test file's JSON (`{ "tests": [...] }`), ready to write.
    pub tests: Value,
    /// Each edge no searched conversation took: `flow: label — reason`.
    pub uncovered: Vec<String>,
    /// Conversations run by the search.
    pub runs: usize,
}

/// Searches the set's choices from its entry flow and writes a small suite: each case adds
/// at least one edge no earlier case took. `documents` are the set's, in its order (for the
/// edge labels of the uncovered list).
pub fn generate(set: &FlowSet<'_>, documents: &[&Value]) -> Generated {
    let constants = condition_constants(set);
    let texts: Vec<String> = constants.iter().filter_map(scalar_text).collect();
    let mut mocks: Vec<Option<Scalar>> = vec![None];
    let has_handlers = set.flows().iter().any(|f| {
        f.steps
            .iter()
            .any(|s| matches!(s.body, Body::Action { .. }))
    });
    if has_handlers {
        mocks.extend(constants.iter().cloned().map(Some));
    }
    let mut found: Vec<Found> = Vec::new();
    let mut runs = 0;
    let mut taken: HashSet<(usize, usize, &'static str, usize)> = HashSet::new();
    for mock in &mocks {
        let setup = setup(set, mock.as_ref());
        let mut seen: HashSet<(usize, usize, usize)> = HashSet::new();
        // (replies, replies in a row at the same step, credit): a run that takes a new edge
        // gets CREDIT further levels explored below it even where nothing new happens (a
        // choice whose effect shows a few waits later).
        let start = Conversation::start(set, &Start::Default, &setup);
        let mut queue: VecDeque<(Conversation<'_>, Vec<Reply>, usize, usize)> =
            VecDeque::from([(start, Vec::new(), 0, CREDIT)]);
        while let Some((conversation, replies, streak, credit)) = queue.pop_front() {
            if runs >= MAX_GENERATED_RUNS {
                break;
            }
            runs += 1;
            let edges: HashSet<_> = conversation.transitions().iter().map(edge_key).collect();
            let fresh = edges.iter().any(|e| !taken.contains(e));
            taken.extend(edges.iter().copied());
            let outcome = conversation.outcome();
            found.push(Found {
                mock: mock.clone(),
                replies: replies.clone(),
                edges,
            });
            if outcome.kind != OutcomeKind::Waiting || replies.len() >= MAX_GENERATED_DEPTH {
                continue;
            }
            let Some((flow, step)) = outcome.at else {
                continue;
            };
            let new_state = seen.insert((flow, step, streak));
            let credit = if fresh {
                CREDIT
            } else {
                credit.saturating_sub(1)
            };
            if !(fresh || new_state || credit > 0) {
                continue;
            }
            for reply in choices(set, flow, step, &texts) {
                let mut next = replies.clone();
                next.push(reply.clone());
                // Go on from a copy of the conversation (the simulator is deterministic, so
                // this is the run of `next` from the start).
                let mut child = conversation.clone();
                child.reply(&reply);
                // A reply that leaves the bot waiting at the same step (a retry, a menu
                // shown again) extends the run of replies there.
                let same = child.outcome().at == Some((flow, step));
                let streak = if same { streak + 1 } else { 0 };
                if streak <= botmesh_flow_schema::MAX_RETRIES as usize + 1 {
                    queue.push_back((child, next, streak, credit));
                }
            }
        }
    }
    // Greedy cover, lazily: the run adding the most new edges first (fewer replies, then the
    // earlier run, on a tie); a gain only shrinks as edges get covered, so a popped run whose
    // gain is still the largest is the greedy pick.
    let mut covered: HashSet<(usize, usize, &'static str, usize)> = HashSet::new();
    let mut chosen: Vec<Found> = Vec::new();
    let mut heap: BinaryHeap<(usize, Reverse<usize>, Reverse<usize>)> = found
        .iter()
        .enumerate()
        .map(|(i, f)| (f.edges.len(), Reverse(f.replies.len()), Reverse(i)))
        .collect();
    while let Some((gain, length, Reverse(index))) = heap.pop() {
        if gain == 0 {
            break;
        }
        let now = found[index].edges.difference(&covered).count();
        if now < gain {
            heap.push((now, length, Reverse(index)));
            continue;
        }
        covered.extend(found[index].edges.iter().copied());
        chosen.push(found[index].clone());
    }
    let graph = botmesh_flow_analyzer::describe(documents);
    let mut names: BTreeMap<String, usize> = BTreeMap::new();
    let mut earlier: HashSet<(usize, usize, &'static str, usize)> = HashSet::new();
    let cases: Vec<Value> = chosen
        .iter()
        .map(|run| {
            let new: Vec<_> = run.edges.difference(&earlier).copied().collect();
            earlier.extend(run.edges.iter().copied());
            let name = case_name(set, &graph, &new, &mut names);
            write_case(set, run, name)
        })
        .collect();
    let uncovered = uncovered(set, &graph, &covered);
    Generated {
        tests: json!({ "tests": cases }),
        uncovered,
        runs,
    }
}

fn step_id<'s>(set: &'s FlowSet<'_>, flow: usize, step: usize) -> &'s str {
    set.step(flow, step).id
}

fn graph_label(
    set: &FlowSet<'_>,
    graph: &botmesh_flow_analyzer::Graph<'_>,
    key: &(usize, usize, &'static str, usize),
) -> String {
    let (flow, from, kind, position) = *key;
    let from_id = step_id(set, flow, from);
    let edge = graph.flows.get(flow).and_then(|f| {
        f.edges
            .iter()
            .filter(|e| e.from == from_id && e.kind.as_str() == kind)
            .nth(position)
    });
    match edge {
        Some(edge) => crate::coverage::label(edge),
        None => format!("{from_id} → {kind}"),
    }
}

fn case_name(
    set: &FlowSet<'_>,
    graph: &botmesh_flow_analyzer::Graph<'_>,
    new: &[(usize, usize, &'static str, usize)],
    names: &mut BTreeMap<String, usize>,
) -> String {
    // The choices are what says what a case covers: buttons, rows, cases, defaults, onFail.
    let mut keys: Vec<_> = new
        .iter()
        .filter(|k| !matches!(k.2, "next" | "call" | "return"))
        .copied()
        .collect();
    if keys.is_empty() {
        keys = new.to_vec();
    }
    keys.sort();
    let mut labels: Vec<String> = keys
        .iter()
        .take(3)
        .map(|k| graph_label(set, graph, k))
        .collect();
    if keys.len() > 3 {
        labels.push(format!("{} more", keys.len() - 3));
    }
    let base = if labels.is_empty() {
        "the start".to_owned()
    } else {
        format!("covers {}", labels.join(", "))
    };
    let count = names.entry(base.clone()).or_insert(0);
    *count += 1;
    if *count == 1 {
        base
    } else {
        format!("{base} ({})", count)
    }
}

fn write_case(set: &FlowSet<'_>, run: &Found, name: String) -> Value {
    let setup = setup(set, run.mock.as_ref());
    let mut conversation = Conversation::start(set, &Start::Default, &setup);
    let mut turns = Vec::new();
    let mut from = 0;
    let bot_turns = |conversation: &Conversation<'_>, from: &mut usize, turns: &mut Vec<Value>| {
        let entries = conversation.transcript_json(*from);
        *from = conversation.transcript_len();
        // The last message of each stretch: enough to pin the path, order kept.
        if let Some(entry) = entries.iter().rev().find(|e| e.get("bot").is_some()) {
            let text = crate::testing::message_text(&entry["bot"]);
            let mut check = serde_json::Map::new();
            check.insert("step".into(), entry["step"].clone());
            check.insert("text".into(), Value::String(text));
            turns.push(json!({ "bot": check }));
        }
    };
    bot_turns(&conversation, &mut from, &mut turns);
    for reply in &run.replies {
        turns.push(match reply {
            Reply::Text(text) => json!({ "user": text }),
            Reply::Tap(id) => json!({ "user": { "tap": id } }),
        });
        conversation.reply(reply);
        bot_turns(&conversation, &mut from, &mut turns);
    }
    let outcome = conversation.outcome();
    let mut expect = serde_json::Map::new();
    expect.insert("outcome".into(), outcome.kind.as_str().into());
    if let Some((flow, step)) = outcome.at {
        expect.insert("step".into(), step_id(set, flow, step).into());
    }
    let mut case = serde_json::Map::new();
    case.insert("name".into(), name.into());
    if let Some(value) = &run.mock {
        let handlers: serde_json::Map<String, Value> = setup
            .handlers
            .keys()
            .map(|h| (h.clone(), json!({ "returns": value.to_json() })))
            .collect();
        case.insert("handlers".into(), Value::Object(handlers));
    }
    case.insert("turns".into(), Value::Array(turns));
    case.insert("expect".into(), Value::Object(expect));
    Value::Object(case)
}

fn uncovered(
    set: &FlowSet<'_>,
    graph: &botmesh_flow_analyzer::Graph<'_>,
    covered: &HashSet<(usize, usize, &'static str, usize)>,
) -> Vec<String> {
    let mut reached: HashSet<(usize, usize)> = HashSet::new();
    for key in covered {
        reached.insert((key.0, key.1));
    }
    let mut out = Vec::new();
    for (f, flow) in graph.flows.iter().enumerate() {
        let mut seen: Vec<(&str, &str)> = Vec::new();
        for edge in &flow.edges {
            let kind = edge.kind.as_str();
            let position = seen.iter().filter(|s| **s == (edge.from, kind)).count();
            seen.push((edge.from, kind));
            let Some(from) = set.flows()[f].steps.iter().position(|s| s.id == edge.from) else {
                continue;
            };
            if covered.contains(&(f, from, kind, position)) {
                continue;
            }
            let executed = reached.contains(&(f, from))
                || covered.iter().any(|k| {
                    // A step is executed when an edge reached it.
                    k.0 == f && graph_target(set, graph, k).as_deref() == Some(edge.from)
                });
            let reason = if f == 0 && from == 0 || executed {
                "no reply, tap or handler result the search tried takes it (a case shadowed by an earlier one, or a condition none of them satisfies)"
            } else {
                "its step is never reached by the searched conversations"
            };
            out.push(format!(
                "{}: {} — {reason}",
                flow.id,
                crate::coverage::label(edge)
            ));
        }
    }
    out
}

fn graph_target(
    set: &FlowSet<'_>,
    graph: &botmesh_flow_analyzer::Graph<'_>,
    key: &(usize, usize, &'static str, usize),
) -> Option<String> {
    let (flow, from, kind, position) = *key;
    let from_id = step_id(set, flow, from);
    graph.flows.get(flow).and_then(|f| {
        f.edges
            .iter()
            .filter(|e| e.from == from_id && e.kind.as_str() == kind)
            .nth(position)
            .map(|e| e.to.to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{TestFile, run_case};

    fn example(name: &str) -> Value {
        let path = format!(
            "{}/../../examples/flows/{name}.json",
            env!("CARGO_MANIFEST_DIR")
        );
        serde_json::from_str(&std::fs::read_to_string(path).expect("example")).expect("JSON")
    }

    /// Generates, then runs the suite: every case passes, and coverage of the suite's own
    /// runs is what the search found.
    fn check(documents: &[&Value]) -> (Generated, crate::Coverage) {
        let set = FlowSet::new(documents).expect("valid");
        let generated = generate(&set, documents);
        let file = TestFile::from_json(&generated.tests).expect("a well-formed test file");
        let runs: Vec<_> = file
            .tests
            .iter()
            .enumerate()
            .map(|(i, case)| run_case(&set, case, i))
            .collect();
        for run in &runs {
            assert!(run.failure.is_none(), "{}: {:?}", run.name, run.failure);
        }
        let coverage = crate::coverage(
            documents,
            runs.iter()
                .map(|r| (r.transitions.as_slice(), r.path.as_slice())),
        );
        (generated, coverage)
    }

    #[test]
    fn the_example_flows_get_suites_that_pass_and_cover_every_edge() {
        let menu = example("support-menu");
        let order = example("order-status");
        let feedback = example("feedback");
        for documents in [vec![&menu, &order], vec![&order], vec![&feedback]] {
            let (generated, coverage) = check(&documents);
            assert!(
                coverage.all_edges(),
                "{:#?} {:?}",
                coverage,
                generated.uncovered
            );
            assert!(generated.uncovered.is_empty(), "{:?}", generated.uncovered);
        }
    }

    #[test]
    fn a_case_no_reply_satisfies_is_listed_with_its_reason() {
        let document = json!({ "version": 2, "id": "x", "steps": [
            { "id": "name", "kind": "ask", "text": "Name?", "save": "name" },
            { "id": "route", "kind": "branch", "cases": [
                { "when": { "var": "name", "op": "matches", "value": "^Z[0-9]{3}$" }, "next": "z" }] },
            { "id": "plain", "kind": "end", "text": "Hi." },
            { "id": "z", "kind": "end", "text": "Zed." }
        ]});
        let (generated, coverage) = check(&[&document]);
        assert!(!coverage.all_edges());
        assert_eq!(generated.uncovered.len(), 1, "{:?}", generated.uncovered);
        assert!(
            generated.uncovered[0].starts_with("x: route → case "),
            "{:?}",
            generated.uncovered
        );
        assert!(
            generated.uncovered[0]
                .contains("no reply, tap or handler result the search tried takes it")
        );
    }

    /// Every edge (by key) that conversations of at most `depth` replies over the same choices
    /// take, without merging any two prefixes: what the generator must cover.
    fn exhaustive(set: &FlowSet<'_>, depth: usize) -> HashSet<(usize, usize, &'static str, usize)> {
        let constants = condition_constants(set);
        let texts: Vec<String> = constants.iter().filter_map(scalar_text).collect();
        let mut mocks: Vec<Option<Scalar>> = vec![None];
        mocks.extend(constants.iter().cloned().map(Some));
        let mut edges = HashSet::new();
        for mock in &mocks {
            let setup = setup(set, mock.as_ref());
            let mut stack: Vec<Vec<Reply>> = vec![Vec::new()];
            let mut budget = 4_000;
            while let Some(replies) = stack.pop() {
                budget -= 1;
                if budget == 0 {
                    break;
                }
                let conversation = replay(set, &setup, &replies);
                edges.extend(conversation.transitions().iter().map(edge_key));
                if replies.len() >= depth {
                    continue;
                }
                if let (OutcomeKind::Waiting, Some((flow, step))) =
                    (conversation.outcome().kind, conversation.outcome().at)
                {
                    for reply in choices(set, flow, step, &texts) {
                        let mut next = replies.clone();
                        next.push(reply);
                        stack.push(next);
                    }
                }
            }
        }
        edges
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 1000, failure_persistence: None, rng_seed: proptest::test_runner::RngSeed::Fixed(27), ..proptest::prelude::ProptestConfig::default() })]

        /// On 1,000 generated flow sets: the generated suite is a well-formed test file whose
        /// cases all pass, and it takes every edge an exhaustive search of up to four replies
        /// over the same choices takes.
        #[test]
        fn generated_suites_pass_and_miss_no_edge_an_exhaustive_search_reaches(documents in crate::tests::flow_set()) {
            let refs: Vec<&Value> = documents.iter().collect();
            let Ok(set) = FlowSet::new(&refs) else {
                return Err(proptest::test_runner::TestCaseError::reject("invalid"));
            };
            let generated = generate(&set, &refs);
            let file = TestFile::from_json(&generated.tests).map_err(|e| proptest::test_runner::TestCaseError::fail(format!("{e:?}")))?;
            let mut covered = HashSet::new();
            for (i, case) in file.tests.iter().enumerate() {
                let run = run_case(&set, case, i);
                proptest::prop_assert!(run.failure.is_none(), "{}: {:?}", run.name, run.failure);
                covered.extend(run.transitions.iter().map(edge_key));
            }
            let reachable = exhaustive(&set, 4);
            let missed: Vec<_> = reachable.difference(&covered).collect();
            proptest::prop_assert!(missed.is_empty(), "missed {:?} of {:?}", missed, documents);
        }
    }
}
