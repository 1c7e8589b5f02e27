// problems.h - what tdist-tune measures: one kernel at one size or shape (a Problem) with its
// tensors on the symmetric heap, the expected output, and its candidate configs.
//
// Every PE builds the same problems in the same order (building and freeing them is collective).
// The inputs and references are tdist-bench's (tools/tdist-bench/kernel_common.h): small multiples
// of 1/4 or small integers, so every sum is exact and a candidate's output must equal the
// reference bit for bit.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "options.h"
#include "tdist/kernels/context.h"
#include "tdist/kernels/tuning.h"
#include "tdist/runtime.h"

namespace tdist::tune {

// A config as the table writes it: field, value.
using Fields = std::vector<std::pair<std::string, std::string>>;

struct Candidate {
  Fields fields;
  std::function<void(tdist::kernels::Context &)> call;  // one call with this config, every field explicit
};

// Tensors of one problem, freed (collectively, in reverse order) with it.
class HeapTensors {
 public:
  HeapTensors() = default;
  HeapTensors(const HeapTensors &) = delete;
  HeapTensors &operator=(const HeapTensors &) = delete;
  ~HeapTensors();
  Tensor &make(std::vector<std::int64_t> shape, DType dtype);

 private:
  std::vector<std::unique_ptr<Tensor>> tensors_;
};

struct Problem {
  tdist::kernels::TuningEntry key;  // kernel, PEs and size (dtype, m, n, k): no fields
  std::string label;                // "all_reduce 64K", "all_gather_gemm f32 m=512 n=1024 k=512"
  long iters = 2;                   // calls per repeat
  std::vector<Candidate> candidates;
  std::function<void(tdist::kernels::Context &)> auto_call;  // the call with every field left Auto
  // The config auto_call resolves to on ctx (tdist::kernels::resolved_config), as fields.
  std::function<Fields(const tdist::kernels::Context &)> resolved;
  Tensor *output = nullptr;  // what a call writes, and what it must hold
  std::vector<float> expected;
  std::unique_ptr<HeapTensors> tensors = std::make_unique<HeapTensors>();
};

bool isGemm(const std::string &kernel);
// The problems of one kernel: one per size (collectives) or shape (GEMMs) of options.
std::size_t problemCount(const Options &options, const std::string &kernel);
Problem makeProblem(const Options &options, const std::string &kernel, std::size_t index);

// "algorithm=two-shot chunk_bytes=262144 programs=0".
std::string fieldsText(const Fields &fields);

}  // namespace tdist::tune
