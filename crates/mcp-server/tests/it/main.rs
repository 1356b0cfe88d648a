//! Integration tests of the public API, as another Rust program sees it, and of the pages that
//! document it against it (`documented`).

mod documented;

#[path = "../../examples/embed.rs"]
#[expect(dead_code, reason = "the example's main is not called here")]
mod embed;

use serde_json::{Value, json};

/// The digest of the example's document `{"version":2,"id":"demo","steps":[]}`, computed
/// outside this code base: `printf '%s' '{"id":"demo","steps":[],"version":2}' | sha256sum`
/// (its RFC 8785 canonical form: sorted keys, no whitespace).
const DEMO_DIGEST: &str = "sha256:64b1ce1891bc88fc0893b07babcce038fd98544b38e92a03acaae59976e3f40c";

#[test]
fn the_embedding_example_runs() {
    let answers: Vec<Value> = embed::run()
        .expect("the example runs")
        .iter()
        .map(|line| serde_json::from_str(line).expect("each answer is one JSON line"))
        .collect();
    assert_eq!(answers.len(), 3, "{answers:?}");
    assert_eq!(answers[0]["id"], 1);
    assert_eq!(answers[0]["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(answers[1]["id"], 2);
    let tools = answers[1]["result"]["tools"]
        .as_array()
        .expect("a tool list");
    assert!(
        tools.iter().any(|tool| tool["name"] == "flow_validate"),
        "{tools:?}"
    );
    // The tool call succeeds with the digest itself, not an error text that mentions one.
    let result = &answers[2]["result"];
    assert_eq!(answers[2]["id"], 3);
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(
        result["structuredContent"],
        json!({ "digest": DEMO_DIGEST, "version": 2 })
    );
}
