//! `botmesh-mcp test [--subflows DIR|FILE]... [--format text|json|github|junit] [--coverage]
//! FILE...`: runs conversation test files (`*.flowtest.json`, runtime spec §9) with the
//! simulator of `flow_simulate`.
//!
//! A FILE may be a directory: its `*.flowtest.json` files, in name order. A test file's
//! `flows` are paths relative to it (the first is where its cases start, the others its
//! subflows); without `flows`, `NAME.flowtest.json` tests `NAME.json` beside it. `--subflows`
//! adds documents to every file's set (a folder's `*.flowtest.json` files are not among them).
//!
//! `--generate FLOW` prints a test file whose cases cover every edge the search of
//! `botmesh_flow_runtime::generate` reaches, its `flows` relative to FLOW's folder (for a file
//! saved beside FLOW); each edge it cannot cover goes to stderr with the reason (exit 0).
//!
//! Exit codes: 0 every case passed, 1 a case failed (or a file's flows are not a valid set:
//! its cases fail, naming the first issue), 2 on a usage error, a file that cannot be read, a
//! file that is not JSON or a malformed test file (each message names the file, line and
//! column). Every file is read and checked before anything runs, so exit 2 leaves stdout
//! empty.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use botmesh_flow_analyzer::{self as analyzer, SourceMap, Value, parse_with_positions};
use botmesh_flow_runtime::{self as runtime, CaseRun, Coverage, CoverageCounter, TestFile};
use serde_json::json;

use crate::check::{complain_as, emit, same_file, subflow_files};

const USAGE: &str = "usage: botmesh-mcp test [--subflows DIR|FILE]... [--format text|json|github|junit] [--coverage] FILE...
       botmesh-mcp test --generate FLOW [--subflows DIR|FILE]...

Runs conversation test files (*.flowtest.json; a directory: its *.flowtest.json files).
  --subflows DIR|FILE   subflow documents added to every file's flows (repeatable)
  --format FORMAT       text (default), json, github (Actions annotations) or junit (XML)
  --coverage            report the steps and graph edges the cases took, and list the others
  --generate FLOW       print a test file whose cases cover every edge of FLOW the search
                        reaches (what it cannot cover goes to stderr)
Exit status: 0 all cases passed, 1 a case failed, 2 usage error or unreadable or malformed file.";

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

#[derive(Debug, PartialEq, Eq)]
struct Args {
    generate: Option<PathBuf>,
    subflows: Vec<PathBuf>,
    format: Format,
    coverage: bool,
    files: Vec<PathBuf>,
}

#[derive(Debug, PartialEq, Eq)]
enum Command {
    Test(Args),
    Help,
}

fn parse_args(args: Vec<OsString>) -> Result<Command, String> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(args);
    let mut subflows = Vec::new();
    let mut format = Format::Text;
    let mut coverage = false;
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
    if files.is_empty() && generate.is_none() {
        return Err("no FILE to test".to_owned());
    }
    Ok(Command::Test(Args {
        generate,
        subflows,
        format,
        coverage,
        files,
    }))
}

fn kind(error: &std::io::Error) -> String {
    error.kind().to_string()
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
            let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.ends_with(".flowtest.json") && !file.is_dir() {
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

/// The flow files a test file runs: its `flows`, or `NAME.json` beside `NAME.flowtest.json`.
fn flow_paths(path: &Path, file: &TestFile, name: &str) -> Result<Vec<PathBuf>, String> {
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

/// One test file, read and checked, with its flow set.
struct Suite {
    name: String,
    map: SourceMap,
    file: TestFile,
    documents: Vec<Value>,
    /// The first issue of an invalid set (its cases fail with it).
    invalid: Option<String>,
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

fn load_suite(path: &Path, subflows: &[(PathBuf, Value)]) -> Result<Suite, String> {
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
    let mut documents = Vec::new();
    for flow in &paths {
        let (flow_name, document, _) = read_json(flow).map_err(|e| {
            if flow.exists() {
                e
            } else {
                format!(
                    "{name}: its flow {} cannot be read: not found",
                    flow.display()
                )
            }
        })?;
        let _ = flow_name;
        documents.push(document);
    }
    for (subflow, document) in subflows {
        if !paths.iter().any(|p| same_file(p, subflow)) {
            paths.push(subflow.clone());
            documents.push(document.clone());
        }
    }
    let (first, rest) = documents
        .split_first()
        .ok_or_else(|| format!("{name} names no flow"))?;
    let analysis = analyzer::analyze_set(first, rest);
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
        documents,
        invalid,
    };
    if suite.invalid.is_none() {
        let refs: Vec<&Value> = suite.documents.iter().collect();
        if let Ok(set) = runtime::FlowSet::new(&refs) {
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
    }
    Ok(suite)
}

fn run_suite(suite: &Suite, counter: &mut CoverageCounter) -> SuiteRun {
    let refs: Vec<&Value> = suite.documents.iter().collect();
    let set = match (&suite.invalid, runtime::FlowSet::new(&refs)) {
        (None, Ok(set)) => set,
        (invalid, result) => {
            let reason = invalid.clone().unwrap_or_else(|| match result {
                Err(error) => error.to_string(),
                Ok(_) => String::new(),
            });
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
                        expected: "a valid flow set".to_owned(),
                        actual: reason.clone(),
                        conversation: Vec::new(),
                    }),
                    transitions: Vec::new(),
                    path: Vec::new(),
                })
                .collect();
            return SuiteRun { runs };
        }
    };
    let runs: Vec<CaseRun> = suite
        .file
        .tests
        .iter()
        .enumerate()
        .map(|(index, case)| runtime::run_case(&set, case, index))
        .collect();
    counter.add(
        &refs,
        runs.iter()
            .map(|r| (r.transitions.as_slice(), r.path.as_slice())),
    );
    SuiteRun { runs }
}

fn what_failed(failure: &runtime::Failure) -> String {
    match failure.turn {
        Some(turn) => format!("turn {turn}"),
        None => failure
            .path
            .rsplit_once("/expect/")
            .map_or("expect".to_owned(), |(_, key)| {
                format!("expect.{}", key.replace('/', "."))
            }),
    }
}

fn text_report(results: &[(&Suite, SuiteRun)], coverage: Option<&Coverage>) -> String {
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
                    let (line, column) = location(&suite.map, &failure.path);
                    let _ = writeln!(
                        out,
                        "FAIL {}:{line}:{column}: {}, {}\n  expected: {}\n  actual:   {}",
                        suite.name,
                        case.name,
                        what_failed(failure),
                        failure.expected,
                        failure.actual
                    );
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
    let _ = writeln!(
        out,
        "{} cases: {passed} passed, {failed} failed",
        passed + failed
    );
    if let Some(coverage) = coverage {
        out.push_str(&coverage_text(coverage));
    }
    out
}

fn coverage_text(coverage: &Coverage) -> String {
    let mut out = String::from("\ncoverage\n");
    let width = coverage
        .flows
        .iter()
        .map(|f| f.flow.chars().count())
        .max()
        .unwrap_or(0)
        .max("total".len());
    let _ = writeln!(out, "  {:width$}  {:>15}  {:>15}", "flow", "steps", "edges");
    for flow in &coverage.flows {
        let steps = format!(
            "{}/{} {:5.1}%",
            flow.steps_covered,
            flow.steps,
            runtime::percent(flow.steps_covered, flow.steps)
        );
        let edges = format!(
            "{}/{} {:5.1}%",
            flow.edges_covered,
            flow.edges,
            runtime::percent(flow.edges_covered, flow.edges)
        );
        let _ = writeln!(out, "  {:width$}  {steps:>15}  {edges:>15}", flow.flow);
    }
    let (sc, st, ec, et) = coverage.totals();
    let _ = writeln!(
        out,
        "  {:width$}  {:>15}  {:>15}",
        "total",
        format!("{sc}/{st} {:5.1}%", runtime::percent(sc, st)),
        format!("{ec}/{et} {:5.1}%", runtime::percent(ec, et))
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
    if uncovered.is_empty() {
        out.push_str("every step and edge was covered\n");
    } else {
        out.push_str("uncovered:\n");
        for line in uncovered {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

fn json_report(results: &[(&Suite, SuiteRun)], coverage: Option<&Coverage>) -> String {
    let (mut passed, mut failed) = (0, 0);
    let files: Vec<Value> = results
        .iter()
        .map(|(suite, run)| {
            let cases: Vec<Value> = run
                .runs
                .iter()
                .map(|case| {
                    let pointer = case
                        .failure
                        .as_ref()
                        .map_or(format!("/tests/{}", case.index), |f| f.path.clone());
                    let (line, column) = location(&suite.map, &pointer);
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
                            object["failure"] = json!({
                                "path": failure.path,
                                "turn": failure.turn,
                                "expected": failure.expected,
                                "actual": failure.actual,
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
        report["coverage"] = serde_json::to_value(coverage).unwrap_or(Value::Null);
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

fn github_report(results: &[(&Suite, SuiteRun)], coverage: Option<&Coverage>) -> String {
    let mut out = String::new();
    let (mut passed, mut failed) = (0, 0);
    for (suite, run) in results {
        for case in &run.runs {
            let Some(failure) = &case.failure else {
                passed += 1;
                continue;
            };
            failed += 1;
            let (line, column) = location(&suite.map, &failure.path);
            let _ = writeln!(
                out,
                "::error file={},line={line},col={column},title={}::{}",
                github_property(&suite.name),
                github_property(&format!("{}, {}", case.name, what_failed(failure))),
                github_data(&format!(
                    "expected: {}\nactual: {}",
                    failure.expected, failure.actual
                ))
            );
        }
    }
    let _ = writeln!(
        out,
        "{} cases: {passed} passed, {failed} failed",
        passed + failed
    );
    if let Some(coverage) = coverage {
        out.push_str(&coverage_text(coverage));
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

fn junit_report(results: &[(&Suite, SuiteRun)], coverage: Option<&Coverage>) -> String {
    let total: usize = results.iter().map(|(_, r)| r.runs.len()).sum();
    let failures: usize = results
        .iter()
        .map(|(_, r)| r.runs.iter().filter(|c| c.failure.is_some()).count())
        .sum();
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
            let pointer = case
                .failure
                .as_ref()
                .map_or(format!("/tests/{}", case.index), |f| f.path.clone());
            let (line, column) = location(&suite.map, &pointer);
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
                        suite.name,
                        what_failed(failure),
                        failure.expected,
                        failure.actual
                    );
                    for entry in &failure.conversation {
                        let _ = writeln!(body, "  {}", runtime::entry_line(entry));
                    }
                    let _ = write!(
                        out,
                        ">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>\n",
                        xml(&format!(
                            "{}: expected {}, actual {}",
                            what_failed(failure),
                            failure.expected,
                            failure.actual
                        )),
                        if failure.turn.is_some() {
                            "turn"
                        } else {
                            "expect"
                        },
                        xml(&body)
                    );
                }
            }
        }
        out.push_str("  </testsuite>\n");
    }
    if let Some(coverage) = coverage {
        let _ = writeln!(
            out,
            "  <!-- {} -->",
            xml(&coverage_text(coverage)).replace("--", "- -")
        );
    }
    out.push_str("</testsuites>\n");
    out
}

/// `--generate FLOW`: the test file (for a file saved beside FLOW: `flows` are relative to
/// FLOW's folder) and the uncovered edges.
fn generate(flow: &Path, subflows: &[(PathBuf, Value)]) -> Result<(String, Vec<String>), String> {
    let (name, document, _) = read_json(flow)?;
    let dir = flow.parent().unwrap_or(Path::new(""));
    let members: Vec<&(PathBuf, Value)> = subflows
        .iter()
        .filter(|(p, _)| !same_file(p, flow))
        .collect();
    let rest: Vec<Value> = members.iter().map(|(_, v)| v.clone()).collect();
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
    flows.extend(members.iter().map(|(p, _)| Value::from(relative(p))));
    let mut file = serde_json::Map::new();
    file.insert("flows".into(), Value::Array(flows));
    file.insert("tests".into(), generated.tests["tests"].clone());
    let mut text = serde_json::to_string_pretty(&Value::Object(file)).unwrap_or_default();
    text.push('\n');
    Ok((text, generated.uncovered))
}

fn execute(args: &Args) -> Result<(String, bool), String> {
    // A folder's test files are not subflows (they may sit beside the flows).
    let subflows: Vec<(PathBuf, Value)> = subflow_files(&args.subflows)?
        .iter()
        .filter(|p| {
            !p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(".flowtest.json"))
        })
        .map(|p| read_json(p).map(|(_, value, _)| (p.clone(), value)))
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
    let mut counter = CoverageCounter::new();
    let results: Vec<(&Suite, SuiteRun)> = suites
        .iter()
        .map(|suite| (suite, run_suite(suite, &mut counter)))
        .collect();
    let failed = results
        .iter()
        .any(|(_, run)| run.runs.iter().any(|c| c.failure.is_some()));
    let coverage = args.coverage.then(|| counter.finish());
    let report = match args.format {
        Format::Text => text_report(&results, coverage.as_ref()),
        Format::Json => json_report(&results, coverage.as_ref()),
        Format::Github => github_report(&results, coverage.as_ref()),
        Format::Junit => junit_report(&results, coverage.as_ref()),
    };
    Ok((report, failed))
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
