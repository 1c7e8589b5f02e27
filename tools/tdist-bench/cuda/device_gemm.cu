// device_gemm.cu - DeviceGemm: one cuBLASLt matmul of a whole row-major shape (device_gemm.h).
#include "cuda/device_gemm.h"

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include "cuda/gpu.cuh"

namespace tdist::bench {
namespace {

constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;  // as kernels/cuda/cublaslt_plan.h

void checkLt(cublasStatus_t status, const char *what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("DeviceGemm: ") + what + ": cuBLASLt status " + std::to_string(int(status)) +
                             " (" + cublasLtGetStatusString(status) + ")");
}

}  // namespace

struct DeviceGemm::State {
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;  // of the column-major C^T = B^T A^T
  cublasLtMatmulAlgo_t algo{};
  void *workspace = nullptr;
  cudaStream_t stream = nullptr;

  ~State() {
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (desc) cublasLtMatmulDescDestroy(desc);
    if (handle) cublasLtDestroy(handle);
    if (workspace) cudaFree(workspace);
  }
};

DeviceGemm::DeviceGemm(long m, long n, long k, DType dtype, void *stream) : state_(std::make_unique<State>()) {
  if (dtype != DType::F32 && dtype != DType::BF16)
    throw std::invalid_argument(std::string("DeviceGemm: no GEMM of dtype ") + dtypeName(dtype));
  State &s = *state_;
  s.stream = static_cast<cudaStream_t>(stream);
  const cudaDataType_t type = dtype == DType::BF16 ? CUDA_R_16BF : CUDA_R_32F;
  checkLt(cublasLtCreate(&s.handle), "cublasLtCreate");
  checkLt(cublasLtMatmulDescCreate(&s.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
  // Column-major C^T [n, m] = B^T [n, k] x A^T [k, m]: row-major B, A and C as they lie.
  checkLt(cublasLtMatrixLayoutCreate(&s.a, type, n, k, n), "layout of B");
  checkLt(cublasLtMatrixLayoutCreate(&s.b, type, k, m, k), "layout of A");
  checkLt(cublasLtMatrixLayoutCreate(&s.c, type, n, m, n), "layout of C");
  gpu::check(cudaMalloc(&s.workspace, kWorkspaceBytes), "cudaMalloc(workspace)");
  cublasLtMatmulPreference_t preference = nullptr;
  checkLt(cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate");
  const std::size_t workspace = kWorkspaceBytes;
  cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                       sizeof workspace);
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  const cublasStatus_t status =
      cublasLtMatmulAlgoGetHeuristic(s.handle, s.desc, s.a, s.b, s.c, s.c, preference, 1, &result, &found);
  cublasLtMatmulPreferenceDestroy(preference);
  checkLt(status, "cublasLtMatmulAlgoGetHeuristic");
  if (found == 0) throw std::runtime_error("DeviceGemm: cuBLASLt has no algorithm for the shape");
  s.algo = result.algo;
}

DeviceGemm::~DeviceGemm() = default;

void DeviceGemm::run(const void *a, const void *b, void *c) {
  State &s = *state_;
  const float alpha = 1.0f, beta = 0.0f;
  checkLt(cublasLtMatmul(s.handle, s.desc, &alpha, b, s.a, a, s.b, &beta, c, s.c, c, s.c, &s.algo, s.workspace,
                         kWorkspaceBytes, s.stream),
          "cublasLtMatmul");
}

DeviceMemory::DeviceMemory(std::size_t bytes) { gpu::check(cudaMalloc(&data_, bytes ? bytes : 1), "cudaMalloc"); }
DeviceMemory::~DeviceMemory() { cudaFree(data_); }

}  // namespace tdist::bench
