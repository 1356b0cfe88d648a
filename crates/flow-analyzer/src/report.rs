//! Reports for `botmesh-mcp check`: one [`FileReport`] per checked file, rendered as text,
//! JSON or GitHub Actions annotations.
//!
//! File names are labels given by the caller; this module never touches the filesystem.

use std::fmt::Write as _;
use std::str::FromStr;

use serde_json::{Value, json};

use botmesh_flow_schema::{Location, SourceMap, SyntaxError};

use crate::analyze::{AnalysisSummary, analyze_set};
use crate::error::Error;
use crate::lint::Severity;

/// How `check` prints its findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReportFormat {
    /// One line per finding, `FILE:LINE:COL: SEVERITY[CODE] POINTER: MESSAGE` (`FILE:` alone
    /// when the finding has no position), then a count line.
    #[default]
    Text,
    /// One JSON object: `{ files: [...], summary }`.
    Json,
    /// GitHub Actions workflow commands (`::error file=…,title=…::…`), then the count line.
    Github,
}

impl ReportFormat {
    /// `text`, `json` or `github`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Text => "text",
            Self::Json => "json",
            Self::Github => "github",
        }
    }
}

impl FromStr for ReportFormat {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "text" => Ok(Self::Text),
            "json" => Ok(Self::Json),
            "github" => Ok(Self::Github),
            other => Err(Error::UnknownReportFormat(other.to_owned())),
        }
    }
}

/// Parses a source text as JSON, naming the source in the error.
pub fn parse_source(name: &str, text: &str) -> Result<Value, Error> {
    serde_json::from_str(text).map_err(|e| Error::NotJson {
        name: name.to_owned(),
        reason: e.to_string(),
    })
}

/// The pseudo-code of validation issues in `check` output.
pub const INVALID_CODE: &str = "invalid";
/// The pseudo-code of a document that must be migrated first.
pub const MIGRATION_CODE: &str = "migration-needed";
/// The pseudo-code of a file whose text is not JSON.
pub const NOT_JSON_CODE: &str = "not-json";
/// The pseudo-code of a conversation test file given to `check` (an info: it is not checked).
pub const FLOWTEST_CODE: &str = "flowtest-file";

/// True when a JSON value has the shape of a conversation test file (`*.flowtest.json`,
/// runtime spec §9) rather than of a flow: an object with a `tests` array and no `steps`.
pub fn is_flowtest_file(value: &Value) -> bool {
    value.get("tests").is_some_and(Value::is_array) && value.get("steps").is_none()
}

/// One finding of a checked file, in output order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The file the finding is in (the checked file or one of its subflow files).
    pub file: String,
    /// `error`, `warning` or `info`.
    pub severity: Severity,
    /// A lint code, [`INVALID_CODE`] or [`MIGRATION_CODE`].
    pub code: String,
    /// RFC 6901 JSON Pointer into that file's document.
    pub path: String,
    /// One sentence.
    pub message: String,
    /// True when the finding is about a key (an unknown property), so its position is the
    /// key's rather than its value's.
    pub at_key: bool,
    /// Where the finding stands in the file's text, once [`FileReport::locate`] has looked.
    pub location: Option<Location>,
}

/// The verdict on one checked file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileReport {
    /// The checked file, as named by the caller.
    pub file: String,
    /// True when the file and its subflows are valid.
    pub valid: bool,
    /// The analysis summary of the file with its subflows.
    pub summary: AnalysisSummary,
    /// Every issue and diagnostic, with the file it is in; a document that needs migration
    /// gives one [`MIGRATION_CODE`] error naming `flow_migrate` instead of its issues.
    pub findings: Vec<Finding>,
}

impl FileReport {
    /// True when the file or a subflow is invalid or needs migration, or a diagnostic has
    /// severity `error`.
    pub fn has_errors(&self) -> bool {
        !self.valid || self.findings.iter().any(|f| f.severity == Severity::Error)
    }

    /// The report of a file whose text is not JSON: one [`NOT_JSON_CODE`] error at the line and
    /// column where the text stops being JSON.
    pub fn not_json(file: &str, error: &SyntaxError) -> FileReport {
        FileReport {
            file: file.to_owned(),
            valid: false,
            summary: AnalysisSummary {
                flows: 1,
                issues: 1,
                ..AnalysisSummary::default()
            },
            findings: vec![Finding {
                file: file.to_owned(),
                severity: Severity::Error,
                code: NOT_JSON_CODE.to_owned(),
                path: String::new(),
                message: format!("the file is not JSON: {}", error.reason),
                at_key: false,
                location: Some(Location {
                    line: error.line,
                    column: error.column,
                    end_line: error.line,
                    end_column: error.column + 1,
                }),
            }],
        }
    }

    /// The report of a conversation test file given as a flow: one [`FLOWTEST_CODE`] info at
    /// its `tests` key saying to run it with `botmesh-mcp test`; nothing in it is checked.
    pub fn flowtest_file(file: &str) -> FileReport {
        FileReport {
            file: file.to_owned(),
            valid: true,
            summary: AnalysisSummary::default(),
            findings: vec![Finding {
                file: file.to_owned(),
                severity: Severity::Info,
                code: FLOWTEST_CODE.to_owned(),
                path: "/tests".to_owned(),
                message: format!(
                    "this is a conversation test file (a \"tests\" array and no \"steps\"), not a flow; run it with botmesh-mcp test {file}"
                ),
                at_key: true,
                location: None,
            }],
        }
    }

    /// Gives every finding its position, from the source map of the file it is in
    /// (`map_of(file)`; a file without one keeps its findings without positions).
    pub fn locate<'m>(&mut self, map_of: impl Fn(&str) -> Option<&'m SourceMap>) {
        for finding in &mut self.findings {
            if finding.location.is_none()
                && let Some(map) = map_of(&finding.file)
            {
                finding.location = map.locate(&finding.path, finding.at_key);
            }
        }
    }
}

/// Checks one document with its subflows (`(file name, document)` pairs).
pub fn check_document(file: &str, document: &Value, subflows: &[(&str, &Value)]) -> FileReport {
    let owned: Vec<Value> = subflows.iter().map(|(_, v)| (*v).clone()).collect();
    let analysis = analyze_set(document, &owned);
    let file_of = |source: &str| -> String {
        source
            .strip_prefix("subflows/")
            .and_then(|n| n.parse::<usize>().ok())
            .and_then(|n| subflows.get(n))
            .map_or_else(|| file.to_owned(), |(name, _)| (*name).to_owned())
    };
    let mut findings = Vec::new();
    // A document of version 0 or 1 gets one migration error instead of its issues.
    let mut migrating: Vec<String> = Vec::new();
    let sources = std::iter::once(("document".to_owned(), file, document)).chain(
        subflows
            .iter()
            .enumerate()
            .map(|(i, (name, value))| (format!("subflows/{i}"), *name, *value)),
    );
    for (source, name, value) in sources {
        if let Some(version) = needs_migration(value) {
            findings.push(Finding {
                file: name.to_owned(),
                severity: Severity::Error,
                code: MIGRATION_CODE.to_owned(),
                path: "/version".to_owned(),
                message: format!(
                    "this is a version {version} document; migrate it to version 2 with botmesh-mcp migrate --write {name} (flow_migrate over MCP), then check it again"
                ),
                at_key: false,
                location: None,
            });
            migrating.push(source);
        }
    }
    for issue in &analysis.issues {
        if migrating.contains(&issue.source) {
            continue;
        }
        findings.push(Finding {
            file: file_of(&issue.source),
            severity: Severity::Error,
            code: INVALID_CODE.to_owned(),
            path: issue.path.clone(),
            message: issue.message.clone(),
            at_key: issue.at_key,
            location: None,
        });
    }
    for diagnostic in &analysis.diagnostics {
        findings.push(Finding {
            file: file_of(&diagnostic.source),
            severity: diagnostic.severity,
            code: diagnostic.code.as_str().to_owned(),
            path: diagnostic.path.clone(),
            message: diagnostic.message.clone(),
            at_key: false,
            location: None,
        });
    }
    FileReport {
        file: file.to_owned(),
        valid: analysis.valid,
        summary: analysis.summary,
        findings,
    }
}

/// The version (0 or 1) of a document that migration can bring to version 2.
fn needs_migration(document: &Value) -> Option<u64> {
    match document.get("version") {
        None => Some(0),
        Some(version) => match version.as_f64() {
            Some(0.0) => Some(0),
            Some(1.0) => Some(1),
            _ => None,
        },
    }
}

/// Text from a document (keys, values) or a file name on one line of the text report: control
/// characters are written as escapes, so no finding can print a line that looks like another.
fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(
        text.chars()
            .map(|c| {
                if c.is_control() {
                    c.escape_default().collect()
                } else {
                    c.to_string()
                }
            })
            .collect(),
    )
}

/// Drops each finding an earlier report already has (same file, severity, code, pointer and
/// message): a subflow checked with several files, or also as a file of its own, is reported
/// once, so the counts (and `--max-warnings`) do not grow with the number of files that call it.
pub fn drop_repeated_findings(reports: &mut [FileReport]) {
    let mut seen = std::collections::HashSet::new();
    for report in reports {
        report.findings.retain(|f| {
            seen.insert((
                f.file.clone(),
                f.severity as usize,
                f.code.clone(),
                f.path.clone(),
                f.message.clone(),
            ))
        });
    }
}

/// The warnings of every report: what `--max-warnings` counts (infos and errors do not).
pub fn warning_count(reports: &[FileReport]) -> usize {
    reports
        .iter()
        .flat_map(|r| &r.findings)
        .filter(|f| f.severity == Severity::Warning)
        .count()
}

/// The line `check` adds when there are more warnings than `--max-warnings` allows.
fn too_many_warnings(warnings: usize, max: Option<usize>) -> Option<String> {
    let max = max.filter(|max| warnings > *max)?;
    Some(format!(
        "too many warnings: {warnings}, more than --max-warnings {max} allows"
    ))
}

/// Renders the reports of every checked file (in the order given), ending with a newline;
/// with `max_warnings`, says when the warnings are more than that (text: a last line; JSON:
/// `summary.maxWarnings` and `summary.tooManyWarnings`; GitHub: an error annotation).
pub fn render_report(
    reports: &[FileReport],
    format: ReportFormat,
    max_warnings: Option<usize>,
) -> String {
    let mut counts = [0usize; 3];
    for finding in reports.iter().flat_map(|r| &r.findings) {
        counts[finding.severity as usize] += 1;
    }
    let [errors, warnings, infos] = counts;
    let too_many = too_many_warnings(warnings, max_warnings);
    let mut out = String::new();
    match format {
        ReportFormat::Text => {
            for finding in reports.iter().flat_map(|r| &r.findings) {
                let path = if finding.path.is_empty() {
                    "(root)"
                } else {
                    &finding.path
                };
                let place = match finding.location {
                    Some(at) => format!(":{}:{}", at.line, at.column),
                    None => String::new(),
                };
                let _ = writeln!(
                    out,
                    "{}{place}: {}[{}] {}: {}",
                    one_line(&finding.file),
                    finding.severity.as_str(),
                    finding.code,
                    one_line(path),
                    one_line(&finding.message)
                );
            }
            let _ = writeln!(out, "{}", count_line(reports.len(), counts));
            if let Some(line) = &too_many {
                let _ = writeln!(out, "{line}");
            }
        }
        ReportFormat::Json => {
            let files: Vec<Value> = reports
                .iter()
                .map(|r| {
                    let findings: Vec<Value> = r
                        .findings
                        .iter()
                        .map(|f| {
                            let mut finding = json!({
                                "file": f.file,
                                "severity": f.severity.as_str(),
                                "code": f.code,
                                "path": f.path,
                                "message": f.message,
                            });
                            if let (Some(at), Value::Object(map)) = (f.location, &mut finding) {
                                map.insert("line".into(), at.line.into());
                                map.insert("column".into(), at.column.into());
                                map.insert("endLine".into(), at.end_line.into());
                                map.insert("endColumn".into(), at.end_column.into());
                            }
                            finding
                        })
                        .collect();
                    json!({
                        "file": r.file,
                        "valid": r.valid,
                        "ok": !r.has_errors(),
                        "findings": findings,
                        "summary": r.summary,
                    })
                })
                .collect();
            let mut value = json!({
                "files": files,
                "summary": { "files": reports.len(), "errors": errors, "warnings": warnings, "infos": infos },
            });
            if let Some(max) = max_warnings {
                value["summary"]["maxWarnings"] = json!(max);
                value["summary"]["tooManyWarnings"] = json!(too_many.is_some());
            }
            out = serde_json::to_string_pretty(&value).unwrap_or_default();
            out.push('\n');
        }
        ReportFormat::Github => {
            for finding in reports.iter().flat_map(|r| &r.findings) {
                let command = match finding.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                    Severity::Info => "notice",
                };
                let place = match finding.location {
                    Some(at) => format!(
                        ",line={},col={},endLine={},endColumn={}",
                        at.line, at.column, at.end_line, at.end_column
                    ),
                    None => String::new(),
                };
                let _ = writeln!(
                    out,
                    "::{command} file={}{place},title={}::{}",
                    escape_property(&finding.file),
                    escape_property(&finding.code),
                    escape_data(&format!("{}: {}", finding.path, finding.message)),
                );
            }
            // The count as a plain line of the log, as in the text form.
            let _ = writeln!(out, "{}", count_line(reports.len(), counts));
            if let Some(line) = &too_many {
                let _ = writeln!(out, "::error title=max-warnings::{}", escape_data(line));
            }
        }
    }
    out
}

/// `checked 2 files: 1 error, 0 warnings, 1 info`.
fn count_line(files: usize, [errors, warnings, infos]: [usize; 3]) -> String {
    format!(
        "checked {files} {}: {errors} {}, {warnings} {}, {infos} {}",
        plural(files, "file", "files"),
        plural(errors, "error", "errors"),
        plural(warnings, "warning", "warnings"),
        plural(infos, "info", "infos"),
    )
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

/// Escapes the message of a GitHub workflow command.
fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value of a GitHub workflow command.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}
