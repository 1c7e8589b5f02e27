// kernel_common.h - what the kernel library's cases share (kernel_common.cpp defines it; the cuda
// cases in cuda/ and tdist-tune use it too): their inputs, their exact checks, checked rows timed
// alternately, and the slowest PE's samples.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "report.h"
#include "tdist/kernels/context.h"
#include "tdist/runtime.h"

namespace tdist::bench {

// Collective inputs: multiples of 1/4 in -2 .. 2, different on every PE and element, so that
// every sum of up to 64 of them is exact in f32 and in bf16 whatever its order.
float collectiveValue(int pe, std::size_t i);
// What an all_reduce of `count` collectiveValue elements on n_pes PEs holds in `dtype`: the
// PE-order sum, rounded once.
std::vector<float> allReduceExpected(int n_pes, std::size_t count, DType dtype);

// GEMM inputs: integers in -2 .. 2 of the global A [m, k] and B [k, n] (every product sum exact).
float aValue(long row, long col);
float bValue(long row, long col);
// c = a x b, row-major f32 (OpenBLAS), for the references and the cpu GEMM-alone rows.
void sgemm(long m, long n, long k, const float *a, const float *b, float *c);
// Keeps the compiler from dropping a GEMM whose output nothing reads.
void keepWritten(void *buffer);

// Throws on this PE when got differs from expected anywhere (main then ends the job).
void requireEqual(const std::string &what, const std::vector<float> &got, const std::vector<float> &expected);

// Each PE's samples (one per repeat) -> on PE 0, each repeat's maximum over the PEs. Collective.
std::vector<double> slowestPe(const std::vector<double> &mine);

// A RESULT row of µs samples (PE 0's context switches: 0 where not counted).
Result rowResult(const char *case_name, const std::string &variant, std::size_t size, long iters,
                 const std::vector<double> &us, long vcsw, long ivcsw);

// One measured operation: its samples (us per call) and PE 0's context switches.
struct Row {
  std::string variant;
  std::vector<double> us;
  long vcsw = 0, ivcsw = 0;
  std::function<void()> call;  // one call of the measured operation (collective)
};

// Adds `row` to `rows` after checking it: output zeroed, one collective call, every element
// against `expected` (exact).
void addCheckedRow(std::vector<Row> &rows, Row row, tdist::kernels::Context &ctx, const Tensor &output,
                   const std::vector<float> &expected, const std::string &what);

// Collective: `warmup` calls of every row, then `repeats` rounds in which each row in turn makes
// `iters` calls between a barrier and ctx.synchronize() (so every row sees the same machine), in turn
// forward on even rounds and backward on odd ones (no row always first).
// Returns each row's samples, on PE 0 the slowest PE's per repeat (slowestPe).
std::vector<std::vector<double>> timeAlternately(tdist::kernels::Context &ctx, std::vector<Row> &rows, long warmup,
                                                 int repeats, long iters);

}  // namespace tdist::bench
