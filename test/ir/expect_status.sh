#!/bin/sh
# expect_status.sh STATUS REGEX COMMAND [ARG...]
# Runs COMMAND; passes when it exits with STATUS and its output (stdout and stderr together)
# matches the extended regular expression REGEX. Prints the output otherwise.
status=$1
pattern=$2
shift 2
output=$("$@" 2>&1)
actual=$?
if [ "$actual" -ne "$status" ]; then
  printf '%s\n' "$output"
  echo "expect_status: exit status $actual, expected $status" >&2
  exit 1
fi
if ! printf '%s\n' "$output" | grep -Eq -- "$pattern"; then
  printf '%s\n' "$output"
  echo "expect_status: the output does not match: $pattern" >&2
  exit 1
fi
exit 0
