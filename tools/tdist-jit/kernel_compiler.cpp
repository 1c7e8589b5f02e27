// tools/tdist-jit/kernel_compiler.cpp - parse, lower and JIT-compile a kernel module.
#include "tools/tdist-jit/kernel_compiler.h"

#include <dlfcn.h>

#include <chrono>

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"

#include "tdist/Compiler/Registration.h"
#include "tdist/Dialect/Distributed/IR/Distributed.h"
#include "tdist/Pipelines/Pipelines.h"
#include "tdist/template_library.h"

namespace tdist::jit {

namespace {

using namespace mlir;

// Collects every diagnostic, with its source line, for the CompileError.
class Diagnostics {
 public:
  Diagnostics(llvm::SourceMgr &sources, MLIRContext &context)
      : stream_(text_), handler_(sources, &context, stream_) {}
  [[noreturn]] void fail(const std::string &what) {
    std::string message = what;
    if (!text_.empty()) message += ":\n" + text_;
    while (!message.empty() && message.back() == '\n') message.pop_back();
    throw CompileError(message);
  }
  // What was reported without failing (warnings), and forgets it.
  std::string take() {
    std::string taken;
    std::swap(taken, text_);
    return taken;
  }

 private:
  std::string text_;
  llvm::raw_string_ostream stream_;
  SourceMgrDiagnosticHandler handler_;
};

void registerDialects(DialectRegistry &registry) {
  registry.insert<arith::ArithDialect, cf::ControlFlowDialect, func::FuncDialect,
                  LLVM::LLVMDialect, linalg::LinalgDialect, math::MathDialect,
                  memref::MemRefDialect, scf::SCFDialect, tensor::TensorDialect>();
  func::registerInlinerExtension(registry);
  mlir::tdist::registerDialects(registry);
  mlir::tdist::registerCudaTarget(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
}

// The name of a scalar or element type the runner can bind, or "" when it cannot.
std::string elementName(Type type) {
  if (isa<IndexType>(type)) return "index";
  if (type.isF32()) return "f32";
  if (type.isF64()) return "f64";
  if (auto integer = dyn_cast<IntegerType>(type)) {
    if (!llvm::is_contained({8u, 16u, 32u, 64u}, integer.getWidth())) return "";
    return (integer.isUnsigned() ? "ui" : "i") + std::to_string(integer.getWidth());
  }
  return "";
}

std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream(text) << type;
  return text;
}

std::vector<KernelParameter> describeParameters(func::FuncOp entry, Diagnostics &diagnostics) {
  std::vector<KernelParameter> parameters;
  for (auto [index, type] : llvm::enumerate(entry.getArgumentTypes())) {
    KernelParameter parameter;
    parameter.type = typeText(type);
    const std::string where = "parameter #" + std::to_string(index) + " of '" +
                              entry.getName().str() + "' (" + parameter.type + ")";
    if (auto memref = dyn_cast<MemRefType>(type)) {
      parameter.kind = KernelParameter::Kind::MemRef;
      parameter.element = elementName(memref.getElementType());
      if (!memref.getLayout().isIdentity() || memref.getMemorySpace())
        diagnostics.fail(where + ": a kernel buffer must have the identity layout and the "
                                 "default memory space");
      for (std::int64_t size : memref.getShape())
        parameter.shape.push_back(ShapedType::isDynamic(size) ? KernelParameter::kDynamicSize
                                                               : size);
    } else {
      parameter.element = elementName(type);
    }
    if (parameter.element.empty())
      diagnostics.fail(where + ": the runner binds memrefs and scalars of i8-i64, ui8-ui64, "
                               "index, f32 and f64 only");
    parameters.push_back(std::move(parameter));
  }
  return parameters;
}

func::FuncOp findEntry(ModuleOp module, const CompileOptions &options, Diagnostics &diagnostics) {
  auto entry = module.lookupSymbol<func::FuncOp>(options.entry);
  if (!entry || entry.isExternal()) {
    std::string defined;
    for (auto function : module.getOps<func::FuncOp>())
      if (function.isPublic() && !function.isExternal())
        defined += (defined.empty() ? "" : ", ") + function.getName().str();
    diagnostics.fail("'" + options.path + "' defines no kernel '" + options.entry + "'" +
                     (defined.empty() ? std::string() : "; its public functions: " + defined));
  }
  if (entry.getNumResults() != 0)
    diagnostics.fail("kernel '" + options.entry + "' returns values; a kernel returns nothing "
                     "and writes its results into buffer arguments");
  if (!entry.isPublic()) diagnostics.fail("kernel '" + options.entry + "' is private");
  return entry;
}

// Whether the JIT can resolve an external function: the device template library, or a library
// the process has loaded (libc, libm, MLIR's C runner utilities).
bool resolvable(llvm::StringRef name) {
  if (::tdist::template_library::find(std::string_view(name.data(), name.size()))) return true;
  return dlsym(RTLD_DEFAULT, name.str().c_str()) != nullptr;
}

void checkExternalSymbols(ModuleOp module, Diagnostics &diagnostics) {
  int missing = 0;
  module.walk([&](LLVM::LLVMFuncOp function) {
    if (!function.isExternal() || resolvable(function.getName())) return;
    ++missing;
    function.emitError() << "the kernel calls '" << function.getName()
                         << "', which neither the tdist device library nor a loaded library "
                            "provides (docs/RUNTIME.md lists the library's symbols)";
  });
  if (missing) diagnostics.fail("cannot link the kernel");
}

void rejectExternLibraries(ModuleOp module, Diagnostics &diagnostics) {
  bool rejected = false;
  module.walk([&](triton::distributed::ExternCallOp call) {
    if (call.getLibpath().empty()) return;
    rejected = true;
    call.emitError() << "libpath '" << call.getLibpath()
                     << "': the cpu backend links extern calls against the device library "
                        "and the process only";
  });
  if (rejected) diagnostics.fail("cannot compile the kernel");
}

// distributed.wait only reads memory (seed 001 §2.4): a wait whose token no kept operation uses is
// dead code that the pipeline removes, and the kernel then reads data it never waited for. That
// includes a token passed to a consume_token whose result is unused, removed first.
void warnRemovedWaits(ModuleOp module) {
  for (triton::distributed::WaitOp wait : mlir::tdist::findWaitsRemovedAsDeadCode(module))
    wait.emitWarning() << "the token of this wait is never consumed, so the wait is dead code "
                          "and is removed; read the data through the result of "
                          "distributed.consume_token";
}

// The cubin that tdist-cuda-pipeline made of the module: the one object of its gpu.binary.
std::string cubinOf(ModuleOp module, Diagnostics &diagnostics) {
  std::string cubin;
  module.walk([&](gpu::BinaryOp binary) {
    for (Attribute object : binary.getObjects())
      if (auto gpuObject = dyn_cast<gpu::ObjectAttr>(object))
        cubin = gpuObject.getObject().getValue().str();
  });
  if (cubin.empty()) diagnostics.fail("tdist-cuda-pipeline made no cubin");
  return cubin;
}

llvm::orc::SymbolMap librarySymbols(llvm::orc::MangleAndInterner interner) {
  llvm::orc::SymbolMap symbols;
  auto add = [&](std::string_view name, void *address) {
    symbols[interner(llvm::StringRef(name.data(), name.size()))] = {
        llvm::orc::ExecutorAddr::fromPtr(address), llvm::JITSymbolFlags::Exported};
  };
  for (const ::tdist::template_library::Symbol &symbol : ::tdist::template_library::symbols())
    add(symbol.name, symbol.address);
  // memref.copy of non-contiguous views lowers to this C runner utility.
  add("memrefCopy", reinterpret_cast<void *>(&memrefCopy));
  return symbols;
}

}  // namespace

class Stopwatch {
 public:
  // Milliseconds since the last lap (or the start).
  double lap() {
    const auto now = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - last_).count();
    last_ = now;
    return ms;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};


std::unique_ptr<CompiledKernel> CompiledKernel::compile(const CompileOptions &options) {
  static const bool targetReady = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)targetReady;
  if (options.opt_level < 0 || options.opt_level > 3)
    throw CompileError("optimization level " + std::to_string(options.opt_level) +
                       " is not in 0..3");

  Stopwatch stopwatch;
  DialectRegistry registry;
  registerDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.printOpOnDiagnostic(false);   // the source line is shown; the lowered op is noise
  llvm::SourceMgr sources;
  Diagnostics diagnostics(sources, context);

  auto file = llvm::MemoryBuffer::getFileOrSTDIN(options.path);
  if (!file)
    throw CompileError("cannot read '" + options.path + "': " + file.getError().message());
  sources.AddNewSourceBuffer(std::move(*file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sources, &context);
  if (!module) diagnostics.fail("cannot parse '" + options.path + "'");

  func::FuncOp entry = findEntry(*module, options, diagnostics);
  auto kernel = std::unique_ptr<CompiledKernel>(new CompiledKernel());
  kernel->parameters_ = describeParameters(entry, diagnostics);
  rejectExternLibraries(*module, diagnostics);
  kernel->times_.parse_ms = stopwatch.lap();

  warnRemovedWaits(*module);
  if (options.backend == Backend::Cuda) {
    // Every public function becomes a kernel of the cubin; the others are not launched.
    PassManager pm(&context);
    mlir::tdist::CudaPipelineOptions pipeline;
    pipeline.injectBarrierAll = options.inject_barrier_all;
#ifdef TDIST_JIT_CUDA_TOOLKIT
    // ptxas of the toolkit the build found, where it is still there; else PATH and CUDA_ROOT.
    if (llvm::sys::fs::is_directory(TDIST_JIT_CUDA_TOOLKIT)) pipeline.toolkit = TDIST_JIT_CUDA_TOOLKIT;
#endif
    auto error = [&](const llvm::Twine &message) {
      emitError(UnknownLoc::get(&context), message);
      return failure();
    };
    if (failed(mlir::tdist::buildCudaPipeline(pm, pipeline, error)) || failed(pm.run(*module)))
      diagnostics.fail("cannot compile '" + options.path + "' for the GPU");
    kernel->cubin_ = cubinOf(*module, diagnostics);
    kernel->warnings_ = diagnostics.take();
    kernel->times_.lower_ms = stopwatch.lap();
    return kernel;
  }
  entry->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(), UnitAttr::get(&context));

  PassManager pm(&context);
  mlir::tdist::CpuPipelineOptions pipeline;
  pipeline.injectBarrierAll = options.inject_barrier_all;
  pipeline.traceSpans = options.trace_spans;
  mlir::tdist::buildCpuPipeline(pm, pipeline);
  if (failed(pm.run(*module))) diagnostics.fail("cannot lower '" + options.path + "' to LLVM");
  checkExternalSymbols(*module, diagnostics);
  kernel->times_.lower_ms = stopwatch.lap();

  auto transformer = makeOptimizingTransformer(options.opt_level, 0, nullptr);
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel = static_cast<llvm::CodeGenOptLevel>(options.opt_level);
  engineOptions.enablePerfNotificationListener = false;
  auto engine = ExecutionEngine::create(*module, engineOptions);
  if (!engine) diagnostics.fail("JIT compilation failed: " + llvm::toString(engine.takeError()));
  (*engine)->registerSymbols(librarySymbols);
  (*engine)->initialize();
  auto entryPoint = (*engine)->lookupPacked("_mlir_ciface_" + options.entry);
  if (!entryPoint)
    diagnostics.fail("JIT compilation failed: " + llvm::toString(entryPoint.takeError()));
  kernel->entry_ = *entryPoint;
  kernel->warnings_ = diagnostics.take();
  kernel->times_.jit_ms = stopwatch.lap();
  kernel->engine_ = {engine->release(), [](ExecutionEngine *engine) { delete engine; }};
  return kernel;
}

}  // namespace tdist::jit
