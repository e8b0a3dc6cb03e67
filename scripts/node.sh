#!/usr/bin/env bash
# Prints the bin directory of Node.js <major> (the newest release of that line on the npm registry's
# `node` package), installing it first when the cache has none:
#   PATH="$(bash scripts/node.sh 22):$PATH"
# The cache is ${SQLINBOX_NODE_CACHE:-$HOME/.cache/sqlinbox-node}/<major>, outside the repository,
# and is reused on the next run. The directory above bin/ holds include/node, the headers node-gyp
# builds native addons against (npm_config_nodedir), so nothing is downloaded at build time.
set -euo pipefail
major="${1:?usage: scripts/node.sh <major>}"
dir="${SQLINBOX_NODE_CACHE:-$HOME/.cache/sqlinbox-node}/$major"

found() { # the bin directory of an installed Node <major> in the cache, or nothing
  local bin
  for bin in "$dir"/node_modules/node/node_modules/node-*/bin; do
    if [ -x "$bin/node" ] && [[ "$("$bin/node" --version 2>/dev/null)" == "v$major."* ]]; then
      echo "$bin"
      return 0
    fi
  done
  return 1
}

if ! found >/dev/null; then
  echo "installing Node $major into $dir" >&2
  rm -rf "$dir"
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-audit --no-fund --no-save "node@$major" >&2
fi
found || { echo "Node $major did not install into $dir" >&2; exit 1; }
