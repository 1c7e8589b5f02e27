// runtime/runtime.cpp - init and finalize, PE queries and address translation.
#include <sys/random.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "aclshmem.h"
#include "backends/cpu/copy_engine.h"
#include "runtime/runtime_state.h"
#include "tdist/shmem.h"

namespace tdist::runtime {

RuntimeState *g_state = nullptr;

RuntimeState::RuntimeState() = default;
RuntimeState::~RuntimeState() = default;

namespace {

std::atomic<InitStatus> g_status{InitStatus::NotInitialized};

// Engines the cpu backend has: the calling core (MTE) and a copy thread (SDMA).
constexpr unsigned kAvailableEngines = kEngineMte | kEngineSdma;

std::string engineNames(unsigned engines) {
  std::string names;
  const char *all[] = {"MTE", "SDMA", "ROCE", "UDMA"};
  for (int bit = 0; bit < 4; ++bit) {
    if (engines & (1u << bit)) names += (names.empty() ? "" : ", ") + std::string(all[bit]);
  }
  return names;
}

void validate(const InitAttr &attr) {
  if (attr.n_pes < 1 || attr.n_pes > 16384) {
    throw Error(ErrorCode::InvalidParam,
                "init: n_pes must be in 1..16384, got " + std::to_string(attr.n_pes));
  }
  if (attr.my_pe < 0 || attr.my_pe >= attr.n_pes) {
    throw Error(ErrorCode::InvalidParam, "init: my_pe must be in 0.." +
                                             std::to_string(attr.n_pes - 1) + ", got " +
                                             std::to_string(attr.my_pe));
  }
  if (attr.local_mem_size == 0 || attr.local_mem_size > (std::uint64_t{1} << 40)) {
    throw Error(ErrorCode::InvalidParam, "init: local_mem_size must be in 1..2^40 bytes, got " +
                                             std::to_string(attr.local_mem_size));
  }
  if (attr.engines == 0 || (attr.engines & ~0xFu) != 0) {
    throw Error(ErrorCode::InvalidParam, "init: data_op_engine_type must be a non-empty OR of "
                                         "MTE=1, SDMA=2, ROCE=4, UDMA=8, got " +
                                             std::to_string(attr.engines));
  }
  if (unsigned missing = attr.engines & ~kAvailableEngines) {
    throw Error(ErrorCode::NotSupported, "init: engine " + engineNames(missing) +
                                             " is not available on the cpu backend (available: " +
                                             engineNames(kAvailableEngines) + ")");
  }
  if (attr.wait_timeout.count() <= 0) {
    throw Error(ErrorCode::InvalidParam, "init: wait_timeout must be positive");
  }
}

std::string newJobId() {
  if (const char *id = std::getenv("TDIST_JOB_ID"); id != nullptr && *id != '\0') return id;
  unsigned char raw[6];
  if (getrandom(raw, sizeof raw, 0) != static_cast<ssize_t>(sizeof raw)) {
    throw Error(ErrorCode::Internal, "init: getrandom failed");
  }
  char text[16];
  std::snprintf(text, sizeof text, "%02x%02x%02x%02x%02x%02x", raw[0], raw[1], raw[2], raw[3],
                raw[4], raw[5]);
  return text;
}

}  // namespace

void checkPe(const RuntimeState &state, int pe, const char *call) {
  if (pe < 0 || pe >= state.n_pes) [[unlikely]] {
    throw Error(ErrorCode::InvalidParam, std::string(call) + ": PE " + std::to_string(pe) +
                                             " is out of range 0.." +
                                             std::to_string(state.n_pes - 1));
  }
}

std::byte *peerAddress(const RuntimeState &state, const void *ptr, std::size_t bytes, int pe,
                       const char *call, const char *what) {
  checkPe(state, pe, call);
  if (!state.heap.contains(ptr, bytes == 0 ? 1 : bytes)) [[unlikely]] {
    char text[200];
    std::snprintf(text, sizeof text, "%s: %s %p (+%zu bytes) is not on the symmetric heap", call,
                  what, ptr, bytes);
    throw Error(ErrorCode::InvalidParam, text);
  }
  return state.heap.peers().p2p_base[pe] + state.heap.offsetOf(ptr);
}

}  // namespace tdist::runtime

namespace tdist {

using runtime::g_state;
using runtime::RuntimeState;

void init(const InitAttr &attr) {
  if (g_state != nullptr) {
    throw Error(ErrorCode::AlreadyInitialized,
                "init: tdist is already initialized as PE " + std::to_string(g_state->my_pe) +
                    " of " + std::to_string(g_state->n_pes) + " (call finalize first)");
  }
  runtime::validate(attr);
  runtime::Endpoint endpoint = runtime::parseIpPort(attr.ip_port);

  auto state = std::make_unique<RuntimeState>();
  state->attr = attr;
  state->my_pe = attr.my_pe;
  state->n_pes = attr.n_pes;
  state->wait_timeout = attr.wait_timeout;

  runtime::BootstrapOptions options;
  options.my_pe = attr.my_pe;
  options.n_pes = attr.n_pes;
  options.secret = attr.job_secret;
  options.connect_timeout = attr.init_timeout;
  options.op_timeout = attr.control_timeout;
  options.listen_fd = attr.listen_fd;
  state->store = runtime::connectBootstrapStore(endpoint, options);

  // PE 0 names the job; segment names carry it so that tdist-run can clean up after a crash.
  if (attr.my_pe == 0) {
    std::string id = runtime::newJobId();
    state->store->set("job-id", {reinterpret_cast<const std::byte *>(id.data()), id.size()});
  }
  auto id = state->store->get("job-id");
  state->job_id.assign(reinterpret_cast<const char *>(id.data()), id.size());

  state->heap.create(*state->store, attr.local_mem_size, attr.engines, state->job_id);
  runtime::g_status.store(InitStatus::ShmCreated);
  state->allocator.reset(runtime::kControlBytes, state->heap.size());
  if (attr.engines & kEngineSdma) state->copy_engine = std::make_unique<device::CopyEngine>();
  runtime::TeamInfo &world = state->teams.teams[shmem::kTeamWorld];
  world.active = true;
  world.start = 0;
  world.stride = 1;
  world.size = attr.n_pes;
  world.my_pe = attr.my_pe;
  try {
    state->store->barrier();
  } catch (...) {
    runtime::g_status.store(InitStatus::NotInitialized);
    throw;
  }
  g_state = state.release();
  runtime::g_status.store(InitStatus::Initialized);
}

void finalize() {
  RuntimeState &state = runtime::requireState("finalize");
  // Whatever happens below, this PE ends finalized: a failed finalize must not leave a
  // half-initialized runtime behind.
  auto release = [&state] {
    g_state = nullptr;
    runtime::g_status.store(InitStatus::NotInitialized);
    state.heap.unmap();
    delete &state;
  };
  try {
    shmem::quiet();
    // No PE may unmap while a peer still reads or writes its heap.
    state.store->barrier();
  } catch (...) {
    release();
    throw;
  }
  release();
}

InitStatus initStatus() { return runtime::g_status.load(); }
bool isInitialized() { return g_state != nullptr; }
int myPe() { return runtime::requireState("my_pe").my_pe; }
int nPes() { return runtime::requireState("n_pes").n_pes; }

void *heapBase() { return runtime::requireState("heap_base").heap.base(); }
std::size_t heapSize() { return runtime::requireState("heap_size").heap.size(); }

void *peerPointer(const void *ptr, int pe) {
  RuntimeState &state = runtime::requireState("aclshmem_ptr");
  if (pe < 0 || pe >= state.n_pes || !state.heap.contains(ptr)) return nullptr;
  std::byte *base = state.heap.peers().p2p_base[pe];
  return base == nullptr ? nullptr : base + state.heap.offsetOf(ptr);
}

unsigned transportMask(int pe) {
  RuntimeState &state = runtime::requireState("transport_mask");
  if (pe < 0 || pe >= state.n_pes) return 0;
  return state.heap.peers().transports[pe];
}

}  // namespace tdist
