// python/bindings/kernels.cpp - tdist._C.kernels: the kernel library (tdist/kernels/*.h) bound
// for tdist.kernels. A tensor argument is a tdist.Tensor (taken as it is) or anything else that
// exports DLPack (a torch or cupy tensor, a numpy array) whose memory is on the symmetric heap:
// it is passed to the C++ call as a tdist::Tensor over the same memory, and the library checks it
// (on the heap, contiguous, dtype, shape) as it does for C++ callers. The arguments are converted
// with the GIL held; the call itself runs without it.
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
#include "python/bindings/tensor_arg.h"
#include "tdist/runtime.h"

namespace nb = nanobind;

namespace tdist::python {
namespace {

// A name as Python spells it: tdist-bench's hyphenated spelling ("two-shot", "copy-engine") is
// accepted as well.
std::string snakeCase(std::string name) {
  for (char &c : name)
    if (c == '-') c = '_';
  return name;
}

kernels::AllReduceAlgorithm algorithmOf(const std::string &spelled) {
  const std::string name = snakeCase(spelled);
  if (name == "auto") return kernels::AllReduceAlgorithm::Auto;
  if (name == "one_shot") return kernels::AllReduceAlgorithm::OneShot;
  if (name == "two_shot") return kernels::AllReduceAlgorithm::TwoShot;
  if (name == "ring") return kernels::AllReduceAlgorithm::Ring;
  throw Error(ErrorCode::InvalidParam,
              "tdist.kernels.all_reduce: algorithm '" + spelled + "' is none of auto, one_shot, two_shot, ring");
}

kernels::GemmStrategy strategyOf(const std::string &name, const char *kernel) {
  if (name == "auto") return kernels::GemmStrategy::Auto;
  if (name == "decomposed") return kernels::GemmStrategy::Decomposed;
  if (name == "fused") return kernels::GemmStrategy::Fused;
  throw Error(ErrorCode::InvalidParam,
              std::string(kernel) + ": strategy '" + name + "' is none of auto, decomposed, fused");
}

template <class Engine>
Engine engineOf(const std::string &spelled, const char *kernel) {
  const std::string name = snakeCase(spelled);
  if (name == "auto") return Engine::Auto;
  if (name == "sm") return Engine::Sm;
  if (name == "copy_engine") return Engine::CopyEngine;
  throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": engine '" + spelled + "' is none of auto, sm, copy_engine");
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
    requireCurrentJob(generation_, call, "context");
    return *context_;
  }
  void close() {
    get("tdist.kernels.Context.close");
    context_.reset();
  }
  bool closed() const { return !context_; }

 private:
  std::unique_ptr<kernels::Context> context_;
  int generation_ = jobGeneration();
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
      [](PyContext &ctx, nb::handle input, nb::handle output, const std::string &algorithm,
         std::size_t chunk_bytes, int programs) {
        kernels::AllReduceConfig config;
        config.algorithm = algorithmOf(algorithm);
        config.chunk_bytes = chunk_bytes;
        config.programs = programs;
        TensorArg in(input, "tdist.kernels.all_reduce: input"), out(output, "tdist.kernels.all_reduce: output");
        nb::gil_scoped_release unlocked;
        kernels::all_reduce(ctx.get("tdist.kernels.all_reduce"), in.get(), out.get(), config);
      },
      arg("context"), arg("input"), arg("output"), arg("algorithm"), arg("chunk_bytes"), arg("programs"));
  m.def(
      "all_gather",
      [](PyContext &ctx, nb::handle input, nb::handle output, std::size_t chunk_bytes, int programs,
         const std::string &engine) {
        kernels::AllGatherConfig config;
        config.chunk_bytes = chunk_bytes;
        config.programs = programs;
        config.engine = engineOf<kernels::AllGatherConfig::Engine>(engine, "tdist.kernels.all_gather");
        TensorArg in(input, "tdist.kernels.all_gather: input"), out(output, "tdist.kernels.all_gather: output");
        nb::gil_scoped_release unlocked;
        kernels::all_gather(ctx.get("tdist.kernels.all_gather"), in.get(), out.get(), config);
      },
      arg("context"), arg("input"), arg("output"), arg("chunk_bytes"), arg("programs"), arg("engine"));
  m.def(
      "reduce_scatter",
      [](PyContext &ctx, nb::handle input, nb::handle output, std::size_t chunk_bytes, int programs,
         const std::string &engine) {
        kernels::ReduceScatterConfig config;
        config.chunk_bytes = chunk_bytes;
        config.programs = programs;
        config.engine = engineOf<kernels::ReduceScatterConfig::Engine>(engine, "tdist.kernels.reduce_scatter");
        TensorArg in(input, "tdist.kernels.reduce_scatter: input"), out(output, "tdist.kernels.reduce_scatter: output");
        nb::gil_scoped_release unlocked;
        kernels::reduce_scatter(ctx.get("tdist.kernels.reduce_scatter"), in.get(), out.get(), config);
      },
      arg("context"), arg("input"), arg("output"), arg("chunk_bytes"), arg("programs"), arg("engine"));
  m.def(
      "all_gather_gemm",
      [](PyContext &ctx, nb::handle a, nb::handle b, nb::handle c, int chunks_per_pe, int tile_m, int tile_n,
         int programs, const std::string &strategy, int producer_sms, const std::string &tile_order,
         nb::handle gathered) {
        kernels::AllGatherGemmConfig config;
        config.chunks_per_pe = chunks_per_pe;
        config.tile_m = tile_m;
        config.tile_n = tile_n;
        config.programs = programs;
        config.strategy = strategyOf(strategy, "tdist.kernels.all_gather_gemm");
        config.producer_sms = producer_sms;
        if (!kernels::set_tile_order(config, tile_order)) {
          throw Error(ErrorCode::InvalidParam, "tdist.kernels.all_gather_gemm: tile_order '" + tile_order +
                                                   "' is none of auto, n1, n2, n4, n8, m1, m2, m4, m8");
        }
        TensorArg ta(a, "tdist.kernels.all_gather_gemm: a"), tb(b, "tdist.kernels.all_gather_gemm: b"),
            tc(c, "tdist.kernels.all_gather_gemm: c");
        std::optional<TensorArg> tg;
        if (!gathered.is_none()) tg.emplace(gathered, "tdist.kernels.all_gather_gemm: gathered");
        nb::gil_scoped_release unlocked;
        kernels::all_gather_gemm(ctx.get("tdist.kernels.all_gather_gemm"), ta.get(), tb.get(), tc.get(),
                                 tg ? &tg->get() : nullptr, config);
      },
      arg("context"), arg("a"), arg("b"), arg("c"), arg("chunks_per_pe"), arg("tile_m"), arg("tile_n"), arg("programs"),
      arg("strategy"), arg("producer_sms"), arg("tile_order"), arg("gathered").none() = nb::none());
  m.def(
      "gemm_reduce_scatter",
      [](PyContext &ctx, nb::handle a, nb::handle b, nb::handle c, int chunks_per_pe, int tile_m,
         int tile_n, int programs, const std::string &strategy) {
        kernels::GemmReduceScatterConfig config;
        config.chunks_per_pe = chunks_per_pe;
        config.tile_m = tile_m;
        config.tile_n = tile_n;
        config.programs = programs;
        config.strategy = strategyOf(strategy, "tdist.kernels.gemm_reduce_scatter");
        TensorArg ta(a, "tdist.kernels.gemm_reduce_scatter: a"), tb(b, "tdist.kernels.gemm_reduce_scatter: b"),
            tc(c, "tdist.kernels.gemm_reduce_scatter: c");
        nb::gil_scoped_release unlocked;
        kernels::gemm_reduce_scatter(ctx.get("tdist.kernels.gemm_reduce_scatter"), ta.get(), tb.get(), tc.get(),
                                     config);
      },
      arg("context"), arg("a"), arg("b"), arg("c"), arg("chunks_per_pe"), arg("tile_m"), arg("tile_n"),
      arg("programs"), arg("strategy"));

  nb::class_<kernels::DispatchLayout>(m, "DispatchLayout",
                                      "What a dispatch delivered to this PE (rows grouped by local expert, then source)")
      .def(
          "__init__",
          [](kernels::DispatchLayout *layout, std::vector<std::int32_t> counts) {
            // The one layout a dispatch with these counts returns: offsets are their prefix sums.
            std::vector<std::int64_t> offsets(counts.size());
            std::int64_t rows = 0;
            for (std::size_t i = 0; i < counts.size(); ++i) {
              offsets[i] = rows;
              rows += counts[i];
            }
            new (layout) kernels::DispatchLayout{std::move(counts), std::move(offsets), rows};
          },
          arg("counts"), "The layout of a dispatch that delivered counts[e * n_pes + src] rows")
      .def_ro("counts", &kernels::DispatchLayout::counts)
      .def_ro("offsets", &kernels::DispatchLayout::offsets)
      .def_ro("rows", &kernels::DispatchLayout::rows);
  m.def(
      "moe_dispatch",
      [](PyContext &ctx, nb::handle x, nb::handle topk_ids, nb::handle recv, int experts, int top_k,
         int capacity, int programs) {
        kernels::MoeConfig config{experts, top_k, capacity, programs};
        TensorArg tx(x, "tdist.kernels.moe_dispatch: x"), ti(topk_ids, "tdist.kernels.moe_dispatch: topk_ids"),
            tr(recv, "tdist.kernels.moe_dispatch: recv");
        nb::gil_scoped_release unlocked;
        return kernels::moe_dispatch(ctx.get("tdist.kernels.moe_dispatch"), tx.get(), ti.get(), tr.get(), config);
      },
      arg("context"), arg("x"), arg("topk_ids"), arg("recv"), arg("experts"), arg("top_k"), arg("capacity"),
      arg("programs"));
  m.def(
      "moe_combine",
      [](PyContext &ctx, nb::handle expert_out, const kernels::DispatchLayout &layout, nb::handle topk_ids,
         nb::handle topk_weights, nb::handle out, int experts, int top_k, int capacity, int programs) {
        kernels::MoeConfig config{experts, top_k, capacity, programs};
        TensorArg te(expert_out, "tdist.kernels.moe_combine: expert_out"),
            ti(topk_ids, "tdist.kernels.moe_combine: topk_ids"),
            tw(topk_weights, "tdist.kernels.moe_combine: topk_weights"), to(out, "tdist.kernels.moe_combine: out");
        nb::gil_scoped_release unlocked;
        kernels::moe_combine(ctx.get("tdist.kernels.moe_combine"), te.get(), layout, ti.get(), tw.get(), to.get(),
                             config);
      },
      arg("context"), arg("expert_out"), arg("layout"), arg("topk_ids"), arg("topk_weights"), arg("out"),
      arg("experts"), arg("top_k"), arg("capacity"), arg("programs"));
}

}  // namespace tdist::python
