#!/usr/bin/env python3
"""Decides the version a release run ships and whether it publishes, for release.yml.

usage: python3 tools/release/version.py [--dry-run]

The version is `[workspace.package] version` of the root Cargo.toml. Every package.json under
npm/ (and every optionalDependencies pin of the launcher) must carry it: they move in
lockstep. On a version tag (GITHUB_REF refs/tags/vX.Y.Z), the tag must name that same version,
else the run stops before anything is built. The run publishes only on a version tag, and not
when `--dry-run` is given. Prints `version=...` and `publish=true|false`, and appends them to
$GITHUB_OUTPUT when that is set.
"""
import json
import os
import pathlib
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[2]


def main() -> int:
    dry_run = sys.argv[1:] == ["--dry-run"]
    if sys.argv[1:] not in ([], ["--dry-run"]):
        print(__doc__, file=sys.stderr)
        return 2
    cargo = tomllib.loads((ROOT / "Cargo.toml").read_text(encoding="utf-8"))
    version = cargo["workspace"]["package"]["version"]
    problems = []
    for manifest in sorted((ROOT / "npm").glob("*/package.json")):
        package = json.loads(manifest.read_text(encoding="utf-8"))
        where = manifest.relative_to(ROOT).as_posix()
        if package.get("version") != version:
            problems.append(f"{where} has version {package.get('version')}, Cargo.toml has {version}")
        for name, pin in package.get("optionalDependencies", {}).items():
            if pin != version:
                problems.append(f"{where} pins {name} at {pin}, Cargo.toml has {version}")
    ref = os.environ.get("GITHUB_REF", "")
    tagged = ref.startswith("refs/tags/v")
    if tagged and ref.removeprefix("refs/tags/v") != version:
        problems.append(f"the tag {ref.removeprefix('refs/tags/')} does not name the version {version} of Cargo.toml")
    if problems:
        for problem in problems:
            print(f"version: {problem}", file=sys.stderr)
        return 1
    lines = [f"version={version}", f"publish={'true' if tagged and not dry_run else 'false'}"]
    print("\n".join(lines))
    output = os.environ.get("GITHUB_OUTPUT")
    if output:
        with open(output, "a", encoding="utf-8") as file:
            file.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
