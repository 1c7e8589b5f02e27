// runtime/runtime.cpp - init and finalize, PE queries, address translation, and the entry points
// that the core passes to the backend (launch, quiet, global_exit).
#include <sys/random.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

#include "aclshmem.h"
#include "runtime/collective.h"
#include "runtime/environment.h"
#include "runtime/fd_exchange.h"
#include "runtime/heap_fault.h"
#include "runtime/launcher_channel.h"
#include "runtime/published_wait.h"
#include "runtime/runtime_state.h"
#include "runtime/trace.h"
#include "tdist/shmem.h"

namespace tdist::runtime {

RuntimeState *g_state = nullptr;

RuntimeState::RuntimeState() = default;
RuntimeState::~RuntimeState() = default;

namespace {

std::atomic<InitStatus> g_status{InitStatus::NotInitialized};

std::string engineNames(unsigned engines) {
  std::string names;
  const char *all[] = {"MTE", "SDMA", "ROCE", "UDMA"};
  for (int bit = 0; bit < 4; ++bit) {
    if (engines & (1u << bit)) names += (names.empty() ? "" : ", ") + std::string(all[bit]);
  }
  return names;
}

void validate(const InitAttr &attr, const Backend &backend) {
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
  if (unsigned missing = attr.engines & ~backend.engines) {
    throw Error(ErrorCode::NotSupported, "init: engine " + engineNames(missing) +
                                             " is not available on the " + backend.name +
                                             " backend (available: " + engineNames(backend.engines) + ")");
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

std::uint64_t agreedHeapBytes(BootstrapStore &store, const InitAttr &attr) {
  // Every PE must have the same heap size, or offsets would not be symmetric.
  const std::uint64_t size = (attr.local_mem_size + 4095) / 4096 * 4096;
  auto sizes = store.allgather({reinterpret_cast<const std::byte *>(&size), sizeof size});
  for (int pe = 0; pe < store.nPes(); ++pe) {
    std::uint64_t theirs = 0;
    std::memcpy(&theirs, sizes[pe].data(), sizeof theirs);
    if (theirs != size) {
      throw Error(ErrorCode::CollectiveMismatch,
                  "init: local_mem_size differs between PEs: PE " + std::to_string(store.myPe()) +
                      " has " + std::to_string(attr.local_mem_size) + " bytes, PE " +
                      std::to_string(pe) + " has a heap of " + std::to_string(theirs) + " bytes");
    }
  }
  return size;
}

// Every PE's node, as each said (InitAttr::node).
std::vector<int> agreedNodes(BootstrapStore &store, const InitAttr &attr) {
  const std::int32_t mine = attr.node;
  auto all = store.allgather({reinterpret_cast<const std::byte *>(&mine), sizeof mine});
  std::vector<int> nodes(all.size());
  for (std::size_t pe = 0; pe < all.size(); ++pe) {
    std::int32_t theirs = 0;
    std::memcpy(&theirs, all[pe].data(), sizeof theirs);
    nodes[pe] = theirs;
  }
  return nodes;
}

// The host channel, the heap and the static data: each PE creates its segments, passes their
// descriptors to the PEs of its node, and maps their channel blocks, heaps and static data (a PE
// of another node: its channel block is mirrored here, its heap is the backend's to reach, fd -1,
// and its static data is address space that names it).
void createSegments(RuntimeState &state, std::uint64_t heap_bytes) {
  UniqueFd channel = state.channel.create(state.n_pes, state.my_pe);
  UniqueFd heap(state.backend->heap_create(state, heap_bytes));
  std::vector<int> mine = {channel.get(), heap.get()};
  const std::vector<int> statics = staticDataFds(state);
  mine.insert(mine.end(), statics.begin(), statics.end());
  std::vector<bool> same_node(state.n_pes);
  for (int pe = 0; pe < state.n_pes; ++pe) same_node[pe] = state.node_of[pe] == state.node_of[state.my_pe];
  auto peers = exchangeFds(*state.store, mine, state.attr.create_timeout, same_node);
  std::vector<UniqueFd> channels(state.n_pes);
  std::vector<int> heaps(state.n_pes, -1);
  for (int pe = 0; pe < state.n_pes; ++pe) {
    if (pe == state.my_pe) {
      heaps[pe] = heap.get();
    } else if (state.node_of[pe] == state.node_of[state.my_pe]) {
      channels[pe] = std::move(peers[pe][0]);
      heaps[pe] = peers[pe][1].get();
    }
  }
  state.channel.map(channels);
  state.backend->heap_map(state, heaps);
  mapStaticData(state, peers, 2);
}

// Releases what init made so far, in reverse order; never throws.
void release(RuntimeState *state) {
  removeHeapFaultMessage();
  if (state->backend != nullptr) state->backend->detach(*state);
  unmapStaticData(state->statics);
  state->channel.unmap();
  delete state;
}

}  // namespace

const Backend &activeBackend() {
  return g_state != nullptr ? *g_state->backend : *builtBackends().front();
}

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
  const std::size_t span = bytes == 0 ? 1 : bytes;
  if (state.heap.contains(ptr, span)) [[likely]] return state.heap.peers().base(pe) + state.heap.offsetOf(ptr);
  if (std::byte *peer = staticPeerAddress(state, ptr, span, pe)) return peer;
  throwNotSymmetric(state, ptr, bytes, call, what);
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
  const std::string backend_name = attr.backend.empty() ? runtime::backendFromEnvironment() : attr.backend;
  const runtime::Backend &backend = runtime::selectBackend(backend_name, runtime::builtBackends());
  runtime::validate(attr, backend);
  runtime::Endpoint endpoint = runtime::parseIpPort(attr.ip_port);
  const bool share_static_data = runtime::staticDataFromEnvironment();
  // The store refuses to start without a secret unless the user opted out (insecure).
  const bool allow_no_secret = attr.allow_no_secret || runtime::allowNoSecretFromEnvironment();

  std::unique_ptr<RuntimeState, void (*)(RuntimeState *)> state(new RuntimeState, runtime::release);
  state->attr = attr;
  state->my_pe = attr.my_pe;
  state->n_pes = attr.n_pes;
  state->wait_timeout = attr.wait_timeout;
  // Before the store starts its threads: see runtime/static_data.h.
  runtime::prepareStaticData(*state, backend, share_static_data);

  runtime::BootstrapOptions options;
  options.my_pe = attr.my_pe;
  options.n_pes = attr.n_pes;
  options.secret = attr.job_secret;
  options.allow_no_secret = allow_no_secret;
  options.connect_timeout = attr.init_timeout;
  options.op_timeout = attr.control_timeout;
  options.listen_fd = attr.listen_fd;
  options.tls = runtime::parseTlsInfo(attr.tls_info);
  state->store = runtime::connectBootstrapStore(endpoint, options);

  // PE 0 names the job (for the launcher's messages).
  if (attr.my_pe == 0) {
    std::string id = runtime::newJobId();
    state->store->set("job-id", {reinterpret_cast<const std::byte *>(id.data()), id.size()});
  }
  auto id = state->store->get("job-id");
  state->job_id.assign(reinterpret_cast<const char *>(id.data()), id.size());

  const std::uint64_t heap_bytes = runtime::agreedHeapBytes(*state->store, attr);
  state->node_of = runtime::agreedNodes(*state->store, attr);
  runtime::agreeOnStaticData(*state);
  state->backend = &backend;
  backend.attach(*state);
  runtime::createSegments(*state, heap_bytes);
  // Where the host has no view of the heap, a host load of it faults: the fault is named.
  if (backend.host_view(*state, state->heap.base(), state->heap.size()) == nullptr) {
    runtime::installHeapFaultMessage(*state);
  }
  runtime::g_status.store(InitStatus::ShmCreated);
  state->allocator.reset(0, state->heap.size());
  backend.engines_start(*state);
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
  trace::startFromEnvironment(*g_state);
  runtime::reportInitialized();
  runtime::waitBoardRecord();  // mapped now, so that no program this PE starts inherits the board
}

void finalize() {
  RuntimeState &state = runtime::requireState("finalize");
  runtime::requireHostThread(state, "finalize");
  trace::stop();
  // Whatever happens below, this PE ends finalized: a failed finalize must not leave a
  // half-initialized runtime behind.
  auto release = [&state] {
    g_state = nullptr;
    runtime::g_status.store(InitStatus::NotInitialized);
    runtime::release(&state);
  };
  try {
    shmem::quiet();
    // No PE may unmap while a peer still reads or writes its heap.
    runtime::PublishedBlock published("finalize", "every PE to reach finalize (the bootstrap store's barrier)");
    state.store->barrier();
  } catch (...) {
    release();
    throw;
  }
  release();
  runtime::reportFinalized();
}

void launch(const Grid &grid, const std::function<void()> &body, const LaunchOptions &options) {
  if (grid.x < 1 || grid.y < 1 || grid.z < 1) {
    throw Error(ErrorCode::InvalidParam, "launch: every grid dimension must be at least 1, got (" +
                                             std::to_string(grid.x) + ", " +
                                             std::to_string(grid.y) + ", " +
                                             std::to_string(grid.z) + ")");
  }
  const runtime::Backend &backend = runtime::activeBackend();
  if (backend.in_program()) {
    throw Error(ErrorCode::InvalidParam, "launch: cannot launch from inside a program");
  }
  backend.launch(grid, body, options);
}

InitStatus initStatus() { return runtime::g_status.load(); }
bool isInitialized() { return g_state != nullptr; }
int myPe() { return runtime::requireState("my_pe").my_pe; }
int nPes() { return runtime::requireState("n_pes").n_pes; }

void *heapBase() { return runtime::requireState("heap_base").heap.base(); }
std::size_t heapSize() { return runtime::requireState("heap_size").heap.size(); }

void *peerPointer(const void *ptr, int pe) {
  RuntimeState &state = runtime::requireState("aclshmem_ptr");
  if (pe < 0 || pe >= state.n_pes) return nullptr;
  std::byte *base = state.heap.peers().p2p_base[pe];
  // No load or store reaches a PE that the network reaches: no pointer, as for its heap.
  if (!state.heap.contains(ptr)) return base == nullptr ? nullptr : runtime::staticPeerAddress(state, ptr, 1, pe);
  return base == nullptr ? nullptr : base + state.heap.offsetOf(ptr);
}

const char *backendName() { return runtime::requireState("tdist::backendName").backend->name; }

std::vector<CallArgs> exchangeCallArgs(const char *call, const CallArgs &mine) {
  RuntimeState &state = runtime::requireState(call);
  runtime::requireHostThread(state, call);
  runtime::CollectiveRecord record{};
  record.op = runtime::CollectiveOp::LibraryCall;
  record.api = runtime::CollectiveApi::LibraryCall;
  record.status = mine.status;
  record.arg0 = mine.value[0];
  record.arg1 = mine.value[1];
  record.arg2 = mine.value[2];
  auto all = runtime::agreeOnStep(state, state.teams.teams[shmem::kTeamWorld], record, call);
  std::vector<CallArgs> result(all.size());
  for (std::size_t pe = 0; pe < all.size(); ++pe) {
    result[pe].value[0] = all[pe].arg0;
    result[pe].value[1] = all[pe].arg1;
    result[pe].value[2] = all[pe].arg2;
    result[pe].status = all[pe].status;
  }
  return result;
}

int nNodes() {
  RuntimeState &state = runtime::requireState("n_nodes");
  const auto &transports = state.heap.peers().transports;
  const int mine = state.node_of[state.my_pe];
  for (int pe = 0; pe < state.n_pes; ++pe) {
    if (pe != state.my_pe && state.node_of[pe] == mine && (transports[pe] & ACLSHMEM_TRANSPORT_MTE) == 0)
      return state.n_pes;  // the network even within a node
  }
  return static_cast<int>(std::set<int>(state.node_of.begin(), state.node_of.end()).size());
}

unsigned transportMask(int pe) {
  RuntimeState &state = runtime::requireState("transport_mask");
  if (pe < 0 || pe >= state.n_pes) return 0;
  return state.heap.peers().transports[pe];
}

}  // namespace tdist

namespace tdist::shmem {

void quiet() {
  if (runtime::RuntimeState *state = runtime::g_state) state->backend->quiet(*state, "aclshmem_quiet");
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

// Waits for everything submitted so far: stronger than the per-PE ordering fence promises.
void fence() { quiet(); }

void global_exit(int status) {
  if (runtime::RuntimeState *state = runtime::g_state; state != nullptr && state->channel.mapped()) {
    // Every PE's waits look at their own exit line, so they end promptly with this status.
    // PEs of other nodes through the network, waited for a few seconds at most: they may be gone.
    state->channel.requestExit(1 + (status & 0xff), 5000);
  }
  // The job ends by request, not by a PE that forgot finalize.
  runtime::reportFinalized();
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(status);
}

}  // namespace tdist::shmem
