#!/usr/bin/env bash
# Installs the Debian packages tdist needs that are missing. Idempotent; run as root (or with
# sudo available). Set TDIST_SKIP_PEER=1 to leave out OpenMPI (only the benchmark peer uses it),
# TDIST_SKIP_CUTLASS=1 to leave out the CUTLASS headers (fetched only where nvcc is found),
# TDIST_SKIP_PYTHON=1 to leave out the Python packages (scripts/python-requirements.txt),
# TDIST_SKIP_NCCL=1 to leave out NCCL's headers (fetched only where nvcc is found).
#
# Sourced (as test/unit/setup_script_test.sh does), it only defines its functions.
set -euo pipefail

# One package a line: the build, the tests, CLI11 for the tools' command lines, Boost.Context for
# fibers, OpenBLAS for the kernel library's tile GEMMs, LLVM/MLIR 22 for the compiler, clang 22
# for the device library's bitcode, OpenMPI for the benchmark peer, matplotlib for tdist-trace
# plot, Python's headers and pip for the Python package, OpenSSL for the bootstrap store's TLS
# (and its tool for the TLS tests' certificates), UCX for peers reached through the network
# (and its ucx_perftest, the network path's floor, which docs/RUNTIME.md's command measures),
# iproute2 for the tests' simulated hosts (network namespaces joined by veth), and nftables for
# their lossy links (random drops, where the kernel has no netem).
tdist_packages() {
  printf '%s\n' build-essential cmake ninja-build pkg-config googletest libgtest-dev libgmock-dev \
    libcli11-dev libboost-context-dev libopenblas-dev libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools \
    clang-22 python3-matplotlib python3-dev python3-pip lld libssl-dev openssl libucx-dev ucx-utils iproute2 \
    nftables
  if [ "${TDIST_SKIP_PEER:-0}" != 1 ]; then
    printf '%s\n' openmpi-bin libopenmpi-dev
  fi
}

# CUTLASS/CuTe headers for the cuda GEMMs, where a CUDA toolkit is present: Debian has no package
# of them, PyPI's nvidia-cutlass wheel ships them. Pinned; unpacked (headers only) into
# .deps/cutlass/{include,util/include} of the checkout, where CMake looks for them.
TDIST_CUTLASS_VERSION=4.2.0.0

have_nvcc() { command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; }

# NCCL's headers (its device API), where a CUDA toolkit is present, for the compile check of how
# the cuda backend will cross nodes (docs/CUDA_NODES.md): PyPI's nvidia-nccl-cu13, pinned,
# headers only, into .deps/nccl/include. Nothing links libnccl.
TDIST_NCCL_VERSION=2.32.6

# Unpacks files of PyPI's wheel PACKAGE==VERSION into DEST: each further argument is
# PREFIX=INTO, the wheel's files under PREFIX going to DEST/INTO. DEST/version records VERSION.
unpack_wheel() {
  local package=$1 version=$2 dest=$3
  shift 3
  if ! python3 -m pip --version >/dev/null 2>&1; then
    local sudo=""
    if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends python3-pip
  fi
  local wheels
  wheels=$(mktemp -d)
  python3 -m pip download -q --no-deps --only-binary=:all: -d "$wheels" "$package==$version"
  rm -rf "$dest"
  mkdir -p "$dest"
  python3 - "$wheels"/*.whl "$dest" "$@" <<'PY'
import os, sys, zipfile
wheel, dest = sys.argv[1], sys.argv[2]
parts = dict(pair.split("=", 1) for pair in sys.argv[3:])
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        for prefix, into in parts.items():
            if name.startswith(prefix) and not name.endswith("/"):
                target = dest + "/" + into + name[len(prefix):]
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with z.open(name) as src, open(target, "wb") as out:
                    out.write(src.read())
PY
  echo "$version" >"$dest/version"
  rm -rf "$wheels"
}

# Whether DEST holds VERSION of what unpack_wheel put there (FILE: one file that must exist).
unpacked() { [ -f "$1/$3" ] && [ -f "$1/version" ] && [ "$(cat "$1/version")" = "$2" ]; }

install_cutlass() {
  local dest=$1/.deps/cutlass
  if unpacked "$dest" "$TDIST_CUTLASS_VERSION" include/cutlass/cutlass.h; then
    echo "setup: CUTLASS $TDIST_CUTLASS_VERSION headers present"
    return 0
  fi
  echo "setup: fetching the CUTLASS $TDIST_CUTLASS_VERSION headers (PyPI nvidia-cutlass)"
  unpack_wheel nvidia-cutlass "$TDIST_CUTLASS_VERSION" "$dest" "cutlass_library/source/include/=include/" \
    "cutlass_library/source/tools/util/include/=util/include/"
}

install_nccl_headers() {
  local dest=$1/.deps/nccl
  if unpacked "$dest" "$TDIST_NCCL_VERSION" include/nccl_device.h; then
    echo "setup: NCCL $TDIST_NCCL_VERSION headers present"
    return 0
  fi
  echo "setup: fetching the NCCL $TDIST_NCCL_VERSION headers (PyPI nvidia-nccl-cu13)"
  unpack_wheel nvidia-nccl-cu13 "$TDIST_NCCL_VERSION" "$dest" "nvidia/nccl/include/=include/"
}

# The Python packages of scripts/python-requirements.txt (pinned), into .deps/python of the
# checkout, for the python3 on PATH (the one CMake finds): nothing is installed into that
# Python itself. A marker holds the requirements and the interpreter they were installed for.
install_python() {
  local root=$1 dest=$1/.deps/python
  local want
  want="$(python3 -c 'import sys; print(sys.version.split()[0], sys.executable)') $(cat "$root/scripts/python-requirements.txt")"
  if [ -f "$dest/.installed" ] && [ "$(cat "$dest/.installed")" = "$want" ]; then
    echo "setup: Python packages present in .deps/python"
    return 0
  fi
  echo "setup: installing the Python packages into .deps/python"
  rm -rf "$dest"
  mkdir -p "$dest"
  PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore \
    python3 -m pip install -q --no-deps --target "$dest" -r "$root/scripts/python-requirements.txt"
  printf '%s' "$want" >"$dest/.installed"
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
    echo "setup: LLVM/MLIR 22 comes from Debian 12's security updates: suite bookworm-security," >&2
    echo "setup: component main. Add that suite and component, from a Debian security mirror, to" >&2
    echo "setup: /etc/apt/sources.list (or a file in /etc/apt/sources.list.d/) and run again" >&2
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
  else
    local sudo=""
    if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
    echo "setup: installing ${missing[*]}"
    $sudo apt-get update -qq
    check_candidates "${missing[@]}"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
  local root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  if have_nvcc && [ "${TDIST_SKIP_CUTLASS:-0}" != 1 ]; then
    install_cutlass "$root"
  fi
  if have_nvcc && [ "${TDIST_SKIP_NCCL:-0}" != 1 ]; then
    install_nccl_headers "$root"
  fi
  if [ "${TDIST_SKIP_PYTHON:-0}" != 1 ]; then
    install_python "$root"
  fi
}

# "return" succeeds only in a sourced file.
if ! (return 0 2>/dev/null); then
  main "$@"
fi
