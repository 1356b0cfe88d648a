//! `botmesh-mcp test [--subflows DIR|FILE]... [--format text|json|github|junit] [--coverage]
//! [--min-coverage PERCENT] FILE...`: runs conversation test files (`*.flowtest.json`, runtime
//! spec §9) with the simulator of `flow_simulate`.
//!
//! A FILE may be a directory: its `*.flowtest.json` files, in name order. A test file's
//! `flows` are paths relative to it (the first is where its cases start, the others its
//! subflows); without `flows`, `NAME.flowtest.json` tests `NAME.json` beside it. `--subflows`
//! adds documents to every file's set (a folder's `*.flowtest.json` files are not among them).
//!
//! `--min-coverage PERCENT` (implies `--coverage`) is a gate: the run fails (exit 1) when the
//! edges taken are fewer than PERCENT of all edges, or when coverage could not be measured (a
//! file whose flows are not a valid set: its flows are "not measured", never counted as
//! covered). Every format carries the figure and the verdict.
//!
//! In `--format github`, a failing case is annotated twice: on the test file at the failing
//! turn (or `expect` key), and on the flow file at the step the failure points at (the step
//! that sent the first message a strict case did not expect, the step `notPath` forbids, or
//! where the conversation stopped), so a pull request shows the flow line that changed.
//!
//! `--generate FLOW` prints a test file whose cases cover every edge the search of
//! `botmesh_flow_runtime::generate` reaches, its `flows` relative to FLOW's folder (for a file
//! saved beside FLOW); each edge it cannot cover goes to stderr with the reason (exit 0).
//!
//! Exit codes: 0 every case passed (and the coverage gate, if any, is met), 1 a case failed
//! (or a file's flows are not a valid set: its cases fail, naming the first issue) or the
//! coverage is below `--min-coverage`, 2 on a usage error, a file that cannot be read, a file
//! that is not JSON or a malformed test file (each message names the file, line and column).
//! Every file is read and checked before anything runs, so exit 2 leaves stdout empty.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use botmesh_flow_analyzer::{self as analyzer, Location, SourceMap, Value, parse_with_positions};
use botmesh_flow_runtime::{self as runtime, CaseRun, Coverage, CoverageCounter, TestFile};
use serde_json::json;

use crate::check::{complain_as, emit, same_file, subflow_files};

const USAGE: &str =
    "usage: botmesh-mcp test [--subflows DIR|FILE]... [--format text|json|github|junit]
                        [--coverage] [--min-coverage PERCENT] FILE...
       botmesh-mcp test --generate FLOW [--subflows DIR|FILE]...

Runs conversation test files (*.flowtest.json; a directory: its *.flowtest.json files).
  --subflows DIR|FILE     subflow documents added to every file's flows (repeatable)
  --format FORMAT         text (default), json, github (Actions annotations on the test file
                          and on the flow step) or junit (XML)
  --coverage              report the steps and graph edges the cases took, and list the others
  --min-coverage PERCENT  fail (exit 1) when fewer than PERCENT of the edges were taken, or
                          when coverage cannot be measured (implies --coverage)
  --generate FLOW         print a test file whose cases cover every edge of FLOW the search
                          reaches (what it cannot cover goes to stderr)
Exit status: 0 all cases passed, 1 a case failed or coverage is below --min-coverage,
2 usage error or unreadable or malformed file.";

/// The usage text, which the top-level `--help` quotes.
pub(crate) fn usage() -> &'static str {
    USAGE
}

/// How results are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Text,
    Json,
    Github,
    Junit,
}

#[derive(Debug, PartialEq)]
struct Args {
    generate: Option<PathBuf>,
    subflows: Vec<PathBuf>,
    format: Format,
    coverage: bool,
    /// `--min-coverage`: the least share of edges taken, in percent (0 to 100).
    min_coverage: Option<f64>,
    files: Vec<PathBuf>,
}

#[derive(Debug, PartialEq)]
enum Command {
    Test(Args),
    Help,
}

/// `--min-coverage`'s PERCENT: a number from 0 to 100, a trailing `%` allowed.
fn parse_percent(text: &str) -> Result<f64, String> {
    let number = text.trim().trim_end_matches('%');
    match number.parse::<f64>() {
        Ok(percent) if (0.0..=100.0).contains(&percent) => Ok(percent),
        _ => Err(format!(
            "--min-coverage takes a percentage from 0 to 100 (e.g. 90 or 87.5), not {text:?}"
        )),
    }
}

fn parse_args(args: Vec<OsString>) -> Result<Command, String> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(args);
    let mut subflows = Vec::new();
    let mut format = Format::Text;
    let mut coverage = false;
    let mut min_coverage = None;
    let mut generate = None;
    let mut files = Vec::new();
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        match arg {
            Long("subflows") => {
                subflows.push(PathBuf::from(parser.value().map_err(|e| e.to_string())?));
            }
            Long("format") => {
                let value = parser.value().map_err(|e| e.to_string())?;
                format = match value.to_str() {
                    Some("text") => Format::Text,
                    Some("json") => Format::Json,
                    Some("github") => Format::Github,
                    Some("junit") => Format::Junit,
                    _ => {
                        return Err(format!(
                            "unknown report format {value:?} (expected text, json, github or junit)"
                        ));
                    }
                };
            }
            Long("coverage") => coverage = true,
            Long("min-coverage") => {
                let value = parser.value().map_err(|e| e.to_string())?;
                min_coverage = Some(parse_percent(&value.to_string_lossy())?);
            }
            Long("generate") => {
                generate = Some(PathBuf::from(parser.value().map_err(|e| e.to_string())?));
            }
            Short('h') | Long("help") => return Ok(Command::Help),
            Value(file) => files.push(PathBuf::from(file)),
            other => return Err(other.unexpected().to_string()),
        }
    }
    if generate.is_some() && !files.is_empty() {
        return Err("--generate FLOW takes no FILE (it prints a test file for FLOW)".to_owned());
    }
    if generate.is_some() && min_coverage.is_some() {
        return Err("--min-coverage goes with test files, not with --generate".to_owned());
    }
    if files.is_empty() && generate.is_none() {
        return Err("no FILE to test".to_owned());
    }
    Ok(Command::Test(Args {
        generate,
        subflows,
        format,
        coverage: coverage || min_coverage.is_some(),
        min_coverage,
        files,
    }))
}

fn kind(error: &std::io::Error) -> String {
    error.kind().to_string()
}

fn is_test_file_name(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.ends_with(".flowtest.json"))
}

/// The test files: directories expanded to their `*.flowtest.json` files in name order.
fn test_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for path in paths {
        if !path.is_dir() {
            out.push(path.clone());
            continue;
        }
        let entries = std::fs::read_dir(path)
            .map_err(|e| format!("cannot read directory {}: {}", path.display(), kind(&e)))?;
        let mut found = Vec::new();
        for entry in entries {
            let entry = entry
                .map_err(|e| format!("cannot read directory {}: {}", path.display(), kind(&e)))?;
            let file = entry.path();
            if is_test_file_name(&file) && !file.is_dir() {
                found.push(file);
            }
        }
        if found.is_empty() {
            return Err(format!("{} has no *.flowtest.json file", path.display()));
        }
        found.sort();
        out.extend(found);
    }
    Ok(out)
}

/// A JSON file read with positions.
fn read_json(path: &Path) -> Result<(String, Value, SourceMap), String> {
    let name = path.display().to_string();
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("cannot read {name}: {}", kind(&e)))?;
    match parse_with_positions(&text) {
        Ok((value, map)) => Ok((name, value, map)),
        Err(error) => Err(format!(
            "{name}:{}:{}: not JSON: {}",
            error.line, error.column, error.reason
        )),
    }
}

/// A path without `.` and `dir/..` segments, with `/` separators: what an annotation's
/// `file=` needs (`tests/../flows/a.json` is `flows/a.json`; GitHub matches it against the
/// files of the pull request).
fn tidy_path(path: &Path) -> String {
    use std::path::Component;
    let mut parts: Vec<String> = Vec::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            // An empty part before the first name, so the join starts with `/` (`C:/` after a
            // Windows prefix).
            Component::RootDir => parts.push(String::new()),
            Component::ParentDir if parts.last().is_some_and(|p| !p.is_empty() && p != "..") => {
                parts.pop();
            }
            other => parts.push(other.as_os_str().to_string_lossy().into_owned()),
        }
    }
    parts.join("/")
}

/// The flow files a test file runs: its `flows`, or `NAME.json` beside `NAME.flowtest.json`.
pub(crate) fn flow_paths(path: &Path, file: &TestFile, name: &str) -> Result<Vec<PathBuf>, String> {
    let dir = path.parent().unwrap_or(Path::new(""));
    if let Some(flows) = &file.flows {
        return Ok(flows.iter().map(|f| dir.join(f)).collect());
    }
    let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    match file_name.strip_suffix(".flowtest.json") {
        Some(stem) => Ok(vec![dir.join(format!("{stem}.json"))]),
        None => Err(format!(
            "{name} has no \"flows\" and its name does not end in .flowtest.json, so no flow is known to test"
        )),
    }
}

/// A flow document of a suite's set: its file (as annotations name it), the document and
/// where each member is in its text.
struct FlowFile {
    name: String,
    document: Value,
    map: Option<SourceMap>,
}

/// One test file, read and checked, with its flow set.
struct Suite {
    name: String,
    map: SourceMap,
    file: TestFile,
    /// The set: the first flow, then its subflows.
    flows: Vec<FlowFile>,
    /// The first issue of an invalid set (its cases fail with it, and its flows' coverage is
    /// not measured).
    invalid: Option<String>,
}

impl Suite {
    fn documents(&self) -> Vec<&Value> {
        self.flows.iter().map(|f| &f.document).collect()
    }

    /// The file and position of a flow step (the first flow of the set with that id).
    fn locate_step(&self, flow: &str, step: &str) -> Option<(&str, Location)> {
        let file = self
            .flows
            .iter()
            .find(|f| f.document.get("id").and_then(Value::as_str) == Some(flow))?;
        let index = file
            .document
            .get("steps")?
            .as_array()?
            .iter()
            .position(|s| s.get("id").and_then(Value::as_str) == Some(step))?;
        let at = file
            .map
            .as_ref()?
            .locate(&format!("/steps/{index}/id"), true)?;
        Some((&file.name, at))
    }
}

/// The results of one file.
struct SuiteRun {
    runs: Vec<CaseRun>,
}

/// Where a pointer's member is: its key for an object member (an unknown key, an expectation),
/// its value for an array element (a turn, a case).
fn location(map: &SourceMap, pointer: &str) -> (usize, usize) {
    map.locate(pointer, true)
        .map_or((1, 1), |l| (l.line, l.column))
}

fn load_suite(path: &Path, subflows: &[(PathBuf, Value, SourceMap)]) -> Result<Suite, String> {
    let (name, value, map) = read_json(path)?;
    let file = TestFile::from_json(&value).map_err(|issues| {
        issues
            .iter()
            .map(|issue| {
                let (line, column) = location(&map, &issue.path);
                format!("{name}:{line}:{column}: {}", issue.message)
            })
            .collect::<Vec<_>>()
            .join("\n")
    })?;
    let mut paths = flow_paths(path, &file, &name)?;
    let mut flows = Vec::new();
    for flow in &paths {
        let (_, document, flow_map) = read_json(flow).map_err(|e| {
            if flow.exists() {
                e
            } else {
                format!(
                    "{name}: its flow {} cannot be read: not found",
                    flow.display()
                )
            }
        })?;
        flows.push(FlowFile {
            name: tidy_path(flow),
            document,
            map: Some(flow_map),
        });
    }
    for (subflow, document, subflow_map) in subflows {
        if !paths.iter().any(|p| same_file(p, subflow)) {
            paths.push(subflow.clone());
            flows.push(FlowFile {
                name: tidy_path(subflow),
                document: document.clone(),
                map: Some(subflow_map.clone()),
            });
        }
    }
    let (first, rest) = flows
        .split_first()
        .ok_or_else(|| format!("{name} names no flow"))?;
    let rest: Vec<Value> = rest.iter().map(|f| f.document.clone()).collect();
    let analysis = analyzer::analyze_set(&first.document, &rest);
    let invalid = (!analysis.valid).then(|| {
        analysis.issues.first().map_or_else(
            || "the flow set is not valid".to_owned(),
            |issue| {
                let index = match issue.source.strip_prefix("subflows/") {
                    Some(n) => n.parse::<usize>().map_or(0, |n| n + 1),
                    None => 0,
                };
                let file = paths
                    .get(index)
                    .map_or(String::new(), |p| p.display().to_string());
                format!("{file} is not valid: {} at {}", issue.message, issue.path)
            },
        )
    });
    let suite = Suite {
        name,
        map,
        file,
        flows,
        invalid,
    };
    if suite.invalid.is_none()
        && let Ok(set) = runtime::FlowSet::new(&suite.documents())
    {
        let issues = suite.file.check_against(&set);
        if !issues.is_empty() {
            return Err(issues
                .iter()
                .map(|issue| {
                    let (line, column) = location(&suite.map, &issue.path);
                    format!("{}:{line}:{column}: {}", suite.name, issue.message)
                })
                .collect::<Vec<_>>()
                .join("\n"));
        }
    }
    Ok(suite)
}

fn run_suite(suite: &Suite, coverage: &mut CoverageRun) -> SuiteRun {
    let documents = suite.documents();
    let set = match (&suite.invalid, runtime::FlowSet::new(&documents)) {
        (None, Ok(set)) => set,
        (invalid, result) => {
            let reason = invalid.clone().unwrap_or_else(|| match result {
                Err(error) => error.to_string(),
                Ok(_) => String::new(),
            });
            coverage
                .not_measured
                .push(format!("{}: its flows are not a valid set", suite.name));
            let runs = suite
                .file
                .tests
                .iter()
                .enumerate()
                .map(|(index, case)| CaseRun {
                    name: case.name.clone(),
                    index,
                    failure: Some(runtime::Failure {
                        path: format!("/tests/{index}"),
                        turn: None,
                        check: "flows".to_owned(),
                        expected: "a valid flow set".to_owned(),
                        actual: reason.clone(),
                        at: None,
                        conversation: Vec::new(),
                    }),
                    transitions: Vec::new(),
                    path: Vec::new(),
                })
                .collect();
            return SuiteRun { runs };
        }
    };
    let runs = suite.file.run(&set);
    coverage.counter.add(
        &documents,
        runs.iter()
            .map(|r| (r.transitions.as_slice(), r.path.as_slice())),
    );
    SuiteRun { runs }
}

/// Coverage over a run: what the valid sets' cases took, and the files whose flows could not
/// be measured.
#[derive(Default)]
struct CoverageRun {
    counter: CoverageCounter,
    not_measured: Vec<String>,
}

/// The coverage report of a run, with the `--min-coverage` verdict.
struct CoverageReport {
    coverage: Coverage,
    /// `FILE: why` for each test file whose flows were not measured.
    not_measured: Vec<String>,
    minimum: Option<f64>,
}

impl CoverageReport {
    /// Edges taken and edges in all, over the measured flows; `None` when no flow was
    /// measured (never "0 of 0, 100 %").
    fn edges(&self) -> Option<(usize, usize)> {
        let (_, _, covered, total) = self.coverage.totals();
        (!self.coverage.flows.is_empty()).then_some((covered, total))
    }

    /// The edge figure: `4/5 edges, 80.0%`, or `not measured`.
    fn figure(&self) -> String {
        match self.edges() {
            None => "not measured".to_owned(),
            Some((covered, total)) => format!(
                "{:.1}% ({covered}/{total} edges)",
                runtime::percent(covered, total)
            ),
        }
    }

    /// `Some(true)` when the gate is met, `Some(false)` when not, `None` without a gate. A
    /// run with a file not measured does not meet it.
    fn met(&self) -> Option<bool> {
        let minimum = self.minimum?;
        Some(match self.edges() {
            Some((covered, total)) if self.not_measured.is_empty() => {
                total == 0 || covered as f64 * 100.0 >= minimum * total as f64
            }
            _ => false,
        })
    }

    /// The verdict as one line: `edge coverage 80.0% (4/5 edges) is below --min-coverage 90%`.
    fn verdict(&self) -> Option<String> {
        let minimum = self.minimum?;
        let met = self.met()?;
        let figure = self.figure();
        let minimum = format!("{minimum}%");
        Some(match (met, self.edges()) {
            (true, _) => format!("edge coverage {figure} meets --min-coverage {minimum}"),
            (false, None) => {
                format!("edge coverage is not measured, so --min-coverage {minimum} is not met")
            }
            (false, Some(_)) if !self.not_measured.is_empty() => format!(
                "edge coverage {figure} leaves flows not measured, so --min-coverage {minimum} is not met"
            ),
            (false, Some(_)) => {
                format!("edge coverage {figure} is below --min-coverage {minimum}")
            }
        })
    }

    fn text(&self) -> String {
        let coverage = &self.coverage;
        let mut out = String::from("\ncoverage\n");
        if coverage.flows.is_empty() {
            out.push_str("  not measured: no test file has a valid flow set\n");
        } else {
            let width = coverage
                .flows
                .iter()
                .map(|f| f.flow.chars().count())
                .max()
                .unwrap_or(0)
                .max("total".len());
            let _ = writeln!(out, "  {:width$}  {:>15}  {:>15}", "flow", "steps", "edges");
            let cell = |covered: usize, total: usize| {
                format!(
                    "{covered}/{total} {:5.1}%",
                    runtime::percent(covered, total)
                )
            };
            for flow in &coverage.flows {
                let _ = writeln!(
                    out,
                    "  {:width$}  {:>15}  {:>15}",
                    flow.flow,
                    cell(flow.steps_covered, flow.steps),
                    cell(flow.edges_covered, flow.edges)
                );
            }
            let (sc, st, ec, et) = coverage.totals();
            let _ = writeln!(
                out,
                "  {:width$}  {:>15}  {:>15}",
                "total",
                cell(sc, st),
                cell(ec, et)
            );
            let uncovered: Vec<String> = coverage
                .flows
                .iter()
                .flat_map(|flow| {
                    let steps = flow
                        .uncovered_steps
                        .iter()
                        .map(move |s| format!("  {}: step {s}", flow.flow));
                    let edges = flow
                        .uncovered_edges
                        .iter()
                        .map(move |e| format!("  {}: edge {}", flow.flow, e.label));
                    steps.chain(edges)
                })
                .collect();
            if uncovered.is_empty() && self.not_measured.is_empty() {
                out.push_str("every step and edge was covered\n");
            } else if !uncovered.is_empty() {
                out.push_str("uncovered:\n");
                for line in uncovered {
                    out.push_str(&line);
                    out.push('\n');
                }
            }
        }
        for file in &self.not_measured {
            let _ = writeln!(out, "not measured: {file}");
        }
        if let Some(verdict) = self.verdict() {
            let _ = writeln!(out, "{verdict}");
        }
        out
    }

    fn json(&self) -> Value {
        let mut report = serde_json::to_value(&self.coverage).unwrap_or(Value::Null);
        let (sc, st, ec, et) = self.coverage.totals();
        report["total"] = match self.edges() {
            None => Value::Null,
            Some(_) => json!({
                "steps": st, "stepsCovered": sc, "edges": et, "edgesCovered": ec,
                "edgesPercent": runtime::percent(ec, et),
            }),
        };
        report["notMeasured"] = json!(self.not_measured);
        if let (Some(minimum), Some(met)) = (self.minimum, self.met()) {
            report["minimum"] = json!(minimum);
            report["met"] = json!(met);
        }
        report
    }
}

/// `FILE:LINE:COL` of a case's failure (or of the case) in its test file.
fn case_location(suite: &Suite, case: &CaseRun) -> (usize, usize) {
    let pointer = case
        .failure
        .as_ref()
        .map_or(format!("/tests/{}", case.index), |f| f.path.clone());
    location(&suite.map, &pointer)
}

/// The flow step a failure points at, as text: `flows/bill.json:12:7: step thanks (flow
/// bill) sent the first message the case did not expect`.
fn flow_step_line(suite: &Suite, failure: &runtime::Failure) -> Option<String> {
    let at = failure.at.as_ref()?;
    let place = match suite.locate_step(&at.flow, &at.step) {
        Some((file, l)) => format!("{file}:{}:{}: ", l.line, l.column),
        None => String::new(),
    };
    Some(format!(
        "{place}step {} (flow {}) {}",
        at.step,
        at.flow,
        at.reason.describe()
    ))
}

/// `3 cases: 2 passed, 1 failed` (`1 case: …`).
fn totals_line(passed: usize, failed: usize) -> String {
    let cases = passed + failed;
    let noun = if cases == 1 { "case" } else { "cases" };
    format!("{cases} {noun}: {passed} passed, {failed} failed")
}

fn text_report(results: &[(&Suite, SuiteRun)], coverage: Option<&CoverageReport>) -> String {
    let mut out = String::new();
    let (mut passed, mut failed) = (0, 0);
    for (suite, run) in results {
        for case in &run.runs {
            match &case.failure {
                None => {
                    passed += 1;
                    let _ = writeln!(out, "ok   {}: {}", suite.name, case.name);
                }
                Some(failure) => {
                    failed += 1;
                    let (line, column) = case_location(suite, case);
                    let _ = writeln!(
                        out,
                        "FAIL {}:{line}:{column}: {}, {}\n  expected: {}\n  actual:   {}",
                        suite.name, case.name, failure.check, failure.expected, failure.actual
                    );
                    if let Some(step) = flow_step_line(suite, failure) {
                        let _ = writeln!(out, "  at:       {step}");
                    }
                    if !failure.conversation.is_empty() {
                        out.push_str("  conversation:\n");
                        for entry in &failure.conversation {
                            let _ = writeln!(out, "    {}", runtime::entry_line(entry));
                        }
                    }
                }
            }
        }
    }
    let _ = writeln!(out, "{}", totals_line(passed, failed));
    if let Some(coverage) = coverage {
        out.push_str(&coverage.text());
    }
    out
}

fn json_report(results: &[(&Suite, SuiteRun)], coverage: Option<&CoverageReport>) -> String {
    let (mut passed, mut failed) = (0, 0);
    let files: Vec<Value> = results
        .iter()
        .map(|(suite, run)| {
            let cases: Vec<Value> = run
                .runs
                .iter()
                .map(|case| {
                    let (line, column) = case_location(suite, case);
                    let mut object = json!({
                        "name": case.name,
                        "passed": case.failure.is_none(),
                        "line": line,
                        "column": column,
                    });
                    match &case.failure {
                        None => passed += 1,
                        Some(failure) => {
                            failed += 1;
                            let mut at = serde_json::to_value(&failure.at).unwrap_or(Value::Null);
                            if let (Some(step), Value::Object(map)) = (&failure.at, &mut at)
                                && let Some((file, l)) = suite.locate_step(&step.flow, &step.step)
                            {
                                map.insert("file".into(), json!(file));
                                map.insert("line".into(), json!(l.line));
                                map.insert("column".into(), json!(l.column));
                            }
                            object["failure"] = json!({
                                "path": failure.path,
                                "turn": failure.turn,
                                "check": failure.check,
                                "expected": failure.expected,
                                "actual": failure.actual,
                                "at": at,
                                "conversation": failure.conversation,
                            });
                        }
                    }
                    object
                })
                .collect();
            json!({ "file": suite.name, "cases": cases })
        })
        .collect();
    let mut report = json!({
        "files": files,
        "totals": { "cases": passed + failed, "passed": passed, "failed": failed },
    });
    if let Some(coverage) = coverage {
        report["coverage"] = coverage.json();
    }
    let mut text = serde_json::to_string_pretty(&report).unwrap_or_default();
    text.push('\n');
    text
}

/// GitHub's workflow command escaping of a message and of a property value.
fn github_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn github_property(text: &str) -> String {
    github_data(text).replace(':', "%3A").replace(',', "%2C")
}

fn github_report(results: &[(&Suite, SuiteRun)], coverage: Option<&CoverageReport>) -> String {
    let mut out = String::new();
    let (mut passed, mut failed) = (0, 0);
    for (suite, run) in results {
        for case in &run.runs {
            let Some(failure) = &case.failure else {
                passed += 1;
                continue;
            };
            failed += 1;
            let (line, column) = case_location(suite, case);
            let title = github_property(&format!("{}, {}", case.name, failure.check));
            let _ = writeln!(
                out,
                "::error file={},line={line},col={column},title={title}::{}",
                github_property(&tidy_path(Path::new(&suite.name))),
                github_data(&format!(
                    "expected: {}\nactual: {}",
                    failure.expected, failure.actual
                ))
            );
            // The same failure on the flow, at the step it points at.
            if let Some(at) = &failure.at
                && let Some((file, l)) = suite.locate_step(&at.flow, &at.step)
            {
                let _ = writeln!(
                    out,
                    "::error file={},line={},col={},endLine={},endColumn={},title={title}::{}",
                    github_property(file),
                    l.line,
                    l.column,
                    l.end_line,
                    l.end_column,
                    github_data(&format!(
                        "in case \"{}\" ({}:{line}:{column}), step {} {}\nexpected: {}\nactual: {}",
                        case.name,
                        suite.name,
                        at.step,
                        at.reason.describe(),
                        failure.expected,
                        failure.actual
                    ))
                );
            }
        }
    }
    let _ = writeln!(out, "{}", totals_line(passed, failed));
    if let Some(coverage) = coverage {
        if coverage.met() == Some(false)
            && let Some(verdict) = coverage.verdict()
        {
            let _ = writeln!(out, "::error title=coverage::{}", github_data(&verdict));
        }
        out.push_str(&coverage.text());
    }
    out
}

fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            // Characters XML 1.0 cannot carry at all.
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {
                out.push('\u{FFFD}');
            }
            c => out.push(c),
        }
    }
    out
}

/// The name of the JUnit test suite that carries the `--min-coverage` gate.
const COVERAGE_SUITE: &str = "botmesh-mcp coverage";

fn junit_report(results: &[(&Suite, SuiteRun)], coverage: Option<&CoverageReport>) -> String {
    // The coverage gate is one more test case, so CI test reports show it.
    let gate = coverage.and_then(|c| Some((c.minimum?, c.met()?, c.verdict()?)));
    let total: usize =
        results.iter().map(|(_, r)| r.runs.len()).sum::<usize>() + usize::from(gate.is_some());
    let failures: usize = results
        .iter()
        .map(|(_, r)| r.runs.iter().filter(|c| c.failure.is_some()).count())
        .sum::<usize>()
        + usize::from(gate.as_ref().is_some_and(|(_, met, _)| !met));
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"botmesh-mcp test\" tests=\"{total}\" failures=\"{failures}\" errors=\"0\">"
    );
    for (suite, run) in results {
        let suite_failures = run.runs.iter().filter(|c| c.failure.is_some()).count();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{suite_failures}\" errors=\"0\" skipped=\"0\" file=\"{}\">",
            xml(&suite.name),
            run.runs.len(),
            xml(&suite.name)
        );
        for case in &run.runs {
            let (line, column) = case_location(suite, case);
            let _ = write!(
                out,
                "    <testcase name=\"{}\" classname=\"{}\" file=\"{}\" line=\"{line}\"",
                xml(&case.name),
                xml(&suite.name),
                xml(&suite.name)
            );
            match &case.failure {
                None => out.push_str("/>\n"),
                Some(failure) => {
                    let mut body = format!(
                        "{}:{line}:{column}: {}\nexpected: {}\nactual: {}\n",
                        suite.name, failure.check, failure.expected, failure.actual
                    );
                    if let Some(step) = flow_step_line(suite, failure) {
                        let _ = writeln!(body, "at: {step}");
                    }
                    for entry in &failure.conversation {
                        let _ = writeln!(body, "  {}", runtime::entry_line(entry));
                    }
                    let _ = write!(
                        out,
                        ">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>\n",
                        xml(&format!(
                            "{}: expected {}, actual {}",
                            failure.check, failure.expected, failure.actual
                        )),
                        if failure.turn.is_some() {
                            "turn"
                        } else if failure.check.starts_with("expect") {
                            "expect"
                        } else {
                            failure.check.split(',').next().unwrap_or("")
                        },
                        xml(&body)
                    );
                }
            }
        }
        out.push_str("  </testsuite>\n");
    }
    if let Some((minimum, met, verdict)) = &gate {
        let _ = writeln!(
            out,
            "  <testsuite name=\"{COVERAGE_SUITE}\" tests=\"1\" failures=\"{}\" errors=\"0\" skipped=\"0\">",
            usize::from(!met)
        );
        let name = xml(&format!("edge coverage at least {minimum}%"));
        if *met {
            let _ = writeln!(
                out,
                "    <testcase name=\"{name}\" classname=\"{COVERAGE_SUITE}\"/>"
            );
        } else {
            let _ = writeln!(
                out,
                "    <testcase name=\"{name}\" classname=\"{COVERAGE_SUITE}\">\n      <failure message=\"{}\" type=\"coverage\">{}</failure>\n    </testcase>",
                xml(verdict),
                xml(&coverage.map(CoverageReport::text).unwrap_or_default())
            );
        }
        out.push_str("  </testsuite>\n");
    }
    if let Some(coverage) = coverage {
        let _ = writeln!(
            out,
            "  <!-- {} -->",
            xml(&coverage.text()).replace("--", "- -")
        );
    }
    out.push_str("</testsuites>\n");
    out
}

/// `--generate FLOW`: the test file (for a file saved beside FLOW: `flows` are relative to
/// FLOW's folder) and the uncovered edges.
fn generate(
    flow: &Path,
    subflows: &[(PathBuf, Value, SourceMap)],
) -> Result<(String, Vec<String>), String> {
    let (name, document, _) = read_json(flow)?;
    let dir = flow.parent().unwrap_or(Path::new(""));
    let members: Vec<&(PathBuf, Value, SourceMap)> = subflows
        .iter()
        .filter(|(p, _, _)| !same_file(p, flow))
        .collect();
    let rest: Vec<Value> = members.iter().map(|(_, v, _)| v.clone()).collect();
    let analysis = analyzer::analyze_set(&document, &rest);
    if !analysis.valid {
        let issue = analysis
            .issues
            .first()
            .map_or(String::new(), |i| format!(": {} at {}", i.message, i.path));
        return Err(format!(
            "{name} and its subflows are not a valid set{issue}"
        ));
    }
    let documents: Vec<&Value> = std::iter::once(&document).chain(rest.iter()).collect();
    let set = runtime::FlowSet::new(&documents).map_err(|e| format!("{name}: {e}"))?;
    let generated = runtime::generate(&set, &documents);
    let relative = |path: &Path| {
        let shown = path.strip_prefix(dir).unwrap_or(path);
        shown.display().to_string().replace('\\', "/")
    };
    let mut flows = vec![Value::from(relative(flow))];
    flows.extend(members.iter().map(|(p, _, _)| Value::from(relative(p))));
    let mut file = serde_json::Map::new();
    file.insert("flows".into(), Value::Array(flows));
    // Everything the generated file says besides its flows (`strict`, the cases).
    if let Some(generated) = generated.tests.as_object() {
        for (key, value) in generated {
            file.insert(key.clone(), value.clone());
        }
    }
    let file = Value::Object(file);
    // Written as the testing guide writes a file (one line per turn), like `chat --save-test`;
    // the generator only writes what the model reads, so the pretty form is a fallback.
    let text = match TestFile::from_json(&file) {
        Ok(parsed) => runtime::test_file_text(&parsed),
        Err(_) => {
            let mut text = serde_json::to_string_pretty(&file).unwrap_or_default();
            text.push('\n');
            text
        }
    };
    Ok((text, generated.uncovered))
}

fn execute(args: &Args) -> Result<(String, bool), String> {
    // `subflow_files` leaves out a folder's test files (they may sit beside the flows).
    let subflows: Vec<(PathBuf, Value, SourceMap)> = subflow_files(&args.subflows)?
        .iter()
        .map(|p| read_json(p).map(|(_, value, map)| (p.clone(), value, map)))
        .collect::<Result<_, _>>()?;
    if let Some(flow) = &args.generate {
        let (text, uncovered) = generate(flow, &subflows)?;
        for line in &uncovered {
            complain(&format!("uncovered: {line}"), false);
        }
        return Ok((text, false));
    }
    let files = test_files(&args.files)?;
    let mut suites = Vec::with_capacity(files.len());
    let mut errors = Vec::new();
    for file in &files {
        match load_suite(file, &subflows) {
            Ok(suite) => suites.push(suite),
            Err(error) => errors.push(error),
        }
    }
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }
    let mut coverage_run = CoverageRun::default();
    let results: Vec<(&Suite, SuiteRun)> = suites
        .iter()
        .map(|suite| (suite, run_suite(suite, &mut coverage_run)))
        .collect();
    let case_failed = results
        .iter()
        .any(|(_, run)| run.runs.iter().any(|c| c.failure.is_some()));
    let coverage = args.coverage.then(|| CoverageReport {
        coverage: coverage_run.counter.finish(),
        not_measured: coverage_run.not_measured,
        minimum: args.min_coverage,
    });
    let gate_failed = coverage.as_ref().is_some_and(|c| c.met() == Some(false));
    let report = match args.format {
        Format::Text => text_report(&results, coverage.as_ref()),
        Format::Json => json_report(&results, coverage.as_ref()),
        Format::Github => github_report(&results, coverage.as_ref()),
        Format::Junit => junit_report(&results, coverage.as_ref()),
    };
    Ok((report, case_failed || gate_failed))
}

fn complain(message: &str, usage: bool) {
    complain_as("test", message, usage.then_some(USAGE));
}

/// Runs `botmesh-mcp test` with the arguments that follow `test`.
pub(crate) fn run(args: Vec<OsString>) -> ExitCode {
    let args = match parse_args(args) {
        Ok(Command::Test(args)) => args,
        Ok(Command::Help) => {
            emit(&format!("{USAGE}\n"));
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            complain(&message, true);
            return ExitCode::from(2);
        }
    };
    match execute(&args) {
        Ok((report, failed)) => {
            emit(&report);
            if failed {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(message) => {
            complain(&message, false);
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn min_coverage_takes_a_percentage_and_turns_coverage_on() {
        let Ok(Command::Test(args)) = parse_args(os(&["--min-coverage", "87.5%", "t"])) else {
            panic!("parses");
        };
        assert_eq!(args.min_coverage, Some(87.5));
        assert!(args.coverage);
        for wrong in ["101", "-1", "ninety", "", "NaN"] {
            assert_eq!(
                parse_args(os(&["--min-coverage", wrong, "t"])),
                Err(format!(
                    "--min-coverage takes a percentage from 0 to 100 (e.g. 90 or 87.5), not {wrong:?}"
                ))
            );
        }
        assert!(parse_args(os(&["--min-coverage", "90", "--generate", "f.json"])).is_err());
    }

    #[test]
    fn tidy_paths_lose_dot_segments() {
        assert_eq!(
            tidy_path(Path::new("examples/tests/../flows/a.json")),
            "examples/flows/a.json"
        );
        assert_eq!(tidy_path(Path::new("./a/./b.json")), "a/b.json");
        assert_eq!(tidy_path(Path::new("../x/../y.json")), "../y.json");
        assert_eq!(tidy_path(Path::new("/tmp/a/../b.json")), "/tmp/b.json");
        assert_eq!(tidy_path(Path::new("/../b.json")), "/../b.json");
    }

    fn report(
        flows: &[(usize, usize)],
        not_measured: &[&str],
        minimum: Option<f64>,
    ) -> CoverageReport {
        let flows = flows
            .iter()
            .enumerate()
            .map(|(i, &(covered, total))| runtime::FlowCoverage {
                flow: format!("f{i}"),
                steps: 1,
                steps_covered: 1,
                edges: total,
                edges_covered: covered,
                uncovered_steps: Vec::new(),
                uncovered_edges: Vec::new(),
            })
            .collect();
        CoverageReport {
            coverage: Coverage { flows },
            not_measured: not_measured.iter().map(|s| (*s).to_owned()).collect(),
            minimum,
        }
    }

    #[test]
    fn the_coverage_gate_compares_exactly_and_never_counts_what_was_not_measured() {
        // 8/9 edges is 88.88…%: below 88.9 although it prints as 88.8.
        assert_eq!(report(&[(8, 9)], &[], Some(88.9)).met(), Some(false));
        assert_eq!(report(&[(8, 9)], &[], Some(88.8)).met(), Some(true));
        assert_eq!(
            report(&[(4, 4), (0, 0)], &[], Some(100.0)).met(),
            Some(true)
        );
        assert_eq!(report(&[(4, 4)], &[], None).met(), None);
        let nothing = report(
            &[],
            &["t.flowtest.json: its flows are not a valid set"],
            Some(0.0),
        );
        assert_eq!(nothing.met(), Some(false));
        assert_eq!(nothing.figure(), "not measured");
        let text = nothing.text();
        assert!(
            !text.contains("100.0%") && !text.contains("every step"),
            "{text}"
        );
        assert_eq!(
            text,
            "\ncoverage\n  not measured: no test file has a valid flow set\nnot measured: t.flowtest.json: its flows are not a valid set\nedge coverage is not measured, so --min-coverage 0% is not met\n"
        );
        let partly = report(
            &[(2, 2)],
            &["t.flowtest.json: its flows are not a valid set"],
            Some(50.0),
        );
        assert_eq!(partly.met(), Some(false));
        assert!(!partly.text().contains("every step and edge was covered"));
        assert_eq!(
            report(&[(3, 4)], &[], Some(90.0)).verdict().as_deref(),
            Some("edge coverage 75.0% (3/4 edges) is below --min-coverage 90%")
        );
    }
}
