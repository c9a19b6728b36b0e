#!/usr/bin/env bash
# Extracts the .py files of every project in projects.tsv, at the commit listed there, from
# the fetched bare mirrors (/work/.mirror/<owner>+<name>/repo, brought by the `fetch` tool)
# into ROOT/<project>. Nothing fetched ever goes into this repository.
#   bench/precision/extract.sh [ROOT=/tmp/prec] [MIRRORS=/work/.mirror]
# File by file (ls-tree + cat-file), not `git archive`: the mirrors may lack large blobs
# (images) that archive would fail on.
set -euo pipefail
root=${1:-/tmp/prec}
mirrors=${2:-/work/.mirror}
here=$(cd "$(dirname "$0")" && pwd)
tail -n +2 "$here/projects.tsv" | while IFS=$'\t' read -r project repo commit _date; do
  git_dir="$mirrors/${repo/\//+}/repo"
  [ -d "$git_dir" ] || { echo "extract.sh: $git_dir missing: fetch github:$repo first" >&2; exit 2; }
  rm -rf "${root:?}/$project"
  mkdir -p "$root/$project"
  git --git-dir="$git_dir" ls-tree -r "$commit" |
    awk -F'\t' '{ split($1, m, " "); if (m[2] == "blob" && $2 ~ /\.py$/) print m[1] "\t" m[3] "\t" $2 }' |
    while IFS=$'\t' read -r mode blob path; do
      mkdir -p "$root/$project/$(dirname "$path")"
      if [ "$mode" = 120000 ]; then   # a symlink, as `git archive` would make it
        ln -s "$(git --git-dir="$git_dir" cat-file blob "$blob")" "$root/$project/$path"
      else
        git --git-dir="$git_dir" cat-file blob "$blob" > "$root/$project/$path"
      fi
    done
  echo "$project $(find "$root/$project" -name '*.py' | wc -l) files"
done
