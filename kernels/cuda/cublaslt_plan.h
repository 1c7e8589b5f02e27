// kernels/cuda/cublaslt_plan.h - cuBLASLt matmuls of one shape, planned once: descriptors, the
// heuristic's first few algorithms and the fastest of them as timed once; and the per-device cache
// of plans the GEMM bodies use (ag_gemm.cu, gemm_rs.cu). tdist-bench's cuda-gemm-chunks plans its
// chunk GEMMs with the same code (tools/tdist-bench/cuda/gemm_chunks.cu), so that it measures what
// the bodies run.
//
// Row-major C = A x B is cuBLASLt's column-major C^T = B^T A^T: its (m, n, k) = (n, rows, k), its A
// is our B (ld ldb), its B our A (ld lda), its C and D our C (ld ldc). f32 accumulation
// (CUBLAS_COMPUTE_32F) for bf16 and f32 alike, f32 scales.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <tuple>
#include <vector>

#define TDIST_CUBLASLT_PLAN_API __attribute__((visibility("default")))

namespace tdist::kernels::cuda::lt {

constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;  // cuBLASLt workspace of a matmul

// Throws Error(Internal) "<what>: cuBLASLt status <n> (<name>)" unless status is success.
TDIST_CUBLASLT_PLAN_API void checkLt(cublasStatus_t status, const char *what);

// The largest power of two up to 256 that divides the address (cuBLASLt's alignment preferences).
TDIST_CUBLASLT_PLAN_API unsigned alignmentOf(const void *p);

// One GEMM shape, row-major: C[rows, n] = A[rows, k] x B[k, n], with its types, leading dimensions
// and the alignments of its pointers (which the heuristic's choice depends on).
struct GemmShape {
  cudaDataType_t ab = CUDA_R_16BF;  // A and B
  cudaDataType_t cd = CUDA_R_16BF;  // C (= D)
  std::int64_t rows = 0, n = 0, k = 0;
  std::int64_t lda = 0, ldb = 0, ldc = 0;
  unsigned align_a = 0, align_b = 0, align_c = 0;
  auto key() const { return std::tie(ab, cd, rows, n, k, lda, ldb, ldc, align_a, align_b, align_c); }
  bool operator<(const GemmShape &other) const { return key() < other.key(); }
};

// cuBLASLt's algorithm type is an unnamed struct, whose destructor in a std::vector nvcc 13.0's
// front end fails on (an internal error): a named wrapper avoids it.
struct Algo {
  cublasLtMatmulAlgo_t algo;
};

// The matmul of one shape: descriptors, the heuristic's first few algorithms, best first, and the
// one calls use (the first, until timeCandidates picked the fastest).
struct Plan {
  GemmShape shape;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t layout_a = nullptr;  // column-major view: B^T [n, k]
  cublasLtMatrixLayout_t layout_b = nullptr;  // A^T [k, rows]
  cublasLtMatrixLayout_t layout_c = nullptr;  // C^T [n, rows]
  std::vector<Algo> candidates;
  cublasLtMatmulAlgo_t algo{};
  bool timed = false;  // algo is the fastest candidate, as timed once (or the only one)
  Plan() = default;
  Plan(const Plan &) = delete;
  Plan &operator=(const Plan &) = delete;
  TDIST_CUBLASLT_PLAN_API ~Plan();
};

// Plans `shape` with up to `candidates` of the heuristic's algorithms (for kWorkspaceBytes of
// workspace); throws Error(NotSupported) when cuBLASLt has none.
TDIST_CUBLASLT_PLAN_API std::unique_ptr<Plan> makePlan(cublasLtHandle_t handle, const GemmShape &shape,
                                                       int candidates);

// C = A x B with candidate `algo` of the plan (plan.algo: the chosen one) on stream s; the
// pointers are of the plan's shape and alignments.
TDIST_CUBLASLT_PLAN_API cublasStatus_t matmul(cublasLtHandle_t handle, const Plan &plan,
                                              const cublasLtMatmulAlgo_t &algo, const void *a, const void *b,
                                              void *c, void *workspace, cudaStream_t s);

// Times every candidate once on operands of its own on a private stream (so the host waits for
// nothing that a peer may hold up) and makes the fastest the plan's algo. Where that cannot be
// done (memory, a failed run) the heuristic's first stays. Not while a stream is captured.
void timeCandidates(cublasLtHandle_t handle, Plan &plan);

// The plans of this process's GPUs, each GPU's with its own cuBLASLt handle, kept for the process
// (CUDA objects must not be destroyed at static destruction, after the runtime may be gone).
// Thread-safe. The plan of a shape is made at its first use (host-only: also while stream s, the
// one it runs on, is captured); its candidates are timed at its first use while s is not
// captured, so a shape's first call should come before the capture of one.
struct PlanFor {
  cublasLtHandle_t handle = nullptr;
  const Plan *plan = nullptr;
};
PlanFor planFor(int device, const GemmShape &shape, cudaStream_t s);

}  // namespace tdist::kernels::cuda::lt
