//! A valid but hostile flow, for the tests of the layout-size limit (compiled for this
//! crate's tests only, and into `crates/mcp-bin/tests/it` through `#[path]`, which checks the
//! same limit through the CLI and the tool).

use serde_json::{Value, json};

/// The cases of each branch of [`hostile_flow`].
pub(crate) const JUMPS: usize = 8;

/// A flow of 500 steps: every other step a branch with [`JUMPS`] jumps anywhere in the flow
/// (a fixed 64-bit LCG from `seed`), so its long edges cross hundreds of layers and one such
/// flow needs more than `MAX_LAYOUT_ITEMS` layout items.
pub(crate) fn hostile_flow(id: &str, seed: u64) -> Value {
    let steps = 500;
    let mut state = seed;
    let mut anywhere = || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        format!("s{}", (state >> 33) as usize % steps)
    };
    let list: Vec<Value> = (0..steps)
        .map(|i| match i {
            _ if i + 1 == steps => json!({"id": format!("s{i}"), "kind": "end"}),
            _ if i % 2 == 0 => {
                let cases: Vec<Value> = (0..JUMPS)
                    .map(|k| json!({"when": {"var": "v", "op": "eq", "value": k}, "next": anywhere()}))
                    .collect();
                json!({"id": format!("s{i}"), "kind": "branch", "cases": cases})
            }
            _ => json!({"id": format!("s{i}"), "kind": "message", "text": "Hi"}),
        })
        .collect();
    json!({"version": 2, "id": id, "steps": list})
}
