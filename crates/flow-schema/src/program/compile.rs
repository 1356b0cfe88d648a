//! Compiling documents into a [`Program`]: one pass over each step's JSON, then the targets
//! resolved and the edges derived from the compiled steps.
//!
//! Each step's object is read in one pass over its keys ([`Key::parse`] tells them apart by
//! length and first byte), not a map search per key: on large sets compiling is bound by
//! memory traffic, and every search of a JSON map touches the keys' heap strings again.

use rustc_hash::FxHashMap;
use serde_json::{Map, Value};

use super::{
    Arg, Ask, Body, Case, Cond, Declaration, Edge, EdgeKind, Effect, Flow, Item, Keyword, Leaf,
    Literal, Menu, Op, PatternRef, Program, Section, SetValue, Step, Target, Text, Trigger,
};
use crate::limits::DEFAULT_RETRIES;
use crate::matching::normalize;
use crate::model::{InputKind, MatchMode, StepKind};

/// A target named by a step id, resolved once the flow's ids are known: `PENDING | n` is the
/// `n`th name of [`FlowCompiler::pending`].
const PENDING: usize = 1 << (usize::BITS - 1);

/// Compiles the documents of one set in order, one at a time (so a caller can use each flow
/// while its JSON is still in cache), then makes the [`Program`].
#[derive(Debug)]
pub struct Compiler<'a> {
    /// The first document with each flow id.
    by_id: FxHashMap<&'a str, usize>,
    /// Each document's flow id and first step's id.
    heads: Vec<(&'a str, Option<&'a str>)>,
    patterns: Vec<PatternRef<'a>>,
    /// The index of the next flow.
    next: usize,
}

impl<'a> Compiler<'a> {
    /// A compiler for the set `documents` (only their ids are read here).
    pub fn new(documents: &[&'a Value]) -> Self {
        let mut by_id =
            FxHashMap::with_capacity_and_hasher(documents.len(), rustc_hash::FxBuildHasher);
        let mut heads = Vec::with_capacity(documents.len());
        for (index, document) in documents.iter().enumerate() {
            let id = str_at(document, "id");
            by_id.entry(id).or_insert(index);
            let first = array(document.get("steps")).first();
            heads.push((id, first.map(|step| str_at(step, "id"))));
        }
        Self {
            by_id,
            heads,
            patterns: Vec::new(),
            next: 0,
        }
    }

    /// The index of the first flow of the set with this id.
    pub fn flow_index(&self, id: &str) -> Option<usize> {
        self.by_id.get(id).copied()
    }

    /// The id of flow `index` of the set (before it is compiled).
    pub fn flow_id(&self, index: usize) -> &'a str {
        self.heads.get(index).map_or("", |h| h.0)
    }

    /// The id of the first step of flow `index` (where a `call` edge leads), when it has one.
    pub fn entry_step(&self, index: usize) -> Option<&'a str> {
        self.heads.get(index).and_then(|h| h.1)
    }

    /// Compiles the next document of the set (documents must come in set order).
    pub fn flow(&mut self, document: &'a Value) -> Flow<'a> {
        let index = self.next;
        self.next += 1;
        let raw_steps = document
            .get("steps")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        let mut flow = FlowCompiler {
            compiler: self,
            ids: FxHashMap::with_capacity_and_hasher(raw_steps.len(), rustc_hash::FxBuildHasher),
            pending: Vec::new(),
            guards: Vec::new(),
        };
        let count = raw_steps.len();
        let mut steps: Vec<Step<'a>> = Vec::with_capacity(count);
        for (position, raw) in raw_steps.iter().enumerate() {
            let step = flow.step(raw, position, count);
            flow.ids.entry(step.id).or_insert(position);
            steps.push(step);
        }
        // Most steps have one or two edges.
        let mut edges = Vec::with_capacity(count * 2);
        for step in &mut steps {
            flow.resolve(step);
            let start = edges.len();
            flow.edges(step, &mut edges);
            #[expect(
                clippy::cast_possible_truncation,
                reason = "at most 500 steps of at most 21 edges each in a valid document"
            )]
            let range = start as u32..edges.len() as u32;
            step.edges = range;
        }
        let falls_off = edges.iter().any(|e: &Edge<'_>| e.to == Target::End);
        let trigger = document.get("trigger").map(trigger);
        let entry = index == 0
            || trigger
                .as_ref()
                .is_some_and(|t| t.fallback || !t.keywords.is_empty());
        Flow {
            id: str_at(document, "id"),
            index,
            entry,
            steps,
            edges,
            declarations: declarations(document),
            trigger,
            falls_off,
        }
    }

    /// The program of the flows compiled, in order.
    pub fn finish(self, flows: Vec<Flow<'a>>) -> Program<'a> {
        Program {
            flows,
            patterns: self.patterns,
        }
    }

    fn pattern(&mut self, text: &'a str, whole: bool) -> PatternRef<'a> {
        let pattern = PatternRef {
            text,
            index: self.patterns.len(),
            whole,
        };
        self.patterns.push(pattern);
        pattern
    }
}

/// The state of compiling one flow.
struct FlowCompiler<'c, 'a> {
    compiler: &'c mut Compiler<'a>,
    /// The first step with each id.
    ids: FxHashMap<&'a str, usize>,
    /// Step ids named as targets before every id was known.
    pending: Vec<&'a str>,
    /// Reused while computing a case's guards.
    guards: Vec<&'a str>,
}

impl<'a> FlowCompiler<'_, 'a> {
    /// A target named `name` (resolved later by [`FlowCompiler::resolve`]).
    fn named(&mut self, name: Option<&'a Value>) -> Option<Target> {
        let name = name?.as_str()?;
        self.pending.push(name);
        Some(Target::Step(PENDING | (self.pending.len() - 1)))
    }

    fn real(&self, target: Target) -> Target {
        match target {
            Target::Step(n) if n & PENDING != 0 => self
                .pending
                .get(n & !PENDING)
                .and_then(|name| self.ids.get(name))
                .map_or(Target::End, |&i| Target::Step(i)),
            other => other,
        }
    }

    /// Resolves every target of a step named by id.
    fn resolve(&self, step: &mut Step<'a>) {
        step.successor = self.real(step.successor);
        match &mut step.body {
            Body::Menu(menu) => {
                for item in &mut menu.items {
                    item.target = self.real(item.target);
                }
            }
            Body::Ask(ask) => ask.on_fail = ask.on_fail.map(|t| self.real(t)),
            Body::Branch { cases, default } => {
                for case in cases {
                    case.target = self.real(case.target);
                }
                *default = self.real(*default);
            }
            _ => {}
        }
    }

    fn step(&mut self, raw: &'a Value, position: usize, count: usize) -> Step<'a> {
        let fields = gather(raw);
        let get = |key: Key| fields[key as usize];
        let text = |key: Key| get(key).and_then(Value::as_str);
        let following = if position + 1 < count {
            Target::Step(position + 1)
        } else {
            Target::End
        };
        let successor = self.named(get(Key::Next)).unwrap_or(following);
        let kind = text(Key::Kind)
            .and_then(StepKind::parse)
            .unwrap_or(StepKind::Message);
        let interpolated = |key: Key| text(key).map(Text::new);
        let body = match kind {
            StepKind::Message => Body::Message {
                text: Text::new(text(Key::Text).unwrap_or("")),
            },
            StepKind::Media => Body::Media {
                media: text(Key::Media).unwrap_or(""),
                url: text(Key::Url).unwrap_or(""),
                caption: interpolated(Key::Caption),
                filename: text(Key::Filename),
            },
            StepKind::Buttons | StepKind::List => {
                let mut items = Vec::new();
                let mut sections = Vec::new();
                let push = |this: &mut Self, items: &mut Vec<Item<'a>>, item: &'a Value| {
                    let inner = Inner::of(item);
                    items.push(Item {
                        id: inner.id.and_then(Value::as_str).unwrap_or(""),
                        title: inner.title.and_then(Value::as_str).unwrap_or(""),
                        description: inner.description.and_then(Value::as_str),
                        target: this.named(inner.next).unwrap_or(successor),
                    });
                };
                if kind == StepKind::Buttons {
                    for button in array(get(Key::Buttons)) {
                        push(self, &mut items, button);
                    }
                } else {
                    for section in array(get(Key::Sections)) {
                        let inner = Inner::of(section);
                        let start = items.len();
                        for row in array(inner.rows) {
                            push(self, &mut items, row);
                        }
                        sections.push(Section {
                            title: inner.title.and_then(Value::as_str),
                            rows: start..items.len(),
                        });
                    }
                }
                Body::Menu(Box::new(Menu {
                    text: Text::new(text(Key::Text).unwrap_or("")),
                    items,
                    sections,
                    button: text(Key::Button),
                    header: text(Key::Header),
                    footer: text(Key::Footer),
                    save: text(Key::Save),
                }))
            }
            StepKind::Template => Body::Template {
                name: text(Key::Name).unwrap_or(""),
                language: text(Key::Language).unwrap_or(""),
                parameters: array(get(Key::Parameters))
                    .iter()
                    .map(|p| Text::new(p.as_str().unwrap_or("")))
                    .collect(),
            },
            StepKind::Location => Body::Location {
                latitude: get(Key::Latitude).unwrap_or(&Value::Null),
                longitude: get(Key::Longitude).unwrap_or(&Value::Null),
                name: text(Key::Name),
                address: text(Key::Address),
            },
            StepKind::Ask => {
                let pattern = text(Key::Pattern).map(|p| self.compiler.pattern(p, true));
                Body::Ask(Box::new(Ask {
                    text: Text::new(text(Key::Text).unwrap_or("")),
                    save: text(Key::Save).unwrap_or(""),
                    input: input_kind(text(Key::Input).unwrap_or("text")),
                    pattern,
                    retries: get(Key::Retries)
                        .and_then(integer)
                        .unwrap_or(DEFAULT_RETRIES),
                    retry_text: interpolated(Key::RetryText),
                    on_fail: self.named(get(Key::OnFail)),
                }))
            }
            StepKind::Branch => {
                let cases = array(get(Key::Cases))
                    .iter()
                    .map(|case| {
                        let inner = Inner::of(case);
                        Case {
                            when: self.condition(inner.when.unwrap_or(&Value::Null)),
                            target: self.named(inner.next).unwrap_or(Target::End),
                        }
                    })
                    .collect();
                Body::Branch {
                    cases,
                    default: self.named(get(Key::Default)).unwrap_or(following),
                }
            }
            StepKind::Set => {
                let raw = get(Key::Value).unwrap_or(&Value::Null);
                let value = match raw {
                    Value::String(s) => SetValue::Text(Text::new(s)),
                    other => SetValue::Literal(Literal::of(other)),
                };
                Body::Set {
                    var: text(Key::Var).unwrap_or(""),
                    value,
                    raw,
                }
            }
            StepKind::Delay => {
                let raw = get(Key::Seconds).unwrap_or(&Value::Null);
                Body::Delay {
                    seconds: integer(raw).unwrap_or(1),
                    typing: get(Key::Typing).and_then(Value::as_bool) == Some(true),
                    raw,
                }
            }
            StepKind::Action => Body::Action {
                handler: text(Key::Handler).unwrap_or(""),
                args: get(Key::Args)
                    .and_then(Value::as_object)
                    .map(members)
                    .unwrap_or_default(),
                save: text(Key::Save),
            },
            StepKind::Subflow => {
                let flow = text(Key::Flow).unwrap_or("");
                Body::Subflow {
                    flow,
                    callee: self.compiler.flow_index(flow),
                }
            }
            StepKind::Handoff | StepKind::End => Body::Closing {
                text: interpolated(Key::Text),
                queue: text(Key::Queue),
            },
        };
        Step {
            id: text(Key::Id).unwrap_or(""),
            kind,
            successor,
            body,
            edges: 0..0,
        }
    }

    fn condition(&mut self, condition: &'a Value) -> Cond<'a> {
        let mut all = None;
        let mut any = None;
        let mut not = None;
        let mut var = None;
        let mut op = None;
        let mut value = None;
        for (key, field) in condition.as_object().into_iter().flatten() {
            let slot = match key.as_str() {
                "all" => &mut all,
                "any" => &mut any,
                "not" => &mut not,
                "var" => &mut var,
                "op" => &mut op,
                "value" => &mut value,
                _ => continue,
            };
            *slot = Some(field);
        }
        if let Some(items) = all {
            return Cond::All(
                array(Some(items))
                    .iter()
                    .map(|c| self.condition(c))
                    .collect(),
            );
        }
        if let Some(items) = any {
            return Cond::Any(
                array(Some(items))
                    .iter()
                    .map(|c| self.condition(c))
                    .collect(),
            );
        }
        if let Some(inner) = not {
            return Cond::Not(Box::new(self.condition(inner)));
        }
        let operand = value.unwrap_or(&Value::Null);
        let number = || operand.as_f64().unwrap_or(0.0);
        let string = || operand.as_str().unwrap_or("");
        let op = match op.and_then(Value::as_str).unwrap_or("") {
            "eq" => Op::Eq(Literal::of(operand)),
            "ne" => Op::Ne(Literal::of(operand)),
            "lt" => Op::Lt(number()),
            "lte" => Op::Lte(number()),
            "gt" => Op::Gt(number()),
            "gte" => Op::Gte(number()),
            "contains" => Op::Contains(string(), normalize(string())),
            "startsWith" => Op::StartsWith(string(), normalize(string())),
            "matches" => Op::Matches(self.compiler.pattern(string(), false)),
            "in" => Op::In(array(Some(operand)).iter().map(Literal::of).collect()),
            _ => Op::Exists,
        };
        Cond::Leaf(Leaf {
            var: var.and_then(Value::as_str).unwrap_or(""),
            op,
            value,
        })
    }

    /// Appends the edges of a compiled step (targets resolved).
    fn edges(&mut self, step: &Step<'a>, out: &mut Vec<Edge<'a>>) {
        let successor = step.successor;
        let mut push = |to: Target, kind: EdgeKind, index: usize, effect: Effect<'a>| {
            out.push(Edge {
                to,
                kind,
                index,
                effect,
                drawn: true,
            });
        };
        let save = |name: Option<&'a str>| name.map_or(Effect::None, Effect::Write);
        match &step.body {
            Body::Menu(menu) => {
                let kind = if step.kind == StepKind::List {
                    EdgeKind::Row
                } else {
                    EdgeKind::Button
                };
                for (i, item) in menu.items.iter().enumerate() {
                    push(item.target, kind, i, save(menu.save));
                }
            }
            Body::Ask(ask) => {
                push(successor, EdgeKind::Next, 0, Effect::Write(ask.save));
                match ask.on_fail {
                    Some(on_fail) => push(on_fail, EdgeKind::RetryExhausted, 0, Effect::None),
                    None => out.push(Edge {
                        to: successor,
                        kind: EdgeKind::Next,
                        index: 0,
                        effect: Effect::None,
                        drawn: false,
                    }),
                }
            }
            Body::Branch { cases, default } => {
                for (i, case) in cases.iter().enumerate() {
                    self.guards.clear();
                    case.when.guards(&mut self.guards);
                    let effect = if self.guards.is_empty() {
                        Effect::None
                    } else {
                        Effect::Guard(self.guards.as_slice().into())
                    };
                    push(case.target, EdgeKind::Case, i, effect);
                }
                push(*default, EdgeKind::Default, 0, Effect::None);
            }
            Body::Set { var, value, .. } => {
                let effect = match value {
                    SetValue::Literal(Literal::Null) => Effect::Clear(var),
                    _ => Effect::Write(var),
                };
                push(successor, EdgeKind::Next, 0, effect);
            }
            Body::Action { save: name, .. } => push(successor, EdgeKind::Next, 0, save(*name)),
            Body::Subflow { callee, .. } => {
                push(successor, EdgeKind::Return, 0, Effect::Return(*callee));
            }
            Body::Closing { .. } => {}
            Body::Message { .. }
            | Body::Media { .. }
            | Body::Template { .. }
            | Body::Location { .. }
            | Body::Delay { .. } => push(successor, EdgeKind::Next, 0, Effect::None),
        }
    }
}

/// The members of an `args` object (or of an object inside it), strings compiled.
fn members(map: &Map<String, Value>) -> Vec<(&str, Arg<'_>)> {
    map.iter()
        .map(|(key, value)| (key.as_str(), arg(value)))
        .collect()
}

fn arg(value: &Value) -> Arg<'_> {
    match value {
        Value::String(text) => Arg::Text(Text::new(text)),
        Value::Array(items) => Arg::Array(items.iter().map(arg).collect()),
        Value::Object(map) => Arg::Object(members(map)),
        scalar => Arg::Scalar(scalar),
    }
}

fn trigger(trigger: &Value) -> Trigger<'_> {
    let mode = match trigger.get("match").and_then(Value::as_str) {
        Some("contains") => MatchMode::Contains,
        Some("startsWith") => MatchMode::StartsWith,
        _ => MatchMode::Exact,
    };
    Trigger {
        keywords: array(trigger.get("keywords"))
            .iter()
            .filter_map(Value::as_str)
            .map(|text| Keyword {
                text,
                normalized: normalize(text),
            })
            .collect(),
        mode,
        fallback: trigger.get("fallback").and_then(Value::as_bool) == Some(true),
    }
}

fn declarations(document: &Value) -> Vec<Declaration<'_>> {
    let Some(declared) = document.get("variables").and_then(Value::as_object) else {
        return Vec::new();
    };
    declared
        .iter()
        .map(|(name, declaration)| Declaration {
            name,
            kind: str_at(declaration, "type"),
            default: declaration.get("default").map(Literal::of),
        })
        .collect()
}

fn str_at<'v>(value: &'v Value, key: &str) -> &'v str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

fn array(value: Option<&Value>) -> &[Value] {
    value.and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// An integer as validation accepts it (`2`, `2.0`, `2e0`).
fn integer(value: &Value) -> Option<u64> {
    value.as_u64().or_else(|| {
        let f = value.as_f64()?;
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "checked: a non-negative whole number"
        )]
        let n = f as u64;
        (f >= 0.0 && f.fract() == 0.0).then_some(n)
    })
}

fn input_kind(name: &str) -> InputKind {
    match name {
        "number" => InputKind::Number,
        "email" => InputKind::Email,
        "phone" => InputKind::Phone,
        "date" => InputKind::Date,
        "yesno" => InputKind::Yesno,
        _ => InputKind::Text,
    }
}

/// The keys compiling reads from a button, a row, a section or a case, gathered in one pass
/// over the object rather than a map search per key.
#[derive(Default)]
struct Inner<'v> {
    id: Option<&'v Value>,
    title: Option<&'v Value>,
    description: Option<&'v Value>,
    next: Option<&'v Value>,
    rows: Option<&'v Value>,
    when: Option<&'v Value>,
}

impl<'v> Inner<'v> {
    fn of(value: &'v Value) -> Self {
        let mut inner = Self::default();
        for (key, value) in value.as_object().into_iter().flatten() {
            let slot = match key.as_str() {
                "id" => &mut inner.id,
                "title" => &mut inner.title,
                "description" => &mut inner.description,
                "next" => &mut inner.next,
                "rows" => &mut inner.rows,
                "when" => &mut inner.when,
                _ => continue,
            };
            *slot = Some(value);
        }
        inner
    }
}

/// The keys of a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Id,
    Kind,
    Next,
    Text,
    Media,
    Url,
    Caption,
    Filename,
    Buttons,
    Sections,
    Button,
    Header,
    Footer,
    Save,
    Name,
    Language,
    Parameters,
    Latitude,
    Longitude,
    Address,
    Input,
    Pattern,
    Retries,
    RetryText,
    OnFail,
    Cases,
    Default,
    Var,
    Value,
    Seconds,
    Typing,
    Handler,
    Args,
    Flow,
    Queue,
}

/// How many [`Key`]s there are.
const KEY_COUNT: usize = 35;

impl Key {
    /// Recognises a key with one comparison: candidates are told apart by length and first
    /// byte (a plain `match` on the strings compares against every arm in turn), then the key
    /// is compared with that candidate's spelling.
    fn parse(key: &str) -> Option<Self> {
        let bytes = key.as_bytes();
        let (spelled, candidate) = match (bytes.len(), *bytes.first()?) {
            (2, b'i') => ("id", Self::Id),
            (3, b'u') => ("url", Self::Url),
            (3, b'v') => ("var", Self::Var),
            (4, b'k') => ("kind", Self::Kind),
            (4, b'n') if bytes.get(1) == Some(&b'e') => ("next", Self::Next),
            (4, b'n') => ("name", Self::Name),
            (4, b't') => ("text", Self::Text),
            (4, b's') => ("save", Self::Save),
            (4, b'f') => ("flow", Self::Flow),
            (4, b'a') => ("args", Self::Args),
            (5, b'm') => ("media", Self::Media),
            (5, b'i') => ("input", Self::Input),
            (5, b'c') => ("cases", Self::Cases),
            (5, b'v') => ("value", Self::Value),
            (5, b'q') => ("queue", Self::Queue),
            (6, b'b') => ("button", Self::Button),
            (6, b'h') => ("header", Self::Header),
            (6, b'f') => ("footer", Self::Footer),
            (6, b'o') => ("onFail", Self::OnFail),
            (6, b't') => ("typing", Self::Typing),
            (7, b'c') => ("caption", Self::Caption),
            (7, b'b') => ("buttons", Self::Buttons),
            (7, b'a') => ("address", Self::Address),
            (7, b'p') => ("pattern", Self::Pattern),
            (7, b'r') => ("retries", Self::Retries),
            (7, b'd') => ("default", Self::Default),
            (7, b's') => ("seconds", Self::Seconds),
            (7, b'h') => ("handler", Self::Handler),
            (8, b'f') => ("filename", Self::Filename),
            (8, b's') => ("sections", Self::Sections),
            (8, b'l') if bytes.get(2) == Some(&b't') => ("latitude", Self::Latitude),
            (8, b'l') => ("language", Self::Language),
            (9, b'l') => ("longitude", Self::Longitude),
            (9, b'r') => ("retryText", Self::RetryText),
            (10, b'p') => ("parameters", Self::Parameters),
            _ => return None,
        };
        (key == spelled).then_some(candidate)
    }
}

/// The values of a step's keys, by [`Key`].
fn gather(step: &Value) -> [Option<&Value>; KEY_COUNT] {
    let mut fields = [None; KEY_COUNT];
    for (key, value) in step.as_object().into_iter().flatten() {
        if let Some(key) = Key::parse(key) {
            fields[key as usize] = Some(value);
        }
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_step_property_is_a_key_and_nothing_else_is() {
        let mut seen = [false; KEY_COUNT];
        for kind in StepKind::ALL {
            for field in kind.fields() {
                let key = Key::parse(field);
                assert!(key.is_some(), "{field} of {kind:?} is not read");
                if let Some(key) = key {
                    seen[key as usize] = true;
                }
            }
        }
        assert!(seen.iter().all(|s| *s), "a key no kind has");
        for other in [
            "",
            "nexts",
            "nam",
            "Next",
            "type",
            "onfail",
            "vars",
            "latitudes",
            "ids",
        ] {
            assert_eq!(Key::parse(other), None, "{other}");
        }
    }
}
