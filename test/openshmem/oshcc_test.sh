#!/usr/bin/env bash
# oshcc_test.sh BIN_DIR - the compiler wrappers of BIN_DIR (a build tree's bin/ or an install
# prefix's): what --showme says, flags passed through, and C and C++ programs built with them
# running under BIN_DIR/oshrun.
set -euo pipefail
bin=$(cd "$1" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "oshcc_test: $*" >&2; exit 1; }

compile=$("$bin/oshcc" --showme:compile)
include=${compile#-I}
[[ -f $include/shmem.h && -f $include/shmemx.h ]] || fail "--showme:compile ($compile) names no directory with shmem.h"
link=$("$bin/oshcc" --showme:link)
[[ $link == *-ltdist_runtime* && $link == *-Wl,-rpath,* ]] || fail "--showme:link lacks the runtime: $link"

shown=$(TDIST_CC=gcc "$bin/oshcc" --showme -O3 -DGREETING=1 hello.c -o hello)
[[ $shown == "gcc $compile -O3 -DGREETING=1 hello.c -o hello $link" ]] || fail "--showme: $shown"
shown=$("$bin/oshcc" --showme -c hello.c)
[[ $shown != *-ltdist_runtime* ]] || fail "a compile-only command links: $shown"
shown=$(TDIST_CXX=g++ "$bin/oshc++" --showme hello.cpp)
[[ $shown == "g++ $compile hello.cpp $link" ]] || fail "oshc++ --showme: $shown"
if "$bin/oshcc" 2>"$scratch/err"; then fail "no input files succeeded"; fi
grep -q "no input files" "$scratch/err" || fail "no message without input files"
if "$bin/oshcc" --showme:nonsense 2>"$scratch/err"; then fail "an unknown --showme succeeded"; fi

cat >"$scratch/hello.c" <<'C'
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>

int main(void) {
  shmem_init();
  long *word = shmem_malloc(sizeof(long));
  *word = 0;
  shmem_barrier_all();
  shmem_long_atomic_add(word, shmem_my_pe() + 1, 0);
  shmem_barrier_all();
  if (shmem_my_pe() == 0) {
    printf("%s sum %ld heap %s\n", GREETING, *word, shmemx_heap_size() > 0 && shmemx_heap_base() ? "ok" : "none");
  }
  shmem_finalize();
  return 0;
}
C
(cd "$scratch" && "$bin/oshcc" -O2 '-DGREETING="hello"' hello.c -o hello)
out=$("$bin/oshrun" -np 3 "$scratch/hello")
[[ $out == "hello sum 6 heap ok" ]] || fail "the C program printed: $out"

cat >"$scratch/hello.cpp" <<'CPP'
#include <shmem.h>

#include <cstdio>
#include <vector>

int main() {
  shmem_init();
  auto *values = static_cast<int *>(shmem_malloc(2 * sizeof(int)));
  values[0] = shmem_my_pe() + 1;
  std::vector<int> expect(1, 0);
  for (int pe = 0; pe < shmem_n_pes(); ++pe) expect[0] += pe + 1;
  if (shmem_int_sum_reduce(SHMEM_TEAM_WORLD, values + 1, values, 1) != 0 || values[1] != expect[0]) return 1;
  if (shmem_my_pe() == 0) std::printf("c++ sum %d\n", values[1]);
  shmem_finalize();
  return 0;
}
CPP
"$bin/oshc++" -std=c++17 -O2 "$scratch/hello.cpp" -o "$scratch/hello-cpp"
out=$("$bin/oshrun" -np 2 "$scratch/hello-cpp")
[[ $out == "c++ sum 3" ]] || fail "the C++ program printed: $out"
echo "oshcc_test: oshcc and oshc++ of $bin build programs that run under its oshrun"
