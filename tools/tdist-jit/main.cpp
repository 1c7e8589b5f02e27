// tdist-jit: runs one PE's share of an MLIR kernel (see runner_options.cpp for the usage).
//
// Every PE compiles the module itself, before the runtime starts: a kernel that does not
// compile fails alike everywhere and costs no bootstrap. Such errors are printed by every PE,
// since tdist-run ends the job when the first PE exits and the others may never get to print. Then the PEs allocate the arguments
// collectively, synchronise, launch the grid, synchronise again and check the results; PE 0
// prints one summary line per check for the whole job.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tdist/error.h"
#include "tdist/launch.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"
#include "tools/tdist-jit/args/kernel_args.h"
#include "tools/tdist-jit/gpu_kernel.h"
#include "tools/tdist-jit/kernel_binding.h"
#include "tools/tdist-jit/kernel_cache.h"
#include "tools/tdist-jit/kernel_compiler.h"
#include "tools/tdist-jit/runner_options.h"

namespace {

using namespace tdist::jit;

constexpr int kExitError = 1;
constexpr int kExitUsage = 2;
constexpr int kExitCompile = 3;
constexpr int kExitCheckFailed = 4;

void fail(const std::string &message) { std::fprintf(stderr, "tdist-jit: %s\n", message.c_str()); }

struct Job {
  std::vector<ArgumentSpec> specs;
  std::vector<Check> checks;
};

Job parseJob(const RunnerOptions &options) {
  Job job;
  for (const std::string &text : options.arguments) job.specs.push_back(parseArgument(text));
  auto requireBuffer = [&](int index, const std::string &what) {
    if (index < 0 || index >= static_cast<int>(job.specs.size()) || !job.specs[index].buffer) {
      throw ArgumentError(what + ": argument " + std::to_string(index) +
                          " is not a buffer argument of this run");
    }
  };
  for (const std::string &text : options.checks) {
    job.checks.push_back(parseCheck(text));
    requireBuffer(job.checks.back().argument, "--check " + text);
  }
  for (int index : options.prints) requireBuffer(index, "--print " + std::to_string(index));
  return job;
}

// Checks this PE's buffers; PE 0 then prints, for each check, on which PEs it failed.
bool runChecks(const Job &job, const RunnerOptions &options, const KernelBinding &binding,
               Context context) {
  if (job.checks.empty()) return true;
  // Which checks failed here, published on the heap (through the binding's access to it: on cuda
  // it is GPU memory) for PE 0 to read every PE's.
  const std::size_t flag_bytes = job.checks.size() * sizeof(std::int32_t);
  void *published = tdist::allocateZeroed(job.checks.size(), sizeof(std::int32_t));
  std::vector<std::int32_t> failed(job.checks.size(), 0);
  bool ok = true;
  for (std::size_t c = 0; c < job.checks.size(); ++c) {
    const Check &check = job.checks[c];
    const ResolvedArgument &argument = binding.argument(check.argument);
    Tolerance tolerance = Tolerance::defaultFor(argument.dtype);
    if (options.rtol) tolerance.rtol = *options.rtol;
    if (options.atol) tolerance.atol = *options.atol;
    try {
      const Tensor expected = expectedValues(check, job.specs, context);
      const CheckReport report = compare(argument, binding.data(check.argument), expected, tolerance);
      if (!report.ok()) {
        std::fprintf(stderr, "tdist-jit: PE %d: check '%s' failed: %s\n", context.rank,
                     check.text.c_str(), report.details.c_str());
        failed[c] = 1;
      }
    } catch (const ArgumentError &error) {
      std::fprintf(stderr, "tdist-jit: PE %d: check '%s': %s\n", context.rank,
                   check.text.c_str(), error.what());
      failed[c] = 1;
    }
    ok = ok && failed[c] == 0;
  }
  binding.access().write(published, failed.data(), flag_bytes);
  tdist::shmem::barrier_all();
  if (context.rank == 0) {
    std::vector<std::vector<std::int32_t>> flags(context.npes, std::vector<std::int32_t>(job.checks.size()));
    for (int pe = 0; pe < context.npes; ++pe)
      binding.access().read(flags[pe].data(), tdist::peerPointer(published, pe), flag_bytes);
    for (std::size_t c = 0; c < job.checks.size(); ++c) {
      std::string failing;
      for (int pe = 0; pe < context.npes; ++pe) {
        if (flags[pe][c] != 0) failing += (failing.empty() ? "" : ", ") + std::to_string(pe);
      }
      if (failing.empty()) {
        std::printf("check '%s': passed on %s\n", job.checks[c].text.c_str(),
                    context.npes == 1 ? "the PE" : ("all " + std::to_string(context.npes) + " PEs").c_str());
      } else {
        std::printf("check '%s': FAILED on PE %s\n", job.checks[c].text.c_str(), failing.c_str());
      }
    }
    std::fflush(stdout);
  }
  tdist::shmem::barrier_all();
  tdist::deallocate(published);
  return ok;
}

// Prints the requested buffers PE by PE.
void printBuffers(const RunnerOptions &options, const KernelBinding &binding, Context context) {
  for (int index : options.prints) {
    for (int pe = 0; pe < context.npes; ++pe) {
      if (pe == context.rank) {
        std::printf("PE %d, argument %d: %s\n", pe, index,
                    formatBuffer(binding.argument(index), binding.data(index)).c_str());
        std::fflush(stdout);
      }
      tdist::shmem::barrier_all();
    }
  }
}

void reportTimes(const RunnerOptions &options, Context context, std::vector<double> times) {
  std::printf("%s: ran on %d PE%s with %d program%s each", options.entry.c_str(), context.npes,
              context.npes == 1 ? "" : "s", options.grid.size(), options.grid.size() == 1 ? "" : "s");
  if (times.size() == 1) {
    std::printf(", %.3f ms on PE 0\n", times.front());
  } else {
    std::sort(times.begin(), times.end());
    const std::size_t mid = times.size() / 2;
    const double median = times.size() % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
    std::printf(": median %.3f ms, min %.3f ms over %zu runs on PE 0\n", median, times.front(),
                times.size());
  }
  std::fflush(stdout);
}

// Every PE compiled the same module: PE 0 reports what did not stop it, and how long it took.
void reportCompilation(const CompiledKernel &kernel, const RunnerOptions &options) {
  if (!kernel.warnings().empty()) {
    std::fprintf(stderr, "%s", kernel.warnings().c_str());
    std::fflush(stderr);
  }
  const CompileTimes &times = kernel.times();
  if (options.verbose && times.parse_ms + times.lower_ms + times.jit_ms > 0) {  // none: from the cache
    std::printf("%s: compiled in %.1f ms (parse %.1f, lower %.1f, JIT %.1f) at -O%d\n",
                options.entry.c_str(), times.parse_ms + times.lower_ms + times.jit_ms,
                times.parse_ms, times.lower_ms, times.jit_ms, options.opt_level);
    std::fflush(stdout);
  }
}

// The kernel for the backend the runtime will start. On cuda it comes from the kernel cache
// where the cache holds it (kernel_cache.h), else it is compiled and kept there; `note` says
// which, for --verbose and --compile-only.
std::unique_ptr<CompiledKernel> kernelFor(const CompileOptions &compile, std::string *note) {
  if (compile.backend != Backend::Cuda) {
#if TDIST_JIT_COMPILER
    return CompiledKernel::compile(compile);
#else
    throw CompileError("this tdist-jit was built without the compiler (no MLIR where it was built): it runs "
                       "kernels on the cuda backend from the kernel cache only (docs/IR_KERNELS.md)");
#endif
  }
  const std::string directory = kernelCacheDirectory();
  std::string key;
  if (compile.path != "-" && !directory.empty()) {
    std::ifstream in(compile.path, std::ios::binary);
    if (!in) throw CompileError("cannot read " + compile.path + ": " + std::strerror(errno));
    const std::string source{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    key = kernelCacheKey(compile, source);
    if (std::unique_ptr<CompiledKernel> cached = loadCachedKernel(directory, key)) {
      *note = "taken from the kernel cache: " + directory + "/" + key + ".tdk";
      return cached;
    }
  }
#if TDIST_JIT_COMPILER
  std::unique_ptr<CompiledKernel> kernel = CompiledKernel::compile(compile);
  if (!key.empty()) {
    try {
      *note = "compiled, kept in the kernel cache: " + storeCachedKernel(directory, key, *kernel);
    } catch (const CompileError &error) {
      *note = std::string("compiled, not kept: ") + error.what();
    }
  }
  return kernel;
#else
  throw CompileError(compile.path + " (entry " + compile.entry + ") is not in the kernel cache" +
                     (directory.empty() ? " (there is none: set TDIST_KERNEL_CACHE)" : " " + directory) +
                     ", and this tdist-jit was built without the compiler: compile it where tdist-jit has one "
                     "(TDIST_BACKEND=cuda tdist-jit --compile-only --entry " + compile.entry + " " + compile.path +
                     ") and copy the cache here (docs/IR_KERNELS.md)");
#endif
}

// The grid on this PE: programs on the PE's cores (cpu), or blocks on its GPU (cuda), done when
// this returns.
using Launcher = std::function<void(KernelBinding &)>;

Launcher launcherFor(const CompiledKernel &kernel, const RunnerOptions &options) {
  if (kernel.cubin().empty())
    return [&kernel, grid = options.grid](KernelBinding &binding) {
      tdist::launch(grid, [&] { kernel.invoke(binding.packed()); });
    };
#if TDIST_JIT_CUDA
  auto gpu = std::make_shared<GpuKernel>(kernel.cubin(), options.entry);
  return [gpu, &kernel, grid = options.grid](KernelBinding &binding) {
    gpu->launch(grid, kernel.parameters(), binding.packed());
  };
#else
  throw tdist::Error(tdist::ErrorCode::NotSupported, "this tdist-jit was built without the cuda backend");
#endif
}

HeapAccess heapAccessFor(const CompiledKernel &kernel) {
#if TDIST_JIT_CUDA
  if (!kernel.cubin().empty()) return deviceHeap();
#endif
  return hostHeap();
}

int runKernel(const CompiledKernel &kernel, const Job &job, const RunnerOptions &options, const std::string &note) {
  const Context context{tdist::myPe(), tdist::nPes()};
  if (context.rank == 0) reportCompilation(kernel, options);
  if (context.rank == 0 && options.verbose && !note.empty()) std::printf("%s: %s\n", options.entry.c_str(), note.c_str());
  const Launcher launch = launcherFor(kernel, options);
  KernelBinding binding(kernel.parameters(), job.specs, context, heapAccessFor(kernel));
  std::vector<double> times;
  for (int run = 0; run < options.repeat; ++run) {
    if (run > 0) binding.refill(job.specs, context);
    // Every PE's buffers hold their initial values before any program touches them.
    tdist::shmem::barrier_all();
    const auto started = std::chrono::steady_clock::now();
    launch(binding);
    // Every PE's programs are done and their transfers have landed.
    tdist::shmem::barrier_all();
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count());
  }
  if (context.rank == 0) reportTimes(options, context, times);
  binding.download();
  const bool ok = runChecks(job, options, binding, context);
  printBuffers(options, binding, context);
  return ok ? 0 : kExitCheckFailed;
}

}  // namespace

int main(int argc, char **argv) {
  RunnerOptions options;
  Job job;
  try {
    options = parseRunnerOptions(argc, argv);
    if (options.help) {
      std::fputs(runnerUsage().c_str(), stdout);
      return 0;
    }
    // Descriptions are parsed first: a typo costs no compilation.
    job = parseJob(options);
  } catch (const UsageError &error) {
    fail(std::string(error.what()) + " (tdist-jit --help shows the usage)");
    return kExitUsage;
  } catch (const ArgumentError &error) {
    fail(error.what());
    return kExitUsage;
  }

  std::unique_ptr<CompiledKernel> kernel;
  std::string note;
  try {
    // tdist-run --trace gives every PE the folder of its event files: spans are compiled in
    // only then, so that an untraced kernel has no span calls at all.
    const char *trace_dir = std::getenv("TDIST_TRACE_DIR");
    const bool traced = trace_dir != nullptr && *trace_dir != '\0';
    // The backend the runtime will start (tdist-run --backend sets it for every PE): the
    // kernel is compiled for it before the runtime starts.
    const char *backend = std::getenv("TDIST_BACKEND");
    const bool cuda = backend != nullptr && std::string_view(backend) == "cuda";
    kernel = kernelFor(CompileOptions{.path = options.kernel_path,
                                      .entry = options.entry,
                                      .backend = cuda ? Backend::Cuda : Backend::Cpu,
                                      .inject_barrier_all = options.inject_barrier_all,
                                      .opt_level = options.opt_level,
                                      .trace_spans = options.trace_spans && traced},
                       &note);
  } catch (const CompileError &error) {
    fail(error.what());
    return kExitCompile;
  }
  if (options.compile_only) {
    reportCompilation(*kernel, options);
    std::printf("%s: %s\n", options.entry.c_str(), note.empty() ? "compiled" : note.c_str());
    return 0;
  }

  try {
    tdist::init(tdist::attrFromEnvironment());
  } catch (const tdist::Error &error) {
    fail(error.what());
    return kExitError;
  }
  int status = 0;
  try {
    status = runKernel(*kernel, job, options, note);
  } catch (const ArgumentError &error) {
    fail("PE " + std::to_string(tdist::myPe()) + ": " + error.what());
    std::fflush(stderr);
    std::_Exit(kExitUsage);   // the other PEs may be inside a collective call: do not finalize
  } catch (const tdist::Error &error) {
    fail("PE " + std::to_string(tdist::myPe()) + ": " + error.what());
    std::fflush(stderr);
    std::_Exit(kExitError);
  }
  tdist::finalize();
  return status;
}
