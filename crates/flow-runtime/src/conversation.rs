//! One conversation: the state of runtime §1, driven step by step (§3–§7).

use std::collections::{BTreeMap, HashMap};

use botmesh_flow_schema::program::{
    Arg, Body, Cond, Item, Literal, Menu, Op, SetValue, Target, Text,
};
use botmesh_flow_schema::{
    BUILT_IN_VARIABLES, InputKind, MatchMode, StepKind, contains_words, normalize,
    starts_with_words,
};
use serde_json::{Map, Value, json};

use crate::input::{Mock, Reply, Setup, Start};
use crate::parse::parse_answer;
use crate::regex::MAX_MATCH_WORK;
use crate::set::FlowSet;
use crate::value::Scalar;

/// The most steps that run between two consumed replies (or since the start).
pub const MAX_STEPS_PER_REPLY: usize = 1_000;

/// The most steps one simulation runs.
pub const MAX_SIMULATION_STEPS: usize = 100_000;

/// The longest text an interpolated field may have after interpolation, in characters.
pub const MAX_INTERPOLATED_CHARS: usize = 65_536;

/// The deepest call stack: the starting flow is depth 0, and a call that would make it deeper
/// than this fails.
pub const MAX_CALL_DEPTH: usize = 16;

/// How a conversation stopped, or that it waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutcomeKind {
    /// The replies ran out while the bot waits at a step.
    Waiting,
    /// An `end` (or the end of the top flow) was reached.
    Ended,
    /// A `handoff` step handed the conversation to people.
    Handoff,
    /// A step limit was reached.
    Loop,
    /// A handler mock failed.
    HandlerFailed,
    /// The first message matched no flow and there is no fallback.
    NoFlow,
    /// A missing flow, a call too deep, a text too long.
    Error,
}

impl OutcomeKind {
    /// The spelling of the result (`handler-failed`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Waiting => "waiting",
            Self::Ended => "ended",
            Self::Handoff => "handoff",
            Self::Loop => "loop",
            Self::HandlerFailed => "handler-failed",
            Self::NoFlow => "no-flow",
            Self::Error => "error",
        }
    }

    /// All kinds, in the order of the spec.
    pub const ALL: [Self; 7] = [
        Self::Waiting,
        Self::Ended,
        Self::Handoff,
        Self::Loop,
        Self::HandlerFailed,
        Self::NoFlow,
        Self::Error,
    ];
}

/// A stop (any outcome but waiting).
#[derive(Debug, Clone, PartialEq)]
struct Stop {
    kind: OutcomeKind,
    at: Option<(usize, usize)>,
    queue: Option<Option<String>>,
    message: Option<String>,
}

/// The kind of a graph edge taken (the analyzer's edge kinds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EdgeKind {
    /// `next`, explicit or falling through.
    Next,
    /// A button, by position.
    Button(usize),
    /// A row of a list, by position over all sections.
    Row(usize),
    /// A branch case, by position.
    Case(usize),
    /// A branch's default.
    Default,
    /// An `ask`'s `onFail`.
    RetryExhausted,
    /// A `subflow` step calling its flow.
    Call,
    /// Control back from a called flow to the step after the `subflow` step.
    Return,
}

impl EdgeKind {
    /// The kind of the compiled form's edge this is (the analyzer's graph has the same kinds).
    pub fn edge_kind(self) -> botmesh_flow_schema::program::EdgeKind {
        use botmesh_flow_schema::program::EdgeKind as K;
        match self {
            Self::Next => K::Next,
            Self::Button(_) => K::Button,
            Self::Row(_) => K::Row,
            Self::Case(_) => K::Case,
            Self::Default => K::Default,
            Self::RetryExhausted => K::RetryExhausted,
            Self::Call => K::Call,
            Self::Return => K::Return,
        }
    }

    /// The analyzer's spelling of the kind.
    pub fn as_str(self) -> &'static str {
        self.edge_kind().as_str()
    }
}

/// One transition the conversation took: an edge of the analyzer's graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Transition {
    /// The flow of the source step (set order).
    pub flow: usize,
    /// The source step (for a return: the `subflow` step).
    pub from: usize,
    /// The target step in the same flow (`None`: the end of the flow), except for a call,
    /// whose target is the called flow's entry.
    pub to: Option<usize>,
    /// For a call: the called flow.
    pub to_flow: Option<usize>,
    /// What made control take it.
    pub kind: EdgeKind,
}

/// What the bot sent.
#[derive(Debug, Clone)]
enum Send {
    Text(String),
    /// A menu or media or a template: the step's own fields, with its interpolated texts.
    Step(Vec<String>),
}

/// One entry of the transcript.
#[derive(Debug, Clone)]
enum Entry {
    User(Reply),
    Bot {
        send: Send,
        flow: usize,
        step: usize,
    },
    Event {
        event: Event,
        flow: usize,
        step: usize,
    },
}

#[derive(Debug, Clone)]
enum Event {
    Retry,
    Save { var: String, value: Scalar },
    Action { args: Value, result: Option<Scalar> },
    Delay,
    Call { to: usize },
    Return { to: usize },
}

/// A warning of the result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// Where (flow, step), when a step caused it.
    pub at: Option<(usize, usize)>,
    /// One sentence.
    pub message: String,
}

/// A return point of the call stack.
#[derive(Debug, Clone, Copy)]
struct Frame {
    flow: usize,
    call_step: usize,
    ret: Target,
}

/// What the bot waits for.
#[derive(Debug, Clone, Copy)]
struct Waiting {
    flow: usize,
    step: usize,
    failures: u64,
}

/// Why a step could not finish.
enum Halt {
    Stop(Stop),
}

/// A conversation of one contact with a set of flows.
#[derive(Debug, Clone)]
pub struct Conversation<'s> {
    set: &'s FlowSet<'s>,
    contact_name: String,
    contact_phone: String,
    handlers: BTreeMap<String, Mock>,
    calls: HashMap<String, usize>,
    variables: BTreeMap<String, Scalar>,
    last_message: String,
    stack: Vec<Frame>,
    flow: usize,
    waiting: Option<Waiting>,
    stop: Option<Stop>,
    clock: u64,
    transcript: Vec<Entry>,
    path: Vec<(u32, u32)>,
    transitions: Vec<Transition>,
    warnings: Vec<Warning>,
    since_reply: usize,
    leftover: usize,
    match_work: u64,
}

impl<'s> Conversation<'s> {
    /// Starts a conversation (runtime §2) and runs it until the bot waits or stops.
    ///
    /// The start flow is in the set ([`Simulation::check`](crate::Simulation::check) says so for
    /// a simulation's arguments); a flow id that is not starts nothing (outcome `no-flow`).
    pub fn start(set: &'s FlowSet<'s>, start: &Start, setup: &Setup) -> Self {
        let mut conversation = Self {
            set,
            contact_name: setup.contact_name.clone(),
            contact_phone: setup.contact_phone.clone(),
            handlers: setup.handlers.clone(),
            calls: HashMap::new(),
            variables: setup.variables.clone(),
            last_message: String::new(),
            stack: Vec::new(),
            flow: 0,
            waiting: None,
            stop: None,
            clock: 0,
            transcript: Vec::new(),
            path: Vec::new(),
            transitions: Vec::new(),
            warnings: Vec::new(),
            since_reply: 0,
            leftover: 0,
            match_work: MAX_MATCH_WORK,
        };
        let flow = match start {
            Start::Default => Some(0),
            Start::Flow(id) => set.flow_index(id),
            Start::Message(message) => {
                conversation
                    .transcript
                    .push(Entry::User(Reply::Text(message.clone())));
                conversation.last_message = message.trim().to_owned();
                conversation.pick_flow(message)
            }
        };
        match flow {
            Some(flow) => {
                conversation.flow = flow;
                conversation.declare(flow);
                conversation.run(Target::Step(0));
            }
            None => {
                conversation.stop = Some(Stop {
                    kind: OutcomeKind::NoFlow,
                    at: None,
                    queue: None,
                    message: Some("no flow's trigger matches the first message, and no flow has fallback: true".to_owned()),
                });
            }
        }
        conversation
    }

    /// The flow a first message starts (runtime §2).
    fn pick_flow(&self, message: &str) -> Option<usize> {
        let message = normalize(message);
        let flows = self.set.flows();
        let tier = |mode: MatchMode, matches: &dyn Fn(&str) -> bool| {
            flows.iter().position(|flow| {
                flow.trigger.as_ref().is_some_and(|trigger| {
                    trigger.mode == mode
                        && trigger
                            .keywords
                            .iter()
                            .any(|k| !k.normalized.is_empty() && matches(&k.normalized))
                })
            })
        };
        tier(MatchMode::Exact, &|k| message == k)
            .or_else(|| tier(MatchMode::StartsWith, &|k| starts_with_words(&message, k)))
            .or_else(|| tier(MatchMode::Contains, &|k| contains_words(&message, k)))
            .or_else(|| {
                flows
                    .iter()
                    .position(|f| f.trigger.as_ref().is_some_and(|t| t.fallback))
            })
    }

    /// Gives each declared variable of `flow` that is unset its default.
    fn declare(&mut self, flow: usize) {
        for declaration in &self.set.flows()[flow].declarations {
            if let Some(default) = declaration.default
                && !BUILT_IN_VARIABLES.contains(&declaration.name)
                && !self.variables.contains_key(declaration.name)
            {
                self.variables
                    .insert(declaration.name.to_owned(), Scalar::of_literal(default));
            }
        }
    }

    /// True while the bot waits for a reply.
    pub fn is_waiting(&self) -> bool {
        self.waiting.is_some() && self.stop.is_none()
    }

    /// Feeds one reply. A reply to a conversation that stopped is counted as left over and
    /// changes nothing.
    pub fn reply(&mut self, reply: &Reply) {
        let Some(waiting) = self.waiting.filter(|_| self.stop.is_none()) else {
            self.leftover += 1;
            return;
        };
        self.transcript.push(Entry::User(reply.clone()));
        self.since_reply = 0;
        let set = self.set;
        let (flow, index) = (waiting.flow, waiting.step);
        let step = set.step(flow, index);
        match &step.body {
            Body::Menu(menu) => {
                let picked = pick(&menu.items, set.titles(flow, index), reply);
                let Some((position, item)) = picked else {
                    self.last_message = match reply {
                        Reply::Text(text) => text.trim().to_owned(),
                        Reply::Tap(id) => id.clone(),
                    };
                    self.event(Event::Retry, flow, index);
                    if let Err(Halt::Stop(stop)) = self.send_step(flow, index) {
                        self.stop = Some(stop);
                    }
                    return;
                };
                self.last_message = item.title.to_owned();
                self.waiting = None;
                if let Some(var) = menu.save {
                    let value = Scalar::String(item.id.to_owned());
                    self.save(var, value, flow, index);
                }
                let kind = if step.kind == StepKind::List {
                    EdgeKind::Row(position)
                } else {
                    EdgeKind::Button(position)
                };
                self.take(flow, index, item.target, kind);
                self.run(item.target);
            }
            Body::Ask(ask) => {
                let raw = match reply {
                    Reply::Text(text) | Reply::Tap(text) => text.trim(),
                };
                self.last_message = raw.to_owned();
                let accepted = match (ask.input, ask.pattern) {
                    (InputKind::Text, Some(pattern)) if !raw.is_empty() => {
                        match &set.patterns[pattern.index] {
                            Ok(pattern) => match pattern.is_match(raw, &mut self.match_work) {
                                Some(true) => Some(Scalar::String(raw.to_owned())),
                                Some(false) => None,
                                None => {
                                    self.stop = Some(error(flow, index, work_message()));
                                    return;
                                }
                            },
                            Err(problem) => {
                                self.stop = Some(error(flow, index, problem.to_string()));
                                return;
                            }
                        }
                    }
                    _ => parse_answer(ask.input, raw),
                };
                if let Some(value) = accepted {
                    self.waiting = None;
                    self.save(ask.save, value, flow, index);
                    let successor = step.successor;
                    self.take(flow, index, successor, EdgeKind::Next);
                    self.run(successor);
                    return;
                }
                let failures = waiting.failures + 1;
                if failures <= ask.retries {
                    self.waiting = Some(Waiting {
                        failures,
                        ..waiting
                    });
                    self.event(Event::Retry, flow, index);
                    let again = ask.retry_text.as_ref().unwrap_or(&ask.text);
                    match self.interpolate(again, flow, index) {
                        Ok(text) => self.bot(Send::Text(text), flow, index),
                        Err(Halt::Stop(stop)) => self.stop = Some(stop),
                    }
                    return;
                }
                self.waiting = None;
                let (target, kind) = match ask.on_fail {
                    Some(target) => (target, EdgeKind::RetryExhausted),
                    None => (step.successor, EdgeKind::Next),
                };
                self.take(flow, index, target, kind);
                self.run(target);
            }
            _ => {
                // Only menus and asks wait.
                self.waiting = None;
            }
        }
    }

    /// Runs from `target` in the current flow until the bot waits or stops.
    fn run(&mut self, mut target: Target) {
        // The step that ends the flow being left: the last step run, or, when a flow ends
        // right after a call returned into it, its `subflow` step.
        let mut ending: Option<(usize, usize)> = None;
        loop {
            let index = match target {
                Target::End => match self.stack.pop() {
                    Some(frame) => {
                        let (flow, step) = ending.unwrap_or_else(|| self.last_path());
                        self.event(Event::Return { to: frame.flow }, flow, step);
                        ending = Some((frame.flow, frame.call_step));
                        self.flow = frame.flow;
                        self.take(frame.flow, frame.call_step, frame.ret, EdgeKind::Return);
                        target = frame.ret;
                        continue;
                    }
                    None => {
                        let at = self.path.last().map(|&(f, s)| (f as usize, s as usize));
                        self.stop = Some(Stop {
                            kind: OutcomeKind::Ended,
                            at,
                            queue: None,
                            message: None,
                        });
                        return;
                    }
                },
                Target::Step(index) => index,
            };
            ending = None;
            let flow = self.flow;
            if self.since_reply >= MAX_STEPS_PER_REPLY || self.path.len() >= MAX_SIMULATION_STEPS {
                let message = if self.path.len() >= MAX_SIMULATION_STEPS {
                    format!("the simulation ran {MAX_SIMULATION_STEPS} steps, its limit")
                } else {
                    format!(
                        "{MAX_STEPS_PER_REPLY} steps ran without waiting for a reply, so the bot would spin"
                    )
                };
                self.stop = Some(Stop {
                    kind: OutcomeKind::Loop,
                    at: Some((flow, index)),
                    queue: None,
                    message: Some(message),
                });
                return;
            }
            self.since_reply += 1;
            #[allow(
                clippy::cast_possible_truncation,
                reason = "at most 500 steps and flows of a set that fits in memory"
            )]
            self.path.push((flow as u32, index as u32));
            match self.step(flow, index) {
                Ok(Some(next)) => target = next,
                Ok(None) => return,
                Err(Halt::Stop(stop)) => {
                    self.stop = Some(stop);
                    return;
                }
            }
        }
    }

    /// Runs one step; answers where control goes, or `None` when the bot now waits.
    fn step(&mut self, flow: usize, index: usize) -> Result<Option<Target>, Halt> {
        let set = self.set;
        let step = set.step(flow, index);
        let successor = step.successor;
        let next = |this: &mut Self| {
            this.take(flow, index, successor, EdgeKind::Next);
            Ok(Some(successor))
        };
        match &step.body {
            Body::Message { .. }
            | Body::Media { .. }
            | Body::Template { .. }
            | Body::Location { .. } => {
                self.send_step(flow, index)?;
                next(self)
            }
            Body::Menu(_) | Body::Ask(_) => {
                self.send_step(flow, index)?;
                self.waiting = Some(Waiting {
                    flow,
                    step: index,
                    failures: 0,
                });
                Ok(None)
            }
            Body::Branch { cases, default } => {
                for (position, case) in cases.iter().enumerate() {
                    if self.holds(&case.when, flow, index)? {
                        self.take(flow, index, case.target, EdgeKind::Case(position));
                        return Ok(Some(case.target));
                    }
                }
                self.take(flow, index, *default, EdgeKind::Default);
                Ok(Some(*default))
            }
            Body::Set { var, value, .. } => {
                let value = match value {
                    SetValue::Text(text) => Scalar::String(self.interpolate(text, flow, index)?),
                    SetValue::Literal(literal) => Scalar::of_literal(*literal),
                };
                self.variables.insert((*var).to_owned(), value);
                next(self)
            }
            Body::Delay { seconds, .. } => {
                self.clock += seconds;
                self.event(Event::Delay, flow, index);
                next(self)
            }
            Body::Action {
                handler,
                args,
                save,
            } => {
                let mut interpolated = Map::with_capacity(args.len());
                for (key, value) in args {
                    let value = self.interpolate_arg(value, flow, index)?;
                    interpolated.insert((*key).to_owned(), value);
                }
                let args = Value::Object(interpolated);
                let call = self.calls.entry((*handler).to_owned()).or_insert(0);
                let number = *call;
                *call += 1;
                let result = match self.handlers.get(*handler).cloned() {
                    Some(Mock::Returns(value)) => value,
                    Some(Mock::ReturnsEach(values)) => values
                        .get(number)
                        .or(values.last())
                        .cloned()
                        .unwrap_or(Scalar::Null),
                    Some(Mock::Fails(reason)) => {
                        self.event(Event::Action { args, result: None }, flow, index);
                        return Err(Halt::Stop(Stop {
                            kind: OutcomeKind::HandlerFailed,
                            at: Some((flow, index)),
                            queue: None,
                            message: Some(reason),
                        }));
                    }
                    None => {
                        self.warn(
                            flow,
                            index,
                            format!("handler \"{handler}\" has no mock, so its result is null"),
                        );
                        Scalar::Null
                    }
                };
                self.event(
                    Event::Action {
                        args,
                        result: Some(result.clone()),
                    },
                    flow,
                    index,
                );
                if let Some(var) = save {
                    self.save(var, result, flow, index);
                }
                next(self)
            }
            Body::Subflow {
                flow: id,
                callee: called,
            } => {
                let Some(called) = *called else {
                    return Err(Halt::Stop(error(
                        flow,
                        index,
                        format!("flow \"{id}\" is not in the set, so it cannot be called"),
                    )));
                };
                if self.stack.len() >= MAX_CALL_DEPTH {
                    return Err(Halt::Stop(error(
                        flow,
                        index,
                        format!(
                            "calling \"{id}\" would nest flows {} deep, more than {MAX_CALL_DEPTH}",
                            self.stack.len() + 1
                        ),
                    )));
                }
                self.event(Event::Call { to: called }, flow, index);
                self.transitions.push(Transition {
                    flow,
                    from: index,
                    to: Some(0),
                    to_flow: Some(called),
                    kind: EdgeKind::Call,
                });
                self.stack.push(Frame {
                    flow,
                    call_step: index,
                    ret: successor,
                });
                self.flow = called;
                self.declare(called);
                Ok(Some(Target::Step(0)))
            }
            Body::Closing { text, queue } => {
                if let Some(text) = text {
                    let text = self.interpolate(text, flow, index)?;
                    self.bot(Send::Text(text), flow, index);
                }
                if step.kind == StepKind::Handoff {
                    return Err(Halt::Stop(Stop {
                        kind: OutcomeKind::Handoff,
                        at: Some((flow, index)),
                        queue: Some(queue.map(str::to_owned)),
                        message: None,
                    }));
                }
                if self.stack.is_empty() {
                    return Err(Halt::Stop(Stop {
                        kind: OutcomeKind::Ended,
                        at: Some((flow, index)),
                        queue: None,
                        message: None,
                    }));
                }
                Ok(Some(Target::End))
            }
        }
    }

    /// Sends what a sending or waiting step sends (also its re-send).
    fn send_step(&mut self, flow: usize, index: usize) -> Result<(), Halt> {
        let set = self.set;
        let send = match &set.step(flow, index).body {
            Body::Message { text } => Send::Text(self.interpolate(text, flow, index)?),
            Body::Ask(ask) => Send::Text(self.interpolate(&ask.text, flow, index)?),
            Body::Menu(menu) => Send::Step(vec![self.interpolate(&menu.text, flow, index)?]),
            Body::Media {
                caption: Some(caption),
                ..
            } => Send::Step(vec![self.interpolate(caption, flow, index)?]),
            Body::Template { parameters, .. } => {
                let mut texts = Vec::with_capacity(parameters.len());
                for parameter in parameters {
                    texts.push(self.interpolate(parameter, flow, index)?);
                }
                Send::Step(texts)
            }
            _ => Send::Step(Vec::new()),
        };
        self.bot(send, flow, index);
        Ok(())
    }

    fn bot(&mut self, send: Send, flow: usize, step: usize) {
        self.transcript.push(Entry::Bot { send, flow, step });
    }

    fn event(&mut self, event: Event, flow: usize, step: usize) {
        self.transcript.push(Entry::Event { event, flow, step });
    }

    fn warn(&mut self, flow: usize, step: usize, message: String) {
        self.warnings.push(Warning {
            at: Some((flow, step)),
            message,
        });
    }

    fn save(&mut self, var: &str, value: Scalar, flow: usize, step: usize) {
        self.variables.insert(var.to_owned(), value.clone());
        self.event(
            Event::Save {
                var: var.to_owned(),
                value,
            },
            flow,
            step,
        );
    }

    fn take(&mut self, flow: usize, from: usize, to: Target, kind: EdgeKind) {
        self.transitions.push(Transition {
            flow,
            from,
            to: match to {
                Target::Step(step) => Some(step),
                Target::End => None,
            },
            to_flow: None,
            kind,
        });
    }

    fn last_path(&self) -> (usize, usize) {
        self.path
            .last()
            .map_or((self.flow, 0), |&(f, s)| (f as usize, s as usize))
    }

    /// The value of a variable as conditions and placeholders read it (built-ins included).
    fn read(&self, name: &str) -> Option<Scalar> {
        match name {
            "contact_name" => Some(Scalar::String(self.contact_name.clone())),
            "contact_phone" => Some(Scalar::String(self.contact_phone.clone())),
            "flow_id" => Some(Scalar::String(self.set.flows()[self.flow].id.to_owned())),
            "last_message" => Some(Scalar::String(self.last_message.clone())),
            _ => self.variables.get(name).cloned(),
        }
    }

    /// Appends the text of variable `name` to `out`; false when it is unset or null (`None`:
    /// unset, `Some(())`: null), so the caller can warn. No copy of the value is made.
    fn push_value(&self, name: &str, out: &mut String) -> Result<(), Option<()>> {
        let text = match name {
            "contact_name" => &self.contact_name,
            "contact_phone" => &self.contact_phone,
            "flow_id" => self.set.flows()[self.flow].id,
            "last_message" => &self.last_message,
            _ => match self.variables.get(name) {
                Some(Scalar::String(text)) => text,
                Some(Scalar::Null) => return Err(Some(())),
                Some(other) => {
                    out.push_str(&other.display());
                    return Ok(());
                }
                None => return Err(None),
            },
        };
        out.push_str(text);
        Ok(())
    }

    /// Interpolates a text's placeholders (runtime §5), found once when the set was compiled.
    fn interpolate(&mut self, text: &Text<'_>, flow: usize, step: usize) -> Result<String, Halt> {
        let raw = text.text;
        let out = if text.holes.is_empty() {
            raw.to_owned()
        } else {
            let mut out = String::with_capacity(raw.len() + 16);
            let mut copied = 0;
            for hole in &text.holes {
                out.push_str(&raw[copied..hole.start]);
                copied = hole.end;
                match self.push_value(hole.name, &mut out) {
                    Ok(()) => {}
                    Err(Some(())) => self.warn(
                        flow,
                        step,
                        format!("{{{{{}}}}} is null, so it reads as \"\"", hole.name),
                    ),
                    Err(None) => self.warn(
                        flow,
                        step,
                        format!("{{{{{}}}}} is unset, so it reads as \"\"", hole.name),
                    ),
                }
                if out.len() > MAX_INTERPOLATED_CHARS * 4 {
                    break;
                }
            }
            out.push_str(&raw[copied..]);
            out
        };
        if out.len() > MAX_INTERPOLATED_CHARS && out.chars().count() > MAX_INTERPOLATED_CHARS {
            return Err(Halt::Stop(error(
                flow,
                step,
                format!(
                    "a text of this step is longer than {MAX_INTERPOLATED_CHARS} characters after interpolation"
                ),
            )));
        }
        Ok(out)
    }

    /// Interpolates every string inside an `action.args` value (object keys are not).
    fn interpolate_arg(
        &mut self,
        value: &Arg<'_>,
        flow: usize,
        step: usize,
    ) -> Result<Value, Halt> {
        Ok(match value {
            Arg::Text(text) => Value::String(self.interpolate(text, flow, step)?),
            Arg::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    out.push(self.interpolate_arg(item, flow, step)?);
                }
                Value::Array(out)
            }
            Arg::Object(members) => {
                let mut out = Map::with_capacity(members.len());
                for (key, item) in members {
                    out.insert((*key).to_owned(), self.interpolate_arg(item, flow, step)?);
                }
                Value::Object(out)
            }
            Arg::Scalar(other) => (*other).clone(),
        })
    }

    /// Whether a condition holds (runtime §6).
    fn holds(&mut self, condition: &Cond<'_>, flow: usize, step: usize) -> Result<bool, Halt> {
        Ok(match condition {
            Cond::All(all) => {
                for child in all {
                    if !self.holds(child, flow, step)? {
                        return Ok(false);
                    }
                }
                true
            }
            Cond::Any(any) => {
                for child in any {
                    if self.holds(child, flow, step)? {
                        return Ok(true);
                    }
                }
                false
            }
            Cond::Not(inner) => !self.holds(inner, flow, step)?,
            Cond::Leaf(leaf) => {
                let value = match self.read(leaf.var) {
                    None | Some(Scalar::Null) => {
                        return Ok(match &leaf.op {
                            Op::Eq(value) => *value == Literal::Null,
                            Op::Ne(value) => *value != Literal::Null,
                            _ => false,
                        });
                    }
                    Some(value) => value,
                };
                match (&leaf.op, &value) {
                    (Op::Eq(expected), _) => value.eq_literal(*expected),
                    (Op::Ne(expected), _) => !value.eq_literal(*expected),
                    (Op::In(values), _) => values.iter().any(|v| value.eq_literal(*v)),
                    (Op::Lt(n), Scalar::Number(x)) => x < n,
                    (Op::Lte(n), Scalar::Number(x)) => x <= n,
                    (Op::Gt(n), Scalar::Number(x)) => x > n,
                    (Op::Gte(n), Scalar::Number(x)) => x >= n,
                    (Op::Contains(_, needle), Scalar::String(s)) => {
                        normalize(s).contains(needle.as_str())
                    }
                    (Op::StartsWith(_, prefix), Scalar::String(s)) => {
                        normalize(s).starts_with(prefix.as_str())
                    }
                    (Op::Matches(pattern), Scalar::String(s)) => {
                        match &self.set.patterns[pattern.index] {
                            Ok(pattern) => match pattern.is_match(s, &mut self.match_work) {
                                Some(found) => found,
                                None => return Err(Halt::Stop(error(flow, step, work_message()))),
                            },
                            Err(problem) => {
                                return Err(Halt::Stop(error(flow, step, problem.to_string())));
                            }
                        }
                    }
                    (Op::Exists, _) => true,
                    _ => false,
                }
            }
        })
    }

    /// The outcome so far.
    pub fn outcome(&self) -> Outcome {
        if let Some(stop) = &self.stop {
            return Outcome {
                kind: stop.kind,
                at: stop.at,
                queue: stop.queue.clone(),
                message: stop.message.clone(),
            };
        }
        Outcome {
            kind: OutcomeKind::Waiting,
            at: self.waiting.map(|w| (w.flow, w.step)),
            queue: None,
            message: None,
        }
    }

    /// The transitions taken, in order.
    pub fn transitions(&self) -> &[Transition] {
        &self.transitions
    }

    /// The steps executed, as (flow, step) indices in set order.
    pub fn path(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.path.iter().map(|&(f, s)| (f as usize, s as usize))
    }

    /// The variables (built-ins excluded).
    pub fn variables(&self) -> &BTreeMap<String, Scalar> {
        &self.variables
    }

    /// The virtual clock, in seconds.
    pub fn clock(&self) -> u64 {
        self.clock
    }

    /// The set this conversation runs.
    pub fn set(&self) -> &'s FlowSet<'s> {
        self.set
    }

    /// How many replies arrived after the conversation stopped.
    pub fn leftover(&self) -> usize {
        self.leftover
    }

    /// The warnings so far, with the left-over count last.
    pub fn warnings(&self) -> Vec<Warning> {
        let mut warnings = self.warnings.clone();
        if self.leftover > 0 {
            let replies = if self.leftover == 1 {
                "reply was"
            } else {
                "replies were"
            };
            warnings.push(Warning {
                at: None,
                message: format!(
                    "{} {replies} left over after the conversation stopped ({})",
                    self.leftover,
                    self.outcome().kind.as_str()
                ),
            });
        }
        warnings
    }

    /// What the bot sent and did since transcript entry `from`, as the result's JSON entries.
    pub fn transcript_json(&self, from: usize) -> Vec<Value> {
        self.transcript[from.min(self.transcript.len())..]
            .iter()
            .map(|entry| self.entry_json(entry))
            .collect()
    }

    /// How many transcript entries there are.
    pub fn transcript_len(&self) -> usize {
        self.transcript.len()
    }

    fn ids(&self, flow: usize, step: usize) -> (&'s str, &'s str) {
        let f = &self.set.flows()[flow];
        (f.id, f.steps[step].id)
    }

    fn entry_json(&self, entry: &Entry) -> Value {
        match entry {
            Entry::User(Reply::Text(text)) => json!({ "user": { "text": text } }),
            Entry::User(Reply::Tap(id)) => json!({ "user": { "tap": id } }),
            Entry::Bot { send, flow, step } => {
                let (flow_id, step_id) = self.ids(*flow, *step);
                json!({ "bot": self.send_json(send, *flow, *step), "flow": flow_id, "step": step_id })
            }
            Entry::Event { event, flow, step } => {
                let (flow_id, step_id) = self.ids(*flow, *step);
                let mut object = match event {
                    Event::Retry => json!({ "event": "retry" }),
                    Event::Save { var, value } => {
                        json!({ "event": "save", "var": var, "value": value.to_json() })
                    }
                    Event::Action { args, result } => {
                        let handler = match &self.set.step(*flow, *step).body {
                            Body::Action { handler, .. } => *handler,
                            _ => "",
                        };
                        let mut object =
                            json!({ "event": "action", "handler": handler, "args": args });
                        if let Some(result) = result {
                            object["result"] = result.to_json();
                        }
                        object
                    }
                    Event::Delay => {
                        let (seconds, typing) = match &self.set.step(*flow, *step).body {
                            Body::Delay {
                                seconds, typing, ..
                            } => (*seconds, *typing),
                            _ => (0, false),
                        };
                        json!({ "event": "delay", "seconds": seconds, "typing": typing })
                    }
                    Event::Call { to } => {
                        json!({ "event": "call", "to": self.set.flows()[*to].id })
                    }
                    Event::Return { to } => {
                        json!({ "event": "return", "to": self.set.flows()[*to].id })
                    }
                };
                object["flow"] = Value::from(flow_id);
                object["step"] = Value::from(step_id);
                object
            }
        }
    }

    fn send_json(&self, send: &Send, flow: usize, step: usize) -> Value {
        let texts = match send {
            Send::Text(text) => return json!({ "type": "text", "text": text }),
            Send::Step(texts) => texts,
        };
        let first = texts.first().cloned().unwrap_or_default();
        let mut object = Map::new();
        let optional = |object: &mut Map<String, Value>, key: &str, value: Option<&str>| {
            if let Some(value) = value {
                object.insert(key.to_owned(), Value::from(value));
            }
        };
        let step = self.set.step(flow, step);
        match &step.body {
            Body::Menu(menu) if step.kind == StepKind::List => {
                object.insert("type".into(), "list".into());
                object.insert("text".into(), first.into());
                object.insert("button".into(), menu.button.unwrap_or("").into());
                object.insert("sections".into(), sections_json(menu));
                optional(&mut object, "header", menu.header);
                optional(&mut object, "footer", menu.footer);
            }
            Body::Menu(menu) => {
                object.insert("type".into(), "buttons".into());
                object.insert("text".into(), first.into());
                object.insert("buttons".into(), items_json(&menu.items));
                optional(&mut object, "header", menu.header);
                optional(&mut object, "footer", menu.footer);
            }
            Body::Media {
                media,
                url,
                filename,
                ..
            } => {
                object.insert("type".into(), "media".into());
                object.insert("media".into(), (*media).into());
                object.insert("url".into(), (*url).into());
                if let Some(caption) = texts.first() {
                    object.insert("caption".into(), caption.as_str().into());
                }
                optional(&mut object, "filename", *filename);
            }
            Body::Template { name, language, .. } => {
                object.insert("type".into(), "template".into());
                object.insert("name".into(), (*name).into());
                object.insert("language".into(), (*language).into());
                object.insert(
                    "parameters".into(),
                    texts.iter().map(|t| Value::from(t.as_str())).collect(),
                );
            }
            Body::Location {
                latitude,
                longitude,
                name,
                address,
            } => {
                object.insert("type".into(), "location".into());
                object.insert("latitude".into(), (*latitude).clone());
                object.insert("longitude".into(), (*longitude).clone());
                optional(&mut object, "name", *name);
                optional(&mut object, "address", *address);
            }
            _ => {
                object.insert("type".into(), "text".into());
                object.insert("text".into(), first.into());
            }
        }
        Value::Object(object)
    }

    /// The result of section 8 (without `valid` and `issues`): outcome, transcript, path,
    /// variables, clock and warnings.
    pub fn result_json(&self) -> Map<String, Value> {
        let mut result = Map::new();
        result.insert("outcome".into(), self.outcome().to_json(self.set));
        result.insert("transcript".into(), Value::Array(self.transcript_json(0)));
        let path = self
            .path()
            .map(|(flow, step)| {
                let (flow, step) = self.ids(flow, step);
                json!({ "flow": flow, "step": step })
            })
            .collect();
        result.insert("path".into(), Value::Array(path));
        let variables = self
            .variables
            .iter()
            .map(|(name, value)| (name.clone(), value.to_json()))
            .collect();
        result.insert("variables".into(), Value::Object(variables));
        result.insert("clock".into(), self.clock.into());
        let warnings = self
            .warnings()
            .iter()
            .map(|warning| warning.to_json(self.set))
            .collect();
        result.insert("warnings".into(), Value::Array(warnings));
        result
    }
}

fn items_json(items: &[Item<'_>]) -> Value {
    items
        .iter()
        .map(|item| json!({ "id": item.id, "title": item.title }))
        .collect()
}

/// A list's sections as the send carries them: each section's title, and each row's id, title
/// and description (never its `next`).
fn sections_json(menu: &Menu<'_>) -> Value {
    menu.sections
        .iter()
        .map(|section| {
            let mut out = Map::new();
            if let Some(title) = section.title {
                out.insert("title".into(), title.into());
            }
            let rows = menu.items.get(section.rows.clone()).unwrap_or(&[]);
            let rows = rows
                .iter()
                .map(|row| {
                    let mut r = Map::new();
                    r.insert("id".into(), row.id.into());
                    r.insert("title".into(), row.title.into());
                    if let Some(description) = row.description {
                        r.insert("description".into(), description.into());
                    }
                    Value::Object(r)
                })
                .collect();
            out.insert("rows".into(), Value::Array(rows));
            Value::Object(out)
        })
        .collect()
}

/// The item a reply picks: a tap by id, a text by normalized title (runtime §3); `titles` are
/// the items' titles normalized.
fn pick<'i, 'a>(
    items: &'i [Item<'a>],
    titles: &[String],
    reply: &Reply,
) -> Option<(usize, &'i Item<'a>)> {
    match reply {
        Reply::Tap(id) => items.iter().enumerate().find(|(_, item)| item.id == *id),
        Reply::Text(text) => {
            let text = normalize(text);
            let position = titles.iter().position(|title| *title == text)?;
            items.get(position).map(|item| (position, item))
        }
    }
}

fn error(flow: usize, step: usize, message: String) -> Stop {
    Stop {
        kind: OutcomeKind::Error,
        at: Some((flow, step)),
        queue: None,
        message: Some(message),
    }
}

fn work_message() -> String {
    "matching a pattern took more work than a conversation is allowed".to_owned()
}

/// Where a conversation stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The kind.
    pub kind: OutcomeKind,
    /// Where it stopped or waits (flow, step), except for `no-flow`.
    pub at: Option<(usize, usize)>,
    /// For a handoff: its queue (`Some(None)` when it has none).
    pub queue: Option<Option<String>>,
    /// A sentence for a loop, an error or a failed handler.
    pub message: Option<String>,
}

impl Outcome {
    /// The JSON of the result's `outcome`.
    pub fn to_json(&self, set: &FlowSet<'_>) -> Value {
        let mut object = Map::new();
        object.insert("kind".into(), self.kind.as_str().into());
        if let Some((flow, step)) = self.at {
            let f = &set.flows()[flow];
            object.insert("flow".into(), f.id.into());
            object.insert("step".into(), f.steps[step].id.into());
        }
        if let Some(queue) = &self.queue {
            object.insert(
                "queue".into(),
                queue.as_deref().map_or(Value::Null, Value::from),
            );
        }
        if let Some(message) = &self.message {
            object.insert("message".into(), message.as_str().into());
        }
        Value::Object(object)
    }
}

impl Warning {
    /// The JSON of a result's warning.
    pub fn to_json(&self, set: &FlowSet<'_>) -> Value {
        let mut object = Map::new();
        if let Some((flow, step)) = self.at {
            let f = &set.flows()[flow];
            object.insert("flow".into(), f.id.into());
            object.insert("step".into(), f.steps[step].id.into());
        }
        object.insert("message".into(), self.message.as_str().into());
        Value::Object(object)
    }
}
