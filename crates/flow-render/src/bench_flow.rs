//! The 500-step flow that `benches/render.rs` draws and the tests check (compiled for tests
//! only, and into the benchmark through `#[path]`): a chain of
//! messages, buttons with a loop back every 10 steps, and branches.

use serde_json::{Value, json};

/// A flow of `steps` steps: messages, every tenth step (from the fourth) buttons with a way
/// back three steps, every tenth (from the eighth) a branch jumping five ahead, then an end.
pub(crate) fn benchmark_flow(steps: usize) -> Value {
    let list: Vec<Value> = (0..steps)
        .map(|i| {
            let id = format!("step_{i}");
            match i % 10 {
                _ if i + 1 == steps => json!({"id": id, "kind": "end", "text": "Bye"}),
                3 => json!({"id": id, "kind": "buttons", "text": "Continue?", "buttons": [
                    {"id": "y", "title": "Yes, continue"},
                    {"id": "n", "title": "Start again", "next": format!("step_{}", i - 3)}]}),
                7 => json!({"id": id, "kind": "branch", "cases": [
                    {"when": {"var": "name", "op": "eq", "value": "x"}, "next": format!("step_{}", (i + 5).min(steps - 1))}]}),
                _ => json!({"id": id, "kind": "message", "text": format!("Message number {i} of the flow")}),
            }
        })
        .collect();
    json!({"version": 2, "id": "bench", "steps": list})
}
