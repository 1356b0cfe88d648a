#!/usr/bin/env bash
# Conversation tests (`botmesh-mcp test`, runtime spec §9):
# - the examples' hand-written test files pass with 100 % edge coverage (every flow of
#   examples/flows is tested by a file in examples/tests), and so do the suites
#   `botmesh-mcp test --generate` writes for them, and so do the strict suites it writes for the
#   four user-like flows of crates/flow-runtime/test_data/generate (a pattern ask, a subflow
#   behind a variable the bot's code sets, branches on handler results),
# - the JUnit XML of a passing and of a failing run is read by a real JUnit parser
#   (junitparser, from PyPI, into a venv under target/): the suites, the case counts, the failure
#   with its message and its file and line,
# - the exit codes: 1 for a failing case, 2 for a malformed test file (naming FILE:LINE:COL),
# - the GitHub Action's commands (tools/action/gate.sh, exactly what action.yml runs, here with
#   the release binary instead of the npm package): on examples/ with --min-coverage 100 and
#   --max-warnings 0 it passes; on a copy where one example is broken (a branch case sent to
#   the wrong step) it exits 1 with the annotations a pull request would show: the failing
#   case on the test file and on the flow step, the unreachable step's warning, the
#   max-warnings and coverage gates, and a JUnit file that junitparser reads.
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

# The flows of issue 37 (a pattern ask, a subflow behind a variable the bot's code sets,
# branches on handler results): the generated suites are strict, leave nothing uncovered, and
# pass with 100 % of edges under the coverage gate.
fixtures="$work/fixtures"
mkdir -p "$fixtures"
cp crates/flow-runtime/test_data/generate/*.json "$fixtures/"
for spec in pizza-delivery: pizza-builder: cita:alta-paciente support:; do
  name="${spec%%:*}"
  sub="${spec#*:}"
  subflows=()
  [ -z "$sub" ] || subflows=(--subflows "$fixtures/$sub.json")
  "$bin" test --generate "$fixtures/$name.json" "${subflows[@]}" \
    >"$fixtures/$name.flowtest.json" 2>"$fixtures/$name.uncovered"
  if [ -s "$fixtures/$name.uncovered" ]; then
    cat "$fixtures/$name.uncovered" >&2
    exit 1
  fi
  grep -q '"strict": true' "$fixtures/$name.flowtest.json" \
    || { echo "flowtest: the generated suite of $name is not strict" >&2; exit 1; }
  "$bin" test --min-coverage 100 "$fixtures/$name.flowtest.json" >"$fixtures/$name.out" \
    || { cat "$fixtures/$name.out" >&2; exit 1; }
done
echo "flowtest: the generated suites of the four issue-37 flows are strict and pass with 100 % of edges"

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

# The GitHub Action's gate (action.yml runs tools/action/gate.sh; so does this).
gate() {
  BOTMESH="$bin" MIN_COVERAGE=100 MAX_WARNINGS=0 bash tools/action/gate.sh
}
FLOWS=examples/flows SUBFLOWS=examples/flows TESTS=examples/tests JUNIT_FILE="$work/gate.xml" \
  gate >"$work/gate.out" 2>&1 || { cat "$work/gate.out" >&2; echo "flowtest: the gate fails on examples/" >&2; exit 1; }
# The number of edges of the examples, from the coverage report above (not written by hand).
edges="$(python3 -c 'import json,sys; print(sum(f["edges"] for f in json.load(open(sys.argv[1]))["coverage"]["flows"]))' "$work/examples.json")"
grep -q "^edge coverage 100.0% ($edges/$edges edges) meets --min-coverage 100%$" "$work/gate.out" \
  || { cat "$work/gate.out" >&2; exit 1; }
# The broken copy: order_status sends a shipped order to the "being prepared" answer, so
# the step "shipped" is unreachable (a warning) and a strict case fails; and its test file
# loses the case that runs out of retries, so an edge goes uncovered.
mkdir -p "$work/broken"
cp -r examples/flows examples/tests "$work/broken/"
python3 - "$work/broken" <<'PY'
import json, sys
flow, tests = f"{sys.argv[1]}/flows/order-status.json", f"{sys.argv[1]}/tests/order-status.flowtest.json"
text = open(flow).read()
old = '"value": "shipped" }, "next": "shipped" }'
assert old in text, "the example changed: update the broken copy in .ci/parts/flowtest.sh"
open(flow, "w").write(text.replace(old, '"value": "shipped" }, "next": "pending" }'))
suite = json.load(open(tests))
suite["tests"] = [c for c in suite["tests"] if "not numbers" not in c["name"]]
json.dump(suite, open(tests, "w"), indent=2)
PY
status=0
FLOWS="$work/broken/flows" SUBFLOWS="$work/broken/flows" TESTS="$work/broken/tests" \
  JUNIT_FILE="$work/broken.xml" gate >"$work/broken.out" 2>&1 || status=$?
[ "$status" = 1 ] || { cat "$work/broken.out" >&2; echo "flowtest: the gate on a broken example must exit 1, got $status" >&2; exit 1; }
python3 - "$work/broken.out" "$work/broken" "$edges" <<'PY'
import re, sys
out, root, edges = open(sys.argv[1]).read(), sys.argv[2], int(sys.argv[3])
flow, tests = f"{root}/flows/order-status.json", f"{root}/tests/order-status.flowtest.json"
def line_of(path, step):
    needle = '"id": "%s"' % step
    return next(i for i, l in enumerate(open(path), 1) if needle in l)
wanted = [
    # check: the unreachable step, and the warnings gate.
    rf"::warning file={re.escape(flow)},line={line_of(flow, 'shipped')},col=\d+,.*title=unreachable-step::",
    r"::error title=max-warnings::too many warnings: 1, more than --max-warnings 0 allows",
    # test: the failing case on the test file, and on the flow step where it stopped.
    rf"::error file={re.escape(tests)},line=\d+,col=\d+,title=a shipped order is on its way%2C turn 2 \(strict\)::",
    rf"::error file={re.escape(flow)},line={line_of(flow, 'pending')},col=\d+,endLine=\d+,endColumn=\d+,title=a shipped order is on its way%2C turn 2 \(strict\)::in case",
    rf"::error title=coverage::edge coverage {100 * (edges - 1) / edges:.1f}%25 \({edges - 1}/{edges} edges\) is below --min-coverage 100%25",
]
missing = [w for w in wanted if not re.search(w, out)]
if missing:
    sys.exit(f"flowtest: the broken gate's annotations lack {missing}:\n{out}")
PY
"$venv/bin/python" - "$work/broken.xml" <<'PY'
import sys
from junitparser import JUnitXml, Failure
report = JUnitXml.fromfile(sys.argv[1])
failed = sorted(case.name for suite in report for case in suite if not case.is_passed)
assert failed == [
    "a shipped order is on its way",
    "edge coverage at least 100%",
    "my order: the order_status subflow answers, then goodbye about the order",
], failed
PY
echo "flowtest: the action's gate passes on examples/ and fails on a broken copy (exit 1; annotations on the test file, the flow step and both gates; JUnit read)"
