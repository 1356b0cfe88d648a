//! The set the analyzer reads: `botmesh-flow-schema`'s compiled form of the flows (the one the
//! runtime interprets: targets, edges and what they write, interpolated fields and their
//! placeholders, entry flows), compiled one flow at a time, and each flow's variable uses.
//!
//! Locations are kept as a step and a [`UseAt`] and turned into a JSON Pointer only when a
//! diagnostic needs one: most uses never get reported, and building every pointer up front
//! dominated the cost of linting.

use botmesh_flow_schema::program::{Body, Compiler, Field, Flow, Problem, ReadAt, Step};
use rustc_hash::FxHashSet;
use serde_json::Value;

/// A compiled set: the entry document first, then the subflows in order.
#[derive(Debug)]
pub(crate) struct FlowSet<'a> {
    compiler: Compiler<'a>,
    pub(crate) flows: Vec<Flow<'a>>,
    /// The variable uses of each flow (same order as `flows`).
    pub(crate) uses: Vec<Uses<'a>>,
}

impl<'a> FlowSet<'a> {
    /// Compiles the set, calling `each` with every flow (the compiler, which knows every flow's
    /// id and first step; the flow; its uses) just after compiling it, while the flow's JSON is
    /// still in cache.
    pub(crate) fn compile_each(
        documents: &[&'a Value],
        mut each: impl FnMut(&Compiler<'a>, &Flow<'a>, &Uses<'a>),
    ) -> Self {
        let mut set = Self::new(documents);
        for document in documents {
            set.push(document, &mut each);
        }
        set
    }

    /// An empty set whose flows will be `documents`, pushed in order.
    pub(crate) fn new(documents: &[&'a Value]) -> Self {
        Self {
            compiler: Compiler::new(documents),
            flows: Vec::with_capacity(documents.len()),
            uses: Vec::with_capacity(documents.len()),
        }
    }

    /// Compiles the next document of the set, then calls `each` as [`FlowSet::compile_each`]
    /// does. Every document must be pushed, in order, before the set is linted.
    pub(crate) fn push(
        &mut self,
        document: &'a Value,
        each: &mut impl FnMut(&Compiler<'a>, &Flow<'a>, &Uses<'a>),
    ) {
        let flow = self.compiler.flow(document);
        let uses = collect(&flow);
        each(&self.compiler, &flow, &uses);
        self.uses.push(uses);
        self.flows.push(flow);
    }
}

/// The flow a `subflow` step calls, when it is in the set.
pub(crate) fn callee(step: &Step<'_>) -> Option<usize> {
    match step.body {
        Body::Subflow { callee, .. } => callee,
        _ => None,
    }
}

/// Where in a step a variable is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UseAt {
    /// A read: a placeholder or a condition's `var`.
    Read(ReadAt),
    /// A write: the step's `save` or `var`.
    Write(&'static str),
}

/// One read or write of a variable.
#[derive(Debug, Clone)]
pub(crate) struct Use<'a> {
    pub(crate) name: &'a str,
    pub(crate) step: usize,
    pub(crate) at: UseAt,
}

impl Use<'_> {
    /// The RFC 6901 pointer of the use in its flow's document.
    pub(crate) fn pointer(&self, flow: &Flow<'_>) -> String {
        match self.at {
            UseAt::Read(at) => flow
                .steps
                .get(self.step)
                .map_or_else(String::new, |step| at.pointer(self.step, step)),
            UseAt::Write(key) => format!("/steps/{}/{key}", self.step),
        }
    }
}

/// One malformed placeholder.
#[derive(Debug, Clone)]
pub(crate) struct BadPlaceholder<'a> {
    pub(crate) step: usize,
    pub(crate) field: Field,
    pub(crate) problem: Problem<'a>,
}

/// Every variable use of one flow, in document order. A name read twice in the same text is
/// recorded once.
#[derive(Debug, Default)]
pub(crate) struct Uses<'a> {
    pub(crate) reads: Vec<Use<'a>>,
    pub(crate) writes: Vec<Use<'a>>,
    pub(crate) malformed: Vec<BadPlaceholder<'a>>,
    /// The names of `reads`, sorted, unique.
    pub(crate) read_names: Vec<&'a str>,
    /// The names of `writes`, sorted, unique.
    pub(crate) write_names: Vec<&'a str>,
}

/// Collects the reads (placeholders of every interpolated field, conditions) and writes (`save`,
/// `set.var`) of a flow, and its malformed placeholders.
pub(crate) fn collect<'a>(flow: &Flow<'a>) -> Uses<'a> {
    let mut uses = Uses::default();
    for (index, step) in flow.steps.iter().enumerate() {
        step.for_each_text(|field, text| {
            for problem in text.problems() {
                uses.malformed.push(BadPlaceholder {
                    step: index,
                    field,
                    problem,
                });
            }
            // A name read twice in the same text is recorded once. Texts hold few
            // placeholders: look back over this text's reads, and only past a handful build a
            // set (no allocation per text, no quadratic corner).
            let first = uses.reads.len();
            let mut seen: Option<FxHashSet<&str>> = None;
            for hole in &text.holes {
                let name = hole.name;
                let fresh = match &mut seen {
                    Some(set) => set.insert(name),
                    None => {
                        let earlier = &uses.reads[first..];
                        if earlier.len() < 8 {
                            !earlier.iter().any(|u| u.name == name)
                        } else {
                            let set = seen.insert(earlier.iter().map(|u| u.name).collect());
                            set.insert(name)
                        }
                    }
                };
                if fresh {
                    uses.reads.push(Use {
                        name,
                        step: index,
                        at: UseAt::Read(ReadAt::Field(field)),
                    });
                }
            }
        });
        if let Body::Branch { cases, .. } = &step.body {
            for (case, c) in cases.iter().enumerate() {
                let mut leaf = 0;
                c.when.for_each_leaf(&mut |l| {
                    uses.reads.push(Use {
                        name: l.var,
                        step: index,
                        at: UseAt::Read(ReadAt::Condition { case, leaf }),
                    });
                    leaf += 1;
                });
            }
        }
        if let Some(name) = step.written() {
            let key = if matches!(step.body, Body::Set { .. }) {
                "var"
            } else {
                "save"
            };
            uses.writes.push(Use {
                name,
                step: index,
                at: UseAt::Write(key),
            });
        }
    }
    // Sorted now, while the names are in cache: the graph lists them, and lint compares
    // these few names across the set instead of every use.
    uses.read_names = sorted_names(&uses.reads);
    uses.write_names = sorted_names(&uses.writes);
    uses
}

/// The names of `uses`, sorted, unique. A flow uses a few names many times: drop the repeats
/// first (a hash each), then sort the few left (a sort of every use was most of the cost).
fn sorted_names<'a>(uses: &[Use<'a>]) -> Vec<&'a str> {
    let mut seen: FxHashSet<&str> = FxHashSet::default();
    let mut names: Vec<&'a str> = uses
        .iter()
        .map(|u| u.name)
        .filter(|n| seen.insert(n))
        .collect();
    names.sort_unstable();
    names
}

#[cfg(test)]
mod tests {
    use botmesh_flow_schema::program::Program;
    use serde_json::json;

    use super::collect;

    fn reads_of(text: &str) -> Vec<String> {
        let document = json!({"id": "f", "steps": [
            {"id": "a", "kind": "message", "text": text},
            {"id": "b", "kind": "message", "text": "{{x}} again"}
        ]});
        let program = Program::compile(&[&document]);
        collect(&program.flows[0])
            .reads
            .iter()
            .map(|u| format!("{}@{}", u.name, u.step))
            .collect()
    }

    #[test]
    fn a_name_is_read_once_per_text_however_many_placeholders_it_has() {
        assert_eq!(reads_of("{{x}} {{y}} {{ x }}"), ["x@0", "y@0", "x@1"]);
        // Past a handful of names the look-back becomes a set: same result.
        let names: Vec<String> = (0..12).map(|i| format!("v{i}")).collect();
        let text: String = names
            .iter()
            .chain(&names)
            .map(|n| format!("{{{{{n}}}}} "))
            .collect();
        let mut expected: Vec<String> = names.iter().map(|n| format!("{n}@0")).collect();
        expected.push("x@1".to_owned());
        assert_eq!(reads_of(&text), expected);
    }
}
