//! The compiled form of a set of flows: steps, successor edges and subflow calls.
//!
//! Compilation walks the JSON directly. It never panics: a reference that does not resolve
//! (impossible in a valid document) is skipped rather than followed.

use rustc_hash::FxHashMap;

use std::borrow::Cow;
use std::ops::Range;

use serde_json::Value;

use crate::graph::EdgeKind;
use crate::text::{condition_summary, push_value_summary};
use crate::vars::Uses;

/// The step kinds, declared once with the document model in `botmesh-flow-schema` (the
/// validator's tables and the JSON Schema come from the same declaration).
pub(crate) use botmesh_flow_schema::StepKind as Kind;

/// The keys read after compiling a step of this kind (labels, variables, lint), at most
/// [`SLOTS`], each a property of the kind. `id`, `kind`, `next`, `default` and `onFail` are
/// only read while compiling.
fn kept(kind: Kind) -> &'static [Key] {
    match kind {
        Kind::Message | Kind::End => &[Key::Text],
        Kind::Media => &[Key::Caption, Key::Filename, Key::Media],
        Kind::Buttons => &[Key::Text, Key::Buttons, Key::Save],
        Kind::List => &[Key::Text, Key::Sections, Key::Save],
        Kind::Template => &[Key::Name, Key::Language, Key::Parameters],
        Kind::Location => &[Key::Name, Key::Address, Key::Latitude, Key::Longitude],
        Kind::Ask => &[Key::Text, Key::Save, Key::Input, Key::Pattern],
        Kind::Branch => &[Key::Cases],
        Kind::Set => &[Key::Var, Key::Value],
        Kind::Delay => &[Key::Seconds, Key::Typing],
        Kind::Action => &[Key::Handler, Key::Save],
        Kind::Subflow => &[Key::Flow],
        Kind::Handoff => &[Key::Text, Key::Queue],
    }
}

/// Steps that wait for the user's answer.
pub(crate) fn waits(kind: Kind) -> bool {
    matches!(kind, Kind::Buttons | Kind::List | Kind::Ask)
}

/// Where an edge leads inside its flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    Step(usize),
    /// The synthetic `(end)` terminal: the path falls off the end of `steps`.
    End,
}

/// Where an edge's label comes from; built into text only when a graph is described (lint
/// never needs it).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Label<'a> {
    /// A button or row title.
    Title(&'a str),
    /// A branch case's condition.
    Condition(&'a Value),
    /// A fixed text.
    Fixed(&'static str),
}

impl<'a> Label<'a> {
    pub(crate) fn text(self) -> Cow<'a, str> {
        match self {
            Self::Title(title) => Cow::Borrowed(title),
            Self::Condition(condition) => Cow::Owned(condition_summary(condition)),
            Self::Fixed(text) => Cow::Borrowed(text),
        }
    }
}

/// One edge inside a flow.
#[derive(Debug, Clone)]
pub(crate) struct LocalEdge<'a> {
    pub(crate) to: Target,
    pub(crate) kind: EdgeKind,
    pub(crate) label: Option<Label<'a>>,
}

/// How many keys a step keeps after compiling (see [`kept`]).
const SLOTS: usize = 4;

/// One step of a compiled flow.
///
/// Kept small (about 70 bytes): the analyzer walks every step several times, and on large sets
/// it is bound by memory traffic. Only the keys read after compiling are kept, in slots chosen
/// by the kind, and the edges live in one vector per flow ([`Flow::edges`]).
#[derive(Debug)]
pub(crate) struct Step<'a> {
    pub(crate) id: &'a str,
    pub(crate) kind: Kind,
    pub(crate) value: &'a Value,
    /// This step's edges: a range of [`Flow::edges`].
    edges: Range<usize>,
    /// The values of `kept(kind)`, in that order.
    slots: [Option<&'a Value>; SLOTS],
}

impl<'a> Step<'a> {
    /// The value of a key of the step; `None` for a key its kind does not keep.
    pub(crate) fn field(&self, key: Key) -> Option<&'a Value> {
        let slot = kept(self.kind).iter().position(|&k| k == key)?;
        self.slots[slot]
    }

    pub(crate) fn str_field(&self, key: Key) -> Option<&'a str> {
        self.field(key).and_then(Value::as_str)
    }

    pub(crate) fn array_field(&self, key: Key) -> &'a [Value] {
        self.field(key)
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }
}

/// The step keys the analyzer reads. They are gathered in one pass over each step's object,
/// and every later lookup is a slot of the [`Step`] instead of a search of the JSON map (on
/// large sets the analyzer is bound by memory traffic).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Key {
    Id,
    Kind,
    Next,
    Text,
    Caption,
    Filename,
    Media,
    Buttons,
    Sections,
    Name,
    Address,
    Latitude,
    Longitude,
    Save,
    Cases,
    Default,
    OnFail,
    Var,
    Value,
    Seconds,
    Typing,
    Handler,
    Flow,
    Queue,
    Parameters,
    Input,
    Pattern,
    Language,
}

/// How many [`Key`]s there are.
const KEY_COUNT: usize = 28;

impl Key {
    /// The key's spelling in documents.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Id => "id",
            Self::Kind => "kind",
            Self::Next => "next",
            Self::Text => "text",
            Self::Caption => "caption",
            Self::Filename => "filename",
            Self::Media => "media",
            Self::Buttons => "buttons",
            Self::Sections => "sections",
            Self::Name => "name",
            Self::Address => "address",
            Self::Latitude => "latitude",
            Self::Longitude => "longitude",
            Self::Save => "save",
            Self::Cases => "cases",
            Self::Default => "default",
            Self::OnFail => "onFail",
            Self::Var => "var",
            Self::Value => "value",
            Self::Seconds => "seconds",
            Self::Typing => "typing",
            Self::Handler => "handler",
            Self::Flow => "flow",
            Self::Queue => "queue",
            Self::Parameters => "parameters",
            Self::Input => "input",
            Self::Pattern => "pattern",
            Self::Language => "language",
        }
    }

    /// Recognises a key with one comparison: candidates are told apart by length and first
    /// byte (a plain `match` on the strings compares against every arm in turn), then the key
    /// is compared with that candidate's spelling as a literal, which compiles to a load or two
    /// instead of a call to `memcmp`.
    fn parse(key: &str) -> Option<Self> {
        let bytes = key.as_bytes();
        let (spelled, candidate) = match (bytes.len(), *bytes.first()?) {
            (2, b'i') => (key == "id", Self::Id),
            (4, b'k') => (key == "kind", Self::Kind),
            (4, b'n') if bytes.get(1) == Some(&b'e') => (key == "next", Self::Next),
            (4, b'n') => (key == "name", Self::Name),
            (4, b't') => (key == "text", Self::Text),
            (7, b'c') => (key == "caption", Self::Caption),
            (8, b'f') => (key == "filename", Self::Filename),
            (5, b'm') => (key == "media", Self::Media),
            (7, b'b') => (key == "buttons", Self::Buttons),
            (8, b's') => (key == "sections", Self::Sections),
            (7, b'a') => (key == "address", Self::Address),
            (8, b'l') if bytes.get(2) == Some(&b't') => (key == "latitude", Self::Latitude),
            (8, b'l') => (key == "language", Self::Language),
            (9, b'l') => (key == "longitude", Self::Longitude),
            (4, b's') => (key == "save", Self::Save),
            (5, b'c') => (key == "cases", Self::Cases),
            (7, b'd') => (key == "default", Self::Default),
            (6, b'o') => (key == "onFail", Self::OnFail),
            (3, b'v') => (key == "var", Self::Var),
            (5, b'v') => (key == "value", Self::Value),
            (7, b's') => (key == "seconds", Self::Seconds),
            (6, b't') => (key == "typing", Self::Typing),
            (7, b'h') => (key == "handler", Self::Handler),
            (4, b'f') => (key == "flow", Self::Flow),
            (5, b'q') => (key == "queue", Self::Queue),
            (10, b'p') => (key == "parameters", Self::Parameters),
            (5, b'i') => (key == "input", Self::Input),
            (7, b'p') => (key == "pattern", Self::Pattern),
            _ => return None,
        };
        spelled.then_some(candidate)
    }
}

fn gather(step: &Value) -> [Option<&Value>; KEY_COUNT] {
    let mut fields = [None; KEY_COUNT];
    if let Some(map) = step.as_object() {
        for (key, value) in map {
            if let Some(key) = Key::parse(key) {
                fields[key as usize] = Some(value);
            }
        }
    }
    fields
}

/// One compiled flow.
#[derive(Debug)]
pub(crate) struct Flow<'a> {
    pub(crate) id: &'a str,
    pub(crate) document: &'a Value,
    pub(crate) steps: Vec<Step<'a>>,
    /// The edges of every step, ordered by step (see [`Flow::edges`]).
    edges: Vec<LocalEdge<'a>>,
    /// True when some step has an edge to [`Target::End`].
    pub(crate) falls_off: bool,
}

impl<'a> Flow<'a> {
    /// How many edges the flow's steps have (`call` edges are not compiled).
    pub(crate) fn edge_count(&self) -> usize {
        self.edges.len()
    }

    /// The edges of step `step`, in button, row or case order.
    pub(crate) fn edges(&self, step: usize) -> &[LocalEdge<'a>] {
        self.steps
            .get(step)
            .and_then(|s| self.edges.get(s.edges.clone()))
            .unwrap_or(&[])
    }
}

/// The flows of a set by id, read from the documents: enough to resolve a call without
/// compiling the called flow.
#[derive(Debug)]
pub(crate) struct Directory<'a> {
    /// The index of the first document with each flow id.
    by_id: FxHashMap<&'a str, usize>,
    /// Each document's flow id (empty when it has none).
    ids: Vec<&'a str>,
    /// Each document's entry step id, when it has a step.
    entries: Vec<Option<&'a str>>,
}

impl<'a> Directory<'a> {
    pub(crate) fn new(documents: &[&'a Value]) -> Self {
        let mut by_id = FxHashMap::with_capacity_and_hasher(documents.len(), Default::default());
        let mut ids = Vec::with_capacity(documents.len());
        let mut entries = Vec::with_capacity(documents.len());
        for (index, document) in documents.iter().enumerate() {
            let id = flow_id(document);
            by_id.entry(id).or_insert(index);
            ids.push(id);
            let first = steps_of(document).first();
            entries.push(first.map(|step| step.get("id").and_then(Value::as_str).unwrap_or("")));
        }
        Self {
            by_id,
            ids,
            entries,
        }
    }

    /// The index of the first flow with this id.
    /// The number of documents.
    pub(crate) fn len(&self) -> usize {
        self.ids.len()
    }

    pub(crate) fn find(&self, id: &str) -> Option<usize> {
        self.by_id.get(id).copied()
    }

    /// The flow a `subflow` step calls, when it is in the set.
    pub(crate) fn callee(&self, step: &Step<'_>) -> Option<usize> {
        if step.kind != Kind::Subflow {
            return None;
        }
        step.str_field(Key::Flow).and_then(|id| self.find(id))
    }

    /// The id of flow `index`.
    pub(crate) fn id(&self, index: usize) -> &'a str {
        self.ids.get(index).copied().unwrap_or("")
    }

    /// The id of the entry step of flow `index`, when it has a step.
    pub(crate) fn entry(&self, index: usize) -> Option<&'a str> {
        self.entries.get(index).copied().flatten()
    }
}

/// A compiled set: the entry document first, then the subflows in order.
#[derive(Debug)]
pub(crate) struct FlowSet<'a> {
    pub(crate) flows: Vec<Flow<'a>>,
    /// The variable uses of each flow (same order as `flows`).
    pub(crate) uses: Vec<Uses<'a>>,
    pub(crate) directory: Directory<'a>,
}

impl<'a> FlowSet<'a> {
    /// Compiles the set, calling `each` with every flow (the set's directory, the flow's
    /// index, the flow and its uses) just after compiling it, while the flow's JSON is still in
    /// cache.
    pub(crate) fn compile_each(
        documents: &[&'a Value],
        mut each: impl FnMut(&Directory<'a>, usize, &Flow<'a>, &Uses<'a>),
    ) -> Self {
        let mut set = Self::new(Directory::new(documents));
        for document in documents {
            set.push(document, &mut each);
        }
        set
    }

    /// An empty set whose flows will be the documents of `directory`, pushed in order.
    pub(crate) fn new(directory: Directory<'a>) -> Self {
        Self {
            flows: Vec::with_capacity(directory.ids.len()),
            uses: Vec::with_capacity(directory.ids.len()),
            directory,
        }
    }

    /// Compiles the next document of the set, then calls `each` as [`FlowSet::compile_each`]
    /// does. Documents must be pushed in the directory's order, all of them, before the set
    /// is linted (flows are looked up by directory index).
    pub(crate) fn push(
        &mut self,
        document: &'a Value,
        each: &mut impl FnMut(&Directory<'a>, usize, &Flow<'a>, &Uses<'a>),
    ) {
        let flow = compile_flow(document);
        let uses = crate::vars::collect(&flow);
        each(&self.directory, self.flows.len(), &flow, &uses);
        self.uses.push(uses);
        self.flows.push(flow);
    }

    /// The flow a `subflow` step calls, when it is in the set.
    pub(crate) fn callee(&self, step: &Step<'_>) -> Option<usize> {
        self.directory.callee(step)
    }
}

fn flow_id(document: &Value) -> &str {
    document.get("id").and_then(Value::as_str).unwrap_or("")
}

fn steps_of(document: &Value) -> &[Value] {
    document
        .get("steps")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The keys of a step that only compiling reads: where its edges go.
struct Jumps<'a> {
    next: Option<&'a Value>,
    default: Option<&'a Value>,
    on_fail: Option<&'a Value>,
}

/// Compiles one flow document: its steps, their edges, and whether a path falls off the end.
pub(crate) fn compile_flow<'a>(document: &'a Value) -> Flow<'a> {
    let id = flow_id(document);
    let raw = steps_of(document);
    let mut index: FxHashMap<&str, usize> =
        FxHashMap::with_capacity_and_hasher(raw.len(), Default::default());
    let mut steps = Vec::with_capacity(raw.len());
    let mut jumps = Vec::with_capacity(raw.len());
    for (position, value) in raw.iter().enumerate() {
        let fields = gather(value);
        let step_id = fields[Key::Id as usize]
            .and_then(Value::as_str)
            .unwrap_or("");
        index.entry(step_id).or_insert(position);
        let kind = fields[Key::Kind as usize]
            .and_then(Value::as_str)
            .and_then(Kind::parse)
            .unwrap_or(Kind::Message);
        let mut slots = [None; SLOTS];
        for (slot, key) in slots.iter_mut().zip(kept(kind)) {
            *slot = fields[*key as usize];
        }
        steps.push(Step {
            id: step_id,
            kind,
            value,
            edges: 0..0,
            slots,
        });
        jumps.push(Jumps {
            next: fields[Key::Next as usize],
            default: fields[Key::Default as usize],
            on_fail: fields[Key::OnFail as usize],
        });
    }
    let count = steps.len();
    let resolve = |name: Option<&Value>| -> Option<Target> {
        let name = name?.as_str()?;
        index.get(name).map(|&i| Target::Step(i))
    };
    // Most steps have one or two edges.
    let mut edges = Vec::with_capacity(count * 2);
    for (position, (step, jump)) in steps.iter_mut().zip(&jumps).enumerate() {
        let following = if position + 1 < count {
            Target::Step(position + 1)
        } else {
            Target::End
        };
        let successor = match jump.next {
            Some(next) => resolve(Some(next)),
            None => Some(following),
        };
        let start = edges.len();
        let mut push = |to: Option<Target>, kind: EdgeKind, label: Option<Label<'a>>| {
            if let Some(to) = to {
                edges.push(LocalEdge { to, kind, label });
            }
        };
        match step.kind {
            Kind::Buttons => {
                for button in step.array_field(Key::Buttons) {
                    let button = Inner::of(button);
                    let to = match button.next {
                        Some(next) => resolve(Some(next)),
                        None => successor,
                    };
                    push(to, EdgeKind::Button, button.title());
                }
            }
            Kind::List => {
                for section in step.array_field(Key::Sections) {
                    let rows = Inner::of(section).rows.and_then(Value::as_array);
                    for row in rows.map_or(&[][..], Vec::as_slice) {
                        let row = Inner::of(row);
                        let to = match row.next {
                            Some(next) => resolve(Some(next)),
                            None => successor,
                        };
                        push(to, EdgeKind::Row, row.title());
                    }
                }
            }
            Kind::Branch => {
                for case in step.array_field(Key::Cases) {
                    let case = Inner::of(case);
                    let label = case.when.map(Label::Condition);
                    push(resolve(case.next), EdgeKind::Case, label);
                }
                let to = match jump.default {
                    Some(default) => resolve(Some(default)),
                    None => Some(following),
                };
                push(to, EdgeKind::Default, Some(Label::Fixed("default")));
            }
            Kind::Ask => {
                push(successor, EdgeKind::Next, None);
                if jump.on_fail.is_some() {
                    push(
                        resolve(jump.on_fail),
                        EdgeKind::RetryExhausted,
                        Some(Label::Fixed("retries exhausted")),
                    );
                }
            }
            Kind::Subflow => push(successor, EdgeKind::Return, None),
            Kind::Handoff | Kind::End => {}
            _ => push(successor, EdgeKind::Next, None),
        }
        step.edges = start..edges.len();
    }
    let falls_off = edges.iter().any(|e| e.to == Target::End);
    Flow {
        id,
        document,
        steps,
        edges,
        falls_off,
    }
}

/// The keys compiling reads from a button, a row, a section or a case, gathered in one pass
/// over the object (comparisons with literals) rather than a map search per key.
#[derive(Default)]
struct Inner<'v> {
    next: Option<&'v Value>,
    title: Option<&'v Value>,
    when: Option<&'v Value>,
    rows: Option<&'v Value>,
}

impl<'v> Inner<'v> {
    fn of(value: &'v Value) -> Self {
        let mut inner = Self::default();
        if let Some(map) = value.as_object() {
            for (key, value) in map {
                match key.as_str() {
                    "next" => inner.next = Some(value),
                    "title" => inner.title = Some(value),
                    "when" => inner.when = Some(value),
                    "rows" => inner.rows = Some(value),
                    _ => {}
                }
            }
        }
        inner
    }

    fn title(&self) -> Option<Label<'v>> {
        self.title.and_then(Value::as_str).map(Label::Title)
    }
}

/// The node label of a step: its main text, or a short description for steps without one.
pub(crate) fn step_label<'a>(step: &Step<'a>) -> Cow<'a, str> {
    let text = |key: Key| step.str_field(key).map(Cow::Borrowed);
    let label = match step.kind {
        Kind::Message => text(Key::Text),
        // What the answer must be and where it goes, first (so a shortened label keeps them):
        // `date → birthday: When were you born?`, `text /^[0-9]{5}$/ → zip: Your ZIP code?`.
        Kind::Ask => {
            let mut label = String::from(step.str_field(Key::Input).unwrap_or("text"));
            if let Some(pattern) = step.str_field(Key::Pattern) {
                label.push_str(" /");
                label.push_str(pattern);
                label.push('/');
            }
            label.push_str(" → ");
            label.push_str(step.str_field(Key::Save).unwrap_or("?"));
            if let Some(question) = step.str_field(Key::Text) {
                label.push_str(": ");
                label.push_str(question);
            }
            Some(Cow::Owned(label))
        }
        // A menu that saves the pick shows where, as an action shows its result: `Size? → size`.
        Kind::Buttons | Kind::List => text(Key::Text).map(|t| match step.str_field(Key::Save) {
            Some(save) => Cow::Owned(format!("{t} → {save}")),
            None => t,
        }),
        Kind::Media => text(Key::Caption)
            .or_else(|| text(Key::Filename))
            .or_else(|| text(Key::Media)),
        // The name, its language, then its parameters: `order_update (pt_BR): {{name}}, 3`.
        Kind::Template => text(Key::Name).map(|name| {
            let mut label = name.into_owned();
            if let Some(language) = step.str_field(Key::Language) {
                label.push_str(" (");
                label.push_str(language);
                label.push(')');
            }
            let parameters = step.array_field(Key::Parameters);
            for (i, parameter) in parameters.iter().enumerate() {
                label.push_str(if i == 0 { ": " } else { ", " });
                match parameter.as_str() {
                    Some(text) => label.push_str(text),
                    None => push_value_summary(&mut label, parameter),
                }
            }
            Cow::Owned(label)
        }),
        Kind::Location => text(Key::Name).or_else(|| text(Key::Address)).or_else(|| {
            let lat = step.field(Key::Latitude)?;
            let lon = step.field(Key::Longitude)?;
            Some(Cow::Owned(format!("{lat}, {lon}")))
        }),
        Kind::Branch => None,
        Kind::Set => {
            let var = step.str_field(Key::Var).unwrap_or("?");
            let value = step.field(Key::Value).unwrap_or(&Value::Null);
            let mut label = String::with_capacity(var.len() + 16);
            label.push_str(var);
            label.push_str(" = ");
            push_value_summary(&mut label, value);
            Some(Cow::Owned(label))
        }
        Kind::Delay => step.field(Key::Seconds).map(|s| {
            let typing = step.field(Key::Typing).and_then(Value::as_bool) == Some(true);
            Cow::Owned(if typing {
                format!("{s} s, typing")
            } else {
                format!("{s} s")
            })
        }),
        Kind::Action => text(Key::Handler).map(|h| match step.str_field(Key::Save) {
            Some(save) => Cow::Owned(format!("{h} → {save}")),
            None => h,
        }),
        Kind::Subflow => text(Key::Flow),
        Kind::Handoff => text(Key::Text).or_else(|| text(Key::Queue)),
        Kind::End => text(Key::Text),
    };
    label.unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_parse_back_and_keep_the_keys_their_labels_read() {
        for &kind in Kind::ALL {
            assert_eq!(Kind::parse(kind.as_str()), Some(kind));
        }
        let step = serde_json::json!({"id": "s", "kind": "location", "latitude": 1, "longitude": 2, "text": "x"});
        let document = serde_json::json!({"id": "f", "steps": [step]});
        let flow = compile_flow(&document);
        assert_eq!(step_label(&flow.steps[0]), "1, 2");
        // `text` is not a location key: it is not kept.
        assert_eq!(flow.steps[0].field(Key::Text), None);
        // An ask says what it accepts and where it saves; a template its language and
        // parameters.
        let document = serde_json::json!({"id": "f", "steps": [
            {"id": "a", "kind": "ask", "text": "Born?", "save": "fecha", "input": "date"},
            {"id": "b", "kind": "ask", "text": "ZIP?", "save": "zip", "pattern": "^[0-9]{5}$"},
            {"id": "c", "kind": "ask", "text": "Name?", "save": "name"},
            {"id": "d", "kind": "template", "name": "promo", "language": "es",
             "parameters": ["{{name}}", "10%"]},
            {"id": "e", "kind": "template", "name": "hello", "language": "en"},
            {"id": "g", "kind": "action", "handler": "crm.find", "save": "customer"}
        ]});
        let flow = compile_flow(&document);
        let labels: Vec<_> = flow.steps.iter().map(step_label).collect();
        assert_eq!(
            labels,
            [
                "date → fecha: Born?",
                "text /^[0-9]{5}$/ → zip: ZIP?",
                "text → name: Name?",
                "promo (es): {{name}}, 10%",
                "hello (en)",
                "crm.find → customer",
            ]
        );
    }

    #[test]
    fn every_key_parses_back_and_nothing_else_does() {
        let all = [
            Key::Id,
            Key::Kind,
            Key::Next,
            Key::Text,
            Key::Caption,
            Key::Filename,
            Key::Media,
            Key::Buttons,
            Key::Sections,
            Key::Name,
            Key::Address,
            Key::Latitude,
            Key::Longitude,
            Key::Save,
            Key::Cases,
            Key::Default,
            Key::OnFail,
            Key::Var,
            Key::Value,
            Key::Seconds,
            Key::Typing,
            Key::Handler,
            Key::Flow,
            Key::Queue,
            Key::Parameters,
            Key::Input,
            Key::Pattern,
            Key::Language,
        ];
        assert_eq!(all.len(), KEY_COUNT);
        for (i, key) in all.iter().enumerate() {
            assert_eq!(*key as usize, i);
            assert_eq!(Key::parse(key.as_str()), Some(*key));
        }
        for &kind in Kind::ALL {
            let kept = kept(kind);
            assert!(kept.len() <= SLOTS, "{kind:?}");
            for (i, key) in kept.iter().enumerate() {
                assert!(!kept[..i].contains(key), "{kind:?} keeps {key:?} twice");
                // The declaration of the step shapes says the kind has this property.
                assert!(
                    kind.fields().contains(&key.as_str()),
                    "{kind:?} keeps {key:?}, which is not one of its properties"
                );
            }
        }
        // Every key the analyzer reads is a property of some kind, as declared.
        for key in all {
            assert!(
                Kind::ALL.iter().any(|k| k.fields().contains(&key.as_str())),
                "{key:?} is no kind's property"
            );
        }
        for other in [
            "", "nexts", "nam", "Next", "type", "onfail", "vars", "kinds", "idx",
        ] {
            assert_eq!(Key::parse(other), None, "{other}");
        }
    }
}
