#!/usr/bin/env bash
# Issue 32: docs/github-actions.md's `run:` steps on fresh clones of real repositories that no
# one configured for streamlint, as a user without root, timed. Prints a table (README.md).
#
# usage: bench/actions/run_repos.sh BUILD_DIR GIT_DIR...        (from the repository root)
#   INSTALLS="main" (default "main cxx"): which installs to run (below).
#   GIT_DIR: a bare clone (e.g. /work/.mirror/NVIDIA+NeMo/repo). Nothing is written to it.
#   Also runs the steps on examples/cuda-project with its CMake compile database in build/
#   (C/C++ analysed through the database found beside the input), when nvcc is there.
#
# Per repository: `git clone` into a fresh directory, then, as `nobody` (setpriv; as the
# current user when not root), the Check step's command and the Annotate step as written in
# the doc (BASE = the parent commit, as a pull_request's base). Two installs: the main wheel
# alone (the binary copied without the C/C++ frontend beside it, what the doc's workflow
# installs) and with the frontend (the build tree's binary, its lib/ beside it).
set -u
BUILD=$(realpath "$1")
shift
ROOT=$PWD
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
work=$(mktemp -d /tmp/sl-actions.XXXXXX)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT

# The steps, from the doc itself (so the benchmark runs what users copy).
/usr/bin/python3 - "$ROOT/docs/github-actions.md" "$work" <<'PY' || exit 2
import re, sys, yaml
doc, out = open(sys.argv[1]).read(), sys.argv[2]
blocks = re.findall(r"```yaml\n(.*?)```", doc, re.S)
wf = yaml.safe_load(next(b for b in blocks if b.startswith("# .github/workflows/streamlint.yml")))
check = next(s for s in wf["jobs"]["streamlint"]["steps"] if s.get("name") == "Check")["run"]
# The step's first line runs streamlint and keeps its status; exit with it (the step's own
# test turns 1 into success, and we want the number).
open(out + "/check.sh", "w").write(check.splitlines()[0] + "\nexit ${rc:-0}\n")
annotate = next(yaml.safe_load(b)[0] for b in blocks if b.lstrip().startswith("- name: Annotate"))
open(out + "/annotate.sh", "w").write(annotate["run"])
PY
chmod 644 "$work"/*.sh

# Installs: "main" = the binary alone; "cxx" = with the frontend beside it.
mkdir -p "$work/main/bin" "$work/cxx/bin"
cp "$BUILD/bin/streamlint" "$work/main/bin/streamlint"
ln -s "$BUILD/bin/streamlint" "$work/cxx/bin/streamlint"
chmod -R a+rX "$work/main" "$work/cxx"
mkdir -p "$work/caches" && chmod 1777 "$work/caches"

as_user() {  # as_user DIR CMD... : run in DIR as nobody when we are root
  if [ "$(id -u)" = 0 ]; then
    (cd "$1" && shift && setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/tmp "$@")
  else
    (cd "$1" && shift && "$@")
  fi
}

timed() {  # timed LOG CMD... : prints "rc seconds"
  local log=$1 start end rc
  shift
  start=$(date +%s.%N)
  "$@" >"$log.out" 2>"$log.err"
  rc=$?
  end=$(date +%s.%N)
  printf '%s %.1f' "$rc" "$(echo "$end - $start" | bc)"
}

# A fresh clone. A mirror may lack a few large blobs (NeMo's: 4 of 3,882 files, data
# dictionaries): those paths are left out of the checkout (sparse), the rest is the commit.
clone() {  # clone GIT_DIR DIR
  git clone -q --no-checkout "$1" "$2" || return 1
  local missing
  git -C "$2" ls-tree -r HEAD | awk -F '\t' '{ split($1, m, " "); if (m[2] == "blob") print m[3] "\t" $2 }' >"$2.tree"
  missing=$(cut -f1 "$2.tree" | git -C "$2" cat-file --batch-check | paste - <(cut -f2 "$2.tree") |
            awk -F '\t' '$1 ~ / missing$/ { print "!/" $2 }')
  rm -f "$2.tree"
  if [ -n "$missing" ]; then
    git -C "$2" sparse-checkout set --no-cone '/*' $missing >/dev/null 2>&1 || return 1
    echo "$1: left out of the checkout (blob not in the mirror): ${missing//$'\n'/ }" >&2
  fi
  git -C "$2" checkout -q HEAD 2>/dev/null || git -C "$2" checkout -q -f HEAD
}

# A clone, described (before it changes hands), then given to the user that runs the steps:
# git refuses a repository that another user owns ("dubious ownership").
prepare() {  # prepare DIR : sets base, py, cxx
  base=$(git -C "$1" rev-parse HEAD~1 2>/dev/null || echo "")
  py=$(git -C "$1" ls-files '*.py' | wc -l)
  cxx=$(git -C "$1" ls-files '*.c' '*.cc' '*.cpp' '*.cxx' '*.cu' '*.cuh' | wc -l)
  if [ "$(id -u)" = 0 ]; then chown -R nobody:nogroup "$1"; fi
  sleep 1  # files changed in the current second are not cached (racily clean: ResultCache.h)
}

row() {  # row NAME DIR INSTALL (after prepare DIR)
  local name=$1 dir=$2 install=$3
  # Each install its own cache (the doc's default place, .streamlint_cache, would serve the second the first's).
  local env=(PATH="$work/$install/bin:/usr/bin:/bin" STREAMLINT_CACHE_DIR="$work/caches/${name%% *}-$install")
  local c a
  c=$(timed "$work/$name-$install-check" as_user "$dir" env "${env[@]}" bash -e "$work/check.sh")
  a=$(timed "$work/$name-$install-annotate" as_user "$dir" env "${env[@]}" BASE="$base" bash -e "$work/annotate.sh")
  # The Check step again on the unchanged clone: the Python half from the cache, C/C++ or not.
  local again
  again=$(timed "$work/$name-$install-again" as_user "$dir" env "${env[@]}" bash -e "$work/check.sh")
  local note
  # What stderr said about C/C++, in short: the files left out, skipped or failed.
  note=$(grep -h -o -E '[0-9]+ C/C\+\+/CUDA files? not analysed|of [0-9]+ C/C\+\+ files?, [^;]*|needs the Clang 19 frontend|[0-9]+ of [0-9]+ C/C\+\+ files skipped' \
           "$work/$name-$install-check.err" | sort | uniq -c | sed 's/^ *1 //' | head -3 | tr '\n' ';')
  note=${note%;}
  printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$py / $cxx" "$install" "${c% *} (${c#* } s)" \
    "${again% *} (${again#* } s)" "${a% *} (${a#* } s)" "$(grep -c '^::' "$work/$name-$install-annotate.out")" "${note:-}"
}

echo "steps run as: $(as_user "$work" id -un); streamlint: $BUILD/bin/streamlint"
echo
echo "| repository | .py / C/C++ files | install | Check step: exit (time) | again, unchanged | Annotate step: exit (time) | annotations | stderr |"
echo "|---|---|---|---|---|---|---|---|"
for g in "$@"; do
  name=$(basename "$(dirname "$g")")
  [ "$(basename "$g")" = repo ] || name=$(basename "$g")
  dir=$work/$name
  clone "$g" "$dir" || { echo "| $name | clone failed | | | | | | |"; continue; }
  prepare "$dir"
  for install in ${INSTALLS:-main cxx}; do row "$name" "$dir" "$install"; done
  rm -rf "$dir"
done

# C/C++ through a compilation database: examples/cuda-project, configured by CMake into
# build/ (found beside the input: no -p), as a team with a CMake build would have it.
if [ -x "$NVCC" ]; then
  dir=$work/cuda-project
  cp -r "$ROOT/examples/cuda-project" "$dir"
  for m in a b; do
    git -C "$dir" init -q && git -C "$dir" add -A && git -C "$dir" -c user.name=t -c user.email=t@t commit -q --allow-empty -m $m
  done
  cmake -S "$dir" -B "$dir/build" -G Ninja -DCMAKE_CUDA_COMPILER="$NVCC" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null 2>&1
  prepare "$dir"
  row "cuda-project (compile db)" "$dir" cxx
fi
