//! Generated suites (runtime §9): a search over the choices a conversation offers, then a
//! greedy pick of the runs that add new graph edges, written as a strict test file whose cases
//! pass now (their expectations are what the bot does on that path).
//!
//! The search runs in two phases, both on the runtime itself (every run is a [`Conversation`];
//! nothing here evaluates a condition or a pattern a second way):
//!
//! 1. **Breadth first** from each start: the document's own flow, every other flow a trigger
//!    starts (through a first message its keywords pick) and every flow nothing starts or
//!    calls (through `start.flow`); for handler results, once with no mocks and once with
//!    every handler returning each constant of the set's conditions. The choices: at a
//!    `buttons` or `list` step, a tap on each item; at an `ask`, the replies of
//!    [`ask_replies`] (a valid one of its input kind, the empty reply no input accepts, and the
//!    constants of the conditions and the witnesses of their `matches` patterns as text),
//!    or for an `ask` with a `pattern`, a witness of the pattern ([`Pattern::witness`]: the
//!    shortest text the runtime's own matcher accepts), each constant it accepts or else a
//!    witness that starts with it, and the empty reply. Each reply goes on from a copy of the
//!    conversation so far. A waiting conversation is explored further when its run took an
//!    edge no earlier run took, when it is the first to wait at its step with its run of
//!    replies there, or within `CREDIT` levels of a run that took a new edge.
//! 2. **Solving** each branch edge still uncovered at a step some run reached: the variables
//!    its conditions read that a test can give (initial `variables` for those no step of the
//!    set writes, which the bot's own code sets; handler results for those only `action`
//!    steps write) get the values the conditions compare with, and each combination is
//!    replayed on the replies of a run that reached the step. One that takes the edge
//!    becomes a new start, searched breadth first like the others (so what lies behind the
//!    edge, a subflow's questions included, is covered too).
//!
//! Everything is bounded: [`MAX_GENERATED_RUNS`] conversations in all (a replay counts as
//! one), [`MAX_GENERATED_DEPTH`] replies per case, [`MAX_WITNESS_STATES`] states per witness
//! and [`MAX_WITNESS_TOTAL`] for all of them, [`MAX_ASSIGNMENTS`] combinations per edge. What
//! stays uncovered is listed with the reason found for it.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap, HashSet, VecDeque};

use serde_json::{Value, json};

use crate::conversation::{Conversation, OutcomeKind, Transition};
use crate::input::{Mock, Reply, Setup, Start};
use crate::parse::parse_answer;
use crate::regex::{MAX_MATCH_WORK, Pattern};
use crate::set::FlowSet;
use crate::value::{Scalar, js_number};
use botmesh_flow_schema::program::{Ask, Body, Cond, Leaf, Literal, Op};
use botmesh_flow_schema::{BUILT_IN_VARIABLES, InputKind};

/// The most conversations one generation runs (then it stops searching and writes what it
/// found; the uncovered edges say so).
pub const MAX_GENERATED_RUNS: usize = 20_000;

/// Levels explored below a run that took a new edge even where nothing new happens.
const CREDIT: usize = 3;

/// The most replies of one generated case.
pub const MAX_GENERATED_DEPTH: usize = 200;

/// The most states one witness search visits (a pattern with no short witness gets none).
pub const MAX_WITNESS_STATES: usize = 100_000;

/// The most states all witness searches of one generation visit together: a set of many
/// patterns and many constants searches until this is spent, then tries the patterns' other
/// replies without new witnesses.
pub const MAX_WITNESS_TOTAL: usize = 2_000_000;

/// A witness of `pattern` that starts with `prefix`, searched with what is left of the
/// generation's witness budget ([`MAX_WITNESS_STATES`] at most; `work` counts the states
/// visited so far); `None` also when the budget is spent.
fn witness(pattern: &Pattern, prefix: &str, work: &mut usize) -> Option<String> {
    let left = MAX_WITNESS_TOTAL.saturating_sub(*work);
    if left == 0 {
        return None;
    }
    pattern.witness(prefix, MAX_WITNESS_STATES.min(left), work)
}

/// The most combinations of values tried for one uncovered branch edge, on each run that
/// reached its step.
pub const MAX_ASSIGNMENTS: usize = 64;

/// The first characters a pattern's witnesses begin with, at most (one witness each).
const FIRST_CHARACTERS: usize = 4;

/// The runs that reached a step whose replies a combination is replayed on.
const BASES: usize = 3;

/// An edge as a transition names it: (flow, source step, kind, position among the source's
/// edges of that kind).
type Key = (usize, usize, &'static str, usize);

fn edge_key(t: &Transition) -> Key {
    use crate::conversation::EdgeKind as K;
    let position = match t.kind {
        K::Button(i) | K::Row(i) | K::Case(i) => i,
        _ => 0,
    };
    (t.flow, t.from, t.kind.as_str(), position)
}

/// How a searched conversation begins.
#[derive(Debug, Clone, PartialEq)]
struct Origin {
    start: Start,
    setup: Setup,
}

/// One run the search kept.
#[derive(Debug, Clone)]
struct Found {
    origin: usize,
    replies: Vec<Reply>,
    edges: HashSet<Key>,
}

/// What solving one edge tried.
#[derive(Debug, Clone, Default)]
struct Attempt {
    /// The combinations tried, in words (`paciente_nuevo = true`).
    tried: Vec<String>,
    /// Of the replays that reached the step, the edge each took there.
    took: Vec<Key>,
}

/// The values a condition leaf compares its variable with (numbers with their neighbours, a
/// witness of a `matches` pattern), as candidates that make it true or false.
fn leaf_values(set: &FlowSet<'_>, leaf: &Leaf<'_>, work: &mut usize) -> Vec<Scalar> {
    match &leaf.op {
        Op::Eq(v) | Op::Ne(v) => vec![Scalar::of_literal(*v)],
        Op::Lt(n) | Op::Lte(n) | Op::Gt(n) | Op::Gte(n) => {
            [n - 1.0, *n, n + 1.0].map(Scalar::Number).to_vec()
        }
        Op::Contains(raw, _) | Op::StartsWith(raw, _) => vec![Scalar::String((*raw).to_owned())],
        Op::In(values) => values.iter().map(|v| Scalar::of_literal(*v)).collect(),
        Op::Matches(pattern) => match &set.patterns[pattern.index] {
            Ok(compiled) => witness(compiled, "", work)
                .map(Scalar::String)
                .into_iter()
                .collect(),
            Err(_) => Vec::new(),
        },
        Op::Exists => vec![Scalar::String(leaf.var.to_owned())],
    }
}

fn push_unique(out: &mut Vec<Scalar>, values: impl IntoIterator<Item = Scalar>) {
    for value in values {
        if !out.contains(&value) {
            out.push(value);
        }
    }
}

/// Every value the set's conditions compare with (numbers with their neighbours, witnesses
/// of `matches` patterns), in set order, without repeats.
fn condition_constants(set: &FlowSet<'_>, work: &mut usize) -> Vec<Scalar> {
    let mut out = Vec::new();
    for flow in set.flows() {
        for step in &flow.steps {
            if let Body::Branch { cases, .. } = &step.body {
                for case in cases {
                    case.when.for_each_leaf(&mut |leaf| {
                        if !matches!(leaf.op, Op::Exists) {
                            push_unique(&mut out, leaf_values(set, leaf, work));
                        }
                    });
                }
            }
        }
    }
    out
}

/// The replies tried at an `ask` of this input kind without a pattern: a valid one, an
/// invalid one (the empty text, which no input kind accepts), and each constant of the
/// conditions as text.
pub fn ask_replies(input: InputKind, constants: &[String]) -> Vec<String> {
    let mut out: Vec<String> = match input {
        InputKind::Text => vec!["hello".into()],
        InputKind::Number => vec!["3".into()],
        InputKind::Email => vec!["ana@example.com".into()],
        InputKind::Phone => vec!["+15551234567".into()],
        InputKind::Date => vec!["2026-01-15".into()],
        InputKind::Yesno => vec!["yes".into(), "no".into()],
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

fn accepts(pattern: &Pattern, text: &str) -> bool {
    let mut work = MAX_MATCH_WORK;
    pattern.is_match(text, &mut work) == Some(true)
}

/// The replies tried at an `ask` with a pattern: a witness, each constant the pattern accepts
/// (else a witness that starts with it), and the empty reply it never accepts.
fn pattern_replies(pattern: &Pattern, constants: &[String], work: &mut usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let push = |text: String, out: &mut Vec<String>| {
        // A reply is trimmed: only a witness without spaces around it is read as written.
        if text.trim() == text && !text.is_empty() && !out.contains(&text) {
            out.push(text);
        }
    };
    if let Some(text) = witness(pattern, "", work) {
        push(text, &mut out);
    }
    // Texts that begin differently take the pattern's other alternatives.
    for first in pattern.first_characters(FIRST_CHARACTERS) {
        if let Some(text) = witness(pattern, &first.to_string(), work) {
            push(text, &mut out);
        }
    }
    for constant in constants.iter().filter(|c| !c.is_empty()) {
        if accepts(pattern, constant) {
            push(constant.clone(), &mut out);
        } else if let Some(text) = witness(pattern, constant, work) {
            push(text, &mut out);
        }
    }
    out.push(String::new());
    out
}

/// The choices at every waiting step, made once.
struct Choices {
    at: HashMap<(usize, usize), Vec<Reply>>,
}

impl Choices {
    fn new(set: &FlowSet<'_>, texts: &[String], work: &mut usize) -> Self {
        let mut at = HashMap::new();
        // The replies of a pattern depend on its text only: asks that share one share them.
        let mut by_pattern: HashMap<&str, Vec<String>> = HashMap::new();
        for (f, flow) in set.flows().iter().enumerate() {
            for (s, step) in flow.steps.iter().enumerate() {
                let replies: Vec<Reply> = match &step.body {
                    Body::Menu(menu) => menu
                        .items
                        .iter()
                        .map(|item| Reply::Tap(item.id.to_owned()))
                        .collect(),
                    Body::Ask(ask) => {
                        let compiled = ask
                            .pattern
                            .filter(|_| ask.input == InputKind::Text)
                            .and_then(|p| Some((p.text, set.patterns[p.index].as_ref().ok()?)));
                        let texts = match compiled {
                            Some((text, pattern)) => by_pattern
                                .entry(text)
                                .or_insert_with(|| pattern_replies(pattern, texts, work))
                                .clone(),
                            None => ask_replies(ask.input, texts),
                        };
                        texts.into_iter().map(Reply::Text).collect()
                    }
                    _ => continue,
                };
                at.insert((f, s), replies);
            }
        }
        Self { at }
    }

    fn at(&self, flow: usize, step: usize) -> &[Reply] {
        self.at.get(&(flow, step)).map_or(&[], Vec::as_slice)
    }
}

/// Every handler returning `value` (no mocks for `None`).
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

/// The starts searched: the document's own flow, a first message for every other flow a
/// trigger starts (one of its keywords that picks it, or for a fallback a message no keyword
/// picks), and `start.flow` for every flow nothing starts or calls.
fn starts(set: &FlowSet<'_>) -> Vec<Start> {
    let mut out = vec![Start::Default];
    let setup = Setup::default();
    let called: HashSet<usize> = set
        .flows()
        .iter()
        .flat_map(|f| f.steps.iter())
        .filter_map(|s| match s.body {
            Body::Subflow { callee, .. } => callee,
            _ => None,
        })
        .collect();
    for (f, flow) in set.flows().iter().enumerate().skip(1) {
        let picks = |message: &str| {
            let start = Start::Message(message.to_owned());
            let conversation = Conversation::start(set, &start, &setup);
            (conversation.path().next().map(|(flow, _)| flow) == Some(f)).then_some(start)
        };
        let by_trigger = flow.trigger.as_ref().and_then(|trigger| {
            let keyword = trigger.keywords.iter().find_map(|k| picks(k.text));
            keyword.or_else(|| trigger.fallback.then(|| picks("hello there")).flatten())
        });
        match by_trigger {
            Some(start) => out.push(start),
            None if !called.contains(&f) => out.push(Start::Flow(flow.id.to_owned())),
            None => {}
        }
    }
    out
}

/// Who writes a variable: the steps whose edges save it.
fn writers(set: &FlowSet<'_>, name: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (f, flow) in set.flows().iter().enumerate() {
        for (s, step) in flow.steps.iter().enumerate() {
            if step.written() == Some(name) {
                out.push((f, s));
            }
        }
    }
    out
}

/// How a test gives a variable a value.
#[derive(Debug, Clone, PartialEq)]
enum Given {
    /// No step writes it (the bot's own code does): an initial value.
    Initial,
    /// Only `action` steps write it: their handlers' result.
    Handlers(Vec<String>),
}

fn given(set: &FlowSet<'_>, name: &str) -> Option<Given> {
    if BUILT_IN_VARIABLES.contains(&name) {
        return None;
    }
    let writers = writers(set, name);
    if writers.is_empty() {
        return Some(Given::Initial);
    }
    let mut handlers = Vec::new();
    for (f, s) in writers {
        match &set.step(f, s).body {
            Body::Action { handler, .. } => {
                if !handlers.iter().any(|h| h == handler) {
                    handlers.push((*handler).to_owned());
                }
            }
            _ => return None,
        }
    }
    Some(Given::Handlers(handlers))
}

/// `name = value` as reports show it (`unset` for an initial value left out).
fn assignment_words(name: &str, value: &Scalar, how: &Given) -> String {
    match (how, value) {
        (Given::Initial, Scalar::Null) => format!("{name} unset"),
        (Given::Initial, _) => format!("{name} = {}", value.to_json()),
        (Given::Handlers(handlers), _) => {
            format!("{} returns {}", handlers.join(", "), value.to_json())
        }
    }
}

/// What a generation found: the test file and what it could not cover.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The test file's JSON (`{ "strict": true, "tests": [...] }`), ready to write.
    pub tests: Value,
    /// Each edge no searched conversation took: `flow: label — reason`.
    pub uncovered: Vec<String>,
    /// Conversations run by the search (replays included).
    pub runs: usize,
    /// States the witness searches visited.
    pub witness_states: usize,
}

struct Search<'s> {
    set: &'s FlowSet<'s>,
    choices: Choices,
    origins: Vec<Origin>,
    found: Vec<Found>,
    taken: HashSet<Key>,
    /// Steps some run executed (took an edge from, or waits or stopped at).
    executed: HashSet<(usize, usize)>,
    /// Where runs stopped with an error or a loop, and why.
    stops: HashMap<(usize, usize), String>,
    runs: usize,
    exhausted: bool,
    attempts: HashMap<Key, Attempt>,
    /// Per step, the first runs (at most `BASES`, in the order found) that executed it.
    reached: HashMap<(usize, usize), Vec<usize>>,
    work: usize,
}

impl<'s> Search<'s> {
    fn keep(
        &mut self,
        origin: usize,
        replies: Vec<Reply>,
        conversation: &Conversation<'_>,
    ) -> bool {
        let edges: HashSet<Key> = conversation.transitions().iter().map(edge_key).collect();
        let fresh = edges.iter().any(|e| !self.taken.contains(e));
        self.taken.extend(edges.iter().copied());
        self.executed.extend(edges.iter().map(|e| (e.0, e.1)));
        let outcome = conversation.outcome();
        if let Some(at) = outcome.at {
            self.executed.insert(at);
            if matches!(outcome.kind, OutcomeKind::Error | OutcomeKind::Loop) {
                let message = outcome.message.clone().unwrap_or_default();
                self.stops.entry(at).or_insert(message);
            }
        }
        for &(f, s, _, _) in &edges {
            let runs = self.reached.entry((f, s)).or_default();
            if runs.len() < BASES && runs.last() != Some(&self.found.len()) {
                runs.push(self.found.len());
            }
        }
        self.found.push(Found {
            origin,
            replies,
            edges,
        });
        fresh
    }

    /// Breadth first from one origin (module docs), from its start or from a conversation of
    /// it so far (`seed`, with its replies). `seen` holds the (step, replies in a row there)
    /// at which some conversation already waited.
    fn explore(
        &mut self,
        origin: usize,
        seed: Option<(Conversation<'s>, Vec<Reply>)>,
        seen: &mut HashSet<(usize, usize, usize)>,
    ) {
        let set = self.set;
        let (first, replies) = seed.unwrap_or_else(|| {
            let Origin { start, setup } = &self.origins[origin];
            (Conversation::start(set, start, setup), Vec::new())
        });
        let mut queue: VecDeque<(Conversation<'_>, Vec<Reply>, usize, usize)> =
            VecDeque::from([(first, replies, 0, CREDIT)]);
        while let Some((conversation, replies, streak, credit)) = queue.pop_front() {
            if self.runs >= MAX_GENERATED_RUNS {
                self.exhausted = true;
                break;
            }
            self.runs += 1;
            let fresh = self.keep(origin, replies.clone(), &conversation);
            let outcome = conversation.outcome();
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
            for reply in self.choices.at(flow, step) {
                let mut next = replies.clone();
                next.push(reply.clone());
                // Go on from a copy of the conversation (the simulator is deterministic, so
                // this is the run of `next` from the start).
                let mut child = conversation.clone();
                child.reply(reply);
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

    /// The branch edges not taken yet at steps some run executed.
    fn open_branch_edges(&self) -> Vec<Key> {
        let mut out = Vec::new();
        for (f, flow) in self.set.flows().iter().enumerate() {
            for (s, step) in flow.steps.iter().enumerate() {
                let Body::Branch { cases, .. } = &step.body else {
                    continue;
                };
                if !self.executed.contains(&(f, s)) {
                    continue;
                }
                let keys = (0..cases.len())
                    .map(|i| (f, s, "case", i))
                    .chain([(f, s, "default", 0)]);
                out.extend(
                    keys.filter(|k| !self.taken.contains(k) && !self.attempts.contains_key(k)),
                );
            }
        }
        out
    }

    /// Phase 2 for one branch edge (module docs): true when a combination took it. What lies
    /// behind the edge is searched from the replay that took it, with `seen` shared by every
    /// edge solved.
    fn solve(&mut self, target: Key, seen: &mut HashSet<(usize, usize, usize)>) -> bool {
        let set = self.set;
        let (f, s, kind, position) = target;
        let Body::Branch { cases, .. } = &set.step(f, s).body else {
            return false;
        };
        let upto = if kind == "case" {
            position + 1
        } else {
            cases.len()
        };
        // The variables a test can give, with the values their leaves compare with.
        let mut variables: Vec<(&str, Given, Vec<Scalar>)> = Vec::new();
        let mut work = 0;
        for case in &cases[..upto] {
            case.when.for_each_leaf(&mut |leaf| {
                let Some(how) = given(set, leaf.var) else {
                    return;
                };
                let values = leaf_values(set, leaf, &mut work);
                match variables.iter_mut().find(|(name, _, _)| *name == leaf.var) {
                    Some((_, _, known)) => push_unique(known, values),
                    None => variables.push((leaf.var, how, values)),
                }
            });
        }
        self.work += work;
        self.attempts.entry(target).or_default();
        if variables.is_empty() {
            return false;
        }
        for (name, _, values) in &mut variables {
            let declared = set
                .flows()
                .iter()
                .find_map(|flow| flow.declaration(name))
                .map(|d| d.kind);
            if declared == Some("boolean") {
                push_unique(values, [Scalar::Bool(true), Scalar::Bool(false)]);
            }
            push_unique(values, [Scalar::Null]);
        }
        // The first runs that reached the step (breadth first: the ones with fewest replies).
        let bases = self.reached.get(&(f, s)).cloned().unwrap_or_default();
        let combinations = variables
            .iter()
            .try_fold(1usize, |n, (_, _, values)| n.checked_mul(values.len()))
            .unwrap_or(usize::MAX)
            .min(MAX_ASSIGNMENTS);
        for base in bases {
            for number in 0..combinations {
                if self.runs >= MAX_GENERATED_RUNS {
                    self.exhausted = true;
                    return false;
                }
                let origin = &self.origins[self.found[base].origin];
                let mut setup = origin.setup.clone();
                let mut words = Vec::new();
                let mut rest = number;
                for (name, how, values) in &variables {
                    let value = &values[rest % values.len()];
                    rest /= values.len();
                    words.push(assignment_words(name, value, how));
                    match how {
                        Given::Initial if *value == Scalar::Null => {
                            setup.variables.remove(*name);
                        }
                        Given::Initial => {
                            setup.variables.insert((*name).to_owned(), value.clone());
                        }
                        Given::Handlers(handlers) => {
                            for handler in handlers {
                                setup
                                    .handlers
                                    .insert(handler.clone(), Mock::Returns(value.clone()));
                            }
                        }
                    }
                }
                let start = origin.start.clone();
                let replies = self.found[base].replies.clone();
                let mut conversation = Conversation::start(set, &start, &setup);
                for reply in &replies {
                    conversation.reply(reply);
                }
                self.runs += 1;
                let attempt = self.attempts.entry(target).or_default();
                attempt.tried.push(words.join(", "));
                let here: Vec<Key> = conversation
                    .transitions()
                    .iter()
                    .map(edge_key)
                    .filter(|e| (e.0, e.1) == (f, s))
                    .collect();
                attempt.took.extend(here.iter().copied());
                if here.contains(&target) {
                    let origin = Origin { start, setup };
                    let index = match self.origins.iter().position(|o| *o == origin) {
                        Some(index) => index,
                        None => {
                            self.origins.push(origin);
                            self.origins.len() - 1
                        }
                    };
                    self.explore(index, Some((conversation, replies)), seen);
                    return true;
                }
            }
        }
        false
    }
}

/// Searches the set's choices from its starts and writes a small strict suite: each case adds
/// at least one edge no earlier case took. `documents` are the set's, in its order (for the
/// edge labels of the uncovered list).
pub fn generate(set: &FlowSet<'_>, documents: &[&Value]) -> Generated {
    let mut work = 0;
    let constants = condition_constants(set, &mut work);
    let texts: Vec<String> = constants.iter().filter_map(scalar_text).collect();
    let choices = Choices::new(set, &texts, &mut work);
    let mut mocks: Vec<Option<Scalar>> = vec![None];
    let has_handlers = set.flows().iter().any(|f| {
        f.steps
            .iter()
            .any(|s| matches!(s.body, Body::Action { .. }))
    });
    if has_handlers {
        mocks.extend(constants.iter().cloned().map(Some));
    }
    let mut origins = Vec::new();
    for start in starts(set) {
        for mock in &mocks {
            origins.push(Origin {
                start: start.clone(),
                setup: setup(set, mock.as_ref()),
            });
        }
    }
    let mut search = Search {
        set,
        choices,
        origins,
        found: Vec::new(),
        taken: HashSet::new(),
        executed: HashSet::new(),
        stops: HashMap::new(),
        runs: 0,
        exhausted: false,
        attempts: HashMap::new(),
        reached: HashMap::new(),
        work,
    };
    for origin in 0..search.origins.len() {
        search.explore(origin, None, &mut HashSet::new());
    }
    let mut seen = HashSet::new();
    loop {
        let open = search.open_branch_edges();
        if open.is_empty() || search.exhausted {
            break;
        }
        for target in open {
            if !search.taken.contains(&target) {
                search.solve(target, &mut seen);
            }
        }
    }
    // Greedy cover, lazily: the run adding the most new edges first (fewer replies, then the
    // earlier run, on a tie); a gain only shrinks as edges get covered, so a popped run whose
    // gain is still the largest is the greedy pick.
    let found = &search.found;
    let mut covered: HashSet<Key> = HashSet::new();
    let mut chosen: Vec<&Found> = Vec::new();
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
        chosen.push(&found[index]);
    }
    let graph = botmesh_flow_analyzer::describe(documents);
    let mut names: BTreeMap<String, usize> = BTreeMap::new();
    let mut earlier: HashSet<Key> = HashSet::new();
    let cases: Vec<Value> = chosen
        .iter()
        .map(|run| {
            let new: Vec<_> = run.edges.difference(&earlier).copied().collect();
            earlier.extend(run.edges.iter().copied());
            let name = case_name(set, &graph, &new, &mut names);
            write_case(set, &search.origins[run.origin], &run.replies, name)
        })
        .collect();
    let uncovered = uncovered(&search, &graph, &covered);
    Generated {
        tests: json!({ "strict": true, "tests": cases }),
        uncovered,
        runs: search.runs,
        witness_states: search.work,
    }
}

fn step_id<'s>(set: &'s FlowSet<'_>, flow: usize, step: usize) -> &'s str {
    set.step(flow, step).id
}

fn graph_edge<'g, 'a>(
    set: &FlowSet<'_>,
    graph: &'g botmesh_flow_analyzer::Graph<'a>,
    key: &Key,
) -> Option<&'g botmesh_flow_analyzer::Edge<'a>> {
    let (flow, from, kind, position) = *key;
    let from_id = step_id(set, flow, from);
    graph.flows.get(flow).and_then(|f| {
        f.edges
            .iter()
            .filter(|e| e.from == from_id && e.kind.as_str() == kind)
            .nth(position)
    })
}

fn graph_label(set: &FlowSet<'_>, graph: &botmesh_flow_analyzer::Graph<'_>, key: &Key) -> String {
    match graph_edge(set, graph, key) {
        Some(edge) => crate::coverage::label(edge),
        None => format!("{} → {}", step_id(set, key.0, key.1), key.2),
    }
}

fn case_name(
    set: &FlowSet<'_>,
    graph: &botmesh_flow_analyzer::Graph<'_>,
    new: &[Key],
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

/// The case that replays one run: the conversation replayed from its origin, written by
/// `record.rs`'s [`record_case`](crate::record_case) (the one writer of a strict case from a
/// conversation, as `flow_simulate`'s `asTest` and `chat --save-test` write it: one `bot` turn
/// per message, the replies, `expect` with the outcome and the variables written), named by
/// what it covers. The file is strict at its top, so the case does not say it again.
fn write_case(set: &FlowSet<'_>, origin: &Origin, replies: &[Reply], name: String) -> Value {
    let mut conversation = Conversation::start(set, &origin.start, &origin.setup);
    for reply in replies {
        conversation.reply(reply);
    }
    let mut case = crate::record_case(&conversation, &origin.start, &origin.setup);
    case.name = name;
    case.strict = None;
    serde_json::to_value(case).unwrap_or(Value::Null)
}

fn uncovered(
    search: &Search<'_>,
    graph: &botmesh_flow_analyzer::Graph<'_>,
    covered: &HashSet<Key>,
) -> Vec<String> {
    let set = search.set;
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
            let key = (f, from, kind, position);
            if covered.contains(&key) {
                continue;
            }
            out.push(format!(
                "{}: {} — {}",
                flow.id,
                crate::coverage::label(edge),
                reason(search, graph, key)
            ));
        }
    }
    out
}

fn budget() -> String {
    format!(
        "the search used its budget of {MAX_GENERATED_RUNS} conversations before it took this edge"
    )
}

/// Why no searched conversation took an edge, as exactly as the search can say it.
fn reason(search: &Search<'_>, graph: &botmesh_flow_analyzer::Graph<'_>, key: Key) -> String {
    let set = search.set;
    let (f, s, kind, position) = key;
    let step = set.step(f, s);
    let flow_id = set.flows()[f].id;
    if !search.executed.contains(&(f, s)) {
        if search.exhausted {
            return budget();
        }
        let mut into = Vec::new();
        for flow in &graph.flows {
            for edge in &flow.edges {
                let leads_here = match edge.to_flow {
                    Some(called) => called == flow_id && s == 0,
                    None => flow.id == flow_id && edge.to == step.id,
                };
                if leads_here {
                    into.push(format!("{}: {}", flow.id, crate::coverage::label(edge)));
                }
            }
        }
        return if into.is_empty() {
            format!(
                "no edge leads to step {}, so no conversation reaches it",
                step.id
            )
        } else {
            format!(
                "step {} is reached only through {}, which no searched conversation takes either",
                step.id,
                into.join("; ")
            )
        };
    }
    match (kind, &step.body) {
        ("case", Body::Branch { cases, .. }) => case_reason(search, key, cases),
        ("default", Body::Branch { cases, .. }) => {
            let tried = search
                .attempts
                .get(&key)
                .map(|a| a.tried.as_slice())
                .unwrap_or_default();
            if tried.is_empty() {
                format!(
                    "every conversation that reached {} made one of its {} cases true: no reply, tap or handler result the search tried leaves them all false",
                    step.id,
                    cases.len()
                )
            } else {
                format!(
                    "every conversation that reached {} made one of its {} cases true, with each of the {} combinations the search tried ({})",
                    step.id,
                    cases.len(),
                    tried.len(),
                    summary(tried)
                )
            }
        }
        ("return", Body::Subflow { flow, .. }) => format!(
            "flow {flow} never ends back in {}: every searched run of it hands off, stops or keeps waiting",
            step.id
        ),
        _ => match search.stops.get(&(f, s)) {
            Some(message) => format!("the conversation stops at step {}: {message}", step.id),
            None if search.exhausted => budget(),
            None => format!(
                "no reply, tap or handler result the search tried takes it from step {} (position {position})",
                step.id
            ),
        },
    }
}

/// The first few combinations tried, then how many more.
fn summary(tried: &[String]) -> String {
    let mut shown: Vec<&str> = tried.iter().take(4).map(String::as_str).collect();
    let more;
    if tried.len() > 4 {
        more = format!("{} more", tried.len() - 4);
        shown.push(&more);
    }
    shown.join("; ")
}

/// The leaves a condition cannot be true without: itself, or every leaf of an `all`, deep.
fn required_leaves<'c, 'a>(cond: &'c Cond<'a>, out: &mut Vec<&'c Leaf<'a>>) {
    match cond {
        Cond::Leaf(leaf) => out.push(leaf),
        Cond::All(items) => {
            for item in items {
                required_leaves(item, out);
            }
        }
        Cond::Any(_) | Cond::Not(_) => {}
    }
}

/// True when a reply to `ask` can save exactly `value` (the runtime's parsing and matcher).
fn ask_can_save(set: &FlowSet<'_>, ask: &Ask<'_>, value: &Scalar) -> bool {
    let text = match value {
        Scalar::String(text) => text.clone(),
        Scalar::Number(n) => js_number(*n),
        Scalar::Bool(b) => if *b { "yes" } else { "no" }.to_owned(),
        Scalar::Null => return false,
    };
    if text.trim() != text {
        return false;
    }
    let saved = match (ask.input, ask.pattern) {
        (InputKind::Text, Some(pattern)) => match &set.patterns[pattern.index] {
            Ok(compiled) if !text.is_empty() && accepts(compiled, &text) => {
                Some(Scalar::String(text))
            }
            _ => None,
        },
        _ => parse_answer(ask.input, &text),
    };
    saved.as_ref() == Some(value)
}

/// Why an `ask` never saves a value: its pattern rejects it, or its input kind never reads
/// as it; and where it goes when retries run out.
fn ask_refusal(set: &FlowSet<'_>, flow: usize, step: usize, ask: &Ask<'_>) -> String {
    let why = match ask.pattern {
        Some(pattern) if ask.input == InputKind::Text => {
            format!("its pattern {:?} rejects that reply", pattern.text)
        }
        _ => format!("a {} answer never reads as it", input_name(ask.input)),
    };
    let then = match ask.on_fail.unwrap_or(set.step(flow, step).successor) {
        botmesh_flow_schema::program::Target::Step(to) => step_id(set, flow, to).to_owned(),
        botmesh_flow_schema::program::Target::End => "the end of the flow".to_owned(),
    };
    let route = if ask.on_fail.is_some() {
        "onFail"
    } else {
        "no onFail, so its next step"
    };
    format!(
        "{why}; a rejected reply saves nothing, and when retries run out the ask goes on ({route}) to {then} with {} unchanged",
        ask.save
    )
}

fn input_name(input: InputKind) -> &'static str {
    match input {
        InputKind::Text => "text",
        InputKind::Number => "number",
        InputKind::Email => "email",
        InputKind::Phone => "phone",
        InputKind::Date => "date",
        InputKind::Yesno => "yesno",
    }
}

fn case_reason(
    search: &Search<'_>,
    key: Key,
    cases: &[botmesh_flow_schema::program::Case<'_>],
) -> String {
    let set = search.set;
    let (f, s, _, position) = key;
    let id = step_id(set, f, s);
    let Some(case) = cases.get(position) else {
        return budget();
    };
    if let Some(earlier) = cases[..position]
        .iter()
        .position(|c| c.when.same(&case.when))
    {
        return format!(
            "case {} of {id} has the same condition and comes first, so this case is shadowed by an earlier one: no conversation can take it",
            earlier + 1
        );
    }
    let mut leaves = Vec::new();
    required_leaves(&case.when, &mut leaves);
    for leaf in leaves {
        let wanted: Vec<Scalar> = match &leaf.op {
            Op::Eq(value) if *value != Literal::Null => vec![Scalar::of_literal(*value)],
            Op::In(values) => values.iter().map(|v| Scalar::of_literal(*v)).collect(),
            _ => continue,
        };
        let writers = writers(set, leaf.var);
        let asks: Vec<(usize, usize, &Ask<'_>)> = writers
            .iter()
            .filter_map(|&(wf, ws)| match &set.step(wf, ws).body {
                Body::Ask(ask) => Some((wf, ws, ask.as_ref())),
                _ => None,
            })
            .collect();
        if asks.is_empty() || asks.len() != writers.len() {
            continue;
        }
        let savable = wanted
            .iter()
            .any(|value| asks.iter().any(|(_, _, ask)| ask_can_save(set, ask, value)));
        if !savable {
            let values: Vec<String> = wanted.iter().map(|v| v.to_json().to_string()).collect();
            let ids: Vec<&str> = asks
                .iter()
                .map(|&(wf, ws, _)| step_id(set, wf, ws))
                .collect();
            let (wf, ws, ask) = asks[0];
            return format!(
                "needs {} = {}, which ask {} never saves ({}): no conversation can take it",
                leaf.var,
                values.join(" or "),
                ids.join(" or "),
                ask_refusal(set, wf, ws, ask)
            );
        }
    }
    if let Some(attempt) = search.attempts.get(&key)
        && !attempt.tried.is_empty()
    {
        let earlier = attempt
            .took
            .iter()
            .filter(|k| k.2 == "case" && k.3 < position)
            .map(|k| k.3)
            .min();
        if let Some(earlier) = earlier
            && attempt.took.iter().all(|k| k.2 == "case" && k.3 < position)
        {
            return format!(
                "every combination the search tried that reaches {id} ({}) makes an earlier case true (case {}): a case shadowed by an earlier one",
                summary(&attempt.tried),
                earlier + 1
            );
        }
        return format!(
            "none of the {} combinations the search tried ({}) makes it true at {id}",
            attempt.tried.len(),
            summary(&attempt.tried)
        );
    }
    if search.exhausted {
        return budget();
    }
    let mut names: Vec<&str> = Vec::new();
    case.when.for_each_leaf(&mut |leaf| {
        if !names.contains(&leaf.var) {
            names.push(leaf.var);
        }
    });
    let sources: Vec<String> = names
        .iter()
        .map(|name| {
            if BUILT_IN_VARIABLES.contains(name) {
                return format!("{name} (built in)");
            }
            let steps: Vec<String> = writers(set, name)
                .iter()
                .map(|&(wf, ws)| {
                    let step = set.step(wf, ws);
                    match &step.body {
                        Body::Ask(ask) => format!("ask {} ({})", step.id, input_name(ask.input)),
                        _ => format!("{} {}", step.kind.as_str(), step.id),
                    }
                })
                .collect();
            format!("{name} (written by {})", steps.join(", "))
        })
        .collect();
    let mut instead: Vec<(&str, usize)> = search
        .found
        .iter()
        .flat_map(|run| run.edges.iter())
        .filter(|e| (e.0, e.1) == (f, s))
        .map(|e| (e.2, e.3))
        .collect();
    instead.sort_unstable();
    instead.dedup();
    let instead: Vec<String> = instead
        .iter()
        .map(|&(kind, n)| match kind {
            "case" => format!("case {}", n + 1),
            other => other.to_owned(),
        })
        .collect();
    format!(
        "every conversation the search ran through {id} took {} instead: it reads {}, and no reply or tap the search tried makes this case true before an earlier one",
        instead.join(" or "),
        sources.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TestFile;

    /// All witness searches of one generation share one budget: once it is spent, no search
    /// starts, and the last one stops where it runs out.
    #[test]
    fn witness_searches_share_one_budget() {
        let pattern = Pattern::new("^a{900}$", true).unwrap();
        let mut work = 0;
        assert_eq!(witness(&pattern, "", &mut work).map(|t| t.len()), Some(900));
        let mut spent = MAX_WITNESS_TOTAL;
        assert_eq!(witness(&pattern, "", &mut spent), None);
        assert_eq!(spent, MAX_WITNESS_TOTAL, "a spent budget starts no search");
        let mut nearly = MAX_WITNESS_TOTAL - 10;
        assert_eq!(witness(&pattern, "", &mut nearly), None);
        assert!(nearly <= MAX_WITNESS_TOTAL + 1, "{nearly}");
    }

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
        assert_eq!(file.strict, Some(true), "generated cases are strict");
        let runs = file.run(&set);
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
    fn a_reply_that_a_matches_condition_finds_is_tried() {
        let document = json!({ "version": 2, "id": "x", "steps": [
            { "id": "name", "kind": "ask", "text": "Name?", "save": "name" },
            { "id": "route", "kind": "branch", "cases": [
                { "when": { "var": "name", "op": "matches", "value": "^Z[0-9]{3}$" }, "next": "z" }] },
            { "id": "plain", "kind": "end", "text": "Hi." },
            { "id": "z", "kind": "end", "text": "Zed." }
        ]});
        let (generated, coverage) = check(&[&document]);
        assert!(coverage.all_edges(), "{:?}", generated.uncovered);
        assert!(generated.tests.to_string().contains(r#"{"user":"Z000"}"#));
    }

    /// What no conversation can take is listed with the reason: a case shadowed by an earlier
    /// one, a value the only ask that saves it rejects, a default no value leaves, a subflow
    /// that never returns, and what lies only behind them.
    #[test]
    fn what_stays_uncovered_says_why() {
        let document = json!({ "version": 2, "id": "x", "steps": [
            { "id": "code", "kind": "ask", "text": "Code?", "save": "code", "pattern": "^[0-9]{4}$" },
            { "id": "route", "kind": "branch", "cases": [
                { "when": { "var": "code", "op": "eq", "value": "abcd" }, "next": "letters" },
                { "when": { "var": "code", "op": "exists" }, "next": "sure" },
                { "when": { "var": "code", "op": "exists" }, "next": "again" }] },
            { "id": "none", "kind": "message", "text": "No code." },
            { "id": "ok", "kind": "ask", "text": "Sure?", "save": "ok", "input": "yesno" },
            { "id": "yes_no", "kind": "branch", "cases": [
                { "when": { "var": "ok", "op": "eq", "value": true }, "next": "desk" },
                { "when": { "var": "ok", "op": "eq", "value": false }, "next": "desk" },
                { "when": { "var": "ok", "op": "exists" }, "next": "desk" }], "default": "desk" },
            { "id": "desk", "kind": "subflow", "flow": "people" },
            { "id": "after", "kind": "end", "text": "Back." },
            { "id": "letters", "kind": "message", "text": "Letters!" },
            { "id": "sure", "kind": "end", "text": "Sure." },
            { "id": "again", "kind": "end", "text": "Again." }
        ]});
        let people = json!({ "version": 2, "id": "people", "steps": [
            { "id": "hand", "kind": "handoff", "text": "A person will answer." }
        ]});
        let set = FlowSet::new(&[&document, &people]).expect("valid");
        let generated = generate(&set, &[&document, &people]);
        expect_test::expect![[r#"
            x: route → case code == "abcd" — needs code = "abcd", which ask code never saves (its pattern "^[0-9]{4}$" rejects that reply; a rejected reply saves nothing, and when retries run out the ask goes on (no onFail, so its next step) to route with code unchanged): no conversation can take it
            x: route → case code exists — case 2 of route has the same condition and comes first, so this case is shadowed by an earlier one: no conversation can take it
            x: yes_no → case ok exists — every conversation the search ran through yes_no took case 1 or case 2 or default instead: it reads ok (written by ask ok (yesno)), and no reply or tap the search tried makes this case true before an earlier one
            x: desk → return (after) — flow people never ends back in desk: every searched run of it hands off, stops or keeps waiting
            x: letters → sure — step letters is reached only through x: route → case code == "abcd", which no searched conversation takes either
        "#]]
        .assert_eq(&(generated.uncovered.join("\n") + "\n"));
    }

    fn fixture(name: &str) -> Value {
        let path = format!(
            "{}/test_data/generate/{name}.json",
            env!("CARGO_MANIFEST_DIR")
        );
        serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("JSON")
    }

    /// Four flows like those users wrote (issue 37): an `ask` with `pattern: "^.{8,200}$"`, one
    /// whose pattern has alternatives and a branch on how the reply starts, a subflow behind a
    /// variable the bot's code sets, a branch on it in a support menu, handler results that
    /// decide branches. Each generated suite is strict, passes, and covers every edge.
    #[test]
    fn flows_users_wrote_get_strict_suites_that_cover_every_edge() {
        let pizza = fixture("pizza-delivery");
        let builder = fixture("pizza-builder");
        let cita = fixture("cita");
        let alta = fixture("alta-paciente");
        let support = fixture("support");
        let sets: [(Vec<&Value>, usize); 4] = [
            (vec![&pizza], 17),
            (vec![&builder], 16),
            (vec![&cita, &alta], 14),
            (vec![&support], 14),
        ];
        for (documents, edges) in sets {
            let (generated, coverage) = check(&documents);
            let (_, _, covered, total) = coverage.totals();
            assert_eq!(
                (covered, total),
                (edges, edges),
                "{:?}",
                generated.uncovered
            );
            assert!(generated.uncovered.is_empty(), "{:?}", generated.uncovered);
            // Every case checks every message it is sent (one bot turn per message).
            let set = FlowSet::new(&documents).expect("valid");
            let file = TestFile::from_json(&generated.tests).expect("well-formed");
            for (run, case) in file.run(&set).iter().zip(&file.tests) {
                assert!(run.failure.is_none(), "{}", run.name);
                let setup = case.setup();
                let mut conversation = Conversation::start(&set, &case.start(), &setup);
                for turn in &case.turns {
                    if let crate::testing::TurnSpec::User { user } = turn {
                        conversation.reply(&user.reply());
                    }
                }
                let sent = conversation
                    .transcript_json(0)
                    .iter()
                    .filter(|e| e.get("bot").is_some())
                    .count();
                let checked = case
                    .turns
                    .iter()
                    .filter(|t| matches!(t, crate::testing::TurnSpec::Bot { .. }))
                    .count();
                assert_eq!(sent, checked, "{}", run.name);
            }
        }
        let text = |documents: &[&Value]| {
            let set = FlowSet::new(documents).expect("valid");
            generate(&set, documents).tests.to_string()
        };
        // The address the pattern accepts, the postcode that starts with 28, the variable the
        // clinic's code sets, and the invoice number.
        assert!(text(&[&pizza]).contains(r#"{"user":"aaaaaaaa"}"#));
        assert!(text(&[&builder]).contains(r#"{"user":"28000"}"#));
        assert!(text(&[&cita, &alta]).contains(r#""variables":{"paciente_nuevo":true}"#));
        assert!(text(&[&support]).contains(r#"{"user":"INV-000000"}"#));
    }

    /// A 500-step flow (100 waits from start to end, 50 branches on replies) and a flow of 60
    /// branches on variables the bot's code sets stay within bounds counted by the search
    /// itself, not by a clock: conversations run, witness states visited.
    #[test]
    fn large_flows_stay_within_the_search_budget() {
        let mut steps = Vec::new();
        for b in 0..50 {
            let id = |s: &str| format!("{s}{b}");
            let next = if b == 49 {
                "hello0".to_owned()
            } else {
                format!("hello{}", b + 1)
            };
            steps.extend([
                json!({ "id": id("hello"), "kind": "message", "text": format!("Block {b}") }),
                json!({ "id": id("menu"), "kind": "buttons", "text": "Go on?", "save": "pick", "buttons": [
                    { "id": "on", "title": "On", "next": id("qty") },
                    { "id": "detour", "title": "Detour", "next": id("detour") }] }),
                json!({ "id": id("detour"), "kind": "message", "text": "A detour." }),
                json!({ "id": id("qty"), "kind": "ask", "text": "How many?", "save": "qty", "input": "number", "retries": 1, "onFail": id("few") }),
                json!({ "id": id("check"), "kind": "branch", "cases": [
                    { "when": { "var": "qty", "op": "gt", "value": 4 }, "next": id("many") }], "default": id("few") }),
                json!({ "id": id("many"), "kind": "message", "text": "Many.", "next": id("note") }),
                json!({ "id": id("few"), "kind": "message", "text": "Few." }),
                json!({ "id": id("note"), "kind": "ask", "text": "Code?", "save": "code", "pattern": "^[A-Z]{2}-[0-9]{4}$", "onFail": id("wait") }),
                json!({ "id": id("wait"), "kind": "delay", "seconds": 1 }),
                if b == 49 {
                    json!({ "id": id("last"), "kind": "end", "text": "Bye." })
                } else {
                    json!({ "id": id("last"), "kind": "message", "text": "Next block.", "next": next })
                },
            ]);
        }
        let blocks = json!({ "version": 2, "id": "blocks", "steps": steps });
        let set = FlowSet::new(&[&blocks]).expect("valid");
        let generated = generate(&set, &[&blocks]);
        assert!(generated.uncovered.is_empty(), "{:?}", generated.uncovered);
        assert!(generated.runs <= 8_000, "{} conversations", generated.runs);
        assert!(
            generated.witness_states <= 10_000,
            "{} states",
            generated.witness_states
        );

        let mut steps = Vec::new();
        for b in 0..60 {
            steps.push(json!({ "id": format!("if{b}"), "kind": "branch", "cases": [
                { "when": { "var": format!("flag{b}"), "op": "eq", "value": true }, "next": format!("on{b}") }],
                "default": format!("off{b}") }));
            steps.push(json!({ "id": format!("on{b}"), "kind": "message", "text": "On.", "next": format!("off{b}") }));
            steps.push(
                json!({ "id": format!("off{b}"), "kind": "buttons", "text": "Next?", "buttons": [
                { "id": "next", "title": "Next" }] }),
            );
        }
        steps.push(json!({ "id": "bye", "kind": "end" }));
        let flags = json!({ "version": 2, "id": "flags", "steps": steps });
        let set = FlowSet::new(&[&flags]).expect("valid");
        let generated = generate(&set, &[&flags]);
        assert!(generated.uncovered.is_empty(), "{:?}", generated.uncovered);
        assert!(generated.runs <= 1_000, "{} conversations", generated.runs);
    }

    /// Every edge (by key) that conversations of at most `depth` replies over the same choices
    /// take, without merging any two prefixes: what the generator must cover.
    fn exhaustive(set: &FlowSet<'_>, depth: usize) -> HashSet<Key> {
        let mut work = 0;
        let constants = condition_constants(set, &mut work);
        let texts: Vec<String> = constants.iter().filter_map(scalar_text).collect();
        let choices = Choices::new(set, &texts, &mut work);
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
                let mut conversation = Conversation::start(set, &Start::Default, &setup);
                for reply in &replies {
                    conversation.reply(reply);
                }
                edges.extend(conversation.transitions().iter().map(edge_key));
                if replies.len() >= depth {
                    continue;
                }
                if let (OutcomeKind::Waiting, Some((flow, step))) =
                    (conversation.outcome().kind, conversation.outcome().at)
                {
                    for reply in choices.at(flow, step) {
                        let mut next = replies.clone();
                        next.push(reply.clone());
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
            for run in file.run(&set) {
                proptest::prop_assert!(run.failure.is_none(), "{}: {:?}", run.name, run.failure);
                covered.extend(run.transitions.iter().map(edge_key));
            }
            let reachable = exhaustive(&set, 4);
            let missed: Vec<_> = reachable.difference(&covered).collect();
            proptest::prop_assert!(missed.is_empty(), "missed {:?} of {:?}", missed, documents);
        }
    }
}
