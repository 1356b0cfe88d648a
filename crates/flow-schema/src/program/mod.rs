//! The compiled form of a flow set: what a set of valid version 2 documents (a document and its
//! subflows) means, decided once for every engine. The runtime (`botmesh-flow-runtime`)
//! interprets it; the analyzer (`botmesh-flow-analyzer`) builds its graph, lint and dataflow
//! from it; the picture and the test generator read it through them. So what counts as a
//! placeholder, which fields are interpolated, where each edge leads and what it writes, and
//! which flows a conversation can begin in cannot differ between them (runtime §2 "Entry
//! flows").
//!
//! [`Program::compile`] reads each document once. In the result:
//! - every step's targets are resolved ([`Target`]: a step index, or the end of the flow);
//! - every interpolated field (runtime §3 and §5: a message's, menu's, `ask`'s and `end`'s or
//!   `handoff`'s `text`, a media `caption`, template `parameters`, an `ask`'s `retryText`, a
//!   `set` string `value`, every string inside `action.args` at any depth) is a [`Text`],
//!   scanned once by [`scan`] into its placeholders; [`Step::for_each_text`] visits them all;
//! - every edge ([`Edge`]) has its kind (`next`, `button`, `row`, `case`, `default`,
//!   `retry-exhausted`, `return`; a `subflow` step's `call` is [`Body::Subflow`]'s `callee`)
//!   and its [`Effect`] on the variables; an `ask` has an edge for an accepted answer (writes
//!   its `save`) and one for retries running out (writes nothing), which without `onFail`
//!   leads to the successor too and is not drawn ([`Edge::drawn`]): every `ask` can run out of
//!   retries (runtime §4: an empty reply, which stands for a sticker or a voice note, is never
//!   accepted);
//! - every step's reads ([`Step::for_each_read`]): placeholders, then condition variables;
//! - [`Flow::entry`]: whether a conversation can begin in the flow (the document's own flow,
//!   or a flow with a keyword or `fallback: true`).
//!
//! Compiling never panics: a document that does not validate compiles to something (a missing
//! field is empty, a reference that does not resolve is the end of the flow), which nobody
//! should run. Validate first.
//!
//! The step shapes are [`StepKind`]'s; [`Body`] groups kinds that carry the same data (`buttons`
//! and `list` are a [`Menu`], `end` and `handoff` are [`Body::Closing`]), so the kinds are not
//! listed a second time.

mod compile;
mod cond;
mod placeholder;
#[cfg(test)]
mod tests;

use std::ops::Range;

use serde::Serialize;
use serde_json::Value;

use crate::model::StepKind;
use crate::model::{InputKind, MatchMode};
use crate::pointer::push_token;
pub use cond::{Cond, Leaf, Op};
pub use placeholder::{
    CapitalHole, Found, Hole, Problem, Scan, capital_holes, holes, is_variable_name, lower_cased,
    rename_capital_holes, scan,
};

/// A compiled set: the document's flow first, then the subflows, in the order given.
#[derive(Debug, Clone)]
pub struct Program<'a> {
    /// The flows, in set order.
    pub flows: Vec<Flow<'a>>,
    /// Every RE2 pattern of the set (`ask.pattern`, `matches` values), numbered in compile
    /// order; [`PatternRef::index`] points here. The runtime compiles each once.
    pub patterns: Vec<PatternRef<'a>>,
}

/// One RE2 pattern of the set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PatternRef<'a> {
    /// The pattern as written.
    pub text: &'a str,
    /// Its place in [`Program::patterns`].
    pub index: usize,
    /// True for an `ask.pattern`, which the whole reply must match; false for a `matches`
    /// condition, which searches the value.
    pub whole: bool,
}

/// One compiled flow.
#[derive(Debug, Clone)]
pub struct Flow<'a> {
    /// The flow id.
    pub id: &'a str,
    /// Its position in the set.
    pub index: usize,
    /// True when a conversation can begin in this flow (runtime §2 "Entry flows"): it is the
    /// document's own flow (the first of the set), or its trigger has a keyword or
    /// `fallback: true`. Any other flow is entered only through `subflow` calls.
    pub entry: bool,
    /// The steps, in document order.
    pub steps: Vec<Step<'a>>,
    /// Every step's edges, ordered by step ([`Flow::edges`]).
    edges: Vec<Edge<'a>>,
    /// The declared variables, in the document's (sorted) key order.
    pub declarations: Vec<Declaration<'a>>,
    /// The trigger, when the document has one.
    pub trigger: Option<Trigger<'a>>,
    /// True when some edge leads to the end of the flow (the synthetic `(end)` node).
    pub falls_off: bool,
}

impl<'a> Flow<'a> {
    /// The edges of step `step`, in button, row or case order.
    pub fn edges(&self, step: usize) -> &[Edge<'a>] {
        self.steps
            .get(step)
            .and_then(|s| self.edges.get(s.edges.start as usize..s.edges.end as usize))
            .unwrap_or(&[])
    }

    /// Every edge of the flow, ordered by step: edge `e` of step `s` is
    /// `all_edges()[first_edge(s) + e]`.
    pub fn all_edges(&self) -> &[Edge<'a>] {
        &self.edges
    }

    /// The position in [`Flow::all_edges`] of step `step`'s first edge.
    pub fn first_edge(&self, step: usize) -> usize {
        self.steps.get(step).map_or(0, |s| s.edges.start as usize)
    }

    /// The declaration of `name`, when the flow declares it.
    pub fn declaration(&self, name: &str) -> Option<&Declaration<'a>> {
        self.declarations.iter().find(|d| d.name == name)
    }
}

/// A declared variable.
#[derive(Debug, Clone, PartialEq)]
pub struct Declaration<'a> {
    /// Its name.
    pub name: &'a str,
    /// Its declared `type`: `string`, `number` or `boolean`.
    pub kind: &'a str,
    /// Its `default`, when it has one (a declared variable without one is unset until
    /// written).
    pub default: Option<Literal<'a>>,
}

/// A flow's trigger.
#[derive(Debug, Clone, PartialEq)]
pub struct Trigger<'a> {
    /// The keywords, in order.
    pub keywords: Vec<Keyword<'a>>,
    /// How a message is compared with them (default `exact`).
    pub mode: MatchMode,
    /// True with `fallback: true`.
    pub fallback: bool,
}

/// A trigger keyword.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keyword<'a> {
    /// As written.
    pub text: &'a str,
    /// Normalized as runtime §2 says ([`crate::normalize`]); `""` never matches.
    pub normalized: String,
}

/// One compiled step.
#[derive(Debug, Clone)]
pub struct Step<'a> {
    /// The step id.
    pub id: &'a str,
    /// The step kind.
    pub kind: StepKind,
    /// `next`, else the following step, else the end of the flow.
    pub successor: Target,
    /// What the step does, with its references resolved.
    pub body: Body<'a>,
    /// This step's edges: a range of the flow's edges.
    edges: Range<u32>,
}

/// Where control goes inside a flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// A step, by index.
    Step(usize),
    /// The end of the flow: behaves as an `end` without text (the synthetic `(end)` node).
    End,
}

/// What a step does. The step's [`StepKind`] tells the kinds a variant stands for apart.
#[derive(Debug, Clone)]
pub enum Body<'a> {
    /// `message`: sends `text`.
    Message {
        /// The text.
        text: Text<'a>,
    },
    /// `media`.
    Media {
        /// `image`, `video`, `audio`, `document` or `sticker`.
        media: &'a str,
        /// The file's URL.
        url: &'a str,
        /// The caption.
        caption: Option<Text<'a>>,
        /// The file name.
        filename: Option<&'a str>,
    },
    /// `buttons` or `list`: sends a menu and waits for a pick.
    Menu(Box<Menu<'a>>),
    /// `template`.
    Template {
        /// The template name.
        name: &'a str,
        /// Its language.
        language: &'a str,
        /// The parameters, in order.
        parameters: Vec<Text<'a>>,
    },
    /// `location`: sent as written.
    Location {
        /// The latitude, as written.
        latitude: &'a Value,
        /// The longitude, as written.
        longitude: &'a Value,
        /// The place's name.
        name: Option<&'a str>,
        /// Its address.
        address: Option<&'a str>,
    },
    /// `ask`: sends `text`, waits, parses the reply.
    Ask(Box<Ask<'a>>),
    /// `branch`.
    Branch {
        /// The cases, in order.
        cases: Vec<Case<'a>>,
        /// `default`, else the following step (the default edge's target).
        default: Target,
    },
    /// `set`.
    Set {
        /// The variable written.
        var: &'a str,
        /// The value.
        value: SetValue<'a>,
        /// The value as written (for labels).
        raw: &'a Value,
    },
    /// `delay`.
    Delay {
        /// Seconds.
        seconds: u64,
        /// Whether a typing indicator shows.
        typing: bool,
        /// `seconds` as written (for labels).
        raw: &'a Value,
    },
    /// `action`: calls a handler.
    Action {
        /// The handler's name.
        handler: &'a str,
        /// `args` (empty when absent), keys in the document's order.
        args: Vec<(&'a str, Arg<'a>)>,
        /// The variable that receives the result.
        save: Option<&'a str>,
    },
    /// `subflow`.
    Subflow {
        /// The called flow's id.
        flow: &'a str,
        /// The first flow of the set with that id (the `call` edge's target flow, entered at
        /// its first step), when it is in the set.
        callee: Option<usize>,
    },
    /// `end` or `handoff`: sends `text` if present and leaves (an `end` inside a subflow
    /// returns to its caller).
    Closing {
        /// The last message.
        text: Option<Text<'a>>,
        /// A handoff's queue.
        queue: Option<&'a str>,
    },
}

/// A `buttons` or `list` step.
#[derive(Debug, Clone)]
pub struct Menu<'a> {
    /// The text above the menu.
    pub text: Text<'a>,
    /// The buttons, or the rows of every section in order.
    pub items: Vec<Item<'a>>,
    /// A list's sections (empty for buttons).
    pub sections: Vec<Section<'a>>,
    /// A list's button label.
    pub button: Option<&'a str>,
    /// The header line.
    pub header: Option<&'a str>,
    /// The footer line.
    pub footer: Option<&'a str>,
    /// The variable that receives the picked item's id.
    pub save: Option<&'a str>,
}

/// A section of a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section<'a> {
    /// Its title.
    pub title: Option<&'a str>,
    /// Its rows: a range of [`Menu::items`].
    pub rows: Range<usize>,
}

/// A button or a row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item<'a> {
    /// Its id.
    pub id: &'a str,
    /// Its title.
    pub title: &'a str,
    /// A row's description.
    pub description: Option<&'a str>,
    /// Where a pick leads: its `next`, else the step's successor.
    pub target: Target,
}

/// An `ask` step.
#[derive(Debug, Clone)]
pub struct Ask<'a> {
    /// The question.
    pub text: Text<'a>,
    /// The variable an accepted answer is saved in.
    pub save: &'a str,
    /// What answer is expected.
    pub input: InputKind,
    /// The pattern a `text` answer must match as a whole.
    pub pattern: Option<PatternRef<'a>>,
    /// Failures allowed before the retries run out (default 2).
    pub retries: u64,
    /// What is said after an answer that is not accepted.
    pub retry_text: Option<Text<'a>>,
    /// Where control goes when the retries run out; without it, the successor (with `save`
    /// left as it was).
    pub on_fail: Option<Target>,
}

/// A branch case.
#[derive(Debug, Clone)]
pub struct Case<'a> {
    /// Its condition.
    pub when: Cond<'a>,
    /// Where it leads.
    pub target: Target,
}

/// A `set` step's value.
#[derive(Debug, Clone)]
pub enum SetValue<'a> {
    /// A string, interpolated when the step runs.
    Text(Text<'a>),
    /// A number, boolean or null, as is.
    Literal(Literal<'a>),
}

/// A JSON scalar of a document (a condition's value, a default). Numbers are IEEE doubles, as
/// in the runtime.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Literal<'a> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number.
    Number(f64),
    /// A string.
    String(&'a str),
}

impl<'a> Literal<'a> {
    /// The scalar of a JSON value (`null` for an array or an object, which a valid document
    /// does not have here).
    pub fn of(value: &'a Value) -> Self {
        match value {
            Value::Bool(b) => Self::Bool(*b),
            Value::Number(n) => Self::Number(n.as_f64().unwrap_or(0.0)),
            Value::String(s) => Self::String(s),
            Value::Null | Value::Array(_) | Value::Object(_) => Self::Null,
        }
    }
}

/// A value of `action.args`: every string in it is interpolated, at any depth (object keys are
/// not).
#[derive(Debug, Clone)]
pub enum Arg<'a> {
    /// A string.
    Text(Text<'a>),
    /// A number, boolean or null, passed as is.
    Scalar(&'a Value),
    /// An array.
    Array(Vec<Arg<'a>>),
    /// An object, keys in the document's order.
    Object(Vec<(&'a str, Arg<'a>)>),
}

/// An interpolated text: as written, and its placeholders ([`holes`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text<'a> {
    /// The text as written.
    pub text: &'a str,
    /// Its placeholders, left to right (empty for most texts).
    pub holes: Vec<Hole<'a>>,
}

impl<'a> Text<'a> {
    /// Scans `text` once.
    pub fn new(text: &'a str) -> Self {
        // Most texts have no placeholder: the scan finds no `{{` and the vector stays empty
        // (no allocation).
        Self {
            text,
            holes: holes(text).collect(),
        }
    }

    /// The malformed placeholders of the text (lint's `malformed-placeholder`), from the same
    /// scan.
    pub fn problems(&self) -> impl Iterator<Item = Problem<'a>> + use<'a> {
        scan(self.text).filter_map(|found| match found {
            Found::Problem(problem) => Some(problem),
            Found::Hole(_) => None,
        })
    }
}

/// An interpolated field of a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// `text`.
    Text,
    /// `caption`.
    Caption,
    /// `retryText`.
    RetryText,
    /// A `set`'s `value`.
    Value,
    /// `parameters/N`.
    Parameter(usize),
    /// The Nth string inside `args`, depth first in the document's order.
    Arg(usize),
}

impl Field {
    /// Its RFC 6901 pointer in the document, for step `index` (the step is needed to find an
    /// `args` string).
    pub fn pointer(self, index: usize, step: &Step<'_>) -> String {
        let mut path = format!("/steps/{index}");
        match self {
            Self::Text => path.push_str("/text"),
            Self::Caption => path.push_str("/caption"),
            Self::RetryText => path.push_str("/retryText"),
            Self::Value => path.push_str("/value"),
            Self::Parameter(n) => {
                path.push_str("/parameters/");
                path.push_str(&n.to_string());
            }
            Self::Arg(n) => {
                path.push_str("/args");
                if let Body::Action { args, .. } = &step.body {
                    let mut count = 0;
                    let base = path.len();
                    for (key, arg) in args {
                        push_token(&mut path, key);
                        if arg_path(arg, n, &mut count, &mut path) {
                            break;
                        }
                        path.truncate(base);
                    }
                }
            }
        }
        path
    }
}

/// Appends to `path` the way to the `n`th string of `arg`, counting strings in `count`;
/// true when found.
fn arg_path(arg: &Arg<'_>, n: usize, count: &mut usize, path: &mut String) -> bool {
    match arg {
        Arg::Text(_) => {
            *count += 1;
            *count == n + 1
        }
        Arg::Scalar(_) => false,
        Arg::Array(items) => {
            let base = path.len();
            for (i, item) in items.iter().enumerate() {
                path.push('/');
                path.push_str(&i.to_string());
                if arg_path(item, n, count, path) {
                    return true;
                }
                path.truncate(base);
            }
            false
        }
        Arg::Object(members) => {
            let base = path.len();
            for (key, item) in members {
                push_token(path, key);
                if arg_path(item, n, count, path) {
                    return true;
                }
                path.truncate(base);
            }
            false
        }
    }
}

/// Where a step reads a variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadAt {
    /// A placeholder of an interpolated field.
    Field(Field),
    /// The `var` of a condition leaf: the case, and the leaf's number in depth-first order.
    Condition {
        /// The case.
        case: usize,
        /// The leaf, depth first (`all`, `any`, `not` in document order).
        leaf: usize,
    },
}

impl ReadAt {
    /// Its RFC 6901 pointer in the document, for step `index`.
    pub fn pointer(self, index: usize, step: &Step<'_>) -> String {
        match self {
            Self::Field(field) => field.pointer(index, step),
            Self::Condition { case, leaf } => {
                let mut path = format!("/steps/{index}/cases/{case}/when");
                if let Body::Branch { cases, .. } = &step.body
                    && let Some(case) = cases.get(case)
                {
                    case.when.leaf_path(leaf, &mut path);
                }
                path.push_str("/var");
                path
            }
        }
    }
}

/// One read of a variable by a step.
#[derive(Debug, Clone, Copy)]
pub struct Read<'p, 'a> {
    /// The variable.
    pub name: &'a str,
    /// Where.
    pub at: ReadAt,
    /// For a condition read, its leaf.
    pub leaf: Option<&'p Leaf<'a>>,
}

impl<'a> Step<'a> {
    /// Calls `each` with every interpolated field of the step, in document order: `text`,
    /// `caption`, `retryText`, a `set`'s `value`, `parameters`, the strings of `args` (depth
    /// first). These are exactly the texts the runtime interpolates.
    pub fn for_each_text<'p>(&'p self, mut each: impl FnMut(Field, &'p Text<'a>)) {
        match &self.body {
            Body::Message { text } => each(Field::Text, text),
            Body::Menu(menu) => each(Field::Text, &menu.text),
            Body::Ask(ask) => {
                each(Field::Text, &ask.text);
                if let Some(text) = &ask.retry_text {
                    each(Field::RetryText, text);
                }
            }
            Body::Closing {
                text: Some(text), ..
            } => each(Field::Text, text),
            Body::Media {
                caption: Some(caption),
                ..
            } => each(Field::Caption, caption),
            Body::Set {
                value: SetValue::Text(text),
                ..
            } => each(Field::Value, text),
            Body::Template { parameters, .. } => {
                for (i, parameter) in parameters.iter().enumerate() {
                    each(Field::Parameter(i), parameter);
                }
            }
            Body::Action { args, .. } => {
                let mut count = 0;
                for (_, arg) in args {
                    arg_texts(arg, &mut count, &mut each);
                }
            }
            _ => {}
        }
    }

    /// Calls `each` with every variable the step reads: the placeholders of its interpolated
    /// fields ([`Step::for_each_text`], a name as often as it appears), then the `var` of every
    /// condition leaf of its cases, depth first.
    pub fn for_each_read<'p>(&'p self, mut each: impl FnMut(Read<'p, 'a>)) {
        self.for_each_text(|field, text| {
            for hole in &text.holes {
                each(Read {
                    name: hole.name,
                    at: ReadAt::Field(field),
                    leaf: None,
                });
            }
        });
        if let Body::Branch { cases, .. } = &self.body {
            for (case, c) in cases.iter().enumerate() {
                let mut n = 0;
                c.when.for_each_leaf(&mut |leaf| {
                    each(Read {
                        name: leaf.var,
                        at: ReadAt::Condition { case, leaf: n },
                        leaf: Some(leaf),
                    });
                    n += 1;
                });
            }
        }
    }

    /// Leaf `n` (depth first) of case `case`'s condition, when the step is a branch with it.
    pub fn leaf(&self, case: usize, n: usize) -> Option<&Leaf<'a>> {
        let Body::Branch { cases, .. } = &self.body else {
            return None;
        };
        let mut found = None;
        let mut count = 0;
        cases.get(case)?.when.for_each_leaf(&mut |leaf| {
            if count == n {
                found = Some(leaf);
            }
            count += 1;
        });
        found
    }

    /// The variable the step writes (`save` of an `ask`, a menu or an `action`; a `set`'s
    /// `var`), when it writes one.
    pub fn written(&self) -> Option<&'a str> {
        match &self.body {
            Body::Menu(menu) => menu.save,
            Body::Ask(ask) => Some(ask.save),
            Body::Set { var, .. } => Some(var),
            Body::Action { save, .. } => *save,
            _ => None,
        }
    }

    /// True for steps that wait for the user (`buttons`, `list`, `ask`).
    pub fn waits(&self) -> bool {
        matches!(self.body, Body::Menu(_) | Body::Ask(_))
    }
}

fn arg_texts<'p, 'a>(
    arg: &'p Arg<'a>,
    count: &mut usize,
    each: &mut impl FnMut(Field, &'p Text<'a>),
) {
    match arg {
        Arg::Text(text) => {
            each(Field::Arg(*count), text);
            *count += 1;
        }
        Arg::Scalar(_) => {}
        Arg::Array(items) => {
            for item in items {
                arg_texts(item, count, each);
            }
        }
        Arg::Object(members) => {
            for (_, item) in members {
                arg_texts(item, count, each);
            }
        }
    }
}

/// One edge inside a flow.
#[derive(Debug, Clone)]
pub struct Edge<'a> {
    /// Where it leads.
    pub to: Target,
    /// What makes control take it.
    pub kind: EdgeKind,
    /// The button, row or case it stands for (0 for the other kinds).
    pub index: usize,
    /// What taking it does to the variables.
    pub effect: Effect<'a>,
    /// False only for an `ask`'s retries running out without `onFail`: it leads to the
    /// successor as the accepted answer's `next` edge does, and the graph draws the two as
    /// that one edge.
    pub drawn: bool,
}

/// What taking an edge does to the variables (runtime §3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect<'a> {
    /// Nothing.
    None,
    /// Writes a value: an accepted answer, a picked item's id, a `set` to a string, number or
    /// boolean, an `action`'s result (the handler's, which the caller provides: a mock in a
    /// simulation).
    Write(&'a str),
    /// A `set` to `null`: the variable is set, to nothing (it reads as unset).
    Clear(&'a str),
    /// A branch case was true: its condition can only be true with these variables set and not
    /// null (`exists`, `eq` a non-null value, `ne` null, `lt`, `contains`, `in`, …; every one
    /// of an `all`, those of every child of an `any`, nothing under `not`).
    Guard(Box<[&'a str]>),
    /// A `subflow` step's return: what the called flow did (its index, when it is in the set).
    Return(Option<usize>),
}

/// The kinds of edge (flow-document §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EdgeKind {
    /// `next`, explicit or falling through to the following step.
    Next,
    /// A reply button of a `buttons` step.
    Button,
    /// A row of a `list` step.
    Row,
    /// A `branch` case.
    Case,
    /// A `branch` default (explicit or falling through).
    Default,
    /// `ask` → `onFail` when retries run out.
    RetryExhausted,
    /// `subflow` step → the called flow's entry.
    Call,
    /// `subflow` step → the step control returns to when the called flow ends.
    Return,
}

impl EdgeKind {
    /// The spelling used in the graph JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Next => "next",
            Self::Button => "button",
            Self::Row => "row",
            Self::Case => "case",
            Self::Default => "default",
            Self::RetryExhausted => "retry-exhausted",
            Self::Call => "call",
            Self::Return => "return",
        }
    }
}

impl<'a> Program<'a> {
    /// Compiles a set of documents (the document first, then its subflows); see the module
    /// docs. Validate them first.
    pub fn compile(documents: &[&'a Value]) -> Self {
        let mut compiler = Compiler::new(documents);
        let flows = documents.iter().map(|d| compiler.flow(d)).collect();
        compiler.finish(flows)
    }

    /// The first flow with this id.
    pub fn flow_index(&self, id: &str) -> Option<usize> {
        self.flows.iter().position(|f| f.id == id)
    }
}

pub use compile::Compiler;
