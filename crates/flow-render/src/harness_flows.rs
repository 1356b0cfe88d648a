//! The graphs of the comparison harness (compiled for tests only, and into
//! `examples/harness.rs` through `#[path]`): the analyzer's fixtures, then flows made by a
//! seeded generator with gotos, buttons, branches and subflow calls.

use serde_json::{Value, json};

/// A small deterministic generator (64-bit LCG).
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % n
    }
}

const WORDS: &[&str] = &[
    "Yes",
    "No",
    "Pizza",
    "longer words here",
    "😀",
    "你好",
    "é",
    "<&>",
    "ok",
];

fn text(rng: &mut Rng) -> String {
    (0..1 + rng.next(5))
        .map(|_| WORDS[rng.next(WORDS.len())])
        .collect::<Vec<_>>()
        .join(" ")
}

pub(crate) fn flow(rng: &mut Rng, id: &str, steps: usize, callee: Option<&str>) -> Value {
    let name = |i: usize| format!("s{i}");
    let list: Vec<Value> = (0..steps)
        .map(|i| {
            let to = name(rng.next(steps));
            let t = text(rng);
            match rng.next(8) {
                0 => json!({"id": name(i), "kind": "message", "text": t, "next": to}),
                1 => json!({"id": name(i), "kind": "message", "text": t}),
                2 => json!({"id": name(i), "kind": "ask", "text": t, "save": "name", "next": to}),
                3 => json!({"id": name(i), "kind": "buttons", "text": t, "buttons": [
                    {"id": "a", "title": text(rng), "next": to}, {"id": "b", "title": "B"}]}),
                4 => json!({"id": name(i), "kind": "branch", "cases": [
                    {"when": {"var": "name", "op": "eq", "value": t}, "next": to}]}),
                5 => json!({"id": name(i), "kind": "set", "var": "name", "value": t, "next": to}),
                6 if callee.is_some() => json!({"id": name(i), "kind": "subflow", "flow": callee}),
                _ => json!({"id": name(i), "kind": "end", "text": t}),
            }
        })
        .collect();
    json!({"version": 2, "id": id, "steps": list})
}

/// The harness's sets, by name: the analyzer's fixtures (sorted by file name), then
/// `generated` flows (`generated_000`, …), a third of them calling a subflow.
pub(crate) fn harness_sets(generated: usize) -> Vec<(String, Vec<Value>)> {
    let mut sets: Vec<(String, Vec<Value>)> = Vec::new();
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../flow-analyzer/test_data/fixtures"
    );
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    for path in files {
        let Some(value) = std::fs::read_to_string(&path)
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        else {
            continue;
        };
        let name = path
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        let flows = value["flows"].as_array().cloned().unwrap_or_default();
        sets.push((name, flows));
    }
    let mut rng = Rng(0x5eed);
    for i in 0..generated {
        let steps = 2 + rng.next(30);
        let mut flows = Vec::new();
        if rng.next(3) == 0 {
            flows.push(flow(&mut rng, "main", steps, Some("sub")));
            let sub = 2 + rng.next(10);
            flows.push(flow(&mut rng, "sub", sub, None));
        } else {
            flows.push(flow(&mut rng, "main", steps, None));
        }
        sets.push((format!("generated_{i:03}"), flows));
    }
    sets
}
