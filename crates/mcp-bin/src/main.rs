//! The `botmesh-mcp` binary (skeleton).
fn main() {}
