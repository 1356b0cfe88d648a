//! A set of valid flows ready to run: the compiled form every engine reads
//! ([`botmesh_flow_schema::program`]: targets resolved, texts scanned, edges and their effects),
//! plus what only running needs, made once per set: the patterns compiled to NFAs and the menu
//! titles normalized.

use botmesh_flow_schema::normalize;
use botmesh_flow_schema::program::{Body, Flow, Program, Step};
use serde_json::Value;

use crate::regex::{Pattern, PatternError};

/// Why documents could not be compiled into a [`FlowSet`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetError {
    /// A document is not a valid version 2 flow document: validate it first.
    #[error("document {index} of the set is not a valid flow document ({message})")]
    Invalid {
        /// Its position in the set (0: the document, then the subflows).
        index: usize,
        /// The first validation issue, `path: message`.
        message: String,
    },
    /// The set has no document.
    #[error("the set has no flow document")]
    Empty,
}

/// A set of valid flow documents, compiled: the document first, then its subflows, in the
/// order given ("set order"). It borrows the documents.
#[derive(Debug)]
pub struct FlowSet<'a> {
    pub(crate) program: Program<'a>,
    /// Every pattern of the program, compiled (by [`PatternRef::index`](botmesh_flow_schema::program::PatternRef)).
    pub(crate) patterns: Vec<Result<Pattern, PatternError>>,
    /// Per flow, per step, the titles of a menu's items, normalized (empty for other steps).
    titles: Vec<Vec<Vec<String>>>,
}

impl<'a> FlowSet<'a> {
    /// Compiles a set: `documents[0]` is the bot's own flow, the rest its subflows. Each is
    /// validated first; an invalid one is [`SetError::Invalid`].
    pub fn new(documents: &[&'a Value]) -> Result<Self, SetError> {
        if documents.is_empty() {
            return Err(SetError::Empty);
        }
        for (index, document) in documents.iter().enumerate() {
            let validation = botmesh_flow_schema::validate(document);
            if let Some(issue) = validation.issues.first() {
                return Err(SetError::Invalid {
                    index,
                    message: format!("{}: {}", issue.path, issue.message),
                });
            }
        }
        let program = Program::compile(documents);
        let patterns = program
            .patterns
            .iter()
            .map(|p| Pattern::new(p.text, p.whole))
            .collect();
        let titles = program
            .flows
            .iter()
            .map(|flow| {
                flow.steps
                    .iter()
                    .map(|step| match &step.body {
                        Body::Menu(menu) => menu.items.iter().map(|i| normalize(i.title)).collect(),
                        _ => Vec::new(),
                    })
                    .collect()
            })
            .collect();
        Ok(Self {
            program,
            patterns,
            titles,
        })
    }

    /// The compiled form of the set.
    pub fn program(&self) -> &Program<'a> {
        &self.program
    }

    /// The flows, in set order.
    pub(crate) fn flows(&self) -> &[Flow<'a>] {
        &self.program.flows
    }

    /// Step `step` of flow `flow`.
    pub(crate) fn step(&self, flow: usize, step: usize) -> &Step<'a> {
        &self.program.flows[flow].steps[step]
    }

    /// The normalized titles of a menu step's items.
    pub(crate) fn titles(&self, flow: usize, step: usize) -> &[String] {
        &self.titles[flow][step]
    }

    /// The id of the bot's own flow (the first document).
    pub fn entry_flow(&self) -> &str {
        self.flows().first().map_or("", |f| f.id)
    }

    /// The index of the first flow with this id.
    pub(crate) fn flow_index(&self, id: &str) -> Option<usize> {
        self.program.flow_index(id)
    }

    /// The ids of the flows, in set order.
    pub fn flow_ids(&self) -> impl Iterator<Item = &str> {
        self.flows().iter().map(|f| f.id)
    }

    /// The ids of the steps of flow `flow` (set order), in document order.
    pub fn step_ids(&self, flow: usize) -> impl Iterator<Item = &str> {
        self.flows()
            .get(flow)
            .into_iter()
            .flat_map(|f| f.steps.iter().map(|s| s.id))
    }
}
