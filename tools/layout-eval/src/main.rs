//! Evaluates the layered-layout crates of crates.io against flow-render's comparison harness
//! (issue 14): the same 431 graphs (node sizes, label sizes, edges) that compare.mjs gives
//! dagre.js, crossings counted the same way, overlaps checked, the 500-step flow timed, and the
//! size each crate adds to a release binary (`size/`). See README.md.
//!
//! Usage:
//!   layout-eval run GRAPHS.json DAGRE_ROWS.json [--timeout SECONDS] [--runs N] [--only A,B]
//!                   [--bench-timeout SECONDS] [--out RESULTS.json]
//!   layout-eval flow500 OUT.json     the 500-step flow in the harness format (for compare.mjs)
//!   layout-eval size                 release-binary size each crate adds (builds `size/`)
//! Each crate runs in a child process (`worker`, `bench`), each graph under `catch_unwind`, with
//! a time limit per graph (5 s by default; dagre.js's slowest graph takes 0.2 s): a panic, an
//! abort or a time-out is counted, not fatal; after 20 time-outs a crate's remaining graphs are
//! skipped (and counted so).

mod adapters;
// The benchmark's 500-step flow, written once in flow-render.
#[path = "../../../crates/flow-render/src/bench_flow.rs"]
mod bench_flow;
mod flow500;
mod graph;
mod size;

use adapters::{CANDIDATES, Candidate};
use graph::{Graph, Measures, measure};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["run", graphs, rows, rest @ ..] => run(graphs, rows, rest),
        ["worker", name, graphs, start] => worker(name, graphs, start),
        ["bench", name, runs] => bench(name, runs),
        ["flow500", out] => flow500::graph()
            .and_then(|v| std::fs::write(out, v.to_string()).map_err(|e| format!("{out}: {e}"))),
        ["size"] => size::run(),
        _ => Err(
            "usage: layout-eval run GRAPHS.json DAGRE_ROWS.json [--timeout S] [--runs N] \
                  [--only A,B] [--bench-timeout S] [--out RESULTS.json] | flow500 OUT.json | size"
                .into(),
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("layout-eval: {e}");
            ExitCode::FAILURE
        }
    }
}

fn candidate(name: &str) -> Result<&'static Candidate, String> {
    CANDIDATES
        .iter()
        .find(|c| c.name == name)
        .ok_or(format!("no candidate {name}"))
}

fn measures_json(m: &Measures) -> Value {
    json!({"crossings": m.crossings, "nodeOverlaps": m.node_overlaps,
        "labelOverlaps": m.label_overlaps, "through": m.edges_through_nodes,
        "clustersOverlap": m.clusters_overlap})
}

/// Runs one crate's layout of `g`, under `catch_unwind`.
fn attempt(c: &Candidate, g: &Graph) -> (Value, u128) {
    let start = Instant::now();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (c.run)(g)));
    let micros = start.elapsed().as_micros();
    let value = match result {
        Ok(Ok(placed)) => {
            let mut v = measures_json(&measure(g, &placed));
            v["status"] = json!("ok");
            v
        }
        Ok(Err(e)) => json!({"status": "error", "why": e}),
        Err(payload) => {
            let why = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            json!({"status": "panic", "why": why})
        }
    };
    (value, micros)
}

/// Child process: lays out the graphs from `start` on, one JSON line each.
fn worker(name: &str, graphs: &str, start: &str) -> Result<(), String> {
    let c = candidate(name)?;
    let graphs = graph::read(graphs)?;
    let start: usize = start.parse().map_err(|_| "start is a number")?;
    std::panic::set_hook(Box::new(|_| {}));
    let mut out = std::io::stdout().lock();
    // A warm-up, untimed: the first layout in a process pays for page faults.
    if let Some(g) = graphs.get(start) {
        let _ = attempt(c, g);
    }
    for (i, g) in graphs.iter().enumerate().skip(start) {
        let (mut v, micros) = attempt(c, g);
        v["i"] = json!(i);
        v["micros"] = json!(micros as u64);
        writeln!(out, "{v}")
            .and_then(|()| out.flush())
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Child process: the 500-step flow, once to measure it and then timed (the median of up to
/// `runs` runs, fewer when one run takes over 10 s).
fn bench(name: &str, runs: &str) -> Result<(), String> {
    let runs: usize = runs.parse().map_err(|_| "runs is a number")?;
    std::panic::set_hook(Box::new(|_| {}));
    let graphs = graph::parse(&flow500::graph()?)?;
    let g = &graphs[0];
    let v = if name == "ours" {
        let mut v = measures_json(&measure(g, &g.ours));
        v["status"] = json!("ok");
        v["median"] = json!(flow500::ours_median(runs)? as u64);
        v["runs"] = json!(runs);
        v
    } else {
        let c = candidate(name)?;
        let (mut v, first) = attempt(c, g);
        if v["status"] == "ok" {
            let runs = if first > 10_000_000 {
                1
            } else {
                runs.min((60_000_000 / first.max(1)) as usize).max(1)
            };
            let mut times: Vec<u128> = (0..runs).map(|_| attempt(c, g).1).collect();
            times.sort_unstable();
            v["median"] = json!(times[times.len() / 2] as u64);
            v["runs"] = json!(runs);
        }
        v
    };
    println!("{v}");
    Ok(())
}

/// What became of one graph in a child process.
fn child_lines(
    args: &[&str],
    expected: usize,
    timeout: Duration,
    mut on_line: impl FnMut(Value),
) -> Result<Option<String>, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut child = Command::new(exe)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut seen = 0;
    let failure = loop {
        if seen == expected {
            break None;
        }
        match rx.recv_timeout(timeout) {
            Ok(Ok(line)) => {
                let v: Value = serde_json::from_str(&line).map_err(|e| format!("{line}: {e}"))?;
                on_line(v);
                seen += 1;
            }
            Ok(Err(_)) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                let status = child.wait().map_err(|e| e.to_string())?;
                break Some(format!("crash ({status})"));
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let _ = child.kill();
                let _ = child.wait();
                break Some(format!("timeout (> {} s)", timeout.as_secs()));
            }
        }
    };
    if failure.is_none() {
        let _ = child.wait();
    }
    Ok(failure)
}

/// After this many time-outs, a crate's remaining graphs are not run ("skipped").
const MAX_TIMEOUTS: usize = 20;

/// One crate's results on every graph (index order).
fn run_candidate(
    c: &Candidate,
    graphs_path: &str,
    count: usize,
    timeout: Duration,
) -> Result<Vec<Value>, String> {
    let mut results: Vec<Value> = Vec::new();
    let mut timeouts = 0;
    while results.len() < count {
        if timeouts >= MAX_TIMEOUTS {
            results.push(json!({"status": "skipped", "i": results.len()}));
            continue;
        }
        let start = results.len().to_string();
        let failure = child_lines(
            &["worker", c.name, graphs_path, &start],
            count - results.len(),
            timeout,
            |v| results.push(v),
        )?;
        if let Some(why) = failure {
            let status = if why.starts_with("timeout") {
                timeouts += 1;
                "timeout"
            } else {
                "crash"
            };
            results.push(json!({"status": status, "why": why, "i": results.len()}));
        }
    }
    Ok(results)
}

fn option<'a>(rest: &[&'a str], name: &str) -> Option<&'a str> {
    rest.iter()
        .position(|a| *a == name)
        .and_then(|i| rest.get(i + 1).copied())
}

fn u(v: &Value, key: &str) -> u64 {
    v[key].as_u64().unwrap_or(0)
}

fn percent(part: usize, whole: usize) -> String {
    format!("{:.1} %", 100.0 * part as f64 / whole.max(1) as f64)
}

fn run(graphs_path: &str, rows_path: &str, rest: &[&str]) -> Result<(), String> {
    let timeout = Duration::from_secs(
        option(rest, "--timeout")
            .map_or(Ok(5), str::parse)
            .map_err(|_| "--timeout")?,
    );
    let runs: usize = option(rest, "--runs")
        .map_or(Ok(7), str::parse)
        .map_err(|_| "--runs")?;
    let bench_timeout = Duration::from_secs(
        option(rest, "--bench-timeout")
            .map_or(Ok(600), str::parse)
            .map_err(|_| "--bench-timeout")?,
    );
    let only: Option<Vec<&str>> = option(rest, "--only").map(|s| s.split(',').collect());
    let graphs = graph::read(graphs_path)?;
    let rows: Value = serde_json::from_str(
        &std::fs::read_to_string(rows_path).map_err(|e| format!("{rows_path}: {e}"))?,
    )
    .map_err(|e| format!("{rows_path}: {e}"))?;
    let rows = rows.as_array().ok_or("rows: an array")?;
    if rows.len() != graphs.len() {
        return Err(format!(
            "{} graphs but {} dagre rows: run compare.mjs on the same file",
            graphs.len(),
            rows.len()
        ));
    }
    let dagre: Vec<u64> = rows.iter().map(|r| u(r, "dagre")).collect();
    let ours: Vec<Measures> = graphs.iter().map(|g| measure(g, &g.ours)).collect();
    for (g, (r, m)) in graphs.iter().zip(rows.iter().zip(&ours)) {
        if r["name"] != g.name.as_str() || u(r, "ours") != m.crossings {
            return Err(format!(
                "{}: the dagre rows are not of this graphs file",
                g.name
            ));
        }
    }
    let n = graphs.len();
    let clustered = graphs
        .iter()
        .filter(|g| g.nodes.iter().any(|v| v.flow != g.nodes[0].flow))
        .count();
    let mut report = Vec::new();
    let mut table = vec![
        "| layout | graphs laid out | crossings on those (ours, dagre.js) | ≤ ours | ≤ dagre.js | node overlaps (graphs) | edges through nodes (graphs) | label overlaps (graphs) | flows overlapping | 431 graphs, total time | 500 steps, median | licence | last release |".to_owned(),
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|".to_owned(),
    ];
    // Ours and dagre.js first.
    let ours_total: u64 = ours.iter().map(|m| m.crossings).sum();
    let dagre_total: u64 = dagre.iter().sum();
    let ours_le_dagre = ours
        .iter()
        .zip(&dagre)
        .filter(|(m, d)| m.crossings <= **d)
        .count();
    let ours_bench = bench_child("ours", runs, bench_timeout)?;
    let sum = |f: fn(&Measures) -> u64| -> (u64, usize) {
        (
            ours.iter().map(f).sum(),
            ours.iter().filter(|m| f(m) > 0).count(),
        )
    };
    let (no, ng) = sum(|m| m.node_overlaps);
    let (to, tg) = sum(|m| m.edges_through_nodes);
    let (lo, lg) = sum(|m| m.label_overlaps);
    let ours_micros: u64 = graphs.iter().map(|g| g.ours_micros).sum();
    table.push(format!(
        "| ours (flow-render) | {n}/{n} | {ours_total} ({ours_total}, {dagre_total}) | 100.0 % | {} | {no} ({ng}) | {to} ({tg}) | {lo} ({lg}) | {}/{clustered} | {:.0} ms | {} | MIT OR Apache-2.0 | — |",
        percent(ours_le_dagre, n),
        ours.iter().filter(|m| m.clusters_overlap).count(),
        ours_micros as f64 / 1000.0,
        shown_bench(&ours_bench),
    ));
    let dagre_micros: u64 = rows.iter().map(|r| u(r, "dagreMicros")).sum();
    table.push(format!(
        "| dagre.js 3.1.3 (Node, reference) | {n}/{n} | {dagre_total} | — | 100.0 % | — | — | — | — | {:.0} ms | — | MIT | — |",
        dagre_micros as f64 / 1000.0
    ));
    for c in CANDIDATES {
        if only.as_ref().is_some_and(|o| !o.contains(&c.name)) {
            continue;
        }
        eprintln!("{} {}: 431 graphs…", c.name, c.version);
        let results = run_candidate(c, graphs_path, n, timeout)?;
        eprintln!("{} {}: the 500-step flow…", c.name, c.version);
        let bench = bench_child(c.name, runs, bench_timeout)?;
        let ok: Vec<usize> = (0..n).filter(|&i| results[i]["status"] == "ok").collect();
        let count = |s: &str| results.iter().filter(|r| r["status"] == s).count();
        let failures: Vec<String> = ["panic", "crash", "timeout", "error", "skipped"]
            .iter()
            .filter(|s| count(s) > 0)
            .map(|s| format!("{} {s}", count(s)))
            .collect();
        let total: u64 = ok.iter().map(|&i| u(&results[i], "crossings")).sum();
        let ours_on: u64 = ok.iter().map(|&i| ours[i].crossings).sum();
        let dagre_on: u64 = ok.iter().map(|&i| dagre[i]).sum();
        let le = |other: &dyn Fn(usize) -> u64| {
            ok.iter()
                .filter(|&&i| u(&results[i], "crossings") <= other(i))
                .count()
        };
        let le_ours = le(&|i| ours[i].crossings);
        let le_dagre = le(&|i| dagre[i]);
        let agg = |key: &str| -> (u64, usize) {
            (
                ok.iter().map(|&i| u(&results[i], key)).sum(),
                ok.iter().filter(|&&i| u(&results[i], key) > 0).count(),
            )
        };
        let (no, ng) = agg("nodeOverlaps");
        let (to, tg) = agg("through");
        let (lo, lg) = agg("labelOverlaps");
        let flows = ok
            .iter()
            .filter(|&&i| results[i]["clustersOverlap"] == true)
            .count();
        let micros: u64 = ok.iter().map(|&i| u(&results[i], "micros")).sum();
        let handled = if failures.is_empty() {
            format!("{}/{n}", ok.len())
        } else {
            format!("{}/{n} ({})", ok.len(), failures.join(", "))
        };
        table.push(format!(
            "| {} {} | {handled} | {total} ({ours_on}, {dagre_on}) | {} | {} | {no} ({ng}) | {to} ({tg}) | {lo} ({lg}) | {flows}/{clustered} | {:.0} ms | {} | {} | {} |",
            c.name,
            c.version,
            percent(le_ours, n),
            percent(le_dagre, n),
            micros as f64 / 1000.0,
            shown_bench(&bench),
            c.licence,
            c.released,
        ));
        report.push(json!({"crate": c.name, "version": c.version, "gives": c.gives, "graphs": results, "flow500": bench}));
    }
    if let Some(out) = option(rest, "--out") {
        let all = json!({"ours": {"flow500": ours_bench}, "candidates": report});
        std::fs::write(out, all.to_string()).map_err(|e| format!("{out}: {e}"))?;
    }
    println!("{}", table.join("\n"));
    println!();
    println!("How each crate was driven:");
    for c in CANDIDATES {
        println!("- {} {}: {}", c.name, c.version, c.gives);
    }
    Ok(())
}

fn bench_child(name: &str, runs: usize, timeout: Duration) -> Result<Value, String> {
    let mut result = Value::Null;
    let runs = runs.to_string();
    let failure = child_lines(&["bench", name, &runs], 1, timeout, |v| result = v)?;
    Ok(match failure {
        Some(why) => json!({"status": "failed", "why": why}),
        None => result,
    })
}

fn shown_bench(v: &Value) -> String {
    match v["median"].as_u64() {
        Some(m) if v["status"] == "ok" => {
            format!(
                "{:.1} ms ({} crossings)",
                m as f64 / 1000.0,
                u(v, "crossings")
            )
        }
        _ => v["why"]
            .as_str()
            .filter(|w| w.starts_with("timeout") || w.starts_with("crash"))
            .or(v["status"].as_str())
            .unwrap_or("failed")
            .to_owned(),
    }
}
