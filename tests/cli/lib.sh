# Shared helpers of the CLI test scripts: each check counts as passed or failed; the caller
# prints "N passed, N failed" at the end. Expects $tmp to be a scratch directory.
passed=0 failed=0

check() {  # check NAME EXPECTED_RC COMMAND... ; output in $tmp/out, stderr in $tmp/err
  local name=$1 want=$2
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" = "$want" ]; then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "FAIL $name: exit $rc, wanted $want"; head -5 "$tmp/out" "$tmp/err"; fi
}
expect_in() {  # expect_in NAME FILE TEXT
  if grep -qF -- "$3" "$2"; then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "FAIL $1: '$3' not in $2:"; head -5 "$2"; fi
}
expect_not_in() {  # expect_not_in NAME FILE TEXT
  if grep -qF -- "$3" "$2"; then failed=$((failed + 1)); echo "FAIL $1: '$3' in $2"; else passed=$((passed + 1)); fi
}
