#!/usr/bin/env bash
# The soundness harness of issue 36 (crates/flow-runtime/tests/soundness/) at a larger size than
# `cargo test` runs it: BOTMESH_SOUNDNESS_SETS generated flow sets (default 4,000), six random
# conversations each, in release (about 20 s after the build). Every `{{v}} is unset` read of a
# run that starts at an entry must be reported by lint at that flow and step, and every safe fix
# must leave every transcript as it was; a failure prints its class, its seed and a shrunk case
# as flow_simulate arguments. The report is printed either way.
# A miss fails the part (BOTMESH_SOUNDNESS_REPORT_ONLY=1 turns the failure into the report alone,
# to measure a branch; CI never sets it).
set -euo pipefail
source "$(dirname "$0")/../lib.sh"

BOTMESH_SOUNDNESS_SETS="${BOTMESH_SOUNDNESS_SETS:-4000}" \
  cargo test --release --locked -q -p botmesh-flow-runtime --test soundness -- --nocapture
