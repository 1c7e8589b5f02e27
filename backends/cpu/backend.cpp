// backends/cpu/backend.cpp - the cpu backend's table: PEs are processes of one host, every heap
// is a memfd segment that every PE maps, engines are the calling core (MTE) and a copy thread
// (SDMA), programs are fibers.
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "aclshmem.h"
#include "backends/cpu/cpu_state.h"
#include "runtime/backend.h"
#include "runtime/fiber_scheduler.h"
#include "runtime/wait.h"
#include "tdist/error.h"

namespace tdist::cpu {
namespace {

// The UCX engine that this PE's waits progress (a wait polls it, so one load): set while it lives.
std::atomic<UcxEngine *> g_waiting_progress{nullptr};

bool canRun(std::string *why) {
  // The heap and the host channel are memfds: Linux 3.17 or later.
  int fd = memfd_create("tdist-probe", MFD_CLOEXEC);
  if (fd < 0) {
    *why = std::string("memfd_create failed: ") + std::strerror(errno);
    return false;
  }
  close(fd);
  return true;
}

void attach(runtime::RuntimeState &state) { state.backend_state = new CpuState; }

void detach(runtime::RuntimeState &state) {
  if (state.backend_state == nullptr) return;
  CpuState &cpu = cpuState(state);
  cpu.copy_engine.reset();  // drains what is still queued
  g_waiting_progress.store(nullptr, std::memory_order_relaxed);
  state.channel.link(nullptr);
  cpu.ucx.reset();          // before the heap and the channel it registered are unmapped
  unmapSegments(state);
  delete &cpu;
  state.backend_state = nullptr;
}

void startEngines(runtime::RuntimeState &state) {
  CpuState &cpu = cpuState(state);
  if (state.attr.engines & kEngineSdma) cpu.copy_engine = std::make_unique<CopyEngine>();
  // Through UCX: the PEs of other nodes (their heaps are not mapped), or every peer when
  // TDIST_TRANSPORT=ucx (as if on other hosts): the seed's rdma table and transport bit.
  const bool forced = transportForcedToUcx();
  std::vector<bool> routed(state.n_pes, false);
  bool any = false;
  for (int pe = 0; pe < state.n_pes; ++pe) {
    routed[pe] = pe != state.my_pe && (forced || state.node_of[pe] != state.node_of[state.my_pe]);
    any = any || routed[pe];
  }
  if (any) {
    // What peers reach: the heap, and the program's static data where the PEs share it.
    std::vector<UcxRegion> regions = {{"the heap", cpu.mappings[state.my_pe], cpu.segment_bytes, cpu.mappings}};
    if (state.statics.shared) {
      for (const runtime::StaticRange &range : state.statics.ranges)
        regions.push_back({"static data", range.local, range.size, range.peers});
    }
    cpu.ucx = std::make_unique<UcxEngine>(state, std::move(regions), routed, state.channel.segment());
    g_waiting_progress.store(cpu.ucx.get(), std::memory_order_relaxed);
    // The host channel's blocks of other nodes' PEs are mirrors, which those PEs write through it.
    if (state.channel.anyMirrored()) state.channel.link(&cpu.ucx->channelLink());
    runtime::PeerTable peers = state.heap.peers();
    for (int pe = 0; pe < state.n_pes; ++pe) {
      if (!routed[pe]) continue;
      // No pointer to load through (aclshmem_ptr and symm_at answer null, as the seed's runtime
      // does for a PE on another host); host calls name its words in the rdma range.
      peers.p2p_base[pe] = nullptr;
      peers.rdma_base[pe] = cpu.mappings[pe];
      peers.sdma_base[pe] = nullptr;
      peers.transports[pe] = ACLSHMEM_TRANSPORT_ROCE;
    }
    state.heap.assign(state.heap.base(), state.heap.size(), std::move(peers));
  }
}

void quiet(runtime::RuntimeState &state, const char *call) {
  CpuState &cpu = cpuState(state);
  if (CopyEngine *engine = cpu.copy_engine.get()) engine->waitFor(engine->submitted(), call);
  if (cpu.ucx) cpu.ucx->quiet(call);
}

// Every PE's segment is mapped in this process as shared memory: the host loads and stores it
// where it is, except a segment of a PE that UCX reaches, which host calls reach through submit
// and word_op as over a network.
void *hostView(runtime::RuntimeState &state, const void *address, std::size_t bytes) {
  if (const UcxEngine *ucx = cpuState(state).ucx.get(); ucx != nullptr && ucx->locate(address, bytes).pe >= 0)
    return nullptr;
  return const_cast<void *>(address);
}

// A PE whose peers come through UCX progresses its worker while a wait is young (what it waits
// for arrives through it; a reply is usually a few µs away), then yields as every cpu wait does
// and leaves a long wait to the progress thread, which sleeps until something arrives: a waiter
// that kept progressing would take the CPU from the peers it waits for (measured: put bandwidth
// fell by a third).
constexpr std::uint32_t kProgressingPolls = 4096;

bool waitYield(std::uint32_t polls) {
  if (polls <= kProgressingPolls) {
    if (UcxEngine *ucx = g_waiting_progress.load(std::memory_order_relaxed)) ucx->progress();
  }
  return runtime::programWaitYield(polls);
}

std::uint64_t wordOp(runtime::RuntimeState &state, runtime::WordOp op, void *address, unsigned bytes,
                     std::uint64_t operand, std::uint64_t compare, const char *call) {
  UcxEngine *ucx = cpuState(state).ucx.get();
  const UcxEngine::Remote at = ucx != nullptr ? ucx->locate(address, bytes) : UcxEngine::Remote{};
  if (at.pe < 0) throw Error(ErrorCode::Internal, std::string(call) + ": a word op on memory the host loads itself");
  return ucx->wordOp(at, op, bytes, operand, compare, call);
}

void zero(runtime::RuntimeState &, void *address, std::size_t bytes) { std::memset(address, 0, bytes); }

}  // namespace
}  // namespace tdist::cpu

namespace tdist::runtime {

extern const Backend kCpuBackend = {
    .name = "cpu",
    .can_run = cpu::canRun,
    .engines = kEngineMte | kEngineSdma,
    .attach = cpu::attach,
    .detach = cpu::detach,
    .heap_create = cpu::createSegment,
    .heap_map = cpu::mapSegments,
    .engines_start = cpu::startEngines,
    .submit = cpu::submit,
    .submit_engine = cpu::submitEngine,
    .quiet = cpu::quiet,
    .launch = launchPrograms,
    .in_program = inProgramFiber,
    .wait_yield = cpu::waitYield,
    .wait_done = runtime::programWaitDone,
    .host_view = cpu::hostView,
    .word_op = cpu::wordOp,
    .zero = cpu::zero,
    .shares_static_data = true,
    .team_created = nullptr,
};

}  // namespace tdist::runtime
