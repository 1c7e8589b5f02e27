#!/usr/bin/env bash
# scripts/setup.sh against a fake apt-cache: packages no apt source offers are named, and a
# missing LLVM/MLIR 22 is explained by the Debian suite that ships it.
set -u
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT

# apt-cache policy P: no candidate for the packages in $UNAVAILABLE, nothing at all for those in
# $UNKNOWN (as for a name apt has never heard of), a candidate for every other.
cat > "$fake/apt-cache" <<'FAKE'
#!/bin/sh
[ "$1" = policy ] || exit 100
case " ${UNKNOWN:-} " in *" $2 "*) exit 0 ;; esac
echo "$2:"
echo "  Installed: (none)"
case " ${UNAVAILABLE:-} " in
  *" $2 "*) echo "  Candidate: (none)" ;;
  *) echo "  Candidate: 1.0-1" ;;
esac
FAKE
# Nothing here may install anything.
printf '#!/bin/sh\necho "setup_script_test: $0 must not run" >&2\nexit 1\n' > "$fake/apt-get"
chmod +x "$fake/apt-cache" "$fake/apt-get"

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# Runs setup.sh's function $1 with the other arguments in a subshell; sets status and output.
run() {
  output=$(PATH="$fake:$PATH" bash -c 'source "$0"; "$@"' "$root/scripts/setup.sh" "$@" 2>&1)
  status=$?
}

run check_candidates cmake libcli11-dev
[ "$status" = 0 ] || fail "every package has a candidate, yet status $status: $output"
[ -z "$output" ] || fail "nothing to say when every package has a candidate: $output"

UNAVAILABLE="libmlir-22-dev mlir-22-tools" run check_candidates cmake libmlir-22-dev mlir-22-tools
[ "$status" = 1 ] || fail "a package without candidate must fail, got status $status"
case "$output" in
  *"no apt source offers libmlir-22-dev mlir-22-tools"*) ;;
  *) fail "the packages without candidate are named: $output" ;;
esac
case "$output" in
  *"suite bookworm-security"*"component main"*) ;;
  *) fail "a missing LLVM/MLIR 22 names the suite and component that ship it: $output" ;;
esac
case "$output" in
  *"://"*) fail "the hint names no mirror's address: $output" ;;
esac

UNKNOWN="tdist-no-such-package" run check_candidates cmake tdist-no-such-package
[ "$status" = 1 ] || fail "an unknown package must fail, got status $status"
case "$output" in
  *"no apt source offers tdist-no-such-package"*) ;;
  *) fail "the unknown package is named: $output" ;;
esac
case "$output" in
  *bookworm-security*) fail "the LLVM hint is for LLVM packages only: $output" ;;
esac

run tdist_packages
for p in libcli11-dev libboost-context-dev libmlir-22-dev openmpi-bin libssl-dev; do
  grep -qx "$p" <<<"$output" || fail "the package list holds $p: $output"
done
TDIST_SKIP_PEER=1 run tdist_packages
grep -q openmpi <<<"$output" && fail "TDIST_SKIP_PEER=1 leaves out OpenMPI: $output"

[ "$failures" = 0 ] && echo "setup_script_test: all checks passed"
exit $((failures > 0))
