#!/usr/bin/env bash
# Publishes the workspace crates to crates.io in dependency order (tools/release/crate-order.py
# works it out and checks it can be; cargo follows the same order), with one
# `cargo publish --locked -p NAME -p NAME ...`, then checks that the crates.io index serves
# every one of them.
#
# usage: tools/release/publish-crates.sh VERSION [--dry-run]
#
# Safe to run again after a failure halfway: a crate whose VERSION is already on crates.io is
# skipped (a published version can never be replaced), so a re-run publishes only the rest.
# Needs CARGO_REGISTRY_TOKEN in the environment (not for --dry-run).
set -euo pipefail
cd "$(dirname "$0")/../.."

version="${1:?usage: publish-crates.sh VERSION [--dry-run]}"
dry_run=false
[ "${2:-}" = --dry-run ] && dry_run=true

# The sparse index file of a crate: https://index.crates.io/<2>/<2>/<name> for names of 4+ chars.
index_url() {
  local name="${1,,}"
  case "${#name}" in
    1) echo "https://index.crates.io/1/$name" ;;
    2) echo "https://index.crates.io/2/$name" ;;
    3) echo "https://index.crates.io/3/${name:0:1}/$name" ;;
    *) echo "https://index.crates.io/${name:0:2}/${name:2:2}/$name" ;;
  esac
}

# on_index NAME: whether crates.io's index lists NAME at $version. Network errors count as "no".
on_index() {
  curl -fsSL --retry 3 "$(index_url "$1")" 2>/dev/null | grep -q "\"vers\":\"$version\""
}

mapfile -t crates < <(python3 tools/release/crate-order.py --check)
echo "publish order: ${crates[*]}"
for name in "${crates[@]}"; do
  found=$(cargo metadata --no-deps --format-version 1 --locked |
    python3 -c 'import json,sys; n=sys.argv[1]; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"]==n))' "$name")
  if [ "$found" != "$version" ]; then
    echo "publish-crates: $name has version $found, expected $version" >&2
    exit 1
  fi
done

pending=()
for name in "${crates[@]}"; do
  if on_index "$name"; then
    echo "$name $version is already on crates.io: skipped"
  else
    pending+=("$name")
  fi
done
if [ "${#pending[@]}" = 0 ]; then
  echo "every crate is on crates.io at $version"
  exit 0
fi

# One `cargo publish` for all the pending crates (Cargo 1.90 and later): it packages them and
# verifies each one's build against the others before it uploads the first, then uploads them
# in dependency order, waiting for the index between them.
packages=()
for name in "${pending[@]}"; do packages+=(-p "$name"); done
if $dry_run; then
  cargo publish --locked --dry-run "${packages[@]}"
  echo "dry run: ${pending[*]} packaged and verified, nothing uploaded"
  exit 0
fi
cargo publish --locked "${packages[@]}"

# Cargo gives up waiting quietly after a while: make sure each one is on the index.
for name in "${pending[@]}"; do
  for attempt in $(seq 1 60); do
    if on_index "$name"; then break; fi
    if [ "$attempt" = 60 ]; then
      echo "publish-crates: $name $version was uploaded but is not on the index after 10 minutes" >&2
      exit 1
    fi
    sleep 10
  done
  echo "$name $version published"
done
