#!/usr/bin/env bash
# bench/ucx_floor.sh against a ucx_perftest whose server starts slowly, never listens, or exits at
# once (a wrapper ahead of the real one on PATH): the client waits for the server's port by time,
# not by a count of polls, and a server that cannot serve ends the script with a message.
#
#   ucx_floor_test.sh SOURCE_DIR
set -uo pipefail
SRC=$1
real=$(command -v ucx_perftest) || { echo "ucx_perftest is not installed: skipped"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# The wrapper: MODE=slow sleeps SLOW_S before the first server starts, MODE=flaky's first server
# exits at once (as one whose port was taken), MODE=mute keeps a server that never listens, MODE=dead's
# servers all exit at once; clients (a host as first argument) run as they are.
# A failing oshcc leaves Open MPI's part out.
cat > "$dir/ucx_perftest" <<WRAP
#!/usr/bin/env bash
if [[ \$1 == -* ]]; then
  case \$MODE in
    slow) if [ ! -e "$dir/started" ]; then touch "$dir/started"; sleep "\$SLOW_S"; fi ;;
    mute) exec sleep 600 ;;
    dead) exit 3 ;;
    flaky) if [ ! -e "$dir/started" ]; then touch "$dir/started"; exit 3; fi ;;
  esac
fi
exec "$real" "\$@"
WRAP
printf '#!/bin/sh\nexit 1\n' > "$dir/oshcc"
chmod +x "$dir/ucx_perftest" "$dir/oshcc"
floor() { PATH="$dir:$PATH" timeout 120 "$SRC/bench/ucx_floor.sh" 1 2>&1; }

# A server that takes 12 s to start (longer than a loop of 2,000 polls takes on this kind of machine).
out=$(MODE=slow SLOW_S=12 floor); rc=$?
[[ $rc == 0 ]] || fail "slow server: exit $rc: $out"
[[ $out =~ $'\n'1\ +[0-9.]+\ +[0-9.]+\ +-\ +- ]] || fail "slow server: no round of figures: $out"

rm -f "$dir/started"
out=$(MODE=flaky floor); rc=$?
[[ $rc == 0 ]] || fail "first server exits: exit $rc: $out"
[[ $out =~ $'\n'1\ +[0-9.]+\ +[0-9.]+\ +-\ +- ]] || fail "first server exits: no round of figures: $out"

out=$(MODE=mute UCX_FLOOR_START_S=2 floor); rc=$?
[[ $rc == 1 ]] || fail "mute server: exit $rc, expected 1: $out"
[[ $out =~ "did not listen on port "[0-9]+" within 2 s" ]] || fail "mute server: $out"
pgrep -x -f "sleep 600" > /dev/null && fail "mute server: the server was left running"

out=$(MODE=dead floor); rc=$?
[[ $rc == 1 ]] || fail "dead server: exit $rc, expected 1: $out"
[[ $out =~ "exited three times before it listened" ]] || fail "dead server: $out"

((failures == 0)) && echo "ucx_floor.sh: all checks passed"
exit $((failures != 0))
