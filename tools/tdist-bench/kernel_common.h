// kernel_common.h - what the kernel library's cases share (kernel_cases.cpp defines it; the cuda
// cases in cuda/ use it too): their inputs, their exact checks, and the slowest PE's samples.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "report.h"
#include "tdist/runtime.h"

namespace tdist::bench {

// Collective inputs: multiples of 1/4 in -2 .. 2, different on every PE and element, so that
// every sum of up to 64 of them is exact in f32 and in bf16 whatever its order.
float collectiveValue(int pe, std::size_t i);
// What an all_reduce of `count` collectiveValue elements on n_pes PEs holds in `dtype`: the
// PE-order sum, rounded once.
std::vector<float> allReduceExpected(int n_pes, std::size_t count, DType dtype);

// Throws on this PE when got differs from expected anywhere (main then ends the job).
void requireEqual(const std::string &what, const std::vector<float> &got, const std::vector<float> &expected);

// Each PE's samples (one per repeat) -> on PE 0, each repeat's maximum over the PEs. Collective.
std::vector<double> slowestPe(const std::vector<double> &mine);

// A RESULT row of µs samples (PE 0's context switches: 0 where not counted).
Result rowResult(const char *case_name, const std::string &variant, std::size_t size, long iters,
                 const std::vector<double> &us, long vcsw, long ivcsw);

}  // namespace tdist::bench
