#!/usr/bin/env python3
"""Prints the workspace crates that are published to crates.io, one per line, in the order they
must be published: every crate after the workspace crates it depends on (normal, build and
versioned dev dependencies alike, since crates.io must already have all of them).

usage: python3 tools/release/crate-order.py [--check]

Reads `cargo metadata --no-deps`; a crate with `publish = false` (xtask) is left out. Ties are
broken by name, so the order is stable. `--check` also fails when a published crate depends
on a workspace crate that is not published, when the crates do not all carry one version
(they are kept in lockstep through `[workspace.package]`), or when a crate asks for another at
an older version (the `version` of each internal crate in `[workspace.dependencies]`, and of
`botmesh-mcp-http` in crates/mcp-bin/Cargo.toml, must be bumped with it).
"""
import json
import subprocess
import sys


def main() -> int:
    check = sys.argv[1:] == ["--check"]
    if sys.argv[1:] not in ([], ["--check"]):
        print(__doc__, file=sys.stderr)
        return 2
    metadata = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--no-deps", "--format-version", "1", "--locked"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    members = {package["name"]: package for package in metadata["packages"]}
    published = {name for name, package in members.items() if package.get("publish") != []}
    problems = []
    needs = {}
    for name in sorted(published):
        needs[name] = set()
        for dependency in members[name]["dependencies"]:
            other = dependency["name"]
            if other not in members or other == name:
                continue
            # A path dev-dependency without a version is dropped by `cargo publish`.
            if dependency.get("kind") == "dev" and dependency.get("req") in (None, "*"):
                continue
            wanted = f"^{members[other]['version']}"
            if check and dependency.get("req") not in (wanted, "*", None):
                problems.append(
                    f"{name} asks for {other} {dependency.get('req')}, not {wanted} (versions move in lockstep)"
                )
            if other not in published:
                problems.append(f"{name} depends on {other}, which is not published")
                continue
            needs[name].add(other)
    order = []
    while needs:
        ready = sorted(name for name, wanted in needs.items() if wanted <= set(order))
        if not ready:
            problems.append(f"dependency cycle among {sorted(needs)}")
            break
        order.append(ready[0])
        del needs[ready[0]]
    versions = {members[name]["version"] for name in published}
    if check and len(versions) > 1:
        problems.append(f"published crates carry several versions: {sorted(versions)}")
    if problems:
        for problem in problems:
            print(f"crate-order: {problem}", file=sys.stderr)
        return 1
    print("\n".join(order))
    return 0


if __name__ == "__main__":
    sys.exit(main())
