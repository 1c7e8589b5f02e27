#!/usr/bin/env bash
# Installs the Debian packages tdist needs that are missing. Idempotent; run as root (or with
# sudo available). Set TDIST_SKIP_PEER=1 to leave out OpenMPI (only the benchmark peer uses it).
set -euo pipefail

packages=(build-essential cmake ninja-build pkg-config googletest libgtest-dev libgmock-dev
          libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools)
if [ "${TDIST_SKIP_PEER:-0}" != 1 ]; then
  packages+=(openmpi-bin libopenmpi-dev)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
echo "setup: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
