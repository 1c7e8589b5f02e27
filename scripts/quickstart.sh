#!/usr/bin/env bash
# The main job: installs what is missing, builds, runs the C++ demo on 4 CPU PEs (the one-shot
# AllReduce from primitives, then the kernel library's all_reduce of 4 MiB and all_gather_gemm,
# each checked on every PE), runs MPI_Allreduce on the same data beside it when mpirun is there,
# then compiles and runs the ring AllReduce written in the distributed MLIR dialect, checked on
# every PE, and last the Python tour (examples/python/host_tour.py) on 4 PEs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
build="${TDIST_BUILD_DIR:-build}"
demo_log=$(mktemp)
trap 'rm -f "$demo_log"' EXIT
"$build/bin/tdist-run" -n 4 -- "$build/bin/tdist-demo" | tee "$demo_log"

# The same 4 MiB of f32 per PE, the same values, through MPI_Allreduce (bench/mpi/): 3 repeats
# of 20 calls, the median of the slowest rank's time per call.
tdist_ms=$(sed -n 's/^tdist-demo: library all_reduce .*: \([0-9.]*\) ms per call.*/\1/p' "$demo_log")
peer="$build/bin/tdist-mpi-peer"
if command -v mpirun >/dev/null && [ -x "$peer" ]; then
  mpirun_flags=(--oversubscribe)
  [ "$(id -u)" = 0 ] && mpirun_flags+=(--allow-run-as-root)
  mpi_us=$(mpirun "${mpirun_flags[@]}" -n 4 "$peer" allreduce --min-size 4M --max-size 4M \
             --iters 20 --repeats 3 --no-table | sed -n 's/^RESULT .* median_us=\([0-9.]*\).*/\1/p' || true)
  if [ -n "$mpi_us" ] && [ -n "$tdist_ms" ]; then
    awk -v t="$tdist_ms" -v m="$mpi_us" 'BEGIN {
      printf "quickstart: all_reduce of 4 MiB f32 per PE on 4 PEs: tdist %.3f ms, MPI_Allreduce %.3f ms per call (tdist/MPI %.2f)\n",
             t, m / 1000, t / (m / 1000) }'
  else
    echo "quickstart: MPI_Allreduce gave no time; tdist all_reduce ${tdist_ms:-?} ms" >&2
  fi
else
  echo "quickstart: no mpirun or $peer (Debian: apt-get install -y openmpi-bin libopenmpi-dev); MPI_Allreduce skipped"
fi

"$build/bin/tdist-run" -n 4 --entry ring_allreduce --grid 2 examples/ir/ring_allreduce.mlir -- \
  'f32[npes*4096]=random:1' 'f32[2*npes*4096]' 'i32[2*npes*2*16]' index=4096 i32=1 \
  --check '0=sum(arg(0))'

# Python: tensors on the symmetric heap, viewed through numpy, every PE's copy read by every PE.
if [ -d "$build/python/tdist" ]; then
  PYTHONPATH="$(cd "$build" && pwd)/python:$PWD/.deps/python${PYTHONPATH:+:$PYTHONPATH}" \
    "$build/bin/tdist-run" -n 4 -- python3 examples/python/host_tour.py
else
  echo "quickstart: the Python package was not built (no Python headers or nanobind); Python tour skipped"
fi
