#!/usr/bin/env bash
# A PNG of a streamlint HTML report, for docs: headless Chromium renders the page at the given
# window size (the timelines draw to the window's width).
#   tests/report/screenshot-report.sh REPORT.html OUT.png [WIDTH [HEIGHT]]
# "#selftest" after the file name also selects each finding in turn (the last one stays marked).
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 REPORT.html OUT.png [WIDTH [HEIGHT]]" >&2
  exit 2
fi
page=$1 png=$2 width=${3:-1400} height=${4:-1800}
frag=""
case "$page" in *#*) frag="#${page#*#}"; page=${page%%#*} ;; esac
[ -f "$page" ] || { echo "$0: $page: no such file" >&2; exit 2; }
chromium=""
for c in chromium chromium-browser google-chrome google-chrome-stable; do
  if command -v "$c" >/dev/null 2>&1; then chromium=$c; break; fi
done
[ -n "$chromium" ] || { echo "$0: chromium not found (apt-get install chromium)" >&2; exit 2; }
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
"$chromium" --headless=new --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
  --user-data-dir="$profile" --virtual-time-budget=10000 --window-size="$width,$height" \
  --screenshot="$(realpath -m "$png")" "file://$(realpath "$page")$frag" 2>/dev/null
[ -s "$png" ] || { echo "$0: chromium wrote no screenshot" >&2; exit 1; }
echo "$png"
