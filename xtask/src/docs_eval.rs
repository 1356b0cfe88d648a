//! `cargo xtask docs-eval`: the docs-search evaluations vendored in `eval/` (the FastAPI, React
//! and Slidev docs, each in English and Spanish, 90 known-item queries each, decoys in excluded
//! folders) run against the release binary over MCP stdio, beside each harness's own BM25
//! baseline. For every set it prints one table: all queries, the English and the Spanish half
//! (`lang=en` or `es`; a `cross` query, an identifier whose answers are in both languages,
//! counts in both), the odd-numbered queries (the tuning half) and the even-numbered ones (the
//! held-out half), each for every query, the natural-language ones (`kind=nl`) and, in a set
//! that tags them, the `ref-section` ones (plain questions whose answer is a short section named
//! by an identifier); MRR@10, R@1 and R@10, ours and BM25's.
//!
//! `--check` also holds the floors (CI runs it: `.ci/parts/docs-eval.sh`): per set of [`SETS`],
//! the whole set's MRR@10 and R@1 and the natural-language queries' MRR@10, and the MRR@10 of
//! each language half's queries, natural-language ones and `ref-section` ones, at least the
//! set's floors; for every set, also one given with `--eval`, the MRR@10 of each of those
//! half groups at least BM25's, R@10 of every harness group at least BM25's, and no leak (a
//! result from an excluded folder) nor error.
//!
//! Options: `--set NAME` (only that set of [`SETS`]; repeatable), `--eval DIR` (instead, a
//! harness folder of the same format, e.g. a set kept outside the repository: no floors but
//! BM25's R@10, leaks and errors), `--binary PATH` (default: build and use
//! `target/release/botmesh-mcp`), `--check`. Nothing outside the clone is read unless
//! `--eval` names it.

use std::collections::BTreeMap;
use std::error::Error;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Floors of MRR@10 in one language half of a set.
#[derive(Debug, Clone, Copy)]
struct HalfFloors {
    /// Over the half's queries.
    all: f64,
    /// Over its natural-language queries (`kind=nl`).
    nl: f64,
    /// Over its `ref-section` queries, in a set that tags them.
    ref_section: Option<f64>,
}

/// One vendored evaluation set and its floors.
#[derive(Debug, Clone, Copy)]
struct Set {
    /// Its name (`--set`).
    name: &'static str,
    /// Its harness folder, relative to the project root.
    dir: &'static str,
    /// Floor of MRR@10 over all its queries.
    mrr: f64,
    /// Floor of R@1 over all its queries.
    r1: f64,
    /// Floor of MRR@10 over its natural-language queries (`kind=nl`).
    nl_mrr: f64,
    /// Floors of its English half, then of its Spanish half (see [`halves`]).
    halves: [HalfFloors; 2],
}

/// The vendored sets, with floors just under what the engine reaches.
const SETS: [Set; 3] = [
    Set {
        name: "fastapi",
        dir: "eval/docs-search-fastapi",
        mrr: 0.73,
        r1: 0.65,
        nl_mrr: 0.57,
        halves: [
            HalfFloors {
                all: 0.79,
                nl: 0.64,
                ref_section: None,
            },
            HalfFloors {
                all: 0.73,
                nl: 0.49,
                ref_section: None,
            },
        ],
    },
    Set {
        name: "react",
        dir: "eval/docs-search-react",
        mrr: 0.72,
        r1: 0.63,
        nl_mrr: 0.60,
        halves: [
            HalfFloors {
                all: 0.75,
                nl: 0.63,
                ref_section: None,
            },
            HalfFloors {
                all: 0.73,
                nl: 0.55,
                ref_section: None,
            },
        ],
    },
    Set {
        name: "slidev",
        dir: "eval/docs-search-slidev",
        mrr: 0.65,
        r1: 0.58,
        nl_mrr: 0.49,
        halves: [
            HalfFloors {
                all: 0.71,
                nl: 0.53,
                ref_section: Some(0.43),
            },
            HalfFloors {
                all: 0.66,
                nl: 0.45,
                ref_section: Some(0.30),
            },
        ],
    },
];

/// One table of the harness: group name → metric name → value.
type Table = BTreeMap<String, BTreeMap<String, f64>>;

/// One query's outcome, from the harness's `ranks.tsv` (and its tags, from `queries.jsonl`).
#[derive(Debug, Clone, PartialEq)]
struct Ranked {
    /// The query's number (`q07` → 7).
    number: u32,
    /// Its kind (`nl`, `identifier`, ...).
    kind: String,
    /// Its language (`en`, `es`, or `cross` for both).
    lang: String,
    /// Its tags (`ref-section`, ...).
    tags: Vec<String>,
    /// The rank of the first correct section, if in the results.
    rank: Option<u32>,
}

/// A subset of a set's queries.
type Filter = fn(&Ranked) -> bool;

/// The halves of a set: all its queries, then its English and Spanish halves (a `cross` query
/// is in both; the floors of [`Set::halves`] are theirs), then its odd and even halves.
fn halves() -> [(&'static str, Filter); 5] {
    [
        ("all", |_| true),
        ("en", |r| r.lang != "es"),
        ("es", |r| r.lang != "en"),
        ("odd (tuning)", |r| r.number % 2 == 1),
        ("even (held out)", |r| r.number % 2 == 0),
    ]
}

/// The groups of a half: all its queries, the natural-language ones and the `ref-section` ones.
fn groups() -> [(&'static str, Filter); 3] {
    [
        ("ALL", |_| true),
        ("nl", |r| r.kind == "nl"),
        ("ref-section", |r| r.tags.iter().any(|t| t == "ref-section")),
    ]
}

/// Runs the task.
pub(crate) fn run(args: &[&str]) -> Result<(), Box<dyn Error>> {
    let root = crate::project_root();
    let mut only: Vec<String> = Vec::new();
    let mut external = None;
    let mut binary = None;
    let mut check = false;
    let mut args = args.iter();
    while let Some(&arg) = args.next() {
        match arg {
            "--set" => only.push((*args.next().ok_or("--set needs a name")?).to_owned()),
            "--eval" => external = Some(PathBuf::from(args.next().ok_or("--eval needs a folder")?)),
            "--binary" => binary = Some(PathBuf::from(args.next().ok_or("--binary needs a path")?)),
            "--check" => check = true,
            other => return Err(format!("docs-eval: unknown argument {other:?}").into()),
        }
    }
    for name in &only {
        if !SETS.iter().any(|s| s.name == name) {
            return Err(format!("docs-eval: no set named {name:?}").into());
        }
    }
    let sets: Vec<(String, PathBuf, Option<Set>)> = match external {
        Some(dir) => vec![("external".to_owned(), dir, None)],
        None => SETS
            .iter()
            .filter(|s| only.is_empty() || only.iter().any(|n| n == s.name))
            .map(|s| (s.name.to_owned(), root.join(s.dir), Some(*s)))
            .collect(),
    };
    for (_, dir, _) in &sets {
        if !dir.join("eval.py").is_file() {
            return Err(format!("no harness at {}", dir.join("eval.py").display()).into());
        }
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
    let mcp = format!("{} --docs {{corpus}}", binary.display());
    let mut failures = Vec::new();
    for (name, dir, set) in &sets {
        let out = crate::target_dir(&root).join("docs-eval").join(name);
        std::fs::create_dir_all(&out)?;
        let harness = dir.join("eval.py");
        let (bm25, _) = harness_run(&harness, &out, "bm25", None)?;
        let (ours, text) = harness_run(&harness, &out, "botmesh", Some(&mcp))?;
        println!(
            "## {name} ({}): botmesh-mcp, all queries (the harness's table)\n{text}\n",
            dir.display()
        );
        let tags = read_tags(&dir.join("queries.jsonl"))?;
        let ours_ranks = read_ranks(&out.join("botmesh.ranks.tsv"), &tags)?;
        let bm25_ranks = read_ranks(&out.join("bm25.ranks.tsv"), &tags)?;
        println!(
            "## {name}: ours / BM25 by half\n{}",
            halves_table(&ours_ranks, &bm25_ranks)
        );
        let half_failures = half_floors(&ours_ranks, &bm25_ranks, set.as_ref());
        for failure in floors(&ours, &bm25, set.as_ref())
            .into_iter()
            .chain(half_failures)
        {
            failures.push(format!("{name}: {failure}"));
        }
    }
    for failure in &failures {
        println!("below the floor: {failure}");
    }
    if check && !failures.is_empty() {
        return Err(format!("{} floor(s) not held", failures.len()).into());
    }
    if failures.is_empty() {
        let held: Vec<String> = sets
            .iter()
            .filter_map(|(_, _, s)| s.as_ref())
            .map(|s| {
                let half = |h: &HalfFloors| {
                    let reference = h
                        .ref_section
                        .map(|r| format!(", ref-section >= {r}"))
                        .unwrap_or_default();
                    format!("{} (nl >= {}{reference})", h.all, h.nl)
                };
                format!(
                    "{}: MRR@10 >= {}, R@1 >= {}, kind=nl MRR@10 >= {}, en MRR@10 >= {}, \
                     es MRR@10 >= {}",
                    s.name,
                    s.mrr,
                    s.r1,
                    s.nl_mrr,
                    half(&s.halves[0]),
                    half(&s.halves[1])
                )
            })
            .collect();
        println!(
            "floors held: {}{}MRR@10 >= BM25 in every group of the en and es halves, \
             R@10 >= BM25 in every harness group, no leaks, no errors",
            held.join("; "),
            if held.is_empty() { "" } else { "; " }
        );
    }
    Ok(())
}

/// Runs the harness once over all queries (the server when `mcp` is given, else its BM25
/// baseline), writing `NAME.ranks.tsv` into `out`; returns its table, parsed and as printed.
fn harness_run(
    harness: &Path,
    out: &Path,
    name: &str,
    mcp: Option<&str>,
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

/// The tags of every query of a harness's `queries.jsonl` (a JSON object per line, with
/// `id` and optional `tags`), by id.
fn read_tags(path: &Path) -> Result<BTreeMap<String, Vec<String>>, Box<dyn Error>> {
    parse_tags(&std::fs::read_to_string(path)?)
        .map_err(|e| format!("{}: {e}", path.display()).into())
}

/// See [`read_tags`].
fn parse_tags(text: &str) -> Result<BTreeMap<String, Vec<String>>, Box<dyn Error>> {
    let mut tags = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let query: serde_json::Value = serde_json::from_str(line)?;
        let id = query["id"].as_str().ok_or("a query without an id")?;
        let of_query = match &query["tags"] {
            serde_json::Value::Null => Vec::new(),
            serde_json::Value::Array(list) => list
                .iter()
                .map(|t| {
                    t.as_str()
                        .map(str::to_owned)
                        .ok_or("a tag that is no string")
                })
                .collect::<Result<_, _>>()?,
            _ => return Err(format!("query {id}: tags that are no list").into()),
        };
        tags.insert(id.to_owned(), of_query);
    }
    Ok(tags)
}

/// Reads the harness's `ranks.tsv` (a header, then `id kind lang rank ...` per query; a
/// rank of `-` is a miss), each query with its `tags`.
fn read_ranks(
    path: &Path,
    tags: &BTreeMap<String, Vec<String>>,
) -> Result<Vec<Ranked>, Box<dyn Error>> {
    parse_ranks(&std::fs::read_to_string(path)?, tags)
}

/// See [`read_ranks`].
fn parse_ranks(
    text: &str,
    tags: &BTreeMap<String, Vec<String>>,
) -> Result<Vec<Ranked>, Box<dyn Error>> {
    let mut ranked = Vec::new();
    for line in text.lines().skip(1) {
        let cells: Vec<&str> = line.split('\t').collect();
        let [id, kind, lang, rank, ..] = cells.as_slice() else {
            return Err(format!("a short line in ranks.tsv: {line:?}").into());
        };
        let number = id
            .trim_start_matches(|c: char| !c.is_ascii_digit())
            .parse()
            .map_err(|_| format!("a query id without a number: {id}"))?;
        let rank = match *rank {
            "-" => None,
            rank => Some(rank.parse().map_err(|_| format!("a bad rank: {rank}"))?),
        };
        ranked.push(Ranked {
            number,
            kind: (*kind).to_owned(),
            lang: (*lang).to_owned(),
            tags: tags.get(*id).cloned().unwrap_or_default(),
            rank,
        });
    }
    if ranked.is_empty() {
        return Err("an empty ranks.tsv".into());
    }
    Ok(ranked)
}

/// MRR@10, R@1 and R@10 of `ranked`, and its size.
fn metrics<'a>(ranked: impl Iterator<Item = &'a Ranked>) -> (usize, [f64; 3]) {
    let (mut n, mut sums) = (0usize, [0.0f64; 3]);
    for r in ranked {
        n += 1;
        if let Some(rank) = r.rank.filter(|&rank| (1..=10).contains(&rank)) {
            sums[0] += 1.0 / f64::from(rank);
            sums[1] += f64::from(u8::from(rank == 1));
            sums[2] += 1.0;
        }
    }
    let n_f = n.max(1) as f64;
    (n, sums.map(|s| s / n_f))
}

/// The per-half comparison: every (half, group) row with ours / BM25's MRR@10, R@1 and R@10
/// (a group no query of the half is in has no row).
fn halves_table(ours: &[Ranked], bm25: &[Ranked]) -> String {
    let mut text = format!(
        "{:<30}{:>4}  {:>13}  {:>13}  {:>13}\n",
        "half, group", "n", "MRR@10", "R@1", "R@10"
    );
    for (half, in_half) in halves() {
        for (group, in_group) in groups() {
            let pick = |r: &&Ranked| in_half(r) && in_group(r);
            let (n, a) = metrics(ours.iter().filter(pick));
            if n == 0 {
                continue;
            }
            let (_, b) = metrics(bm25.iter().filter(pick));
            let mut row = format!("{:<30}{n:>4}", format!("{half}, {group}"));
            for (x, y) in a.iter().zip(b) {
                let mark = if *x + 1e-9 < y { '<' } else { ' ' };
                let _ = write!(row, "  {x:.3} / {y:.3}{mark}");
            }
            text.push_str(row.trim_end());
            text.push('\n');
        }
    }
    text
}

/// The floors of the language halves (`en`, `es`) that `ours` does not hold, described: in
/// every group, MRR@10 at least BM25's, and at least `set`'s floors when given.
fn half_floors(ours: &[Ranked], bm25: &[Ranked], set: Option<&Set>) -> Vec<String> {
    let mut failures = Vec::new();
    for (h, (half, in_half)) in halves().into_iter().enumerate().skip(1).take(2) {
        let floors = set.map(|s| s.halves[h - 1]);
        for (group, in_group) in groups() {
            let pick = |r: &&Ranked| in_half(r) && in_group(r);
            let floor = floors.and_then(|f| match group {
                "ALL" => Some(f.all),
                "nl" => Some(f.nl),
                _ => f.ref_section,
            });
            let (n, [mrr, ..]) = metrics(ours.iter().filter(pick));
            if n == 0 {
                if floor.is_some() {
                    failures.push(format!("{half}, {group}: no queries to hold a floor"));
                }
                continue;
            }
            let (_, [baseline, ..]) = metrics(bm25.iter().filter(pick));
            if mrr + 1e-9 < baseline {
                failures.push(format!(
                    "{half}, {group} MRR@10 {mrr:.3} < BM25's {baseline:.3}"
                ));
            }
            if let Some(floor) = floor.filter(|&floor| mrr + 1e-9 < floor) {
                failures.push(format!("{half}, {group} MRR@10 {mrr:.3} < {floor:.3}"));
            }
        }
    }
    failures
}

/// The floors `ours` does not hold, described (`set`'s own, when given, then BM25's R@10 of
/// every group, leaks and errors).
fn floors(ours: &Table, bm25: &Table, set: Option<&Set>) -> Vec<String> {
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
    if let Some(set) = set {
        at_least("ALL MRR@10".into(), get(ours, "ALL", "MRR@10"), set.mrr);
        at_least("ALL R@1".into(), get(ours, "ALL", "R@1"), set.r1);
        at_least(
            "kind=nl MRR@10".into(),
            get(ours, "kind=nl", "MRR@10"),
            set.nl_mrr,
        );
    }
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
        assert!(floors(&ours, &ours, Some(&SETS[0])).is_empty());
        let better = parse_table(&TABLE.replace("0.745", "0.800")).unwrap();
        assert_eq!(
            floors(&ours, &better, None),
            vec!["kind=nl R@10 (BM25's) 0.745 < 0.800".to_owned()]
        );
        let leaky = parse_table(&TABLE.replace("0.687        0", "0.687        2")).unwrap();
        assert_eq!(floors(&leaky, &ours, None), vec!["leaks: 2".to_owned()]);
        let low = Set {
            mrr: 0.75,
            ..SETS[0]
        };
        assert_eq!(
            floors(&ours, &ours, Some(&low)),
            vec!["ALL MRR@10 0.730 < 0.750".to_owned()]
        );
        assert!(parse_table("nothing").is_err());
    }

    #[test]
    fn halves_are_computed_from_ranks() {
        let tsv = "id\tkind\tlang\trank\tndcg10\tleaks\tquery\ttop1\terror\n\
q01\tnl\ten\t1\t1\t0\ta\tx\t\n\
q02\tnl\ten\t2\t1\t0\tb\tx\t\n\
q03\tidentifier\tcross\t-\t0\t0\tc\t\t\n\
q04\tphrase\tes\t4\t1\t0\td\tx\t\n";
        let tags = parse_tags(
            "{\"id\": \"q01\", \"q\": \"a\"}\n\
             {\"id\": \"q02\", \"q\": \"b\", \"tags\": [\"ref-section\"]}\n\n",
        )
        .unwrap();
        assert!(parse_tags("{\"id\": \"q01\", \"tags\": \"ref-section\"}").is_err());
        let ranked = parse_ranks(tsv, &tags).unwrap();
        assert_eq!(ranked[2].rank, None);
        assert_eq!(ranked[1].tags, ["ref-section"]);
        assert!(ranked[0].tags.is_empty() && ranked[3].tags.is_empty());
        let (n, m) = metrics(ranked.iter());
        assert_eq!(n, 4);
        assert!((m[0] - (1.0 + 0.5 + 0.25) / 4.0).abs() < 1e-12);
        assert_eq!(m[1], 0.25);
        assert_eq!(m[2], 0.75);
        let table = halves_table(&ranked, &ranked);
        // Odd half: q01 (rank 1) and q03 (a miss).
        assert!(
            table.contains("odd (tuning), ALL                2  0.500 / 0.500   0.500 / 0.500")
        );
        // The English half: q01, q02 and the cross q03; its ref-section group: q02.
        assert!(
            table.contains("en, ALL                          3  0.500 / 0.500   0.333 / 0.333")
        );
        assert!(
            table.contains("en, ref-section                  1  0.500 / 0.500   0.000 / 0.000")
        );
        // No Spanish ref-section query: no row.
        assert!(!table.contains("es, ref-section"), "{table}");
        assert!(!table.contains('<'));
        assert!(half_floors(&ranked, &ranked, None).is_empty());
        let worse: Vec<Ranked> = ranked
            .iter()
            .map(|r| Ranked {
                rank: None,
                ..r.clone()
            })
            .collect();
        assert!(halves_table(&worse, &ranked).contains("0.000 / 1.000<"));
        assert_eq!(
            half_floors(&worse, &ranked, None),
            [
                "en, ALL MRR@10 0.000 < BM25's 0.500",
                "en, nl MRR@10 0.000 < BM25's 0.750",
                "en, ref-section MRR@10 0.000 < BM25's 0.500",
                "es, ALL MRR@10 0.000 < BM25's 0.125",
            ]
        );
        let set = Set {
            halves: [
                HalfFloors {
                    all: 0.4,
                    nl: 0.8,
                    ref_section: Some(0.5),
                },
                HalfFloors {
                    all: 0.1,
                    nl: 0.0,
                    ref_section: Some(0.5),
                },
            ],
            ..SETS[2]
        };
        assert_eq!(
            half_floors(&ranked, &ranked, Some(&set)),
            [
                "en, nl MRR@10 0.750 < 0.800",
                "es, nl: no queries to hold a floor",
                "es, ref-section: no queries to hold a floor",
            ]
        );
        assert!(parse_ranks("header only\n", &tags).is_err());
    }
}
