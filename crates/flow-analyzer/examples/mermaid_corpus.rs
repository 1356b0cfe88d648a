//! Writes the Mermaid corpus that `.ci/parts/mermaid.sh` parses with Mermaid's own parser:
//! every fixture of `test_data/fixtures` in all four directions, plus generated documents with
//! hostile labels and ids.
//!
//! Usage: `cargo run -p botmesh-flow-analyzer --example mermaid_corpus -- OUTDIR [COUNT]`
//! (COUNT generated documents, 200 by default). Each diagram is one `.mmd` file.

use std::error::Error;
use std::path::{Path, PathBuf};

use botmesh_flow_analyzer::{Direction, describe, render_mermaid};
use serde_json::{Value, json};

/// Pieces of text Mermaid treats specially, plus words that are keywords in its grammar.
const HOSTILE: &[&str] = &[
    "\"",
    "'",
    "[",
    "]",
    "(",
    ")",
    "{",
    "}",
    "|",
    "#",
    ";",
    "<",
    ">",
    "`",
    "\n",
    "\r\n",
    "&",
    "%%",
    "-->",
    "---o",
    ":::",
    "@{",
    "end",
    "graph",
    "subgraph",
    "click",
    "style",
    "#quot;",
    "#35;",
    "&amp;",
    "<br>",
    "<script>",
    "😀",
    "👨‍👩‍👧",
    "你好",
    "e\u{301}",
    "\t",
    "\\",
    "/",
    "x",
    "o",
    " ",
    "word",
    "A",
    "==>",
    "|x|",
    "\"\"",
    "[[",
    "]]",
    "{{name}}",
    "::",
    "%%{init}%%",
    "-.->",
    "&#35;",
    "#1;",
    "\u{2028}",
    "class",
    "classDef",
    "linkStyle",
    "call",
    "href",
];

/// Step ids that are Mermaid keywords or arrow heads.
const HOSTILE_IDS: &[&str] = &[
    "end",
    "graph",
    "flowchart",
    "subgraph",
    "style",
    "class",
    "classDef",
    "linkStyle",
    "call",
    "href",
    "interpolate",
    "click",
    "x",
    "o",
    "End",
    "END",
    "end_x",
    "end1",
    "default",
    "direction",
];

/// A small deterministic generator (64-bit LCG), so the corpus is the same on every run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, bound: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % bound.max(1) as u64) as usize
    }

    fn text(&mut self, max_chars: usize) -> String {
        let mut out = String::new();
        let pieces = 1 + self.next(12);
        for _ in 0..pieces {
            out.push_str(HOSTILE[self.next(HOSTILE.len())]);
        }
        if self.next(5) == 0 {
            out.push_str(&"long ".repeat(30));
        }
        let cut: String = out.chars().take(max_chars).collect();
        if cut.trim().is_empty() {
            "x".to_owned()
        } else {
            cut
        }
    }
}

fn generated_flow(rng: &mut Lcg, id: &str, callee: Option<&str>) -> Value {
    let count = 3 + rng.next(10);
    let ids: Vec<String> = (0..count)
        .map(|i| match rng.next(3) {
            0 => format!(
                "{}{i}",
                HOSTILE_IDS[rng.next(HOSTILE_IDS.len())].replace(['-'], "_")
            ),
            1 if i < HOSTILE_IDS.len() => HOSTILE_IDS[i].to_owned(),
            _ => format!("s{i}"),
        })
        .collect();
    // Step ids must be unique: make them so by position when a pick repeats.
    let mut unique: Vec<String> = Vec::new();
    for (i, candidate) in ids.into_iter().enumerate() {
        if unique.contains(&candidate) {
            unique.push(format!("{candidate}_{i}"));
        } else {
            unique.push(candidate);
        }
    }
    let mut steps = Vec::new();
    for i in 0..count {
        let target = unique[rng.next(count)].clone();
        let step = match (rng.next(8), i + 1 == count) {
            (_, true) => json!({"id": unique[i], "kind": "end", "text": rng.text(200)}),
            (0, _) => json!({"id": unique[i], "kind": "buttons", "text": rng.text(300),
                "buttons": [{"id": "a", "title": rng.text(20), "next": target},
                            {"id": "b", "title": rng.text(20)}]}),
            (1, _) => {
                json!({"id": unique[i], "kind": "list", "text": rng.text(300), "button": "Open",
                "sections": [{"title": rng.text(24), "rows": [
                    {"id": "r1", "title": rng.text(24), "next": target},
                    {"id": "r2", "title": rng.text(24)}]}]})
            }
            (2, _) => {
                json!({"id": unique[i], "kind": "ask", "text": rng.text(300), "save": "answer",
                "onFail": target})
            }
            (3, _) => json!({"id": unique[i], "kind": "branch", "cases": [
                {"when": {"var": "answer", "op": "eq", "value": rng.text(50)}, "next": target},
                {"when": {"any": [{"var": "answer", "op": "in", "value": [rng.text(10), 1, null]},
                                  {"not": {"var": "answer", "op": "exists"}}]}, "next": target}]}),
            (4, _) if callee.is_some() => {
                json!({"id": unique[i], "kind": "subflow", "flow": callee})
            }
            (5, _) => json!({"id": unique[i], "kind": "handoff", "text": rng.text(100)}),
            (6, _) => {
                json!({"id": unique[i], "kind": "set", "var": "answer", "value": rng.text(40)})
            }
            _ => json!({"id": unique[i], "kind": "message", "text": rng.text(400)}),
        };
        steps.push(step);
    }
    json!({"version": 2, "id": id, "steps": steps})
}

fn write(dir: &Path, name: &str, text: &str) -> Result<(), Box<dyn Error>> {
    std::fs::write(dir.join(format!("{name}.mmd")), text)?;
    Ok(())
}

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args_os().skip(1);
    let out = PathBuf::from(args.next().ok_or("usage: mermaid_corpus OUTDIR [COUNT]")?);
    let count: usize = match args.next() {
        Some(n) => n.to_str().ok_or("COUNT must be a number")?.parse()?,
        None => 200,
    };
    std::fs::create_dir_all(&out)?;
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data/fixtures");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&fixtures)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    names.sort();
    let mut written = 0usize;
    for path in names {
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        let fixture: Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
        let flows: Vec<&Value> = fixture["flows"].as_array().into_iter().flatten().collect();
        let graph = describe(&flows);
        for direction in Direction::ALL {
            write(
                &out,
                &format!("fixture-{stem}-{}", direction.as_str()),
                &render_mermaid(&graph, direction),
            )?;
            written += 1;
        }
    }
    let mut rng = Lcg(0x5eed_b07e);
    for n in 0..count {
        let flows: Vec<Value> = match rng.next(3) {
            0 => vec![generated_flow(&mut rng, "main", None)],
            1 => vec![
                generated_flow(&mut rng, "main", Some("end")),
                generated_flow(&mut rng, "end", None),
            ],
            _ => vec![
                generated_flow(&mut rng, "main", Some("graph")),
                generated_flow(&mut rng, "graph", Some("subgraph")),
                generated_flow(&mut rng, "subgraph", None),
            ],
        };
        let refs: Vec<&Value> = flows.iter().collect();
        let direction = Direction::ALL[n % 4];
        write(
            &out,
            &format!("generated-{n:04}"),
            &render_mermaid(&describe(&refs), direction),
        )?;
        written += 1;
    }
    #[expect(clippy::print_stdout, reason = "an example that reports what it wrote")]
    {
        println!("wrote {written} diagrams");
    }
    Ok(())
}
