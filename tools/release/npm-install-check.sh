#!/usr/bin/env bash
# Before anything is published: packs all seven npm packages assembled in DIR, installs the
# launcher and this machine's platform package from the tarballs into a scratch project with
# the registry pointed at a closed port (nothing may be fetched), and runs them the way users
# do: `npx -y @botmesh/mcp --version`, then a real MCP session through npx with the official
# TypeScript SDK client. A package that does not pack, or a launcher that cannot find its
# binary, stops the release here, before the first `npm publish`.
#
# usage: tools/release/npm-install-check.sh DIR VERSION
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

dir="${1:?usage: npm-install-check.sh DIR VERSION}"
version="${2:?usage: npm-install-check.sh DIR VERSION}"
case "$dir" in /*) ;; *) dir="$root/$dir" ;; esac
platform=$(node -p 'process.platform + "-" + process.arch')

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for package in "$dir"/*/; do
  npm pack --silent --pack-destination "$work" "$package" >/dev/null
done
ls "$work"
[ "$(find "$work" -name '*.tgz' | wc -l)" = 7 ] || { echo "npm-install-check: expected 7 tarballs" >&2; exit 1; }

(cd tools/clients && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
mkdir "$work/project"
printf '{ "name": "botmesh-release-check", "private": true }\n' >"$work/project/package.json"
export npm_config_registry=http://127.0.0.1:9 npm_config_update_notifier=false
cd "$work/project"
npm install --offline --no-audit --no-fund --loglevel=error \
  "$work/botmesh-mcp-$version.tgz" "$work/botmesh-mcp-$platform-$version.tgz" >/dev/null
got=$(npx -y @botmesh/mcp --version)
[ "$got" = "botmesh-mcp $version" ] || { echo "npx -y @botmesh/mcp --version printed '$got'" >&2; exit 1; }
echo "npx -y @botmesh/mcp --version: $got (installed offline from the packed tarballs)"
node "$root/tools/clients/ts-client.mjs" --label "ts-sdk via npx -y @botmesh/mcp" -- npx -y @botmesh/mcp
