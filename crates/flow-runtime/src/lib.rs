//! Runs botmesh flow documents without a phone: a deterministic interpreter of a set of valid
//! flows, as `docs/spec/flow-runtime.md` (the runtime contract) says a bot runs them.
//!
//! Compile the set once ([`FlowSet::new`]: the document first, then its subflows), start a
//! [`Conversation`] (at a flow, or with a first message that picks the flow by its trigger),
//! feed it replies one at a time, and read back what the bot sent, where it is, its variables
//! and its outcome. [`simulate`] does all of it for the `flow_simulate` tool's arguments.
//!
//! ```
//! use botmesh_flow_runtime::{FlowSet, Simulation, simulate};
//! let document = serde_json::json!({ "version": 2, "id": "hi", "steps": [
//!     { "id": "name", "kind": "ask", "text": "Your name?", "save": "name" },
//!     { "id": "bye", "kind": "end", "text": "Bye {{name}}!" }
//! ]});
//! let set = FlowSet::new(&[&document]).unwrap();
//! let arguments = serde_json::json!({ "replies": ["Ana"] });
//! let simulation = Simulation::from_arguments(arguments.as_object().unwrap()).unwrap();
//! let result = simulate(&set, &simulation).unwrap();
//! assert_eq!(result["outcome"]["kind"], "ended");
//! assert_eq!(result["variables"]["name"], "Ana");
//! ```
//!
//! No I/O, no clock (delays advance a virtual one), no randomness: the same documents and
//! input give the same result, byte for byte. Every limit of runtime §7 is a constant here:
//! [`MAX_STEPS_PER_REPLY`], [`MAX_SIMULATION_STEPS`], [`MAX_REPLIES`],
//! [`MAX_INTERPOLATED_CHARS`], [`MAX_CALL_DEPTH`]; two more bound what a hostile pattern can
//! cost ([`MAX_PROGRAM`], [`MAX_MATCH_WORK`]). A conversation's memory grows with its
//! transcript only.
//!
//! Choices where the contract is silent are written in `docs/guide/running.md`; the ones made
//! in code:
//! - a number reply too large for a double (about 309 digits) is not accepted;
//! - a `return` event's `flow`/`step` are those of the step that ended the called flow (its
//!   `end`, the last step run before it fell off its end, or its own `subflow` step when a
//!   nested call returned into it and it ended there), and `to` is the flow returned to;
//! - the trigger tiers are the flows' `match` modes: the first flow in set order whose mode is
//!   `exact` and one of whose keywords equals the message wins, then `startsWith`, then
//!   `contains`.
//!
//! Conversation tests (runtime §9): [`TestFile`] is the `*.flowtest.json` model (its JSON
//! Schema is [`flowtest_schema`]), [`run_case`] runs one case and reports its first failure
//! with the JSON Pointer of the failing turn, [`coverage`] counts the steps and the edges of
//! the analyzer's graph that the runs took.
//!
//! What a flow means (targets, which fields are interpolated and their placeholders, what each
//! edge writes) is `botmesh-flow-schema`'s compiled form ([`botmesh_flow_schema::program`]),
//! which lint reads too: [`FlowSet`] holds it, with the patterns compiled and the menu titles
//! normalized, and [`Conversation`] interprets it. Text normalization and whole-word matching
//! (§2) are `botmesh-flow-schema`'s as well.
//!
//! Dependencies beyond the design's list: `regex-syntax` (the RE2 pattern's parse and the
//! Unicode tables RE2 has; the matcher is a small NFA of our own, as an engine crate would
//! add hundreds of KB to the shipped binary, whose size is budgeted), `ryu-js` (JavaScript's
//! `String(number)`); both are already used by other crates of the workspace. The
//! workspace's `botmesh-flow-analyzer` (the graph coverage is counted on) and `schemars` (the
//! test file's schema, generated as the flow schema is) for the conversation tests.

#[cfg(test)]
mod agreement;
mod conversation;
mod coverage;
mod format;
mod generate;
mod input;
mod parse;
mod record;
mod regex;
mod set;
mod testing;
#[cfg(test)]
mod tests;
mod text;
mod value;

pub use conversation::{
    Conversation, EdgeKind, MAX_CALL_DEPTH, MAX_INTERPOLATED_CHARS, MAX_SIMULATION_STEPS,
    MAX_STEPS_PER_REPLY, Outcome, OutcomeKind, Transition, Warning,
};
pub use coverage::{Coverage, CoverageCounter, FlowCoverage, UncoveredEdge, coverage, percent};
pub use format::{entry_line, simulation_text};
pub use generate::{
    Generated, MAX_ASSIGNMENTS, MAX_GENERATED_DEPTH, MAX_GENERATED_RUNS, MAX_WITNESS_STATES,
    MAX_WITNESS_TOTAL, ask_replies, generate,
};
pub use input::{
    InputError, MAX_REPLIES, Mock, Reply, Setup, Simulation, Start, initial_value, parse_handlers,
    parse_mock, parse_replies, parse_reply, parse_start, parse_variables,
};
pub use parse::parse_answer;
pub use record::{append_case, case_name, case_text, record_case, test_file_text, unique_name};
pub use regex::{MAX_MATCH_WORK, MAX_PROGRAM, Pattern, PatternError};
pub use set::{FlowSet, SetError};
pub use testing::{
    AtReason, BotSpec, CaseRun, ContactSpec, ExpectSpec, FLOWTEST_SCHEMA_JSON, Failure, FlowStep,
    MessageType, MockSpec, OutcomeSpec, ReplySpec, StartSpec, TestCase, TestFile, TestIssue,
    TurnSpec, flowtest_schema, flowtest_schema_string, message_text, run_case,
};
pub use value::{Scalar, js_number};

use serde_json::{Map, Value};

/// Runs a whole simulation: starts the conversation, feeds every reply, and returns the
/// result of runtime §8 without `valid` and `issues` (`outcome`, `transcript`, `path`,
/// `variables`, `clock`, `warnings`). A start flow not in the set is a caller error.
pub fn simulate(
    set: &FlowSet<'_>,
    simulation: &Simulation,
) -> Result<Map<String, Value>, InputError> {
    let conversation = run(set, simulation)?;
    Ok(conversation.result_json())
}

/// Like [`simulate`], but returns the conversation itself (for its transitions, coverage, or
/// to go on talking).
pub fn run<'s>(
    set: &'s FlowSet<'s>,
    simulation: &Simulation,
) -> Result<Conversation<'s>, InputError> {
    simulation.check(set)?;
    let mut conversation = Conversation::start(set, &simulation.start, &simulation.setup);
    for reply in &simulation.replies {
        conversation.reply(reply);
    }
    Ok(conversation)
}
