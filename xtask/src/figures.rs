//! `cargo xtask figures [--runs N] [--binary PATH]`: measures the shipped binary and writes the
//! figures the getting-started guide quotes, so the docs and the measurements cannot drift.
//!
//! It builds the binary with `cargo xtask dist` (or takes `--binary`), runs the stdio bench
//! (`crates/mcp-bin/benches/stdio.rs`, over real pipes) `N` times (default 3) against it and
//! against the bench's own floor (a bare serde_json loop, the product's memory goal is to stay
//! within [`MEMORY_GOAL_MIB`] of it), takes the median of each figure, and rewrites the table
//! between the `<!-- figures:start -->` and `<!-- figures:end -->` markers of
//! `docs/guide/getting-started.md` and `docs/es/guide/getting-started.md`.
//!
//! Figures are measured, never asserted: a noisy machine moves them, so nothing checks them in
//! CI; rerun this command after a change that can move them and commit what it wrote.
use std::error::Error;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The product's memory goal: RSS after `initialize` within this much of the floor's.
const MEMORY_GOAL_MIB: f64 = 0.5;

const START: &str = "<!-- figures:start -->";
const END: &str = "<!-- figures:end -->";

/// One bench line's figures, in the order the bench prints them.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Figures {
    spawn_ms: f64,
    rss_mib: f64,
    rss_used_mib: f64,
    pings_per_s: f64,
    pipelined_ms: f64,
}

pub(crate) fn run(args: &[&str]) -> Result<(), Box<dyn Error>> {
    let mut runs = 3usize;
    let mut binary: Option<PathBuf> = None;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match *arg {
            "--runs" => {
                runs = rest
                    .next()
                    .and_then(|n| n.parse().ok())
                    .filter(|n| *n > 0)
                    .ok_or("--runs needs a positive number")?;
            }
            "--binary" => binary = Some(PathBuf::from(rest.next().ok_or("--binary needs a path")?)),
            _ => return Err("usage: cargo xtask figures [--runs N] [--binary PATH]".into()),
        }
    }
    let root = crate::project_root();
    let host = crate::dist::host_platform()?;
    let binary = match (binary, host) {
        (Some(path), _) => path,
        (None, Some(host)) => crate::dist::build(&root, host.triple, true)?,
        (None, None) => return Err("this machine has no npm platform: pass --binary".into()),
    };
    let size = fs::metadata(&binary)?.len();
    let (mut floors, mut servers) = (Vec::new(), Vec::new());
    for run in 1..=runs {
        eprintln!("xtask figures: bench run {run} of {runs}");
        let output = bench(&root, &binary)?;
        let (floor, server) = parse_bench(&output)
            .ok_or_else(|| format!("the stdio bench printed no figures:\n{output}"))?;
        floors.push(floor);
        servers.push(server);
    }
    let (floor, server) = (median(&floors), median(&servers));
    let triple = host.map_or("this machine", |p| p.triple);
    for (path, spanish) in [
        ("docs/guide/getting-started.md", false),
        ("docs/es/guide/getting-started.md", true),
    ] {
        let path = root.join(path);
        let text = fs::read_to_string(&path)?;
        let table = table(&server, &floor, size, runs, triple, spanish);
        let updated = replace_between_markers(&text, &table)
            .ok_or_else(|| format!("{} has no {START} … {END} block", path.display()))?;
        fs::write(&path, updated)?;
        eprintln!("xtask figures: wrote {}", path.display());
    }
    println!("{}", table(&server, &floor, size, runs, triple, false));
    Ok(())
}

/// Runs the stdio bench once against `binary` and returns its stdout.
fn bench(root: &Path, binary: &Path) -> Result<String, Box<dyn Error>> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args([
            "bench",
            "--locked",
            "-p",
            "botmesh-mcp-cli",
            "--bench",
            "stdio",
        ])
        .arg("--manifest-path")
        .arg(root.join("Cargo.toml"))
        .env("BOTMESH_BENCH_BIN", binary)
        .output()?;
    if !output.status.success() {
        return Err(format!(
            "the stdio bench failed: {}",
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The floor's and the server's figures from the bench's output.
fn parse_bench(output: &str) -> Option<(Figures, Figures)> {
    let line = |name: &str| {
        output
            .lines()
            .find_map(|line| line.trim_start().strip_prefix(name)?.strip_prefix(':'))
            .and_then(parse_line)
    };
    Some((line("serde_json floor")?, line("botmesh-mcp")?))
}

/// The five numbers of a bench line (thousands written with a comma, as in "5,000", are labels
/// and skipped).
fn parse_line(line: &str) -> Option<Figures> {
    let numbers: Vec<f64> = line
        .split_whitespace()
        .filter_map(|token| {
            token
                .trim_matches(|c| c == '(' || c == ')' || c == ',')
                .parse()
                .ok()
        })
        .collect();
    match numbers[..] {
        [spawn_ms, rss_mib, rss_used_mib, pings_per_s, pipelined_ms] => Some(Figures {
            spawn_ms,
            rss_mib,
            rss_used_mib,
            pings_per_s,
            pipelined_ms,
        }),
        _ => None,
    }
}

/// Each figure's median over the runs.
fn median(runs: &[Figures]) -> Figures {
    let mid = |field: fn(&Figures) -> f64| {
        let mut values: Vec<f64> = runs.iter().map(field).collect();
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    };
    Figures {
        spawn_ms: mid(|f| f.spawn_ms),
        rss_mib: mid(|f| f.rss_mib),
        rss_used_mib: mid(|f| f.rss_used_mib),
        pings_per_s: mid(|f| f.pings_per_s),
        pipelined_ms: mid(|f| f.pipelined_ms),
    }
}

/// The Markdown block written between the markers.
fn table(
    server: &Figures,
    floor: &Figures,
    size: u64,
    runs: usize,
    triple: &str,
    spanish: bool,
) -> String {
    let gap = server.rss_mib - floor.rss_mib;
    let within = gap <= MEMORY_GOAL_MIB;
    let mib = size as f64 / (1024.0 * 1024.0);
    let decimal = |text: String| {
        if spanish {
            text.replace('.', ",")
        } else {
            text
        }
    };
    let rows = [
        (
            "spawn-to-`initialize`",
            "del arranque a `initialize`",
            format!("{:.2} ms", server.spawn_ms),
            format!("{:.2} ms", floor.spawn_ms),
        ),
        (
            "RSS after `initialize`",
            "RSS tras `initialize`",
            format!("{:.2} MiB", server.rss_mib),
            format!("{:.2} MiB", floor.rss_mib),
        ),
        (
            "RSS after `tools/list` and one call",
            "RSS tras `tools/list` y una llamada",
            format!("{:.2} MiB", server.rss_used_mib),
            format!("{:.2} MiB", floor.rss_used_mib),
        ),
        (
            "sequential pings per second",
            "pings secuenciales por segundo",
            format!("{:.0}", server.pings_per_s),
            format!("{:.0}", floor.pings_per_s),
        ),
        (
            "5,000 pipelined `tools/call`",
            "5.000 `tools/call` encadenadas",
            format!("{:.1} ms", server.pipelined_ms),
            format!("{:.1} ms", floor.pipelined_ms),
        ),
    ];
    let mut out = String::new();
    if spanish {
        out.push_str("| medida | binario publicado (`cargo xtask dist`) | suelo: un bucle serde_json |\n| --- | --- | --- |\n");
    } else {
        out.push_str("| figure | shipped binary (`cargo xtask dist`) | floor: a bare serde_json loop |\n| --- | --- | --- |\n");
    }
    for (english, castellano, ours, theirs) in rows {
        let name = if spanish { castellano } else { english };
        out.push_str(&format!(
            "| {name} | {} | {} |\n",
            decimal(ours),
            decimal(theirs)
        ));
    }
    let size_row = if spanish {
        format!(
            "| tamaño del archivo | {} | |\n",
            decimal(format!("{mib:.2} MiB"))
        )
    } else {
        format!("| file size | {mib:.2} MiB | |\n")
    };
    out.push_str(&size_row);
    out.push('\n');
    let gap_text = decimal(format!("{gap:+.2}"));
    let goal = decimal(format!("{MEMORY_GOAL_MIB}"));
    if spanish {
        out.push_str(&format!(
            "Medido con `cargo xtask figures` (`{triple}`, mediana de {runs} ejecuciones del bench `stdio` sobre tuberías reales). Objetivo de memoria: RSS tras `initialize` a menos de {goal} MiB del suelo; aquí {gap_text} MiB ({}).",
            if within { "cumplido" } else { "no cumplido" }
        ));
    } else {
        out.push_str(&format!(
            "Measured by `cargo xtask figures` (`{triple}`, median of {runs} runs of the `stdio` bench over real pipes). Memory goal: RSS after `initialize` within {goal} MiB of the floor; here {gap_text} MiB ({}).",
            if within { "met" } else { "not met" }
        ));
    }
    out
}

/// `text` with the lines between the markers replaced by `block`.
fn replace_between_markers(text: &str, block: &str) -> Option<String> {
    let start = text.find(START)? + START.len();
    let end = start + text[start..].find(END)?;
    Some(format!("{}\n{block}\n{}", &text[..start], &text[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUTPUT: &str = "botmesh-mcp is /x/botmesh-mcp
  serde_json floor: spawn-to-initialize median 1.01 ms, RSS after initialize 2.02 MiB (after tools/list and a call 2.02 MiB), 20139 sequential pings/s, 5,000 pipelined tools/call in 12.7 ms
       botmesh-mcp: spawn-to-initialize median 0.90 ms, RSS after initialize 2.25 MiB (after tools/list and a call 2.65 MiB), 25574 sequential pings/s, 5,000 pipelined tools/call in 27.9 ms
2026-07-28 vs legacy: sequential tools/list 1/s vs 1/s (+0.0 %)
";

    #[test]
    fn reads_both_lines_of_the_bench() {
        let (floor, server) = parse_bench(OUTPUT).unwrap();
        assert_eq!(
            server,
            Figures {
                spawn_ms: 0.90,
                rss_mib: 2.25,
                rss_used_mib: 2.65,
                pings_per_s: 25574.0,
                pipelined_ms: 27.9
            }
        );
        assert_eq!(floor.rss_mib, 2.02);
        assert_eq!(parse_bench("botmesh-mcp: nothing here"), None);
    }

    #[test]
    fn the_block_between_the_markers_is_replaced_and_nothing_else() {
        let text = format!("before\n{START}\nold\ntable\n{END}\nafter\n");
        let updated = replace_between_markers(&text, "new").unwrap();
        assert_eq!(updated, format!("before\n{START}\nnew\n{END}\nafter\n"));
        assert_eq!(replace_between_markers("no markers", "new"), None);
    }

    #[test]
    fn the_table_says_whether_the_memory_goal_is_met() {
        let (floor, server) = parse_bench(OUTPUT).unwrap();
        let met = table(&server, &floor, 3 << 20, 3, "t", false);
        assert!(
            met.contains("| RSS after `initialize` | 2.25 MiB | 2.02 MiB |"),
            "{met}"
        );
        assert!(met.contains("here +0.23 MiB (met)"), "{met}");
        let heavy = Figures {
            rss_mib: 3.0,
            ..server
        };
        let missed = table(&heavy, &floor, 3 << 20, 3, "t", true);
        assert!(missed.contains("aquí +0,98 MiB (no cumplido)"), "{missed}");
        assert!(
            missed.contains("| tamaño del archivo | 3,00 MiB | |"),
            "{missed}"
        );
    }

    #[test]
    fn both_guides_carry_the_markers() {
        for path in [
            "docs/guide/getting-started.md",
            "docs/es/guide/getting-started.md",
        ] {
            let text = fs::read_to_string(crate::project_root().join(path)).unwrap();
            assert!(
                replace_between_markers(&text, "x").is_some(),
                "{path} lacks the figures markers"
            );
        }
    }
}
