#!/usr/bin/env bash
# Publishes the npm packages assembled in DIR (checked first by tools/release/check-npm.mjs):
# the six platform packages first, the launcher @botmesh/mcp last, so that no one can install
# a launcher whose platform packages are not on the registry yet. Each with
# `npm publish --provenance --access public` (run from GitHub Actions with `id-token: write`).
#
# usage: tools/release/publish-npm.sh DIR VERSION [--dry-run]
#
# A version with a pre-release part (0.2.0-rc.1) goes to the `next` dist-tag, any other to
# `latest`. Safe to run again after a failure halfway: a package whose VERSION is already on
# the registry is skipped (npm never accepts the same version twice), so a re-run publishes
# only the rest. Needs NODE_AUTH_TOKEN (npm's token, through setup-node's .npmrc).
set -euo pipefail

dir="${1:?usage: publish-npm.sh DIR VERSION [--dry-run]}"
version="${2:?usage: publish-npm.sh DIR VERSION [--dry-run]}"
case "$version" in *-*) tag=next ;; *) tag=latest ;; esac
flags=(--access public --tag "$tag")
# A dry run packs and checks without uploading; provenance needs GitHub's OIDC token, so a
# dry run on another machine leaves it out.
if [ "${3:-}" = --dry-run ]; then flags+=(--dry-run); note=" (dry run)"; else flags+=(--provenance); note=; fi

node "$(dirname "$0")/check-npm.mjs" "$dir" "$version"

# Platform packages (any order among themselves), then the launcher.
packages=()
for path in "$dir"/mcp-*/; do packages+=("$(basename "$path")"); done
packages+=(mcp)

for package in "${packages[@]}"; do
  name="@botmesh/$package"
  # `npm view NAME@VERSION version` prints the version when it is published, nothing when the
  # package exists without that version, and fails (E404) when the package does not exist yet.
  if [ -n "$(npm view "$name@$version" version 2>/dev/null || true)" ]; then
    echo "$name@$version is already on the registry: skipped"
    continue
  fi
  npm publish "$dir/$package" "${flags[@]}"
  echo "$name@$version published (dist-tag $tag)$note"
done
