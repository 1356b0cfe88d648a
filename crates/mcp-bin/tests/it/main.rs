//! End-to-end tests of the `botmesh-mcp` binary, in one integration test binary (one link, not
//! four): each module spawns the real executable (`CARGO_BIN_EXE_botmesh-mcp`) over real pipes,
//! files or sockets.

mod check;
#[cfg(feature = "http")]
mod cli;
mod docs;
#[cfg(not(feature = "http"))]
mod no_http;
mod stdio;
