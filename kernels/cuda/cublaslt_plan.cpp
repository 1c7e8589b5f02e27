// kernels/cuda/cublaslt_plan.cpp - cuBLASLt plans, their autotuning and their per-device cache
// (cublaslt_plan.h).
#include "kernels/cuda/cublaslt_plan.h"

#include <map>
#include <mutex>
#include <string>

#include "tdist/error.h"

namespace tdist::kernels::cuda::lt {
namespace {

constexpr int kCandidates = 4;  // cuBLASLt algorithms timed per GEMM shape of a body (docs/BENCHMARKS.md)

void setPreference(cublasLtMatmulPreference_t preference, cublasLtMatmulPreferenceAttributes_t attribute,
                   const void *value, std::size_t size) {
  checkLt(cublasLtMatmulPreferenceSetAttribute(preference, attribute, value, size),
          "cublasLtMatmulPreferenceSetAttribute");
}

std::size_t bytesOf(cudaDataType_t type) { return type == CUDA_R_16BF ? 2 : 4; }

struct DevicePlans {
  cublasLtHandle_t handle = nullptr;
  std::map<GemmShape, std::unique_ptr<Plan>> plans;
};

std::mutex plans_mutex;
std::map<int, DevicePlans *> &devicePlans() {
  static auto *plans = new std::map<int, DevicePlans *>();  // kept for the process
  return *plans;
}

}  // namespace

void checkLt(cublasStatus_t status, const char *what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw Error(ErrorCode::Internal, std::string(what) + ": cuBLASLt status " + std::to_string(int(status)) +
                                         " (" + cublasLtGetStatusString(status) + ")");
}

unsigned alignmentOf(const void *p) {
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  unsigned align = 256;
  while (align > 1 && address % align != 0) align /= 2;
  return align;
}

Plan::~Plan() {
  if (layout_a != nullptr) cublasLtMatrixLayoutDestroy(layout_a);
  if (layout_b != nullptr) cublasLtMatrixLayoutDestroy(layout_b);
  if (layout_c != nullptr) cublasLtMatrixLayoutDestroy(layout_c);
  if (op != nullptr) cublasLtMatmulDescDestroy(op);
}

std::unique_ptr<Plan> makePlan(cublasLtHandle_t handle, const GemmShape &shape, int candidates) {
  auto fresh = std::make_unique<Plan>();
  fresh->shape = shape;
  checkLt(cublasLtMatmulDescCreate(&fresh->op, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
  const cublasOperation_t no_transpose = CUBLAS_OP_N;
  checkLt(cublasLtMatmulDescSetAttribute(fresh->op, CUBLASLT_MATMUL_DESC_TRANSA, &no_transpose, sizeof no_transpose),
          "cublasLtMatmulDescSetAttribute(TRANSA)");
  checkLt(cublasLtMatmulDescSetAttribute(fresh->op, CUBLASLT_MATMUL_DESC_TRANSB, &no_transpose, sizeof no_transpose),
          "cublasLtMatmulDescSetAttribute(TRANSB)");
  checkLt(cublasLtMatrixLayoutCreate(&fresh->layout_a, shape.ab, shape.n, shape.k, shape.ldb),
          "cublasLtMatrixLayoutCreate(B)");
  checkLt(cublasLtMatrixLayoutCreate(&fresh->layout_b, shape.ab, shape.k, shape.rows, shape.lda),
          "cublasLtMatrixLayoutCreate(A)");
  checkLt(cublasLtMatrixLayoutCreate(&fresh->layout_c, shape.cd, shape.n, shape.rows, shape.ldc),
          "cublasLtMatrixLayoutCreate(C)");

  cublasLtMatmulPreference_t preference = nullptr;
  checkLt(cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate");
  const std::uint64_t workspace = kWorkspaceBytes;
  setPreference(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof workspace);
  // cuBLASLt's A is our B, its B our A.
  const std::uint32_t align_a = shape.align_b, align_b = shape.align_a, align_c = shape.align_c;
  setPreference(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &align_a, sizeof align_a);
  setPreference(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &align_b, sizeof align_b);
  setPreference(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &align_c, sizeof align_c);
  setPreference(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &align_c, sizeof align_c);
  std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<std::size_t>(candidates));
  int found = 0;
  const cublasStatus_t status =
      cublasLtMatmulAlgoGetHeuristic(handle, fresh->op, fresh->layout_a, fresh->layout_b, fresh->layout_c,
                                     fresh->layout_c, preference, candidates, results.data(), &found);
  cublasLtMatmulPreferenceDestroy(preference);
  for (int i = 0; i < found; ++i)
    if (results[i].state == CUBLAS_STATUS_SUCCESS) fresh->candidates.push_back(Algo{results[i].algo});
  if (status != CUBLAS_STATUS_SUCCESS || fresh->candidates.empty())
    throw Error(ErrorCode::NotSupported,
                "cuBLASLt has no algorithm for a GEMM of " + std::to_string(shape.rows) + "x" +
                    std::to_string(shape.n) + "x" + std::to_string(shape.k) + " (status " +
                    std::to_string(int(status)) + ")");
  fresh->algo = fresh->candidates[0].algo;
  fresh->timed = fresh->candidates.size() == 1;
  return fresh;
}

cublasStatus_t matmul(cublasLtHandle_t handle, const Plan &plan, const cublasLtMatmulAlgo_t &algo, const void *a,
                      const void *b, void *c, void *workspace, cudaStream_t s) {
  const float alpha = 1.0f, beta = 0.0f;
  return cublasLtMatmul(handle, plan.op, &alpha, b, plan.layout_a, a, plan.layout_b, &beta, c, plan.layout_c, c,
                        plan.layout_c, &algo, workspace, kWorkspaceBytes, s);
}

void timeCandidates(cublasLtHandle_t handle, Plan &plan) {
  const GemmShape &shape = plan.shape;
  const std::size_t bytes_a = static_cast<std::size_t>(shape.rows) * shape.lda * bytesOf(shape.ab);
  const std::size_t bytes_b = static_cast<std::size_t>(shape.k) * shape.ldb * bytesOf(shape.ab);
  const std::size_t bytes_c = static_cast<std::size_t>(shape.rows) * shape.ldc * bytesOf(shape.cd);
  cudaStream_t s = nullptr;
  if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) return;
  void *a = nullptr, *b = nullptr, *c = nullptr, *workspace = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  bool ok = cudaMallocAsync(&a, bytes_a, s) == cudaSuccess && cudaMallocAsync(&b, bytes_b, s) == cudaSuccess &&
            cudaMallocAsync(&c, bytes_c, s) == cudaSuccess &&
            cudaMallocAsync(&workspace, kWorkspaceBytes, s) == cudaSuccess &&
            cudaMemsetAsync(a, 0, bytes_a, s) == cudaSuccess && cudaMemsetAsync(b, 0, bytes_b, s) == cudaSuccess &&
            cudaEventCreate(&start) == cudaSuccess && cudaEventCreate(&stop) == cudaSuccess;
  float best = 0.0f;
  for (std::size_t i = 0; ok && i < plan.candidates.size(); ++i) {
    auto run = [&] { return matmul(handle, plan, plan.candidates[i].algo, a, b, c, workspace, s) == CUBLAS_STATUS_SUCCESS; };
    if (!run()) continue;  // a candidate that does not run here is skipped
    float ms = 0.0f;
    ok = cudaEventRecord(start, s) == cudaSuccess && run() && run() && run() &&
         cudaEventRecord(stop, s) == cudaSuccess && cudaEventSynchronize(stop) == cudaSuccess &&
         cudaEventElapsedTime(&ms, start, stop) == cudaSuccess;
    if (ok && (best == 0.0f || ms < best)) {
      best = ms;
      plan.algo = plan.candidates[i].algo;
    }
  }
  for (void *buffer : {a, b, c, workspace})
    if (buffer != nullptr) cudaFreeAsync(buffer, s);
  cudaStreamSynchronize(s);
  if (start != nullptr) cudaEventDestroy(start);
  if (stop != nullptr) cudaEventDestroy(stop);
  cudaStreamDestroy(s);
  cudaGetLastError();  // a failure here only leaves the first choice
  if (!ok) plan.algo = plan.candidates[0].algo;
  plan.timed = true;
}

PlanFor planFor(int device, const GemmShape &shape, cudaStream_t s) {
  std::lock_guard<std::mutex> hold(plans_mutex);
  DevicePlans *&cache = devicePlans()[device];
  if (cache == nullptr) {
    auto fresh = std::make_unique<DevicePlans>();
    checkLt(cublasLtCreate(&fresh->handle), "cublasLtCreate");
    cache = fresh.release();
  }
  std::unique_ptr<Plan> &slot = cache->plans[shape];
  if (!slot) slot = makePlan(cache->handle, shape, kCandidates);
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  if (!slot->timed && cudaStreamIsCapturing(s, &capturing) == cudaSuccess && capturing == cudaStreamCaptureStatusNone)
    timeCandidates(cache->handle, *slot);
  return {cache->handle, slot.get()};
}

}  // namespace tdist::kernels::cuda::lt
