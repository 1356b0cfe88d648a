//! Index build, change check, query latency and memory of the docs search.
//!
//! `cargo bench -p botmesh-docs-search` generates a synthetic bilingual tree of
//! about 1,000 pages / 10 MB into a temporary folder (deterministic, seeded),
//! then measures it and the project's own `docs/`. The machine is shared, so
//! each figure is given for the fastest run (what the code costs) and the
//! median run (what a busy machine adds); query latencies are p50/p99 over a
//! fixed query list. `search` includes the change check (on Linux, reading
//! the inotify queue; a walk when it reports a change or when the last walk
//! is a second old), `search_cached` is the query alone.

#![expect(clippy::print_stdout, reason = "a benchmark reports on stdout")]
#![expect(clippy::unwrap_used, reason = "a benchmark fails loudly")]

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use botmesh_docs_search::DocsIndex;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A vocabulary with Zipf-like frequencies: common words first.
struct Vocabulary {
    words: Vec<String>,
    cumulative: Vec<f64>,
}

impl Vocabulary {
    fn new(rng: &mut Rng, common: &[&str], syllables: &[&str], size: usize) -> Vocabulary {
        let mut words: Vec<String> = common.iter().map(|w| (*w).to_owned()).collect();
        while words.len() < size {
            let n = 2 + rng.below(3);
            let word: String = (0..n)
                .map(|_| syllables[rng.below(syllables.len())])
                .collect();
            words.push(word);
        }
        let mut total = 0.0;
        let cumulative = (1..=words.len())
            .map(|rank| {
                total += 1.0 / rank as f64;
                total
            })
            .collect();
        Vocabulary { words, cumulative }
    }

    fn pick(&self, rng: &mut Rng) -> &str {
        let total = *self.cumulative.last().unwrap();
        let x = (rng.next() >> 11) as f64 / (1u64 << 53) as f64 * total;
        let i = self.cumulative.partition_point(|&c| c < x);
        &self.words[i.min(self.words.len() - 1)]
    }
}

const EN_COMMON: &[&str] = &[
    "the", "a", "of", "to", "and", "in", "is", "it", "for", "on", "with", "step", "flow", "server",
    "document", "tool", "message", "variable", "returns", "validate", "option", "page", "error",
];
const ES_COMMON: &[&str] = &[
    "el",
    "la",
    "de",
    "que",
    "y",
    "en",
    "los",
    "se",
    "del",
    "las",
    "paso",
    "flujo",
    "servidor",
    "documento",
    "herramienta",
    "mensaje",
    "variable",
    "devuelve",
    "validación",
    "opción",
    "página",
    "configuración",
    "árbol",
];
const EN_SYLLABLES: &[&str] = &[
    "ta", "ri", "mon", "ex", "ple", "con", "fig", "ser", "ver", "al", "lo", "gen", "per", "sist",
];
const ES_SYLLABLES: &[&str] = &[
    "ción", "ta", "ri", "mé", "to", "do", "bú", "que", "da", "ña", "re", "gis", "tro", "ál",
];

fn identifier(rng: &mut Rng, vocabulary: &Vocabulary) -> String {
    let a = vocabulary.pick(rng).to_owned();
    let b = vocabulary.pick(rng);
    if rng.below(2) == 0 {
        let mut upper = b.chars();
        let first: String = upper
            .next()
            .map(|c| c.to_uppercase().collect())
            .unwrap_or_default();
        format!("{a}{first}{}", upper.as_str())
    } else {
        format!("{a}_{b}")
    }
}

fn sentence(rng: &mut Rng, vocabulary: &Vocabulary, words: usize) -> String {
    let mut out = String::new();
    for i in 0..words {
        if i > 0 {
            out.push(' ');
        }
        match rng.below(40) {
            0 => write!(out, "`{}`", identifier(rng, vocabulary)).unwrap(),
            1 => write!(out, "**{}**", vocabulary.pick(rng)).unwrap(),
            _ => out.push_str(vocabulary.pick(rng)),
        }
    }
    out.push('.');
    out
}

/// One page of about `target` bytes.
fn page(rng: &mut Rng, vocabulary: &Vocabulary, target: usize) -> String {
    let mut out = String::new();
    let title = sentence(rng, vocabulary, 3);
    writeln!(
        out,
        "---\ntitle: {}\n---\n\n# {}\n",
        title.trim_end_matches('.'),
        title
    )
    .unwrap();
    while out.len() < target {
        let words = 2 + rng.below(4);
        let heading = sentence(rng, vocabulary, words);
        writeln!(out, "## {}\n", heading.trim_end_matches('.')).unwrap();
        for _ in 0..1 + rng.below(3) {
            let n = 3 + rng.below(4);
            let paragraph: Vec<String> = (0..n)
                .map(|_| {
                    let words = 8 + rng.below(12);
                    sentence(rng, vocabulary, words)
                })
                .collect();
            writeln!(out, "{}\n", paragraph.join(" ")).unwrap();
        }
        match rng.below(4) {
            0 => {
                let id = identifier(rng, vocabulary);
                writeln!(out, "```js\n# not a heading\n{id}({{ value: 1 }});\n```\n").unwrap();
            }
            1 => {
                for _ in 0..3 {
                    writeln!(out, "- {}", sentence(rng, vocabulary, 6)).unwrap();
                }
                out.push('\n');
            }
            _ => {}
        }
    }
    out
}

/// Writes the synthetic tree; returns its Markdown size in bytes.
fn synthetic_tree(dir: &Path) -> usize {
    let mut rng = Rng(0x5eed_d0c5);
    let en = Vocabulary::new(&mut rng, EN_COMMON, EN_SYLLABLES, 20_000);
    let es = Vocabulary::new(&mut rng, ES_COMMON, ES_SYLLABLES, 20_000);
    let mut bytes = 0;
    for i in 0..1000 {
        let (vocabulary, folder) = if i % 2 == 0 {
            (&en, "guide")
        } else {
            (&es, "es/guide")
        };
        let rel = format!("{folder}/section-{:02}/page-{i:04}.md", i % 20);
        let text = page(&mut rng, vocabulary, 10_000);
        bytes += text.len();
        let path = dir.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    // Decoys the walk must skip.
    for decoy in [
        "api/x.md",
        "es/.vitepress/x.md",
        "superpowers/x.md",
        "dist/x.md",
    ] {
        let path = dir.join(decoy);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, "# Decoy\n").unwrap();
    }
    bytes
}

fn synthetic_queries() -> Vec<String> {
    let mut rng = Rng(42);
    let en = Vocabulary::new(&mut Rng(0x5eed_d0c5), EN_COMMON, EN_SYLLABLES, 20_000);
    let es = Vocabulary::new(&mut Rng(0x5eed_d0c6), ES_COMMON, ES_SYLLABLES, 20_000);
    let mut out = vec![
        "validate the flow document".to_owned(),
        "configuracion del arbol".to_owned(),
        "ÁRBOL".to_owned(),
        "the".to_owned(),
        "step flow server document tool message".to_owned(),
    ];
    for i in 0..95 {
        let vocabulary = if i % 2 == 0 { &en } else { &es };
        let words = 1 + rng.below(5);
        let mut query: Vec<String> = (0..words)
            .map(|_| vocabulary.pick(&mut rng).to_owned())
            .collect();
        if i % 7 == 0 {
            query.push(identifier(&mut rng, vocabulary));
        }
        out.push(query.join(" "));
    }
    out
}

fn docs_queries() -> Vec<String> {
    #[derive(serde::Deserialize)]
    struct Item {
        query: String,
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/test_data/known_items.json");
    let items: Vec<Item> = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    items.into_iter().map(|i| i.query).collect()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Resident set size of this process in bytes (Linux), if known.
fn rss() -> Option<usize> {
    let statm = fs::read_to_string("/proc/self/statm").ok()?;
    let pages: usize = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// Runs `f` `runs` times; the fastest and the median run.
fn best_and_median<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, Duration) {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(f());
            start.elapsed()
        })
        .collect();
    times.sort();
    (times[0], times[times.len() / 2])
}

/// p50 and p99 over queries of each query's fastest and median run.
fn report_queries(what: &str, queries: &[String], mut f: impl FnMut(&str)) {
    let mut best = Vec::new();
    let mut median = Vec::new();
    for query in queries {
        let (b, m) = best_and_median(7, || f(query));
        best.push(b);
        median.push(m);
    }
    best.sort();
    median.sort();
    println!(
        "{what} ({} queries, 7 runs each): fastest run p50 {:.3} ms, p99 {:.3} ms; median run p50 {:.3} ms, p99 {:.3} ms",
        queries.len(),
        ms(percentile(&best, 0.5)),
        ms(percentile(&best, 0.99)),
        ms(percentile(&median, 0.5)),
        ms(percentile(&median, 0.99)),
    );
}

fn measure(name: &str, root: &Path, queries: &[String], edit: Option<&str>) {
    let rss_before = rss();
    let docs = DocsIndex::new(root).unwrap();
    docs.refresh().unwrap();
    let rss_after = rss();
    let stats = docs.stats();
    let mb = stats.markdown_bytes as f64 / 1e6;
    println!("## {name}");
    println!(
        "pages {}, sections {}, terms {}, markdown {:.2} MB",
        stats.pages, stats.sections, stats.terms, mb
    );
    let (best, median) = best_and_median(5, || DocsIndex::new(root).unwrap().refresh().unwrap());
    println!(
        "index build (5 runs): fastest {:.1} ms = {:.1} ms/MB; median {:.1} ms = {:.1} ms/MB",
        ms(best),
        ms(best) / mb,
        ms(median),
        ms(median) / mb
    );
    let (best, median) = best_and_median(51, || docs.refresh().unwrap());
    println!(
        "walk (a stat per page; the fallback's per-search cost) on an unchanged tree (51 runs): fastest {:.3} ms, median {:.3} ms",
        ms(best),
        ms(median)
    );
    if let Some(rel) = edit {
        // One page edited between searches: re-read that page, rebuild the postings.
        let path = root.join(rel);
        let original = fs::read_to_string(&path).unwrap();
        let mut round = 0;
        let (best, median) = best_and_median(7, || {
            round += 1;
            fs::write(
                &path,
                format!("{original}\nEdited {}.\n", "again ".repeat(round)),
            )
            .unwrap();
            docs.refresh().unwrap();
        });
        println!(
            "refresh after one page changed (7 runs): fastest {:.1} ms, median {:.1} ms",
            ms(best),
            ms(median)
        );
        // The same through `search`: the edit is written (untimed), then one search
        // (timed) sees the change event, walks and re-reads the page.
        let mut times: Vec<Duration> = (1..=7)
            .map(|round| {
                fs::write(
                    &path,
                    format!("{original}\nSearched {}.\n", "again ".repeat(round)),
                )
                .unwrap();
                let start = Instant::now();
                std::hint::black_box(docs.search(&queries[0], 5).unwrap());
                start.elapsed()
            })
            .collect();
        times.sort();
        println!(
            "search right after one page changed (7 runs): fastest {:.1} ms, median {:.1} ms",
            ms(times[0]),
            ms(times[times.len() / 2])
        );
        fs::write(&path, original).unwrap();
        docs.refresh().unwrap();
    }
    report_queries("query: ranking and snippets, limit 5", queries, |q| {
        std::hint::black_box(docs.search_cached(q, 5).unwrap());
    });
    report_queries("search: change check + query, limit 5", queries, |q| {
        std::hint::black_box(docs.search(q, 5).unwrap());
    });
    println!(
        "index memory: estimate {:.2} MB = {:.2}x the Markdown",
        stats.index_bytes as f64 / 1e6,
        stats.index_bytes as f64 / stats.markdown_bytes as f64
    );
    if let (Some(before), Some(after)) = (rss_before, rss_after) {
        let grown = after.saturating_sub(before);
        println!(
            "RSS growth over the first build: {:.2} MB = {:.2}x the Markdown",
            grown as f64 / 1e6,
            grown as f64 / stats.markdown_bytes as f64
        );
    }
    println!();
}

fn main() {
    // `BENCH_PROFILE_BUILD=<folder>` only builds the index of that folder 20
    // times (`BENCH_PROFILE_RUNS`; for `perf record` or valgrind), then exits.
    if let Some(root) = std::env::var_os("BENCH_PROFILE_BUILD") {
        let runs: usize = std::env::var("BENCH_PROFILE_RUNS")
            .ok()
            .and_then(|runs| runs.parse().ok())
            .unwrap_or(20);
        for _ in 0..runs {
            DocsIndex::new(&root).unwrap().refresh().unwrap();
        }
        return;
    }
    // `BENCH_DUMP=<folder>` prints the index sizes and the top 10 of every
    // synthetic query over that folder (to check that a change to the build
    // leaves the index and the ranking as they were), then exits.
    if let Some(root) = std::env::var_os("BENCH_DUMP") {
        let docs = DocsIndex::new(&root).unwrap();
        docs.refresh().unwrap();
        println!("{:?}", docs.stats());
        for query in synthetic_queries().iter().chain(&docs_queries()) {
            println!(
                "{}",
                serde_json::to_string(&docs.search(query, 10).unwrap()).unwrap()
            );
        }
        return;
    }
    let dir: PathBuf =
        std::env::temp_dir().join(format!("botmesh-docs-search-bench-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let start = Instant::now();
    let bytes = synthetic_tree(&dir);
    println!(
        "generated a synthetic tree of 1000 pages, {:.2} MB, in {:.0} ms\n",
        bytes as f64 / 1e6,
        ms(start.elapsed())
    );
    measure(
        "synthetic bilingual tree",
        &dir,
        &synthetic_queries(),
        Some("guide/section-00/page-0000.md"),
    );
    // `BENCH_KEEP_TREE=1` keeps the tree for profiling.
    if std::env::var_os("BENCH_KEEP_TREE").is_none() {
        fs::remove_dir_all(&dir).unwrap();
    } else {
        println!("kept the synthetic tree in {}", dir.display());
    }
    let docs = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs"));
    if docs.is_dir() {
        measure("docs/", &docs, &docs_queries(), None);
    }
}
