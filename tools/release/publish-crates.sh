#!/usr/bin/env bash
# Publishes the workspace crates to crates.io in dependency order (tools/release/crate-order.py),
# one `cargo publish --locked -p NAME` each, and waits after each until the crates.io index
# serves the new version, so the next crate's verification build can resolve it.
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

for name in "${crates[@]}"; do
  if on_index "$name"; then
    echo "$name $version is already on crates.io: skipped"
    continue
  fi
  if $dry_run; then
    # Only the first crate can be verified before the others are on crates.io: the rest
    # resolve their workspace dependencies from the registry. List what would be packaged.
    if [ "$name" = "${crates[0]}" ]; then
      cargo publish --locked --dry-run -p "$name"
    else
      cargo package --locked --list -p "$name" >/dev/null
      echo "$name: packaging checked (its build is verified by cargo publish once its workspace dependencies are on crates.io)"
    fi
    continue
  fi
  cargo publish --locked -p "$name"
  # cargo itself waits for the index, but gives up quietly after a while: wait up to 10 minutes.
  for attempt in $(seq 1 60); do
    if on_index "$name"; then break; fi
    if [ "$attempt" = 60 ]; then
      echo "publish-crates: $name $version was published but is not on the index after 10 minutes" >&2
      exit 1
    fi
    sleep 10
  done
  echo "$name $version published"
done
