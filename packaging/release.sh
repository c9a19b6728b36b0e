#!/usr/bin/env bash
# Builds a release's files from a tagged, clean checkout (docs/release.md): both wheels and
# SHA256SUMS in OUT_DIR (default dist/release-VERSION). It creates and pushes no tag and uploads
# nothing: the maintainer tags (`git tag -a vVERSION`), runs this, then publishes what it lists.
#   packaging/release.sh VERSION [OUT_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
version=${1:?usage: release.sh VERSION [OUT_DIR]   (VERSION without the v: 0.1.0)}
out=${2:-$root/dist/release-$version}
die() { echo "release: $*" >&2; exit 2; }
case "$version" in v*) die "give the version without the v ($version -> ${version#v})" ;; esac
[[ "$version" =~ ^[0-9]+(\.[0-9]+)*$ ]] || die "$version is not a release version (digits and dots)"
cd "$root"
# The tag the lead made, on exactly this commit, and nothing uncommitted: the version the
# binary states (cmake/version.cmake) is then exactly VERSION.
tag=$(git describe --tags --exact-match --match "v$version" HEAD 2>/dev/null) ||
  die "HEAD is not tagged v$version (tag it first: git tag -a v$version -m 'streamlint $version')"
[ -z "$(git status --porcelain --untracked-files=no)" ] || die "the checkout has uncommitted changes"
build=$root/build/release-$version
# A fresh configure: no cache of another version or build type.
rm -rf "$build"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSL_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" --target streamlint streamlint_interposer streamlint_cxx
said=$("$build/bin/streamlint" --version)
[ "$said" = "streamlint $version" ] || die "the binary says '$said', not 'streamlint $version'"
rm -rf "$out"
mkdir -p "$out"
python3 packaging/build_wheel.py --build "$build" --out "$out" --version "$version" --cxx >/dev/null
(cd "$out" && sha256sum -- *.whl >SHA256SUMS)
echo "release $tag: $out"
(cd "$out" && ls -l -- *.whl SHA256SUMS)
echo "next: push the tag (git push origin $tag) and attach these files to the release"
