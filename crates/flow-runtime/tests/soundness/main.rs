//! The soundness harness (issue 36): a black-box differential test of the runtime against lint
//! and the safe fixes, on flow sets and conversations of its own (`generate.rs`, `script.rs`).
//!
//! For every generated valid set and a few random runs of it:
//! - **reads**: every `{{v}} is unset` warning of a run that starts at an entry (runtime spec
//!   §2, "Entry flows"), for a variable the caller did not pass in, must be matched by a
//!   `possibly-unset-variable` or `undefined-variable` diagnostic of `flow_analyze` for `v` at
//!   that flow and step. A `{{v}} is null` warning is held to it too when the document wrote
//!   the null (`set` to null); a null that a handler returned is outside the document and only
//!   counted;
//! - **safe fixes**: each `safe` fix of a diagnostic, applied alone, and `flow_fix`'s whole
//!   safe loop (`fix_document`) leave the set valid and every run's transcript and outcome as
//!   they were (what the customer and the handlers see: `oracle::seen`).
//!
//! A failure names its class (`classify.rs`), the seed, and a shrunk case (`shrink.rs`) as the
//! `flow_simulate` arguments that replay it.
//!
//! Environment (read by the test, not by any engine):
//! - `BOTMESH_SOUNDNESS_SETS`: how many sets (default [`DEFAULT_SETS`]; `.ci/parts/soundness.sh`
//!   runs more, in release);
//! - `BOTMESH_SOUNDNESS_SEED`: the first set's seed (default [`DEFAULT_SEED`]); set `i` uses
//!   seed + `i`, so `BOTMESH_SOUNDNESS_SEED=S BOTMESH_SOUNDNESS_SETS=1` replays set `S` alone;
//! - `BOTMESH_SOUNDNESS_REPORT_ONLY=1`: print the report and pass even when lint misses reads
//!   or a safe fix changes a run (to measure a branch that is not sound yet). Without it any
//!   failure fails the test, with the report (each class counted, one shrunk example each) as
//!   its message.
//!
//! Whatever the switch, the test fails when the harness itself would check nothing: fewer than
//! nine valid sets in ten, a kind never generated, no unset read seen, or a warning about a
//! placeholder it cannot read.

#![allow(
    clippy::print_stderr,
    reason = "the harness prints its report; cargo test shows it with --nocapture"
)]

mod classify;
mod generate;
mod oracle;
mod rng;
mod script;
mod selftest;
mod shrink;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;

use botmesh_flow_analyzer::fix_document;
use botmesh_flow_schema::apply_patch;
use serde_json::{Map, Value};

use classify::{Class, classify};
use oracle::{
    Lint, Missing, Place, Read, Run, compile, empty_reads, held, seen, simulate, simulate_docs,
};
use shrink::{Case, shrink};

/// Sets checked by `cargo test` (a few seconds in debug).
const DEFAULT_SETS: u64 = 150;
/// The first seed when `BOTMESH_SOUNDNESS_SEED` is not set.
const DEFAULT_SEED: u64 = 36_000;
/// Runs of each set.
const RUNS_PER_SET: usize = 6;

struct Config {
    sets: u64,
    seed: u64,
    report_only: bool,
}

fn config() -> Config {
    let number = |name: &str, default: u64| match std::env::var(name) {
        Ok(text) => text
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name} must be a whole number, not {text:?}")),
        Err(_) => default,
    };
    let report_only = match std::env::var("BOTMESH_SOUNDNESS_REPORT_ONLY").as_deref() {
        Ok("1") => true,
        Ok("" | "0") | Err(_) => false,
        Ok(other) => panic!("BOTMESH_SOUNDNESS_REPORT_ONLY must be 1 or 0, not {other:?}"),
    };
    Config {
        sets: number("BOTMESH_SOUNDNESS_SETS", DEFAULT_SETS),
        seed: number("BOTMESH_SOUNDNESS_SEED", DEFAULT_SEED),
        report_only,
    }
}

/// One failure of the check, with what it takes to replay it.
#[derive(Clone)]
struct Failure {
    /// The class (a miss's, or a fix's).
    class: String,
    seed: u64,
    case: Case,
    what: What,
}

#[derive(Clone, PartialEq)]
enum What {
    /// Lint does not report this read.
    Miss(Read, Class),
    /// A safe fix of this code changes the run (or leaves the set invalid).
    Fix(String),
    /// `fix_document`'s safe fixes (these) change the run (or leave the set invalid).
    FlowFix(Vec<String>),
}

#[derive(Default)]
struct Stats {
    generated: u64,
    invalid: Vec<(u64, String)>,
    kinds: BTreeMap<String, usize>,
    runs: usize,
    held_runs: usize,
    /// Warnings of empty reads held to soundness, and how many lint reported.
    warnings: usize,
    matched: usize,
    /// Distinct (seed, flow, step, variable) of those warnings, whether lint reported each, and
    /// why the first run that read it found no value.
    places: HashMap<(u64, Place), (bool, Missing)>,
    null_from_handlers: usize,
    unheld: usize,
    unreadable: Vec<String>,
    fixes_tried: BTreeMap<String, usize>,
    fixes_failed: BTreeMap<String, usize>,
    flow_fix_documents: usize,
    flow_fix_failed: usize,
    failures: Vec<Failure>,
}

#[test]
fn lint_reports_every_unset_read_and_safe_fixes_keep_every_transcript() {
    let config = config();
    let mut stats = Stats::default();
    for seed in config.seed..config.seed.saturating_add(config.sets) {
        check_set(seed, &mut stats);
    }
    let report = report(&config, &stats);

    // The harness's own floor, whatever the engines do.
    let valid = stats.generated - stats.invalid.len() as u64;
    assert!(
        valid * 10 >= stats.generated * 9,
        "the generator made too many invalid sets; first: {:?}",
        stats.invalid.first()
    );
    assert!(
        stats.unreadable.is_empty(),
        "warnings the harness cannot read (teach oracle::empty_reads their shape): {:?}",
        stats.unreadable
    );
    if config.sets >= 50 {
        let missing: Vec<&str> = generate::kinds()
            .filter(|k| !stats.kinds.contains_key(*k))
            .collect();
        assert!(missing.is_empty(), "kinds never generated: {missing:?}");
        assert!(
            stats.warnings > 0,
            "no run read an unset variable: the harness checked nothing"
        );
    }
    assert!(
        config.report_only || stats.failures.is_empty(),
        "lint is not sound or a safe fix changes a conversation (BOTMESH_SOUNDNESS_REPORT_ONLY=1 only reports):\n{report}"
    );
    eprintln!("{report}");
}

fn check_set(seed: u64, stats: &mut Stats) {
    let mut rng = rng::Rng::new(seed);
    let docs = generate::flow_set(&mut rng);
    stats.generated += 1;
    for doc in &docs {
        for step in doc["steps"].as_array().into_iter().flatten() {
            let kind = step["kind"].as_str().unwrap_or("").to_owned();
            *stats.kinds.entry(kind).or_default() += 1;
        }
    }
    let lint = Lint::of(&docs);
    let Some(set) = compile(&docs).filter(|_| lint.valid) else {
        stats
            .invalid
            .push((seed, Value::Array(lint.issues).to_string()));
        return;
    };
    let reported = lint.unset_places();
    let runs: Vec<(Run, Map<String, Value>)> = (0..RUNS_PER_SET)
        .map(|_| script::run(&mut rng, &docs, &set))
        .collect();
    stats.runs += runs.len();
    for (run, result) in &runs {
        let is_held = held(&docs, run);
        stats.held_runs += usize::from(is_held);
        let reads = match empty_reads(&docs, run, result) {
            Ok(reads) => reads,
            Err(unreadable) => {
                stats.unreadable.push(format!("seed {seed}: {unreadable}"));
                continue;
            }
        };
        for read in reads {
            if !is_held {
                stats.unheld += 1;
                continue;
            }
            if read.missing == Missing::NullHandler {
                stats.null_from_handlers += 1;
                continue;
            }
            let place = (read.flow.clone(), read.step.clone(), read.var.clone());
            let hit = reported.contains(&place);
            stats.warnings += 1;
            stats.matched += usize::from(hit);
            if stats
                .places
                .insert((seed, place), (hit, read.missing))
                .is_none()
                && !hit
            {
                let class = classify(&docs, run, &read);
                stats.failures.push(Failure {
                    class: class.label(),
                    seed,
                    case: Case {
                        docs: docs.clone(),
                        run: run.clone(),
                    },
                    what: What::Miss(read, class),
                });
            }
        }
    }
    check_fixes(seed, &docs, &lint, &runs, stats);
}

/// Safe fixes, one at a time and all of `flow_fix`'s at once, must keep every run.
fn check_fixes(
    seed: u64,
    docs: &[Value],
    lint: &Lint,
    runs: &[(Run, Map<String, Value>)],
    stats: &mut Stats,
) {
    let mut tried = BTreeSet::new();
    for (code, index, patch) in lint.safe_fixes() {
        if !tried.insert((index, Value::Array(patch.clone()).to_string())) {
            continue;
        }
        *stats.fixes_tried.entry(code.clone()).or_default() += 1;
        if let Some(run) = fix_changes_a_run(docs, index, &patch, runs) {
            *stats.fixes_failed.entry(code.clone()).or_default() += 1;
            stats.failures.push(Failure {
                class: format!("safe fix {code} changes a conversation"),
                seed,
                case: Case {
                    docs: docs.to_vec(),
                    run,
                },
                what: What::Fix(code),
            });
        }
    }
    let outcome = fix_document(&docs[0], &docs[1..], false);
    if outcome.applied.is_empty() {
        return;
    }
    stats.flow_fix_documents += 1;
    let mut fixed = docs.to_vec();
    fixed[0] = outcome.document;
    if let Some(run) = changed_run(&fixed, runs) {
        stats.flow_fix_failed += 1;
        let applied = outcome.applied.into_iter().map(|f| f.description).collect();
        stats.failures.push(Failure {
            class: "flow_fix (its safe fixes) changes a conversation".to_owned(),
            seed,
            case: Case {
                docs: docs.to_vec(),
                run,
            },
            what: What::FlowFix(applied),
        });
    }
}

/// The first run whose transcript differs on `fixed` (every run when `fixed` is invalid).
fn changed_run(fixed: &[Value], runs: &[(Run, Map<String, Value>)]) -> Option<Run> {
    let Some(set) = compile(fixed).filter(|_| Lint::of(fixed).valid) else {
        return runs.first().map(|(run, _)| run.clone());
    };
    runs.iter()
        .find(|(run, result)| seen(&simulate(&set, run)) != seen(result))
        .map(|(run, _)| run.clone())
}

/// Applies one safe fix; the first run it changes, if any.
fn fix_changes_a_run(
    docs: &[Value],
    index: usize,
    patch: &[Value],
    runs: &[(Run, Map<String, Value>)],
) -> Option<Run> {
    let mut fixed = docs.to_vec();
    if apply_patch(&mut fixed[index], patch).is_err() {
        return runs.first().map(|(run, _)| run.clone());
    }
    changed_run(&fixed, runs)
}

/// True when `case` still fails as `failure` did.
fn still_fails(failure: &Failure, case: &Case) -> bool {
    let Some(result) = simulate_docs(&case.docs, &case.run) else {
        return false;
    };
    match &failure.what {
        What::Miss(read, class) => {
            if !held(&case.docs, &case.run) {
                return false;
            }
            let reads = empty_reads(&case.docs, &case.run, &result).unwrap_or_default();
            let place = (read.flow.clone(), read.step.clone(), read.var.clone());
            reads.contains(read)
                && !Lint::of(&case.docs).unset_places().contains(&place)
                && classify(&case.docs, &case.run, read) == *class
        }
        What::Fix(code) => {
            let runs = [(case.run.clone(), result)];
            Lint::of(&case.docs)
                .safe_fixes()
                .into_iter()
                .filter(|(c, _, _)| c == code)
                .any(|(_, index, patch)| {
                    fix_changes_a_run(&case.docs, index, &patch, &runs).is_some()
                })
        }
        What::FlowFix(_) => {
            let outcome = fix_document(&case.docs[0], &case.docs[1..], false);
            let mut fixed = case.docs.clone();
            fixed[0] = outcome.document;
            !outcome.applied.is_empty()
                && changed_run(&fixed, &[(case.run.clone(), result)]).is_some()
        }
    }
}

fn report(config: &Config, stats: &Stats) -> String {
    let mut out = String::new();
    let valid = stats.generated - stats.invalid.len() as u64;
    let percent = |part: usize, whole: usize| {
        if whole == 0 {
            0.0
        } else {
            part as f64 * 100.0 / whole as f64
        }
    };
    let count = |missing: Option<Missing>, missed: bool| {
        stats
            .places
            .values()
            .filter(|(hit, m)| missing.is_none_or(|x| x == *m) && (!missed || !hit))
            .count()
    };
    let places_missed = count(None, true);
    let _ = writeln!(
        out,
        "soundness: seeds {}..{} ({} sets): {valid} valid ({:.1} %)",
        config.seed,
        config.seed.saturating_add(config.sets),
        stats.generated,
        percent(valid as usize, stats.generated as usize)
    );
    let _ = writeln!(
        out,
        "runs: {} ({} start at an entry; {} unset reads in runs from other flows, not held)",
        stats.runs, stats.held_runs, stats.unheld
    );
    let _ = writeln!(
        out,
        "unset reads at entry-started runs: {} warnings, lint matched {} ({:.1} %); {} places (set, flow, step, variable), {} missed ({:.1} %)",
        stats.warnings,
        stats.matched,
        percent(stats.matched, stats.warnings),
        stats.places.len(),
        places_missed,
        percent(places_missed, stats.places.len())
    );
    let _ = writeln!(
        out,
        "  of the places: {} read an unset variable ({} missed), {} a null the document set ({} missed)",
        count(Some(Missing::Unset), false),
        count(Some(Missing::Unset), true),
        count(Some(Missing::NullSet), false),
        count(Some(Missing::NullSet), true),
    );
    let _ = writeln!(
        out,
        "null from a handler read (not held, outside the document): {} warnings",
        stats.null_from_handlers
    );
    let _ = writeln!(
        out,
        "safe fixes tried: {:?}; changed a conversation or left the set invalid: {:?}; flow_fix on {} documents, {} changed a conversation",
        stats.fixes_tried, stats.fixes_failed, stats.flow_fix_documents, stats.flow_fix_failed
    );
    let mut classes: BTreeMap<&str, Vec<&Failure>> = BTreeMap::new();
    for failure in &stats.failures {
        classes.entry(&failure.class).or_default().push(failure);
    }
    if classes.is_empty() {
        let _ = writeln!(out, "no failure");
        return out;
    }
    let _ = writeln!(out, "failures by class (count: class):");
    for (class, failures) in &classes {
        let _ = writeln!(out, "  {:>5}: {class}", failures.len());
    }
    for (class, failures) in &classes {
        // The smallest example of the class, shrunk.
        let Some(failure) = failures
            .iter()
            .min_by_key(|f| Value::Array(f.case.docs.clone()).to_string().len())
        else {
            continue;
        };
        let small = shrink(failure.case.clone(), &|case| still_fails(failure, case));
        let _ = writeln!(out, "\n--- {class} (seed {})", failure.seed);
        let _ = writeln!(out, "{}", describe(failure, &small));
    }
    out
}

/// What a failure says: where, why, how to replay it.
fn describe(failure: &Failure, small: &Case) -> String {
    let mut out = String::new();
    let _ = match &failure.what {
        What::Miss(read, _) => writeln!(
            out,
            "lint reports no possibly-unset-variable or undefined-variable for \"{}\" at flow \"{}\", step \"{}\", where this run interpolates it {}",
            read.var,
            read.flow,
            read.step,
            if read.missing == Missing::Unset {
                "unset"
            } else {
                "as a null the document set"
            }
        ),
        What::Fix(code) => writeln!(
            out,
            "the safe fix of {code} changes what this run sends (or leaves the set invalid)"
        ),
        What::FlowFix(applied) => writeln!(
            out,
            "flow_fix's safe fixes ({}) change what this run sends (or leave the set invalid)",
            applied.join("; ")
        ),
    };
    let _ = writeln!(
        out,
        "replay the set: BOTMESH_SOUNDNESS_SEED={} BOTMESH_SOUNDNESS_SETS=1 cargo test -p botmesh-flow-runtime --test soundness -- --nocapture",
        failure.seed
    );
    let _ = writeln!(
        out,
        "shrunk, as flow_simulate arguments: {}",
        small.run.tool_arguments(&small.docs)
    );
    if let Some(result) = simulate_docs(&small.docs, &small.run) {
        let path: Vec<String> = result["path"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| {
                format!(
                    "{}/{}",
                    p["flow"].as_str().unwrap_or(""),
                    p["step"].as_str().unwrap_or("")
                )
            })
            .collect();
        let _ = writeln!(out, "path: {}", path.join(" "));
        let _ = writeln!(out, "warnings: {}", result["warnings"]);
    }
    let codes: Vec<String> = Lint::of(&small.docs)
        .diagnostics
        .iter()
        .map(|d| {
            format!(
                "{}@{}/{}",
                d["code"].as_str().unwrap_or(""),
                d["flow"].as_str().unwrap_or(""),
                d["step"].as_str().unwrap_or("-")
            )
        })
        .collect();
    let _ = writeln!(out, "lint: {}", codes.join(" "));
    out
}
