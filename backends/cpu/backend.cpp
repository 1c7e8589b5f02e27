// backends/cpu/backend.cpp - the cpu backend's table: PEs are processes of one host, every heap
// is a memfd segment that every PE maps, engines are the calling core (MTE) and a copy thread
// (SDMA), programs are fibers.
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "backends/cpu/cpu_state.h"
#include "runtime/backend.h"
#include "runtime/fiber_scheduler.h"
#include "runtime/wait.h"

namespace tdist::cpu {
namespace {

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
  unmapSegments(state);
  delete &cpu;
  state.backend_state = nullptr;
}

void startEngines(runtime::RuntimeState &state) {
  if (state.attr.engines & kEngineSdma) cpuState(state).copy_engine = std::make_unique<CopyEngine>();
}

void quiet(runtime::RuntimeState &state, const char *call) {
  if (CopyEngine *engine = cpuState(state).copy_engine.get()) {
    engine->waitFor(engine->submitted(), call);
  }
}

// Every PE's segment is mapped in this process as shared memory: the host loads and stores it
// where it is.
void *hostView(runtime::RuntimeState &, const void *address, std::size_t) { return const_cast<void *>(address); }

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
    .wait_yield = runtime::programWaitYield,
    .wait_done = runtime::programWaitDone,
    .host_view = cpu::hostView,
    .word_op = nullptr,
    .zero = cpu::zero,
    .shares_static_data = true,
    .team_created = nullptr,
};

}  // namespace tdist::runtime
