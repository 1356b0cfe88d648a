//! `cargo xtask docs-eval`: the shared docs-search evaluation (FastAPI docs, English and
//! Spanish, 90 known-item queries; `../shared/eval/docs-search/` beside the clone) run
//! against the release binary over MCP stdio, with its table printed for all queries, the
//! odd-numbered ones (the tuning half) and the even-numbered ones (the held-out half), beside
//! the harness's own BM25 baseline.
//!
//! `--check` also holds the floors below (CI runs it: `.ci/parts/docs-eval.sh`): the whole
//! set's MRR@10 and R@1, the natural-language queries' MRR@10, R@10 of every group at least
//! the BM25 baseline's, and no leak (a result from an excluded folder) nor error.
//!
//! Options: `--eval DIR` (the harness folder; default `../shared/eval/docs-search`, or
//! `$BOTMESH_DOCS_EVAL`), `--binary PATH` (default: build and use
//! `target/release/botmesh-mcp`), `--check`.

use std::collections::BTreeMap;
use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Floor of MRR@10 over all 90 queries.
const FLOOR_MRR: f64 = 0.72;
/// Floor of R@1 over all 90 queries.
const FLOOR_R1: f64 = 0.65;
/// Floor of MRR@10 over the natural-language queries (`kind=nl`).
const FLOOR_NL_MRR: f64 = 0.56;

/// One table of the harness: group name → metric name → value.
type Table = BTreeMap<String, BTreeMap<String, f64>>;

/// Runs the task.
pub(crate) fn run(args: &[&str]) -> Result<(), Box<dyn Error>> {
    let root = crate::project_root();
    let mut eval_dir = std::env::var_os("BOTMESH_DOCS_EVAL")
        .map_or_else(|| root.join("../shared/eval/docs-search"), PathBuf::from);
    let mut binary = None;
    let mut check = false;
    let mut args = args.iter();
    while let Some(&arg) = args.next() {
        match arg {
            "--eval" => eval_dir = PathBuf::from(args.next().ok_or("--eval needs a folder")?),
            "--binary" => binary = Some(PathBuf::from(args.next().ok_or("--binary needs a path")?)),
            "--check" => check = true,
            other => return Err(format!("docs-eval: unknown argument {other:?}").into()),
        }
    }
    let harness = eval_dir.join("eval.py");
    if !harness.is_file() {
        return Err(format!(
            "no harness at {} (pass --eval DIR or set BOTMESH_DOCS_EVAL)",
            harness.display()
        )
        .into());
    }
    let binary = match binary {
        Some(binary) => binary,
        None => {
            let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
                .current_dir(&root)
                .args(["build", "--release", "--locked", "-p", "botmesh-mcp-cli"])
                .status()?;
            if !status.success() {
                return Err("the release build failed".into());
            }
            crate::target_dir(&root).join("release/botmesh-mcp")
        }
    };
    let binary = std::path::absolute(&binary)?;
    if !binary.is_file() {
        return Err(format!("no binary at {}", binary.display()).into());
    }
    let out = crate::target_dir(&root).join("docs-eval");
    std::fs::create_dir_all(&out)?;
    let (odd, even) = halves(&eval_dir.join("queries.jsonl"))?;
    let mcp = format!("{} --docs {{corpus}}", binary.display());

    let bm25 = harness_table(&harness, &out, "bm25", None, None)?;
    println!(
        "## BM25 baseline (the harness's own), all queries\n{}",
        bm25.1
    );
    let mut ours = None;
    for (label, only) in [
        ("all", None),
        ("odd (tuning half)", Some(&odd)),
        ("even (held out)", Some(&even)),
    ] {
        let name = format!("botmesh-{}", label.split(' ').next().unwrap_or(label));
        let (table, text) = harness_table(&harness, &out, &name, Some(&mcp), only)?;
        println!("## botmesh-mcp, {label} queries\n{text}");
        if only.is_none() {
            ours = Some(table);
        }
    }
    let ours = ours.ok_or("no table for all queries")?;
    let failures = floors(&ours, &bm25.0);
    for failure in &failures {
        println!("below the floor: {failure}");
    }
    if check && !failures.is_empty() {
        return Err(format!("{} floor(s) not held", failures.len()).into());
    }
    if failures.is_empty() {
        println!(
            "floors held: MRR@10 >= {FLOOR_MRR}, R@1 >= {FLOOR_R1}, kind=nl MRR@10 >= {FLOOR_NL_MRR}, R@10 >= BM25 in every group, no leaks, no errors"
        );
    }
    Ok(())
}

/// The query ids of `queries.jsonl`, split into odd- and even-numbered ones (`q07`, `q12`).
fn halves(queries: &Path) -> Result<(String, String), Box<dyn Error>> {
    let mut odd = Vec::new();
    let mut even = Vec::new();
    for line in std::fs::read_to_string(queries)?.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with("//") {
            continue;
        }
        let query: serde_json::Value = serde_json::from_str(line)?;
        let id = query["id"]
            .as_str()
            .ok_or("a query without an id")?
            .to_owned();
        let number: u32 = id
            .trim_start_matches(|c: char| !c.is_ascii_digit())
            .parse()
            .map_err(|_| format!("a query id without a number: {id}"))?;
        if number % 2 == 1 {
            odd.push(id)
        } else {
            even.push(id)
        }
    }
    Ok((odd.join(","), even.join(",")))
}

/// Runs the harness once (the server when `mcp` is given, else its BM25 baseline) and
/// returns its table, parsed and as printed.
fn harness_table(
    harness: &Path,
    out: &Path,
    name: &str,
    mcp: Option<&str>,
    only: Option<&String>,
) -> Result<(Table, String), Box<dyn Error>> {
    let mut command = Command::new("python3");
    command
        .arg(harness)
        .arg("--name")
        .arg(name)
        .arg("--out-dir")
        .arg(out);
    if let Some(mcp) = mcp {
        command.arg("--mcp").arg(mcp);
    }
    if let Some(only) = only {
        command.arg("--only").arg(only);
    }
    let output = command.output()?;
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    if !output.status.success() {
        return Err(format!(
            "the harness failed ({}): {}{}",
            output.status,
            text,
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    let table = parse_table(&text)?;
    let printed: Vec<&str> = text
        .lines()
        .take_while(|l| !l.starts_with("wrote "))
        .collect();
    Ok((table, printed.join("\n")))
}

/// Parses the harness's table (a header line `group n MRR@10 ...`, then a line per group).
fn parse_table(text: &str) -> Result<Table, Box<dyn Error>> {
    let mut lines = text.lines().skip_while(|l| !l.starts_with("group"));
    let header: Vec<&str> = lines
        .next()
        .ok_or("no table in the harness's output")?
        .split_whitespace()
        .skip(1)
        .collect();
    let mut table = Table::new();
    for line in lines {
        let mut cells = line.split_whitespace();
        let Some(group) = cells.next() else { break };
        let values: Vec<f64> = cells
            .map(str::parse)
            .collect::<Result<_, _>>()
            .unwrap_or_default();
        if values.len() != header.len() {
            break;
        }
        table.insert(
            group.to_owned(),
            header.iter().map(|h| (*h).to_owned()).zip(values).collect(),
        );
    }
    if table.is_empty() {
        return Err("an empty table in the harness's output".into());
    }
    Ok(table)
}

/// The floors `ours` does not hold, described.
fn floors(ours: &Table, bm25: &Table) -> Vec<String> {
    let get = |table: &Table, group: &str, metric: &str| {
        table
            .get(group)
            .and_then(|m| m.get(metric))
            .copied()
            .unwrap_or(f64::NAN)
    };
    let mut failures = Vec::new();
    let mut at_least = |what: String, value: f64, floor: f64| {
        // NaN (a missing cell) fails too.
        if value.is_nan() || value < floor - 1e-9 {
            failures.push(format!("{what} {value:.3} < {floor:.3}"));
        }
    };
    at_least("ALL MRR@10".into(), get(ours, "ALL", "MRR@10"), FLOOR_MRR);
    at_least("ALL R@1".into(), get(ours, "ALL", "R@1"), FLOOR_R1);
    at_least(
        "kind=nl MRR@10".into(),
        get(ours, "kind=nl", "MRR@10"),
        FLOOR_NL_MRR,
    );
    for group in bm25.keys() {
        at_least(
            format!("{group} R@10 (BM25's)"),
            get(ours, group, "R@10"),
            get(bm25, group, "R@10"),
        );
    }
    for (metric, name) in [("leaks", "leaks"), ("errors", "errors")] {
        let count = get(ours, "ALL", metric);
        if count != 0.0 {
            failures.push(format!("{name}: {count}"));
        }
    }
    failures
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &str = "server: x\n\
group                     n   MRR@10      R@1      R@5     R@10  nDCG@10    leaks   errors\n\
ALL                      90    0.730    0.660    0.756    0.844    0.687        0        0\n\
kind=nl                  55    0.570    0.400    0.618    0.745    0.508        0        0\n\
latency ms: p50 0.4  p95 5.8\n";

    #[test]
    fn tables_parse_and_floors_compare_with_bm25() {
        let ours = parse_table(TABLE).unwrap();
        assert_eq!(ours["kind=nl"]["R@10"], 0.745);
        assert_eq!(ours.len(), 2);
        assert!(floors(&ours, &ours).is_empty());
        let better = parse_table(&TABLE.replace("0.745", "0.800")).unwrap();
        assert_eq!(
            floors(&ours, &better),
            vec!["kind=nl R@10 (BM25's) 0.745 < 0.800".to_owned()]
        );
        let leaky = parse_table(&TABLE.replace("0.687        0", "0.687        2")).unwrap();
        assert_eq!(floors(&leaky, &ours), vec!["leaks: 2".to_owned()]);
        assert!(parse_table("nothing").is_err());
    }
}
