// tools/tdist-jit/kernel_compiler.h - from an MLIR file to a callable kernel entry.
//
// The kernel is parsed, checked, lowered by tdist-cpu-pipeline (distributed ops become calls
// of the device template library's link names) and JIT-compiled with MLIR's ExecutionEngine.
// Every external symbol the lowered module calls is checked before compilation: a call the
// device library cannot serve is reported with the location of the op that needs it.
// For the cuda backend the kernel is compiled by tdist-cuda-pipeline instead, to a cubin that
// links the device library's bitcode (which checks the calls as well); GpuKernel loads it.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace mlir {
class ExecutionEngine;
}

namespace tdist::jit {

// A parse, verification, lowering or JIT failure; what() holds the diagnostics.
struct CompileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One parameter of the entry function, as the runner needs to bind it.
struct KernelParameter {
  enum class Kind { Scalar, MemRef };
  Kind kind = Kind::Scalar;
  std::string type;                  // the MLIR spelling, for messages
  std::string element;               // element (or scalar) type: i32, ui32, index, f32, ...
  std::vector<std::int64_t> shape;   // memref only; kDynamicSize where dynamic
  static constexpr std::int64_t kDynamicSize = -1;
};

enum class Backend { Cpu, Cuda };

struct CompileOptions {
  std::string path;                  // the .mlir file; "-" reads standard input
  std::string entry;                 // the kernel function
  Backend backend = Backend::Cpu;    // cuda: a cubin of tdist-cuda-pipeline, not a JIT entry
  bool inject_barrier_all = false;   // distributed-inject-barrier-all before lowering
  int opt_level = 2;                 // LLVM optimization level, 0..3
  bool trace_spans = false;          // tdist-trace-spans: linalg ops and marked ops as trace spans
};

// Where compilation spent its time, in milliseconds.
struct CompileTimes {
  double parse_ms = 0;
  double lower_ms = 0;   // tdist-cpu-pipeline and the symbol check; on cuda the whole pipeline
  double jit_ms = 0;     // LLVM optimization and code generation (none on cuda)
};

class CompiledKernel {
 public:
  // Throws CompileError. Not in a tdist-jit built without the compiler (TDIST_JIT_COMPILER 0).
  static std::unique_ptr<CompiledKernel> compile(const CompileOptions &options);
  // A cuda kernel compiled before (kernel_cache.h): its parameters and cubin.
  static std::unique_ptr<CompiledKernel> prebuilt(std::vector<KernelParameter> parameters, std::string cubin);

  const std::vector<KernelParameter> &parameters() const { return parameters_; }
  const CompileTimes &times() const { return times_; }
  // Warnings of the compilation, with their source lines; empty when there were none.
  const std::string &warnings() const { return warnings_; }
  // args[i] points at parameter i's value: a scalar of its type, or a pointer to a memref
  // descriptor (MLIR's C interface). Safe to call from many programs at once. cpu only.
  void invoke(void **args) const { entry_(args); }
  // The cuda backend's kernel: a cubin whose kernel has the entry's name; empty on cpu.
  const std::string &cubin() const { return cubin_; }

 private:
  CompiledKernel() = default;
  // Deleted by a function of kernel_compiler.cpp, so that this header's users need no MLIR.
  std::unique_ptr<mlir::ExecutionEngine, void (*)(mlir::ExecutionEngine *)> engine_{nullptr, nullptr};
  std::vector<KernelParameter> parameters_;
  CompileTimes times_;
  std::string warnings_;
  void (*entry_)(void **) = nullptr;
  std::string cubin_;
};

}  // namespace tdist::jit
