// python/bindings/kernels.cpp - tdist._C.kernels: the kernel library (tdist/kernels/*.h) bound
// for tdist.kernels. A tensor argument is anything that exports DLPack (a tdist.Tensor, a torch or
// cupy tensor, a numpy array) whose memory is on the symmetric heap: it is passed to the C++ call
// as a tdist::Tensor over the same memory, and the library checks it (on the heap, contiguous,
// dtype, shape) as it does for C++ callers.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "tdist/error.h"
#include "tdist/kernels/collectives.h"
#include "tdist/kernels/context.h"
#include "tdist/kernels/gemm.h"
#include "tdist/kernels/moe.h"
#include "tdist/runtime.h"

namespace nb = nanobind;

namespace tdist::python {
namespace {

using AnyArray = nb::ndarray<nb::ro>;  // any device, any dtype, any layout: the library checks

DType dtypeOf(const nb::dlpack::dtype &type, const char *what) {
  using Code = nb::dlpack::dtype_code;
  const auto code = static_cast<Code>(type.code);
  if (type.lanes == 1) {
    switch (code) {
      case Code::Int:
        if (type.bits == 8) return DType::I8;
        if (type.bits == 16) return DType::I16;
        if (type.bits == 32) return DType::I32;
        if (type.bits == 64) return DType::I64;
        break;
      case Code::UInt:
        if (type.bits == 8) return DType::U8;
        if (type.bits == 16) return DType::U16;
        if (type.bits == 32) return DType::U32;
        if (type.bits == 64) return DType::U64;
        break;
      case Code::Float:
        if (type.bits == 16) return DType::F16;
        if (type.bits == 32) return DType::F32;
        if (type.bits == 64) return DType::F64;
        break;
      case Code::Bfloat:
        if (type.bits == 16) return DType::BF16;
        break;
      default: break;
    }
  }
  throw Error(ErrorCode::InvalidParam, std::string("tdist.kernels: ") + what + " has an element type (DLPack code " +
                                           std::to_string(type.code) + ", " + std::to_string(type.bits) +
                                           " bits) that the kernel library does not take");
}

// The C++ view of an array: the same memory, shape and strides (in elements).
Tensor view(const AnyArray &array, const char *what) {
  Tensor t;
  t.data = const_cast<void *>(array.data());
  t.dtype = dtypeOf(array.dtype(), what);
  for (std::size_t d = 0; d < array.ndim(); ++d) {
    t.shape.push_back(static_cast<std::int64_t>(array.shape(d)));
    t.strides.push_back(array.stride(d));
  }
  return t;
}

kernels::AllReduceAlgorithm algorithmOf(const std::string &name) {
  if (name == "auto") return kernels::AllReduceAlgorithm::Auto;
  if (name == "one_shot") return kernels::AllReduceAlgorithm::OneShot;
  if (name == "two_shot") return kernels::AllReduceAlgorithm::TwoShot;
  if (name == "ring") return kernels::AllReduceAlgorithm::Ring;
  throw Error(ErrorCode::InvalidParam,
              "tdist.kernels.all_reduce: algorithm '" + name + "' is none of auto, one_shot, two_shot, ring");
}

kernels::GemmStrategy strategyOf(const std::string &name, const char *kernel) {
  if (name == "auto") return kernels::GemmStrategy::Auto;
  if (name == "decomposed") return kernels::GemmStrategy::Decomposed;
  if (name == "fused") return kernels::GemmStrategy::Fused;
  throw Error(ErrorCode::InvalidParam,
              std::string(kernel) + ": strategy '" + name + "' is none of auto, decomposed, fused");
}

template <class Engine>
Engine engineOf(const std::string &name, const char *kernel) {
  if (name == "auto") return Engine::Auto;
  if (name == "sm") return Engine::Sm;
  if (name == "copy_engine") return Engine::CopyEngine;
  throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": engine '" + name + "' is none of auto, sm, copy_engine");
}

// A context that the Python object owns until close() (collective) or, failing that, never: a
// context garbage-collected on one PE must not free its symmetric memory alone.
class PyContext {
 public:
  PyContext(std::size_t scratch_bytes, int max_signals, std::uintptr_t stream) {
    kernels::ContextOptions options;
    options.scratch_bytes = scratch_bytes;
    options.max_signals = max_signals;
    options.stream = reinterpret_cast<void *>(stream);
    context_ = std::make_unique<kernels::Context>(options);
  }
  ~PyContext() { static_cast<void>(context_.release()); }  // see above: only close() frees

  kernels::Context &get(const char *call) {
    if (!context_) {
      throw Error(ErrorCode::InvalidParam, std::string(call) + ": the context was closed (Context.close)");
    }
    return *context_;
  }
  void close() {
    get("tdist.kernels.Context.close");
    context_.reset();
  }
  bool closed() const { return !context_; }

 private:
  std::unique_ptr<kernels::Context> context_;
};

}  // namespace

void bindKernels(nb::module_ &parent) {
  nb::module_ m = parent.def_submodule("kernels", "the kernel library (tdist/kernels/*.h)");
  using nb::arg;
  const auto release = nb::call_guard<nb::gil_scoped_release>();

  nb::class_<PyContext>(m, "Context", "Signals and scratch on the symmetric heap for the kernel library's calls")
      .def(nb::init<std::size_t, int, std::uintptr_t>(), arg("scratch_bytes") = std::size_t{16} << 20,
           arg("max_signals") = 4096, arg("stream") = std::uintptr_t{0}, release)
      .def("close", &PyContext::close, release)
      .def("synchronize", [](PyContext &c) { c.get("tdist.kernels.Context.synchronize").synchronize(); }, release)
      .def_prop_ro("closed", &PyContext::closed)
      .def_prop_ro("backend", [](PyContext &c) { return c.get("tdist.kernels.Context.backend").backend(); })
      .def_prop_ro("scratch_bytes",
                   [](PyContext &c) { return c.get("tdist.kernels.Context.scratch_bytes").scratchBytes(); })
      .def_prop_ro("max_signals", [](PyContext &c) { return c.get("tdist.kernels.Context.max_signals").maxSignals(); })
      .def_prop_ro("stream", [](PyContext &c) {
        return reinterpret_cast<std::uintptr_t>(c.get("tdist.kernels.Context.stream").stream());
      });
  m.def("min_signals", &kernels::minSignals);

  m.def(
      "all_reduce",
      [](PyContext &ctx, const AnyArray &input, const AnyArray &output, const std::string &algorithm,
         std::size_t chunk_bytes, int programs) {
        kernels::AllReduceConfig config;
        config.algorithm = algorithmOf(algorithm);
        config.chunk_bytes = chunk_bytes;
        config.programs = programs;
        Tensor out = view(output, "output");
        kernels::all_reduce(ctx.get("tdist.kernels.all_reduce"), view(input, "input"), out, config);
      },
      arg("context"), arg("input"), arg("output"), arg("algorithm"), arg("chunk_bytes"), arg("programs"), release);
  m.def(
      "all_gather",
      [](PyContext &ctx, const AnyArray &input, const AnyArray &output, std::size_t chunk_bytes, int programs,
         const std::string &engine) {
        kernels::AllGatherConfig config;
        config.chunk_bytes = chunk_bytes;
        config.programs = programs;
        config.engine = engineOf<kernels::AllGatherConfig::Engine>(engine, "tdist.kernels.all_gather");
        Tensor out = view(output, "output");
        kernels::all_gather(ctx.get("tdist.kernels.all_gather"), view(input, "input"), out, config);
      },
      arg("context"), arg("input"), arg("output"), arg("chunk_bytes"), arg("programs"), arg("engine"), release);
  m.def(
      "reduce_scatter",
      [](PyContext &ctx, const AnyArray &input, const AnyArray &output, std::size_t chunk_bytes, int programs,
         const std::string &engine) {
        kernels::ReduceScatterConfig config;
        config.chunk_bytes = chunk_bytes;
        config.programs = programs;
        config.engine = engineOf<kernels::ReduceScatterConfig::Engine>(engine, "tdist.kernels.reduce_scatter");
        Tensor out = view(output, "output");
        kernels::reduce_scatter(ctx.get("tdist.kernels.reduce_scatter"), view(input, "input"), out, config);
      },
      arg("context"), arg("input"), arg("output"), arg("chunk_bytes"), arg("programs"), arg("engine"), release);
  m.def(
      "all_gather_gemm",
      [](PyContext &ctx, const AnyArray &a, const AnyArray &b, const AnyArray &c, std::optional<AnyArray> gathered,
         int chunks_per_pe, int tile_m, int tile_n, int programs, const std::string &strategy, int producer_sms) {
        kernels::AllGatherGemmConfig config;
        config.chunks_per_pe = chunks_per_pe;
        config.tile_m = tile_m;
        config.tile_n = tile_n;
        config.programs = programs;
        config.strategy = strategyOf(strategy, "tdist.kernels.all_gather_gemm");
        config.producer_sms = producer_sms;
        Tensor out = view(c, "c");
        Tensor gathered_view;
        if (gathered) gathered_view = view(*gathered, "gathered");
        kernels::all_gather_gemm(ctx.get("tdist.kernels.all_gather_gemm"), view(a, "a"), view(b, "b"), out,
                                 gathered ? &gathered_view : nullptr, config);
      },
      arg("context"), arg("a"), arg("b"), arg("c"), arg("gathered").none(), arg("chunks_per_pe"), arg("tile_m"),
      arg("tile_n"), arg("programs"), arg("strategy"), arg("producer_sms"), release);
  m.def(
      "gemm_reduce_scatter",
      [](PyContext &ctx, const AnyArray &a, const AnyArray &b, const AnyArray &c, int chunks_per_pe, int tile_m,
         int tile_n, int programs, const std::string &strategy) {
        kernels::GemmReduceScatterConfig config;
        config.chunks_per_pe = chunks_per_pe;
        config.tile_m = tile_m;
        config.tile_n = tile_n;
        config.programs = programs;
        config.strategy = strategyOf(strategy, "tdist.kernels.gemm_reduce_scatter");
        Tensor out = view(c, "c");
        kernels::gemm_reduce_scatter(ctx.get("tdist.kernels.gemm_reduce_scatter"), view(a, "a"), view(b, "b"), out,
                                     config);
      },
      arg("context"), arg("a"), arg("b"), arg("c"), arg("chunks_per_pe"), arg("tile_m"), arg("tile_n"),
      arg("programs"), arg("strategy"), release);

  nb::class_<kernels::DispatchLayout>(m, "DispatchLayout",
                                      "What a dispatch delivered to this PE (rows grouped by local expert, then source)")
      .def_ro("counts", &kernels::DispatchLayout::counts)
      .def_ro("offsets", &kernels::DispatchLayout::offsets)
      .def_ro("rows", &kernels::DispatchLayout::rows);
  m.def(
      "moe_dispatch",
      [](PyContext &ctx, const AnyArray &x, const AnyArray &topk_ids, const AnyArray &recv, int experts, int top_k,
         int capacity, int programs) {
        kernels::MoeConfig config{experts, top_k, capacity, programs};
        Tensor out = view(recv, "recv");
        return kernels::moe_dispatch(ctx.get("tdist.kernels.moe_dispatch"), view(x, "x"), view(topk_ids, "topk_ids"),
                                     out, config);
      },
      arg("context"), arg("x"), arg("topk_ids"), arg("recv"), arg("experts"), arg("top_k"), arg("capacity"),
      arg("programs"), release);
  m.def(
      "moe_combine",
      [](PyContext &ctx, const AnyArray &expert_out, const kernels::DispatchLayout &layout, const AnyArray &topk_ids,
         const AnyArray &topk_weights, const AnyArray &out, int experts, int top_k, int capacity, int programs) {
        kernels::MoeConfig config{experts, top_k, capacity, programs};
        Tensor result = view(out, "out");
        kernels::moe_combine(ctx.get("tdist.kernels.moe_combine"), view(expert_out, "expert_out"), layout,
                             view(topk_ids, "topk_ids"), view(topk_weights, "topk_weights"), result, config);
      },
      arg("context"), arg("expert_out"), arg("layout"), arg("topk_ids"), arg("topk_weights"), arg("out"),
      arg("experts"), arg("top_k"), arg("capacity"), arg("programs"), release);
}

}  // namespace tdist::python
