#!/usr/bin/env bash
# Fetches the pinned tree-sitter-python grammar into DEST/tree-sitter-python-VERSION with
# `npm pack`, checking the tarball's integrity before it is unpacked. Needs npm and openssl,
# no root, and touches nothing outside DEST: cmake/setup-deps.sh uses it for .deps/, and the
# pip build (packaging/streamlint_build.py, so pre-commit's hook) for a per-user cache.
#   cmake/fetch-grammar.sh DEST
# 0.23.6 is the newest release with ABI 14, which Debian's tree-sitter runtime (0.20.7) accepts.
set -euo pipefail
dest=${1:?usage: fetch-grammar.sh DEST}
TSP_VERSION=0.23.6
TSP_SHA512="yIM9z0oxKIxT7bAtPOhgoVl6gTXlmlIhue7liFT4oBPF/lha7Ha4dQBS82Av6hMMRZoVnFJI8M6mL+SwWoLD3A=="
tsp="$dest/tree-sitter-python-$TSP_VERSION"
[ -f "$tsp/src/parser.c" ] && exit 0
for t in npm openssl tar; do
  command -v "$t" >/dev/null 2>&1 || { echo "fetch-grammar: $t is needed to fetch tree-sitter-python-$TSP_VERSION (Debian: apt install $t)" >&2; exit 2; }
done
mkdir -p "$dest"
tmp=$(mktemp -d "$dest/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# npm's own cache under the scratch directory: a user without a writable ~/.npm still fetches.
(cd "$tmp" && npm pack --silent --cache "$tmp/npm-cache" "tree-sitter-python@$TSP_VERSION" >/dev/null)
got=$(openssl dgst -sha512 -binary "$tmp/tree-sitter-python-$TSP_VERSION.tgz" | base64 -w0)
if [ "$got" != "$TSP_SHA512" ]; then
  echo "fetch-grammar: tree-sitter-python-$TSP_VERSION.tgz integrity mismatch (got sha512-$got)" >&2
  exit 2
fi
# Unpacked beside, then renamed: a build that runs at the same time sees all of it or none.
mkdir "$tmp/out"
tar -xzf "$tmp/tree-sitter-python-$TSP_VERSION.tgz" -C "$tmp/out" --strip-components=1
mv -T "$tmp/out" "$tsp" 2>/dev/null || [ -f "$tsp/src/parser.c" ]
