//! End-to-end tests of the `botmesh-mcp` binary, in one integration test binary (one link, not
//! four): each module spawns the real executable over real pipes, files or sockets, through
//! the one harness in `util` (the binary's path, a cleaned environment, temporary folders).

// The benchmark flow of flow-render (a long chain with buttons and branches), written once there.
#[path = "../../../flow-render/src/bench_flow.rs"]
mod bench_flow;
mod chat;
mod check;
#[cfg(feature = "http")]
mod cli;
mod docs;
// The hostile flow of flow-render's layout-limit tests, written once there.
#[path = "../../../flow-render/src/hostile_flow.rs"]
mod hostile_flow;
mod migrate;
#[cfg(not(feature = "http"))]
mod no_http;
mod render;
mod stdio;
mod test;
mod tools;
mod usage;
mod util;
