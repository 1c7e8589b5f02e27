#!/usr/bin/env bash
# oshrun onto tdist-run: the PE count, -x, mpirun's ignored flags, tdist-run's passed on, usage
# errors (exit 2 with a message), and the job's exit status.
#   oshrun_test.sh BIN_DIR
set -uo pipefail
bin=$1
oshrun=$bin/oshrun
failures=0

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
expect_status() {  # $1 = expected, $2 = got, $3 = what
  [[ $2 == "$1" ]] || fail "$3: exit status $2, expected $1"
}
expect_in() {  # $1 = text, $2 = needle, $3 = what
  [[ $1 == *"$2"* ]] || fail "$3: expected '$2' in: $1"
}

out=$("$oshrun" -np 3 sh -c 'echo "pe=$TDIST_PE n=$TDIST_N_PES"' 2>&1); status=$?
expect_status 0 $status "-np 3"
[[ $(grep -c 'n=3' <<<"$out") == 3 ]] || fail "-np 3 started $(grep -c 'n=3' <<<"$out") PEs: $out"
for pe in 0 1 2; do expect_in "$out" "pe=$pe n=3" "-np 3, PE $pe"; done

out=$("$oshrun" -n 2 -- sh -c 'echo "pe=$TDIST_PE"' 2>&1); status=$?
expect_status 0 $status "-n 2 --"
[[ $(grep -c 'pe=' <<<"$out") == 2 ]] || fail "-n 2 started the wrong number of PEs: $out"

export OSHRUN_TEST_OUTER=outer
out=$("$oshrun" -np 2 -x OSHRUN_TEST_VALUE=forty-two -x OSHRUN_TEST_OUTER \
        sh -c 'echo "v=$OSHRUN_TEST_VALUE o=$OSHRUN_TEST_OUTER"' 2>&1); status=$?
expect_status 0 $status "-x"
[[ $(grep -c 'v=forty-two o=outer' <<<"$out") == 2 ]] || fail "-x did not reach both PEs: $out"

out=$("$oshrun" -np 1 -x OSHRUN_TEST_NOT_SET_ANYWHERE true 2>&1); status=$?
expect_status 2 $status "-x of an unset variable"
expect_in "$out" "oshrun: -x OSHRUN_TEST_NOT_SET_ANYWHERE: no such variable here" "-x of an unset variable"

out=$("$oshrun" --oversubscribe --allow-run-as-root --mca btl self --bind-to core -np 2 true 2>&1); status=$?
expect_status 0 $status "mpirun's flags"
expect_in "$out" "oshrun: ignored (one host, every PE on it): --oversubscribe --allow-run-as-root --mca btl self --bind-to core" "mpirun's flags"

out=$("$oshrun" -np 2 --tag-output sh -c 'echo hello' 2>&1); status=$?
expect_status 0 $status "--tag-output passed on"
expect_in "$out" "[pe 0] hello" "--tag-output passed on"
expect_in "$out" "[pe 1] hello" "--tag-output passed on"

# tdist-run's options that take a value keep it (it is not taken for the program).
out=$("$oshrun" -np 2 --hang-check 5 --nnodes 1 --join-timeout 9 sh -c 'echo "node=$TDIST_NODE"' 2>&1); status=$?
expect_status 0 $status "tdist-run options with a value"
expect_in "$out" "node=0" "tdist-run options with a value"

out=$("$oshrun" -np 2 sh -c 'exit $((TDIST_PE == 1 ? 3 : 0))' 2>&1); status=$?
expect_status 3 $status "a PE's exit status"

out=$("$oshrun" true 2>&1); status=$?
expect_status 2 $status "no -np"
expect_in "$out" "oshrun: the number of PEs is missing (-np N)" "no -np"

out=$("$oshrun" -np zero true 2>&1); status=$?
expect_status 2 $status "-np zero"
expect_in "$out" "oshrun: -np expects a positive number of PEs, got 'zero'" "-np zero"

out=$("$oshrun" -np 2 2>&1); status=$?
expect_status 2 $status "no program"
expect_in "$out" "oshrun: no program to run" "no program"

out=$("$oshrun" -np 2 -q true 2>&1); status=$?
expect_status 2 $status "unknown option"
expect_in "$out" "oshrun: unknown option -q" "unknown option"

out=$("$oshrun" --help 2>&1); status=$?
expect_status 0 $status "--help"
expect_in "$out" "usage: oshrun -np N" "--help"

if ((failures)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "oshrun: every check passed"
