// backends/cpu/submit.cpp - the cpu backend's submit: which engine carries a transfer.
//
// MTE is the calling core (memcpy through the peer mapping); SDMA is the PE's copy engine. With
// both enabled, blocking calls use MTE and non-blocking ones SDMA, so a non-blocking put really
// overlaps the caller's work. With SDMA alone, every transfer goes through the engine.
#include <cstring>

#include "backends/cpu/cpu_state.h"

namespace tdist::cpu {
namespace {

bool usesCopyEngine(const runtime::RuntimeState &state, bool blocking) {
  return cpuState(state).copy_engine != nullptr && (!blocking || !(state.attr.engines & kEngineMte));
}

}  // namespace

void submit(runtime::RuntimeState &state, const runtime::Transfer &transfer, bool blocking, const char *call) {
  if (UcxEngine *ucx = cpuState(state).ucx.get()) {
    // A put to, or a get from, a PE that UCX reaches (a put of no bytes goes where its signal does).
    const bool signal_only = transfer.bytes == 0 && transfer.signal != nullptr;
    const void *target = signal_only ? static_cast<const void *>(transfer.signal) : transfer.dest;
    if (const UcxEngine::Remote to = ucx->locate(target, signal_only ? transfer.signal_bytes : transfer.bytes);
        to.pe >= 0) {
      ucx->put(to, transfer, blocking, call);
      return;
    }
    if (const UcxEngine::Remote from = ucx->locate(transfer.source, transfer.bytes); from.pe >= 0) {
      ucx->get(transfer.dest, from, transfer.bytes, call);
      if (transfer.signal != nullptr) {
        runtime::applySignal(transfer.signal, transfer.signal_bytes, transfer.signal_value, transfer.signal_op);
      }
      return;
    }
  }
  if (!usesCopyEngine(state, blocking)) {
    if (transfer.bytes != 0) std::memcpy(transfer.dest, transfer.source, transfer.bytes);
    if (transfer.signal != nullptr) {
      runtime::applySignal(transfer.signal, transfer.signal_bytes, transfer.signal_value, transfer.signal_op);
    }
    return;
  }
  CopyEngine &engine = *cpuState(state).copy_engine;
  std::uint64_t ticket = engine.submit(transfer);
  if (blocking) engine.waitFor(ticket, call);
}

trace_format::Engine submitEngine(const runtime::RuntimeState &state, bool blocking) {
  return usesCopyEngine(state, blocking) ? trace_format::Engine::Sdma : trace_format::Engine::Mte;
}

}  // namespace tdist::cpu
