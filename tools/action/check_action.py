#!/usr/bin/env python3
"""Checks the composite GitHub Action (action.yml) where actionlint, which lints workflows,
does not look: run by .ci/parts/actionlint.sh with PyYAML and ShellCheck from its venv.

- it is a composite action whose every step says its shell;
- every input is used by a step, and every `inputs.NAME` a step names is declared;
- the gate step's environment is what tools/action/gate.sh reads, no more and no less;
- every `run:` script (the `${{ … }}` expressions replaced by placeholders) and gate.sh
  pass ShellCheck.

usage: check_action.py SHELLCHECK [ACTION_YML]
Prints one line on success; prints each problem and exits 1 otherwise.
"""
import pathlib
import re
import subprocess
import sys
import tempfile

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
GATE = ROOT / "tools/action/gate.sh"
EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}")


def main() -> int:
    shellcheck = sys.argv[1]
    path = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT / "action.yml"
    action = yaml.safe_load(path.read_text())
    problems = []
    inputs = set((action.get("inputs") or {}).keys())
    runs = action.get("runs") or {}
    if runs.get("using") != "composite":
        problems.append(f"runs.using is {runs.get('using')!r}, not 'composite'")
    steps = runs.get("steps") or []
    used = set()
    for expression in EXPRESSION.findall(path.read_text()):
        used.update(re.findall(r"\binputs\.([A-Za-z0-9_-]+)", expression))
    for name in sorted(used - inputs):
        problems.append(f"a step uses inputs.{name}, which is not declared")
    for name in sorted(inputs - used):
        problems.append(f"input {name} is declared but no step uses it")
    gate_reads = set(re.findall(r"\$\{?([A-Z][A-Z0-9_]*)", GATE.read_text()))
    gate_reads -= {"GITHUB_OUTPUT"}  # set by the runner, not by the action
    scripts = []
    for index, step in enumerate(steps):
        name = step.get("name", f"step {index}")
        if "run" in step:
            if "shell" not in step:
                problems.append(f"{name}: a composite step that runs a script must say its shell")
            scripts.append((name, EXPRESSION.sub("placeholder", step["run"])))
        if "gate.sh" in step.get("run", ""):
            env = set((step.get("env") or {}).keys())
            for var in sorted(gate_reads - env):
                problems.append(f"{name}: gate.sh reads {var}, which the step does not set")
            for var in sorted(env - gate_reads):
                problems.append(f"{name}: the step sets {var}, which gate.sh never reads")
    with tempfile.TemporaryDirectory() as work:
        files = [str(GATE)]
        for index, (name, script) in enumerate(scripts):
            file = pathlib.Path(work) / f"step-{index}.sh"
            file.write_text("#!/usr/bin/env bash\n" + script)
            files.append(str(file))
        result = subprocess.run([shellcheck, *files], capture_output=True, text=True)
        if result.returncode != 0:
            problems.append("shellcheck:\n" + result.stdout + result.stderr)
    if problems:
        for problem in problems:
            print(f"check_action: {path.name}: {problem}", file=sys.stderr)
        return 1
    print(
        f"action.yml: composite, {len(inputs)} inputs all used, {len(steps)} steps, "
        f"gate.sh env in step, {len(scripts)} run scripts and gate.sh shellcheck clean"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
