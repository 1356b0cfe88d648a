#!/usr/bin/env bash
# The CLI without its default `http` feature (issue 18): a stdio-only binary, without tokio and
# hyper. Clippy and the CLI's own tests (the end-to-end ones run this build of the binary: stdio
# serves, every HTTP flag and `token` are usage errors saying the build has no HTTP). Debug
# profile, one crate: the workspace's other crates are already built by `.ci/run`'s test step.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"

cargo clippy --locked -p botmesh-mcp-cli --no-default-features --all-targets -- -D warnings
cargo test --locked -p botmesh-mcp-cli --no-default-features
