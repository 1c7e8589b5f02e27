#!/usr/bin/env bash
# expect_failure.sh [--status N] --expect REGEX [--expect REGEX ...] -- command...
#
# Runs command; passes when it exits non-zero (with status N when given) and its output (stdout
# and stderr together) matches every REGEX (grep -E). Says what it saw otherwise.
set -uo pipefail
status=""
patterns=()
while (($#)); do
  case $1 in
    --status) status=$2; shift 2 ;;
    --expect) patterns+=("$2"); shift 2 ;;
    --) shift; break ;;
    *) echo "expect_failure.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
output=$("$@" 2>&1)
rc=$?
failed=0
if ((rc == 0)); then
  echo "expect_failure.sh: the command succeeded; it should have failed"
  failed=1
elif [[ -n $status && $rc != "$status" ]]; then
  echo "expect_failure.sh: the command exited with $rc, expected $status"
  failed=1
fi
for pattern in "${patterns[@]}"; do
  if ! grep -Eq -- "$pattern" <<<"$output"; then
    echo "expect_failure.sh: the output does not match: $pattern"
    failed=1
  fi
done
if ((failed)); then
  echo "---- output (exit status $rc) ----"
  echo "$output"
  exit 1
fi
echo "expect_failure.sh: failed as expected (exit status $rc)"
