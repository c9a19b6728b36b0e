#!/usr/bin/env bash
# The release's version rules (issue 32, docs/release.md), without a full build: the version
# cmake/version.cmake gives a clone with no tag, on a tag and after it; packaging/release.sh
# refusing an untagged or dirty checkout; build_wheel.py refusing a --version the binary does not
# state; and the binary stating the version of its own source tree.
# usage: release_test.sh BUILD_DIR   (run from the repository root)
set -u
build=$1
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../cli/lib.sh"
git clone -q --no-hardlinks "$root" "$tmp/clone"
cp "$root/cmake/version.cmake" "$root/packaging/release.sh" "$tmp/"
version_of() {
  cmake -DSRC="$tmp/clone" -DOUT="$tmp/v.h" -P "$tmp/version.cmake" && sed -n 's/^#define SL_VERSION "\(.*\)"$/\1/p' "$tmp/v.h"
}
g() { git -C "$tmp/clone" -c user.name=t -c user.email=t@t "$@"; }
g tag -d $(g tag -l) >/dev/null 2>&1
sha=$(g rev-parse --short=10 HEAD)
[ "$(version_of)" = "0.1.0.dev0+g$sha" ] && passed=$((passed + 1)) || { failed=$((failed + 1)); echo "FAIL untagged: $(version_of)"; }
g tag -a v0.2.0 -m r
[ "$(version_of)" = "0.2.0" ] && passed=$((passed + 1)) || { failed=$((failed + 1)); echo "FAIL on the tag: $(version_of)"; }
g commit -q --allow-empty -m next
sha=$(g rev-parse --short=10 HEAD)
[ "$(version_of)" = "0.2.0.post1+g$sha" ] && passed=$((passed + 1)) || { failed=$((failed + 1)); echo "FAIL after the tag: $(version_of)"; }
# release.sh: untagged HEAD, a dirty tree, a version with a v.
cp "$tmp/release.sh" "$tmp/clone/packaging/release.sh"
check release-untagged 2 "$tmp/clone/packaging/release.sh" 0.2.0
expect_in release-untagged-msg "$tmp/err" "HEAD is not tagged v0.2.0"
g tag -a v0.3.0 -m r
echo x >>"$tmp/clone/README.md"
check release-dirty 2 "$tmp/clone/packaging/release.sh" 0.3.0
expect_in release-dirty-msg "$tmp/err" "uncommitted changes"
check release-v 2 "$tmp/clone/packaging/release.sh" v0.3.0
# build_wheel.py names wheels by what the binary says, and refuses another --version.
check wheel-wrong-version 2 /usr/bin/python3 packaging/build_wheel.py --build "$build" --out "$tmp/dist" --version 9.9.9
expect_in wheel-wrong-version-msg "$tmp/err" "--version 9.9.9, but"
check binary-version 0 "$build/bin/streamlint" --version
cmake -DSRC="$root" -DOUT="$tmp/here.h" -P "$root/cmake/version.cmake"
here=$(sed -n 's/^#define SL_VERSION "\(.*\)"$/\1/p' "$tmp/here.h")
expect_in binary-states-tree-version "$tmp/out" "streamlint $here"
echo "release: $passed passed, $failed failed"
[ "$failed" = 0 ]
