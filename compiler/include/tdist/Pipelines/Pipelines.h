//===- Pipelines.h - named pass pipelines ---------------------------------===//
#ifndef TDIST_PIPELINES_PIPELINES_H
#define TDIST_PIPELINES_PIPELINES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include "tdist/Dialect/Distributed/IR/Distributed.h"

namespace mlir::tdist {

struct AscendPipelineOptions : public PassPipelineOptions<AscendPipelineOptions> {
  Option<bool> injectBarrierAll{
      *this, "inject-barrier-all",
      llvm::cl::desc("Surround every communicating distributed op with barrier_all, to tell "
                     "fine-grained synchronization bugs from others (the seeds' "
                     "--enable-hivm-inject-barrier-all-sync)"),
      llvm::cl::init(false)};
};

struct CpuPipelineOptions : public PassPipelineOptions<CpuPipelineOptions> {
  Option<bool> injectBarrierAll{
      *this, "inject-barrier-all",
      llvm::cl::desc("Surround every communicating distributed op with barrier_all before "
                     "lowering (the same debugging switch as the Ascend pipeline's)"),
      llvm::cl::init(false)};
  Option<bool> traceSpans{
      *this, "trace-spans",
      llvm::cl::desc("Record each linalg op and each op marked tdist.span as a span of the "
                     "job's trace (tdist-trace-spans); without it the marks are only checked"),
      llvm::cl::init(false)};
};

struct CudaPipelineOptions : public PassPipelineOptions<CudaPipelineOptions> {
  Option<bool> injectBarrierAll{
      *this, "inject-barrier-all",
      llvm::cl::desc("Surround every communicating distributed op with barrier_all before "
                     "lowering (the same debugging switch as the other pipelines')"),
      llvm::cl::init(false)};
  Option<std::string> chip{*this, "chip", llvm::cl::desc("The GPU to compile for"),
                           llvm::cl::init("sm_90a")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("What the gpu.module becomes: bin (a cubin, by ptxas), fatbin (cubin and PTX, "
                     "by ptxas and fatbinary), isa (the PTX), or nvvm (no binary: the gpu.module "
                     "in the LLVM and NVVM dialects)"),
      llvm::cl::init("bin")};
  Option<std::string> deviceLibrary{
      *this, "device-library",
      llvm::cl::desc("The device library's bitcode to link (libtdist_device.bc); by default "
                     "lib/libtdist_device.bc beside the directory of the running program"),
      llvm::cl::init("")};
  Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("The CUDA toolkit whose bin/ptxas makes the binary and whose libdevice is "
                     "linked; by default ptxas is looked for on PATH, then in CUDA_ROOT, "
                     "CUDA_HOME or CUDA_PATH"),
      llvm::cl::init("")};
};

/// The "ttir" stage of seed 001 §4.1: inline, canonicalize, cse, licm.
void buildTTIRStage(OpPassManager &pm);

/// The "ttadapter" stage up to where single-device compilation takes over:
/// convert-triton-distributed-to-hivm first (after the optional barrier
/// injection), as the only distributed insertion point.
void buildTTAdapterStage(OpPassManager &pm, const AscendPipelineOptions &options);

/// Both stages, then the marks of trace spans (`tdist.span`, a cpu-backend
/// feature) are checked and dropped: `tdist-ascend-pipeline`.
void buildAscendPipeline(OpPassManager &pm, const AscendPipelineOptions &options);

/// Lowers distributed + upstream dialects (func, arith, scf, memref, linalg,
/// math) to the LLVM dialect for the cpu backend: the ttir stage, then the
/// same ttadapter stage as Ascend (distributed ops become hivm.hir.custom, and
/// keep their span marks),
/// then convert-hivm-distributed-to-call (calls of the device template
/// library's link names), then tdist-trace-spans (which records spans only
/// with `trace-spans`), then upstream's lowering to LLVM. `tdist-cpu-pipeline`.
void buildCpuPipeline(OpPassManager &pm, const CpuPipelineOptions &options);

/// Compiles a kernel for the cuda backend: the same stages as the cpu
/// pipeline up to convert-hivm-distributed-to-call (calls of the template
/// library's link names) with the marks of trace spans dropped, then each
/// program of the grid as a thread block (tdist-map-programs-to-blocks),
/// upstream's lowering of linalg, memref, affine and scf, the functions in a
/// gpu.module whose public functions are kernels of one thread per block
/// (tdist-place-in-gpu-module), the NVVM target for `chip` with the device
/// library's bitcode to link, convert-gpu-to-nvvm, the module's calls checked
/// against the library (tdist-check-device-library), and gpu-module-to-binary
/// (unless `format` is nvvm). `tdist-cuda-pipeline`. Fails when `format` is
/// unknown or the device library is not found.
LogicalResult buildCudaPipeline(OpPassManager &pm, const CudaPipelineOptions &options,
                                function_ref<LogicalResult(const Twine &)> errorHandler);

/// The waits of `module` that the Ascend pipeline's stages (and so the cpu
/// pipeline, which starts with them) erase as dead code instead of lowering:
/// those whose token no operation that is kept uses, directly or through a
/// `consume_token`. A wait only reads memory, so MLIR removes it with its last
/// live use. Waits in private functions that nothing references are left out:
/// they never run. The stages run on a copy, and `module` is left unchanged;
/// when they fail on it, nothing is returned (the pipeline itself reports why).
SmallVector<triton::distributed::WaitOp> findWaitsRemovedAsDeadCode(ModuleOp module);

void registerPipelines();

} // namespace mlir::tdist

#endif // TDIST_PIPELINES_PIPELINES_H
