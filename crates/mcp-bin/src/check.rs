//! `botmesh-mcp check [--subflows DIR|FILE]... [--format text|json|github] [--max-warnings N]
//! [--fix [--unsafe-fixes] [--diff]] FILE...`: validates and lints flow documents with the
//! same analyzer as the `flow_analyze` tool, so CI and an agent never disagree.
//!
//! Exit codes: 0 when no file has an error-severity finding, 1 when one has (an invalid
//! document, a checked file that is not JSON, a document that needs migration, or an error
//! diagnostic) or when there are more warnings than `--max-warnings` allows, 2 on a usage
//! error, a file that cannot be read, or a `--subflows` file that is not JSON (the message
//! names the file, line and column). Every file is read before anything is printed, so a
//! failed read leaves stdout empty.
//!
//! `--max-warnings N` works as ESLint's: more than N warnings fail the run, with one line
//! saying so; infos never count (ESLint has no infos; ours are advice, like its suggestions),
//! and errors fail the run whatever N is.
//!
//! Files are read with positions (`botmesh_flow_schema::parse_with_positions`): every finding
//! carries the line and column of the member its pointer names (the key of an unknown
//! property, the value otherwise), and a checked file that is not JSON is one `not-json` error
//! at the line and column where it stops being JSON. A conversation test file given as a FILE
//! (a top-level `tests` array and no `steps`) is not checked: one `flowtest-file` info says
//! to run it with `botmesh-mcp test`.
//!
//! A FILE may be a directory: its `*.json` files in name order, without the conversation test
//! files (`*.flowtest.json`). `--subflows` may be repeated; a directory contributes its
//! `*.json` files the same way. A checked file that is also among the subflows is left out of
//! its own subflow set.
//!
//! `--fix` applies the safe fixes (and with `--unsafe-fixes` the unsafe ones too) of each
//! checked file until none applies, and rewrites the file with minimal text edits at the fixed
//! spots (`botmesh_flow_analyzer::fix_text`, which `flow_fix` with `documentText` runs too):
//! everything else (indentation, key order, spacing) stays byte for byte. A file whose fixes cannot all be written as such edits is left
//! untouched (and says so). Each fix applied is printed as `FILE: fixed: SENTENCE`, then the
//! report of the files as they now are. `--diff` prints the edits as a unified diff instead
//! of writing them (the report is then of the files as they would be).

use std::ffi::OsString;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use botmesh_flow_analyzer::{
    self as analyzer, ReportFormat, SourceMap, SyntaxError, Value, parse_with_positions,
};

const USAGE: &str = "usage: botmesh-mcp check [--subflows DIR|FILE]... [--format text|json|github]
                         [--max-warnings N] [--fix [--unsafe-fixes] [--diff]] FILE...

Validates and lints flow documents (the flow_analyze engine); a FILE may be a directory (its
*.json files, test files *.flowtest.json left out).
  --subflows DIR|FILE   subflow documents the checked files may call (repeatable; a directory
                        contributes its *.json files)
  --format FORMAT       text (default), json, or github (Actions annotations)
  --max-warnings N      fail (exit 1) when there are more than N warnings (infos do not count)
  --fix                 apply the safe fixes and rewrite the files (minimal text edits)
  --unsafe-fixes        with --fix, also apply the unsafe fixes
  --diff                with --fix, print the edits as a diff instead of writing them
Exit status: 0 no errors, 1 errors found or more warnings than --max-warnings, 2 usage error
or unreadable file.";

/// The usage text, which the top-level `--help` quotes.
pub(crate) fn usage() -> &'static str {
    USAGE
}

/// The parsed command line.
#[derive(Debug, PartialEq, Eq)]
struct Args {
    subflows: Vec<PathBuf>,
    format: ReportFormat,
    files: Vec<PathBuf>,
    fix: FixMode,
    /// `--max-warnings N`: more warnings than this fail the run.
    max_warnings: Option<usize>,
}

/// What `--fix`, `--unsafe-fixes` and `--diff` ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct FixMode {
    fix: bool,
    include_unsafe: bool,
    diff: bool,
}

#[derive(Debug, PartialEq, Eq)]
enum Command {
    Check(Args),
    Help,
}

fn parse_args(args: Vec<OsString>) -> Result<Command, String> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(args);
    let mut subflows = Vec::new();
    let mut format = ReportFormat::Text;
    let mut files = Vec::new();
    let mut fix = FixMode::default();
    let mut max_warnings = None;
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        match arg {
            Long("fix") => fix.fix = true,
            Long("max-warnings") => {
                let value = parser.value().map_err(|e| e.to_string())?;
                let text = value.to_string_lossy();
                max_warnings = Some(text.trim().parse::<usize>().map_err(|_| {
                    format!(
                        "--max-warnings takes a whole number of warnings (0 or more), not {text:?}"
                    )
                })?);
            }
            Long("unsafe-fixes") => fix.include_unsafe = true,
            Long("diff") => fix.diff = true,
            Long("subflows") => {
                subflows.push(PathBuf::from(parser.value().map_err(|e| e.to_string())?))
            }
            Long("format") => {
                let value = parser.value().map_err(|e| e.to_string())?;
                let text = value
                    .to_str()
                    .ok_or_else(|| format!("unknown report format {value:?}"))?;
                format = text.parse().map_err(|e: analyzer::Error| e.to_string())?;
            }
            Short('h') | Long("help") => return Ok(Command::Help),
            Value(file) => files.push(PathBuf::from(file)),
            other => return Err(other.unexpected().to_string()),
        }
    }
    if files.is_empty() {
        return Err("no FILE to check".to_owned());
    }
    if (fix.include_unsafe || fix.diff) && !fix.fix {
        return Err("--unsafe-fixes and --diff go with --fix".to_owned());
    }
    Ok(Command::Check(Args {
        subflows,
        format,
        files,
        fix,
        max_warnings,
    }))
}

/// A file read and parsed.
pub(crate) struct Loaded {
    pub(crate) name: String,
    pub(crate) document: Value,
}

pub(crate) fn load(path: &Path) -> Result<Loaded, String> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {name}: {}", io_error_kind(&e)))?;
    let document = analyzer::parse_source(&name, &text).map_err(|e| e.to_string())?;
    Ok(Loaded { name, document })
}

/// A file read with positions: its document and source map, or why its text is not JSON.
struct Located {
    name: String,
    path: PathBuf,
    text: String,
    parsed: Result<(Value, SourceMap), SyntaxError>,
}

fn load_located(path: &Path) -> Result<Located, String> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {name}: {}", io_error_kind(&e)))?;
    Ok(Located {
        parsed: parse_with_positions(&text),
        text,
        name,
        path: path.to_owned(),
    })
}

/// The error's kind in words ("entity not found"), without the operating system's text, which
/// may carry an absolute path or vary by platform.
fn io_error_kind(error: &std::io::Error) -> String {
    error.kind().to_string()
}

/// The flow files of FILE and `--subflows` arguments: directories expanded to their `*.json`
/// files in name order, leaving out conversation test files (`*.flowtest.json`), which may
/// sit beside the flows. A directory with none is an error when `required`.
pub(crate) fn flow_files(paths: &[PathBuf], required: bool) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for path in paths {
        if !path.is_dir() {
            out.push(path.clone());
            continue;
        }
        let entries = std::fs::read_dir(path).map_err(|e| {
            format!(
                "cannot read directory {}: {}",
                path.display(),
                io_error_kind(&e)
            )
        })?;
        let mut found = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| {
                format!(
                    "cannot read directory {}: {}",
                    path.display(),
                    io_error_kind(&e)
                )
            })?;
            let file = entry.path();
            let test_file = file
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(".flowtest.json"));
            if file.extension().is_some_and(|x| x == "json") && !test_file && !file.is_dir() {
                found.push(file);
            }
        }
        if found.is_empty() && required {
            return Err(format!(
                "{} has no flow file (*.json, not *.flowtest.json)",
                path.display()
            ));
        }
        found.sort();
        out.extend(found);
    }
    Ok(out)
}

/// The subflow files of `--subflows` arguments (see [`flow_files`]).
pub(crate) fn subflow_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    flow_files(paths, false)
}

pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// Reads every file, then checks each; returns the report text and whether an error was found.
fn execute(args: &Args) -> Result<(String, bool), String> {
    let subflows: Vec<Located> = subflow_files(&args.subflows)?
        .iter()
        .map(|p| load_located(p))
        .collect::<Result<_, _>>()?;
    let mut subflow_set = Vec::with_capacity(subflows.len());
    for subflow in &subflows {
        match &subflow.parsed {
            Ok((document, map)) => subflow_set.push((subflow, document, map)),
            Err(error) => return Err(format!("{} is {error}", subflow.name)),
        }
    }
    let mut documents: Vec<Located> = flow_files(&args.files, true)?
        .iter()
        .map(|p| load_located(p))
        .collect::<Result<_, _>>()?;
    let mut fixed_lines = String::new();
    if args.fix.fix {
        for document in &mut documents {
            match &document.parsed {
                Ok((value, _)) if !analyzer::is_flowtest_file(value) => {}
                _ => continue,
            }
            let set: Vec<Value> = subflow_set
                .iter()
                .filter(|(s, _, _)| !same_file(&s.path, &document.path))
                .map(|(_, value, _)| (*value).clone())
                .collect();
            let Ok(analyzer::TextFixOutcome { outcome, text }) =
                analyzer::fix_text(&document.text, &set, args.fix.include_unsafe)
            else {
                continue;
            };
            if outcome.applied.is_empty() {
                continue;
            }
            let Some(text) = text else {
                fixed_lines.push_str(&format!(
                    "{}: {} fixes apply but cannot all be written as text edits; the file was left untouched\n",
                    document.name,
                    outcome.applied.len()
                ));
                continue;
            };
            for fix in &outcome.applied {
                let unsafe_mark = match fix.applicability {
                    analyzer::Applicability::Safe => "",
                    analyzer::Applicability::Unsafe => " (unsafe)",
                };
                fixed_lines.push_str(&format!(
                    "{}: fixed: {}{unsafe_mark}\n",
                    document.name, fix.description
                ));
            }
            if args.fix.diff {
                fixed_lines.push_str(&unified_diff(&document.name, &document.text, &text));
            } else {
                std::fs::write(&document.path, &text).map_err(|e| {
                    format!("cannot write {}: {}", document.name, io_error_kind(&e))
                })?;
            }
            document.parsed = parse_with_positions(&text);
            document.text = text;
        }
    }
    let mut reports = Vec::with_capacity(documents.len());
    for document in &documents {
        let (value, map) = match &document.parsed {
            Ok(parsed) => parsed,
            Err(error) => {
                reports.push(analyzer::FileReport::not_json(&document.name, error));
                continue;
            }
        };
        let members: Vec<_> = subflow_set
            .iter()
            .filter(|(s, _, _)| !same_file(&s.path, &document.path))
            .collect();
        let set: Vec<(&str, &Value)> = members
            .iter()
            .map(|(s, value, _)| (s.name.as_str(), *value))
            .collect();
        let mut report = if analyzer::is_flowtest_file(value) {
            analyzer::FileReport::flowtest_file(&document.name)
        } else {
            analyzer::check_document(&document.name, value, &set)
        };
        report.locate(|file| {
            if file == document.name {
                return Some(map);
            }
            members
                .iter()
                .find(|(s, _, _)| s.name == file)
                .map(|(_, _, map)| *map)
        });
        reports.push(report);
    }
    analyzer::drop_repeated_findings(&mut reports);
    let too_many = args
        .max_warnings
        .is_some_and(|max| analyzer::warning_count(&reports) > max);
    let failed = too_many || reports.iter().any(analyzer::FileReport::has_errors);
    let report = analyzer::render_report(&reports, args.format, args.max_warnings);
    // The JSON report stays one JSON value: what was fixed goes first only in the text forms.
    if args.format == ReportFormat::Json {
        if !fixed_lines.is_empty() {
            complain_fixed(&fixed_lines);
        }
        return Ok((report, failed));
    }
    Ok((fixed_lines + &report, failed))
}

#[expect(
    clippy::print_stderr,
    reason = "check is a CLI: with --format json, what --fix did goes to stderr"
)]
fn complain_fixed(lines: &str) {
    eprint!("{lines}");
}

/// A unified diff of one hunk (the changed lines with two lines of context), as `git diff`
/// prints it; empty when nothing changed.
fn unified_diff(name: &str, old: &str, new: &str) -> String {
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    if prefix == a.len() && prefix == b.len() {
        return String::new();
    }
    let start = prefix.saturating_sub(2);
    let a_end = (a.len() - suffix + 2).min(a.len());
    let b_end = (b.len() - suffix + 2).min(b.len());
    let mut out = format!(
        "--- {name}\n+++ {name}\n@@ -{},{} +{},{} @@\n",
        start + 1,
        a_end - start,
        start + 1,
        b_end - start
    );
    let line = |out: &mut String, mark: char, text: &str| {
        out.push(mark);
        out.push_str(text);
        if !text.ends_with('\n') {
            out.push_str("\n\\ No newline at end of file\n");
        }
    };
    for text in &a[start..prefix] {
        line(&mut out, ' ', text);
    }
    for text in &a[prefix..a.len() - suffix] {
        line(&mut out, '-', text);
    }
    for text in &b[prefix..b.len() - suffix] {
        line(&mut out, '+', text);
    }
    for text in &a[a.len() - suffix..a_end] {
        line(&mut out, ' ', text);
    }
    out
}

fn complain(message: &str, usage: bool) {
    complain_as("check", message, usage.then_some(USAGE));
}

/// A subcommand's error on stderr, `botmesh-mcp COMMAND: LINE` for each line of `message` (a
/// malformed test file may have several problems), then `usage` after a usage error: what
/// `check`, `render`, `chat` and `test` print before exiting 2.
#[expect(
    clippy::print_stderr,
    reason = "the subcommands are a CLI: usage errors and unreadable files go to stderr"
)]
pub(crate) fn complain_as(command: &str, message: &str, usage: Option<&str>) {
    for line in message.lines() {
        eprintln!("botmesh-mcp {command}: {line}");
    }
    if let Some(usage) = usage {
        eprintln!("{usage}");
    }
}

pub(crate) fn emit(text: &str) {
    // A closed pipe (e.g. `| head`) is not an error worth reporting.
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}

/// Runs `botmesh-mcp check` with the arguments that follow `check`.
pub(crate) fn run(args: Vec<OsString>) -> ExitCode {
    let args = match parse_args(args) {
        Ok(Command::Check(args)) => args,
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

    /// A fresh scratch directory under the system temp dir, unique per test.
    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("botmesh-check-unit-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn parses_flags_files_and_repeated_subflows() {
        let parsed = parse_args(os(&[
            "--subflows",
            "subs",
            "--format=github",
            "a.json",
            "--subflows=one.json",
            "b.json",
        ]));
        assert_eq!(
            parsed,
            Ok(Command::Check(Args {
                subflows: vec![PathBuf::from("subs"), PathBuf::from("one.json")],
                format: ReportFormat::Github,
                files: vec![PathBuf::from("a.json"), PathBuf::from("b.json")],
                fix: FixMode::default(),
                max_warnings: None,
            }))
        );
        assert_eq!(parse_args(os(&["--help"])), Ok(Command::Help));
    }

    #[test]
    fn usage_errors_say_what_is_wrong() {
        assert_eq!(parse_args(os(&[])), Err("no FILE to check".to_owned()));
        assert_eq!(
            parse_args(os(&["--format", "sarif", "a.json"])),
            Err("unknown report format \"sarif\" (expected text, json or github)".to_owned())
        );
        assert_eq!(
            parse_args(os(&["--verbose", "a.json"])),
            Err("invalid option '--verbose'".to_owned())
        );
        assert_eq!(
            parse_args(os(&["a.json", "--format"])),
            Err("missing argument for option '--format'".to_owned())
        );
    }

    #[test]
    fn an_unreadable_file_is_named_and_nothing_is_reported() {
        let dir = scratch("unreadable");
        let good = dir.join("good.json");
        std::fs::write(
            &good,
            r#"{"version": 2, "id": "a", "steps": [{"id": "s", "kind": "end"}]}"#,
        )
        .unwrap();
        let missing = dir.join("missing.json");
        let args = Args {
            subflows: vec![],
            format: ReportFormat::Text,
            files: vec![good.clone(), missing.clone()],
            fix: FixMode::default(),
            max_warnings: None,
        };
        let error = execute(&args).unwrap_err();
        assert_eq!(
            error,
            format!("cannot read {}: entity not found", missing.display())
        );
        let not_json = dir.join("broken.json");
        std::fs::write(&not_json, "{\n  \"id\": \"é\", nope").unwrap();
        let args = Args {
            files: vec![good.clone(), not_json.clone()],
            ..args
        };
        // A checked file that is not JSON is an error finding at the line and column.
        let (report, failed) = execute(&args).unwrap();
        assert!(failed);
        assert_eq!(
            report,
            format!(
                "{}:2:14: error[not-json] (root): the file is not JSON: key must be a string\nchecked 2 files: 1 error, 0 warnings, 0 infos\n",
                not_json.display()
            )
        );
        // A subflow that is not JSON cannot join the set: exit 2, naming the place.
        let error = execute(&Args {
            subflows: vec![not_json.clone()],
            files: vec![good],
            ..args
        })
        .unwrap_err();
        assert_eq!(
            error,
            format!(
                "{} is not JSON: key must be a string at line 2 column 14",
                not_json.display()
            )
        );
    }

    #[test]
    fn subflow_directories_expand_and_skip_the_checked_file() {
        let dir = scratch("subflows");
        std::fs::write(
            dir.join("main.json"),
            r#"{"version": 2, "id": "main", "steps": [{"id": "go", "kind": "subflow", "flow": "pay"}, {"id": "bye", "kind": "end"}]}"#,
        )
        .unwrap();
        std::fs::write(
            dir.join("pay.json"),
            r#"{"version": 2, "id": "pay", "steps": [{"id": "done", "kind": "end"}]}"#,
        )
        .unwrap();
        std::fs::write(dir.join("notes.txt"), "not a flow").unwrap();
        let files = subflow_files(std::slice::from_ref(&dir)).unwrap();
        assert_eq!(files, vec![dir.join("main.json"), dir.join("pay.json")]);
        let args = Args {
            subflows: vec![dir.clone()],
            format: ReportFormat::Text,
            files: vec![dir.join("main.json")],
            fix: FixMode::default(),
            max_warnings: None,
        };
        let (report, failed) = execute(&args).unwrap();
        assert!(!failed, "{report}");
        assert_eq!(report, "checked 1 file: 0 errors, 0 warnings, 0 infos\n");
        // Without the subflows, the call is missing: an error, exit status 1.
        let (report, failed) = execute(&Args {
            subflows: vec![],
            ..args
        })
        .unwrap();
        assert!(failed);
        assert!(
            report.contains("error[missing-subflow] /steps/0/flow"),
            "{report}"
        );
    }
}
