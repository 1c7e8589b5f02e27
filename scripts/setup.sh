#!/usr/bin/env bash
# Installs the Debian packages tdist needs that are missing. Idempotent; run as root (or with
# sudo available). Set TDIST_SKIP_PEER=1 to leave out OpenMPI (only the benchmark peer uses it).
#
# Sourced (as test/unit/setup_script_test.sh does), it only defines its functions.
set -euo pipefail

# One package a line: the build, the tests, CLI11 for the tools' command lines, Boost.Context for
# fibers, OpenBLAS for the kernel library's tile GEMMs, LLVM/MLIR 22 for the compiler, OpenMPI
# for the benchmark peer.
tdist_packages() {
  printf '%s\n' build-essential cmake ninja-build pkg-config googletest libgtest-dev libgmock-dev \
    libcli11-dev libboost-context-dev libopenblas-dev libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools
  if [ "${TDIST_SKIP_PEER:-0}" != 1 ]; then
    printf '%s\n' openmpi-bin libopenmpi-dev
  fi
}

# Whether apt can install package $1: it has a candidate version, and not "(none)".
has_candidate() {
  local candidate
  candidate=$(apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: *//p') || true
  [ -n "$candidate" ] && [ "$candidate" != "(none)" ]
}

# Fails, saying where to find them, when some of the arguments are in no configured apt source;
# apt-get itself would only say "Unable to locate package".
check_candidates() {
  local unavailable=() p
  for p in "$@"; do
    has_candidate "$p" || unavailable+=("$p")
  done
  [ ${#unavailable[@]} -eq 0 ] && return 0

  echo "setup: no apt source offers ${unavailable[*]}" >&2
  local llvm=0
  for p in "${unavailable[@]}"; do
    case "$p" in *-22-*) llvm=1 ;; esac
  done
  if [ "$llvm" = 1 ]; then
    # Debian 12 ships LLVM/MLIR 22 as a security update, not in bookworm's main suite.
    echo "setup: LLVM/MLIR 22 comes from the Debian suite bookworm-security (Debian 12); add" >&2
    echo "setup:   deb http://deb.debian.org/debian-security bookworm-security main" >&2
    echo "setup: to /etc/apt/sources.list (or a file in /etc/apt/sources.list.d/) and run again" >&2
  fi
  return 1
}

main() {
  local packages missing=() p
  mapfile -t packages < <(tdist_packages)
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    echo "setup: all packages present"
    return 0
  fi

  local sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  check_candidates "${missing[@]}"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# "return" succeeds only in a sourced file.
if ! (return 0 2>/dev/null); then
  main "$@"
fi
