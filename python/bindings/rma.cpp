// python/bindings/rma.cpp - the host RMA and signal calls of tdist::shmem on tensors: put and get
// (blocking and non-blocking), put with a signal, signal_op, signal_wait_until and signal_fetch;
// and its team collectives, reduce and fcollectmem.
// The symmetric side is a tensor on the heap (its address on this PE, as tdist::shmem takes it);
// the local side any DLPack tensor of this PE. The sizes are the tensors' bytes; the runtime
// checks the addresses (on the heap, aligned) and the PE, as for a C++ caller.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "python/bindings/tensor_arg.h"
#include "tdist/error.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"

namespace tdist::python {
namespace {

using shmem::Cmp;
using shmem::SignalOp;

std::size_t bytesOf(const Tensor &t) { return t.nbytes(); }

// The bytes both sides hold: the source's, which must fit the destination.
std::size_t transferBytes(const Tensor &dest, const Tensor &source, const char *call) {
  if (bytesOf(source) > bytesOf(dest)) {
    throw Error(ErrorCode::InvalidParam, std::string(call) + ": the source's " + std::to_string(bytesOf(source)) +
                                             " bytes do not fit the destination's " +
                                             std::to_string(bytesOf(dest)));
  }
  return bytesOf(source);
}

SignalOp signalOpOf(const std::string &name, const char *call) {
  if (name == "set") return SignalOp::Set;
  if (name == "add") return SignalOp::Add;
  throw Error(ErrorCode::InvalidParam, std::string(call) + ": sig_op '" + name + "' is neither set nor add");
}

Cmp cmpOf(const std::string &name, const char *call) {
  static const std::pair<const char *, Cmp> kNames[] = {{"eq", Cmp::EQ}, {"ne", Cmp::NE}, {"gt", Cmp::GT},
                                                       {"ge", Cmp::GE}, {"lt", Cmp::LT}, {"le", Cmp::LE}};
  for (const auto &[text, cmp] : kNames) {
    if (name == text) return cmp;
  }
  throw Error(ErrorCode::InvalidParam, std::string(call) + ": cmp '" + name + "' is none of eq, ne, gt, ge, lt, le");
}

// Word `index` of a signal tensor (int32, int64 or uint64, on the heap), passed to f as a typed
// pointer.
template <class F>
auto onSignal(Tensor &signal, std::int64_t index, const char *call, F &&f) {
  if (index < 0 || index >= signal.numel()) {
    throw Error(ErrorCode::InvalidParam, std::string(call) + ": signal index " + std::to_string(index) +
                                             " is outside the signal tensor's " + std::to_string(signal.numel()) +
                                             " elements");
  }
  switch (signal.dtype) {
    case DType::I32: return f(signal.as<std::int32_t>() + index);
    case DType::I64: return f(signal.as<std::int64_t>() + index);
    case DType::U64: return f(signal.as<std::uint64_t>() + index);
    default:
      throw Error(ErrorCode::InvalidParam, std::string(call) + ": a signal is int32, int64 or uint64, not " +
                                               dtypeName(signal.dtype));
  }
}

shmem::ReduceOp reduceOpOf(const std::string &name, const char *call) {
  static const std::pair<const char *, shmem::ReduceOp> kNames[] = {
      {"and", shmem::ReduceOp::And}, {"or", shmem::ReduceOp::Or},   {"xor", shmem::ReduceOp::Xor},
      {"max", shmem::ReduceOp::Max}, {"min", shmem::ReduceOp::Min}, {"sum", shmem::ReduceOp::Sum},
      {"prod", shmem::ReduceOp::Prod}};
  for (const auto &[text, op] : kNames) {
    if (name == text) return op;
  }
  throw Error(ErrorCode::InvalidParam, std::string(call) + ": op '" + name +
                                           "' is none of and, or, xor, max, min, sum, prod");
}

// source's elements combined across the team into dest (both on the heap, of one dtype; dest as
// long as source at least), f called with their typed pointers.
template <class F>
void onReduction(Tensor &dest, Tensor &source, const char *call, F &&f) {
  if (dest.dtype != source.dtype) {
    throw Error(ErrorCode::InvalidParam, std::string(call) + ": dest is " + dtypeName(dest.dtype) + " and source " +
                                             dtypeName(source.dtype) + "; a reduction keeps its type");
  }
  if (dest.numel() < source.numel()) {
    throw Error(ErrorCode::InvalidParam, std::string(call) + ": dest's " + std::to_string(dest.numel()) +
                                             " elements do not hold source's " + std::to_string(source.numel()));
  }
  switch (source.dtype) {
    case DType::I32: return f(dest.as<std::int32_t>(), source.as<const std::int32_t>());
    case DType::I64: return f(dest.as<std::int64_t>(), source.as<const std::int64_t>());
    case DType::U32: return f(dest.as<std::uint32_t>(), source.as<const std::uint32_t>());
    case DType::U64: return f(dest.as<std::uint64_t>(), source.as<const std::uint64_t>());
    case DType::F32: return f(dest.as<float>(), source.as<const float>());
    case DType::F64: return f(dest.as<double>(), source.as<const double>());
    default:
      throw Error(ErrorCode::InvalidParam, std::string(call) + ": a reduction is of int32, int64, uint32, uint64, "
                                                               "float32 or float64, not " +
                                               dtypeName(source.dtype));
  }
}

}  // namespace

void bindRma(nb::module_ &m) {
  using nb::arg;
  auto transfer = [&m](const char *name, const char *call, auto op) {
    m.def(
        name,
        // The argument names for errors, made once here rather than on every call.
        [call, op, dest_what = std::string(call) + ": dest", source_what = std::string(call) + ": source"](
            nb::handle dest, nb::handle source, int pe) {
          TensorArg d(dest, dest_what.c_str());
          TensorArg s(source, source_what.c_str());
          const std::size_t bytes = transferBytes(d.get(), s.get(), call);
          nb::gil_scoped_release unlocked;
          op(d.get().data, s.get().data, bytes, pe);
        },
        arg("dest"), arg("source"), arg("pe"));
  };
  transfer("put", "tdist.put", &shmem::putmem);
  transfer("get", "tdist.get", &shmem::getmem);
  transfer("put_nbi", "tdist.put_nbi", &shmem::putmem_nbi);
  transfer("get_nbi", "tdist.get_nbi", &shmem::getmem_nbi);

  auto signalled = [&m](const char *name, const char *call, bool nbi) {
    m.def(
        name,
        [call, nbi, dest_what = std::string(call) + ": dest", source_what = std::string(call) + ": source",
         signal_what = std::string(call) + ": signal"](nb::handle dest, nb::handle source, nb::handle signal,
                                                        std::uint64_t value, const std::string &sig_op, int pe,
                                                        std::int64_t index) {
          TensorArg d(dest, dest_what.c_str());
          TensorArg s(source, source_what.c_str());
          TensorArg g(signal, signal_what.c_str());
          const std::size_t bytes = transferBytes(d.get(), s.get(), call);
          const SignalOp op = signalOpOf(sig_op, call);
          onSignal(g.get(), index, call, [&](auto *word) {
            using S = std::remove_pointer_t<decltype(word)>;
            nb::gil_scoped_release unlocked;
            if (nbi) {
              shmem::putmem_signal_nbi<S>(d.get().data, s.get().data, bytes, word, static_cast<S>(value), op, pe);
            } else {
              shmem::putmem_signal<S>(d.get().data, s.get().data, bytes, word, static_cast<S>(value), op, pe);
            }
          });
        },
        arg("dest"), arg("source"), arg("signal"), arg("value"), arg("sig_op"), arg("pe"), arg("index"));
  };
  signalled("put_signal", "tdist.put_signal", false);
  signalled("put_signal_nbi", "tdist.put_signal_nbi", true);

  m.def(
      "signal_op",
      [](nb::handle signal, std::uint64_t value, const std::string &sig_op, int pe, std::int64_t index) {
        TensorArg g(signal, "tdist.signal_op: signal");
        const SignalOp op = signalOpOf(sig_op, "tdist.signal_op");
        onSignal(g.get(), index, "tdist.signal_op", [&](auto *word) {
          using S = std::remove_pointer_t<decltype(word)>;
          nb::gil_scoped_release unlocked;
          shmem::signal_op<S>(word, static_cast<S>(value), op, pe);
        });
      },
      arg("signal"), arg("value"), arg("sig_op"), arg("pe"), arg("index"));
  m.def(
      "signal_wait_until",
      [](nb::handle signal, const std::string &cmp, std::int64_t value, std::int64_t index) {
        TensorArg g(signal, "tdist.signal_wait_until: signal");
        const Cmp c = cmpOf(cmp, "tdist.signal_wait_until");
        return onSignal(g.get(), index, "tdist.signal_wait_until", [&](auto *word) -> std::int64_t {
          using S = std::remove_pointer_t<decltype(word)>;
          nb::gil_scoped_release unlocked;
          return static_cast<std::int64_t>(shmem::signal_wait_until<S>(word, c, static_cast<S>(value)));
        });
      },
      arg("signal"), arg("cmp"), arg("value"), arg("index"));

  m.def(
      "reduce",
      [](nb::handle dest, nb::handle source, const std::string &op, int team) {
        constexpr const char *kCall = "tdist.reduce";
        TensorArg d(dest, "tdist.reduce: dest");
        TensorArg s(source, "tdist.reduce: source");
        const shmem::ReduceOp reduce_op = reduceOpOf(op, kCall);
        onReduction(d.get(), s.get(), kCall, [&](auto *to, const auto *from) {
          using T = std::remove_pointer_t<decltype(to)>;
          const auto count = static_cast<std::size_t>(s.get().numel());
          nb::gil_scoped_release unlocked;
          shmem::reduce<T>(team, to, from, count, reduce_op);
        });
      },
      arg("dest"), arg("source"), arg("op"), arg("team"));
  m.def(
      "fcollect",
      [](nb::handle dest, nb::handle source, int team) {
        TensorArg d(dest, "tdist.fcollect: dest");
        TensorArg s(source, "tdist.fcollect: source");
        const std::size_t bytes = s.get().nbytes();
        const int members = shmem::team_n_pes(team);
        if (members > 0 && d.get().nbytes() < bytes * static_cast<std::size_t>(members)) {
          throw Error(ErrorCode::InvalidParam, "tdist.fcollect: dest's " + std::to_string(d.get().nbytes()) +
                                                   " bytes do not hold the team's " + std::to_string(members) +
                                                   " x " + std::to_string(bytes));
        }
        nb::gil_scoped_release unlocked;
        shmem::fcollectmem(team, d.get().data, s.get().data, bytes);
      },
      arg("dest"), arg("source"), arg("team"));
}

}  // namespace tdist::python
