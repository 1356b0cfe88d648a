#!/usr/bin/env bash
# Conversation tests (`botmesh-mcp test`, runtime spec §9):
# - the examples' hand-written test files pass with 100 % edge coverage (every flow of
#   examples/flows is tested by a file in examples/tests), and so do the suites
#   `botmesh-mcp test --generate` writes for them,
# - the JUnit XML of a passing and of a failing run is read by a real JUnit parser
#   (junitparser, from PyPI, into a venv under target/): the suites, the case counts, the failure
#   with its message and its file and line,
# - the exit codes: 1 for a failing case, 2 for a malformed test file (naming FILE:LINE:COL).
# Builds the release binary unless BOTMESH_BIN names one. Quiet on success but for a summary.
set -euo pipefail
cd "$(dirname "$0")/../.."

target="${CARGO_TARGET_DIR:-target}"
case "$target" in /*) ;; *) target="$PWD/$target" ;; esac
if [ -n "${BOTMESH_BIN:-}" ]; then
  bin="$BOTMESH_BIN"
else
  bin="$target/release/botmesh-mcp"
  cargo build --release --locked -q -p botmesh-mcp-cli
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Every example flow is the first flow of some test file.
for flow in examples/flows/*.json; do
  name="$(basename "$flow" .json)"
  if [ ! -f "examples/tests/$name.flowtest.json" ]; then
    echo "flowtest: $flow has no examples/tests/$name.flowtest.json" >&2
    exit 1
  fi
done

"$bin" test --coverage --format json examples/tests >"$work/examples.json"
python3 - "$work/examples.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
totals = report["totals"]
assert totals["failed"] == 0 and totals["cases"] > 0, totals
for flow in report["coverage"]["flows"]:
    if flow["edgesCovered"] != flow["edges"]:
        sys.exit(f"flowtest: {flow['flow']} has uncovered edges: {[e['label'] for e in flow['uncoveredEdges']]}")
print(f"flowtest: {totals['cases']} example cases passed, {len(report['coverage']['flows'])} flows at 100 % edge coverage")
PY

# The generated suite of each example flow (its subflows beside it) passes and covers every edge.
mkdir -p "$work/generated"
cp examples/flows/*.json "$work/generated/"
for flow in examples/flows/*.json; do
  name="$(basename "$flow" .json)"
  # The subflows each example calls (those of its hand-written test file).
  subflows=()
  for sub in $(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1])).get("flows", [])[1:]))' "examples/tests/$name.flowtest.json"); do
    subflows+=(--subflows "$work/generated/$(basename "$sub")")
  done
  "$bin" test --generate "$work/generated/$name.json" "${subflows[@]}" \
    >"$work/generated/$name.flowtest.json" 2>"$work/generated/$name.uncovered"
  if [ -s "$work/generated/$name.uncovered" ]; then
    cat "$work/generated/$name.uncovered" >&2
    exit 1
  fi
done
"$bin" test --coverage --format json "$work/generated" >"$work/generated.json"
python3 - "$work/generated.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
assert report["totals"]["failed"] == 0, report["totals"]
assert all(f["edgesCovered"] == f["edges"] for f in report["coverage"]["flows"]), report["coverage"]
print(f"flowtest: the generated suites ({report['totals']['cases']} cases) pass and cover every edge of the examples")
PY

# A failing case and a malformed file.
cp examples/flows/order-status.json "$work/order.json"
cat >"$work/order.flowtest.json" <<'JSON'
{ "tests": [
  { "name": "passes", "handlers": { "orders.lookup": { "returns": "shipped" } },
    "turns": [ { "user": "7" }, { "bot": { "contains": "on its way" } } ] },
  { "name": "fails <on> \"purpose\" & well",
    "turns": [
      { "user": "7" },
      { "bot": { "text": "Order 7 is lost." } } ] }
] }
JSON
status=0
"$bin" test --format junit "$work/order.flowtest.json" >"$work/junit.xml" || status=$?
[ "$status" = 1 ] || { echo "flowtest: a failing case must exit 1, got $status" >&2; exit 1; }
"$bin" test --format junit examples/tests >"$work/junit-pass.xml"

venv="$target/junit-venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q junitparser==3.2.0
fi
"$venv/bin/python" - "$work/junit.xml" "$work/junit-pass.xml" <<'PY'
import sys
from junitparser import JUnitXml, Failure
failing = JUnitXml.fromfile(sys.argv[1])
cases = [case for suite in failing for case in suite]
assert len(cases) == 2, cases
passed, failed = cases
assert passed.is_passed, passed
assert failed.name == 'fails <on> "purpose" & well', failed.name
failures = [r for r in failed.result if isinstance(r, Failure)]
assert len(failures) == 1, failed.result
assert "Order 7 is lost." in failures[0].message, failures[0].message
assert failed._elem.get("line") == "7", failed._elem.get("line")
assert failed._elem.get("file", "").endswith("order.flowtest.json")
assert ":7:" in failures[0].text, failures[0].text
passing = JUnitXml.fromfile(sys.argv[2])
count = sum(1 for suite in passing for case in suite)
assert count > 0 and all(case.is_passed for suite in passing for case in suite)
print(f"flowtest: junitparser read the failing run (1 of 2 failed, line 7) and {count} passing example cases")
PY

# A malformed test file: exit 2, FILE:LINE:COL on stderr, nothing on stdout.
printf '{ "tests": [\n  { "name": "x", "turns": [ { "usr": "hi" } ] }\n] }\n' >"$work/bad.flowtest.json"
status=0
"$bin" test "$work/bad.flowtest.json" >"$work/out.txt" 2>"$work/err.txt" || status=$?
[ "$status" = 2 ] || { echo "flowtest: a malformed file must exit 2, got $status" >&2; exit 1; }
[ ! -s "$work/out.txt" ] || { echo "flowtest: stdout must stay empty on exit 2" >&2; exit 1; }
grep -q "bad.flowtest.json:2:" "$work/err.txt" || { cat "$work/err.txt" >&2; exit 1; }
echo "flowtest: exit codes 1 and 2 as documented"
