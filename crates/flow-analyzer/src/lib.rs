//! The botmesh flow analyzer: compiles valid flow documents (a document plus the subflows it
//! calls) into a graph, renders it as Mermaid or JSON, and lints the set
//! (`docs/spec/flow-document.md` §7-8). It is the engine of the `flow_analyze` tool and of
//! `botmesh-mcp check`.
//!
//! What a flow means is not decided here: the analyzer reads `botmesh-flow-schema`'s compiled
//! form ([`botmesh_flow_schema::program`]), the one the runtime interprets, so the graph, lint
//! and the runtime agree on the edges, on what each edge writes, on which fields are
//! interpolated and what a placeholder is, and on which flows a conversation can begin in.
//!
//! ```
//! use botmesh_flow_analyzer::{Direction, Format, analyze, describe, lint, render_mermaid};
//! use serde_json::json;
//!
//! let document = json!({
//!     "version": 2,
//!     "id": "hello",
//!     "steps": [
//!         { "id": "ask_name", "kind": "ask", "text": "Your name?", "save": "name", "onFail": "bye" },
//!         { "id": "greet", "kind": "message", "text": "Hi {{name}}!" },
//!         { "id": "bye", "kind": "end" }
//!     ]
//! });
//! assert!(lint(&[&document]).is_empty());
//! let graph = describe(&[&document]);
//! assert_eq!(graph.flows[0].entry, "ask_name");
//! assert!(render_mermaid(&graph, Direction::LR).starts_with("flowchart LR\n"));
//! let payload = analyze(&document, &[], Format::Json, Direction::TD);
//! assert_eq!(payload["valid"], true);
//! assert_eq!(payload["summary"]["steps"], 3);
//! ```
//!
//! # Choices where the spec is silent
//!
//! - **Graph.** Every flow of the set is described, in the order given. A `buttons` or `list`
//!   step has one edge per button or row (to its `next`, else to the step's successor) and no
//!   separate `next` edge. A branch without `default` gets a `default` edge to the following
//!   step. An `ask` has a `next` edge and, with `onFail`, a `retry-exhausted` edge (without
//!   `onFail`, retries running out lead to the successor too: the one `next` edge stands for
//!   both, though only an accepted answer writes `save`). A `subflow`
//!   step has a `call` edge (with `toFlow`) to the called flow's entry and a `return` edge to its
//!   successor. The synthetic terminal has id and kind `(end)`; node labels are unshortened.
//! - **Mermaid.** Node ids are `n0`, `n1`, … over the whole set; subgraphs are `s0`, `s1`, ….
//!   A node shows the step id (at most 40 chars) and `kind: text` (text at most 60 chars); edge
//!   labels at most 40 chars; `call` edges are dotted (`-.->`) and drawn after the subgraphs.
//! - **Variables** are shared by the whole set: a variable is defined when some flow of the set
//!   writes it (`ask.save`, a menu's `save`, `action.save`, `set.var`), declares it under `variables`, or it is
//!   built in. So a variable written only inside a called subflow is defined for the caller.
//!   `unused-variable` is reported once, at the first write. Placeholders are read in every
//!   field the runtime interpolates (spec §2 and runtime §3: `text`, `caption`, `retryText`,
//!   template `parameters`, a `set` string `value`, every string of `action.args`), as runtime
//!   §5 reads them (`{{ name }}` with spaces, leftmost first).
//! - **Waiting.** `buttons`, `list` and `ask` wait. A `subflow` step counts as waiting unless
//!   the called flow can reach an `end` (or fall off its end) without waiting; a missing or
//!   recursive callee counts as waiting. `infinite-loop` is reported once per loop (a strongly
//!   connected set of non-waiting steps), at its first step.
//! - **Bursts.** Sending steps are `message`, `media`, `template`, `location`, and `end` or
//!   `handoff` with a `text`. Other non-waiting steps neither count nor reset the run. The
//!   diagnostic is at the step that sends the 6th message in a row.
//! - **Duplicates.** Titles and keywords compare trimmed and lower-cased; conditions compare
//!   structurally with numbers by value. Two documents of the set with the same flow id make
//!   `analyze_set` invalid (an issue at `/id` of the later one); [`lint()`] and [`describe()`] given
//!   such a set resolve calls to the first flow with the id.
//! - **`implicit-end`** is reported at each reachable step with an edge to `(end)`;
//!   unreachable steps get `unreachable-step` only.
//! - **Mermaid escapes.** Inside quoted labels `#`, `"`, `&`, `<`, `>`, backtick and `%` become
//!   entity codes (`%` because Mermaid strips `%%{…}%%` directives even inside quotes and across
//!   lines, which the corpus check found); line breaks become `<br>`.
//! - **`summary`** of `analyze`: `flows` (documents in the set), `steps`, `nodes` and `edges`
//!   (0 when invalid; `steps` counts every document's `steps` array, also when invalid),
//!   `issues`, and `errors`/`warnings`/`infos` (diagnostics per severity).
//!
//! Cycle, reachability and burst analysis are linear in steps plus edges (iterative Tarjan
//! SCC and DFS), so the analyzer never recurses on flow size. The [`Graph`] borrows ids and
//! texts from the documents. Lookup-only maps (step ids, flow ids, node ids, variable names) use
//! `rustc-hash`'s FxHash, as rustc and rust-analyzer do: these maps are never iterated into
//! output, and `analyze` only compiles validated documents (at most 500 steps each), so an
//! unkeyed hash costs nothing in determinism or safety, where SipHash was a tenth of the
//! analyzer's time. [`Value`] is re-exported so callers
//! (`botmesh-mcp check`) can hold documents without depending on `serde_json` themselves.
//! `keyword-shadowed` normalizes and matches keywords with the runtime's own functions
//! (`botmesh-flow-schema`'s `normalize`, `starts_with_words`, `contains_words`).
//!
//! # Speed
//!
//! On large sets the analyzer is bound by memory traffic: a step's JSON (a map node per
//! object, a heap string per key) is about 1 KB, so a set of a few thousand steps no longer
//! fits in a core's L2 cache and every pass over the JSON costs a cache miss per step. So the
//! JSON is read as few times as possible, one flow at a time: compiling (`botmesh-flow-schema`'s
//! `Compiler`) gathers each step's keys in one pass into a typed step (edges in one vector per
//! flow) and the analyzer collects the flow's variable uses at once; [`describe()`] describes
//! each flow right after compiling it; [`lint()`] runs the checks that read one flow's JSON
//! (titles, cases, placeholders) as each flow is compiled, the rest on the compiled set;
//! [`analyze_set`] compiles once for both. Pointers and messages are built only for the
//! diagnostics reported.

mod analyze;
mod dataflow;
mod error;
mod fixer;
mod graph;
mod label;
mod lint;
mod mermaid;
mod report;
mod scc;
mod set;
mod triggers;

#[cfg(test)]
mod tests;

pub use analyze::{
    Analysis, AnalysisSummary, Format, SourcedIssue, add_location, add_locations, analyze,
    analyze_located, analyze_set,
};
/// Positions in a document's text (what [`FileReport::locate`] reads), from `botmesh-flow-schema`.
pub use botmesh_flow_schema::{
    Applicability, Fix, Location, SourceMap, SyntaxError, edit_text, parse_with_positions,
};
pub use error::Error;
pub use fixer::{AppliedFix, FIX_ROUNDS_LIMIT, FixOutcome, TextFixOutcome, fix_document, fix_text};
pub use graph::{Edge, EdgeKind, FlowGraph, Graph, IMPLICIT_END, Node, describe};
pub use lint::{BURST_LIMIT, Code, Diagnostic, Severity, lint, source_name};
pub use mermaid::{
    Direction, MAX_EDGE_LABEL_CHARS, MAX_ID_CHARS, MAX_TEXT_CHARS, escape_label, render_mermaid,
};
pub use report::{
    FLOWTEST_CODE, FileReport, Finding, INVALID_CODE, MIGRATION_CODE, NOT_JSON_CODE, ReportFormat,
    check_document, drop_repeated_findings, is_flowtest_file, parse_source, render_report,
    warning_count,
};
pub use serde_json::Value;
