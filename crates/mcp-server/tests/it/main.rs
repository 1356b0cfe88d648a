//! Integration tests of the public API, as another Rust program sees it.

#[path = "../../examples/embed.rs"]
#[expect(dead_code, reason = "the example's main is not called here")]
mod embed;

#[test]
fn the_embedding_example_runs() {
    let answers = embed::run().expect("the example runs");
    assert_eq!(answers.len(), 3, "{answers:?}");
    assert!(answers[0].contains("\"protocolVersion\":\"2025-11-25\""));
    assert!(answers[1].contains("flow_validate"));
    assert!(
        answers[2].contains("sha256:") || answers[2].contains("digest"),
        "{}",
        answers[2]
    );
}
