// backends/cuda/device_state.cpp - what kernels know about the job (tdist/device/state.h):
// filled once the heap is mapped, handed to every translation unit's __constant__ copy through
// the publishers they registered, and kept in step with the teams.
//
// Publishers may register before main (static initialisers of kernels' translation units) or
// after init (a module loaded later): the list is a function-local static behind a mutex, and
// a late registration is published at once.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "backends/cuda/cuda_state.h"
#include "backends/cuda/driver_api.h"
#include "backends/cuda/kernels.h"
#include "backends/cuda/watchdog.h"
#include "runtime/teams.h"
#include "runtime/trace.h"
#include "tdist/cuda.h"

namespace tdist::cuda {
namespace {

using Publisher = void (*)(const device::DeviceState &);

// A module attached by attach_module: its state global's device address.
struct AttachedModule {
  CUmodule module;
  CUdeviceptr address;
};

struct Publishers {
  std::mutex mutex;
  std::vector<Publisher> list;
  std::vector<AttachedModule> modules;
  device::DeviceState current{};  // generation 0 = not initialized
  std::uint64_t generations = 0;
  int device = -1;  // the GPU of `current`: late publishers run on any thread
};

Publishers &publishers() {
  static Publishers p;
  return p;
}

// Writes the state into an attached module's global; false when the module is gone (unloaded,
// or its context destroyed): the caller drops it.
bool publishToModule(const AttachedModule &attached, const device::DeviceState &state) {
  const CUresult result = driver().memcpyHtoD(attached.address, &state, sizeof state);
  if (result == CUDA_SUCCESS) return true;
  if (result == CUDA_ERROR_INVALID_HANDLE || result == CUDA_ERROR_CONTEXT_IS_DESTROYED ||
      result == CUDA_ERROR_INVALID_CONTEXT) {
    return false;
  }
  check(result, "writing the device state into an attached module");
  return true;
}

void publishAll(const device::DeviceState &state, int device) {
  Publishers &p = publishers();
  std::lock_guard<std::mutex> lock(p.mutex);
  p.current = state;
  p.device = device;
  for (Publisher publish : p.list) publish(state);
  std::erase_if(p.modules, [&](const AttachedModule &m) { return !publishToModule(m, state); });
}

device::TeamState teamState(const runtime::TeamInfo &team) {
  return {.start = team.start, .stride = team.stride, .size = team.size, .my_pe = team.my_pe};
}

// The device trace's buffer, and the offset from %globaltimer to the trace's clock: of five
// reads, the one with the shortest host round trip, at its midpoint.
void startDeviceTrace(CudaState &cuda) {
  const std::uint64_t capacity = trace::eventCapacity();
  void *memory = nullptr;
  const std::size_t bytes = sizeof(device::TraceBuffer) + capacity * sizeof(device::TraceEvent);
  if (cudaMalloc(&memory, bytes) != cudaSuccess) {
    cudaGetLastError();
    std::fprintf(stderr, "tdist: trace: cannot allocate %zu bytes of device memory for %llu events; kernels record "
                 "nothing\n", bytes, static_cast<unsigned long long>(capacity));
    return;
  }
  device::TraceBuffer head;
  head.capacity = capacity;
  head.events = reinterpret_cast<device::TraceEvent *>(static_cast<device::TraceBuffer *>(memory) + 1);
  // On the PE's stream, and waited for: a copy from pageable memory may return before it has landed.
  check(cudaMemcpyAsync(memory, &head, sizeof head, cudaMemcpyHostToDevice, cuda.stream), "starting the device trace");
  check(cudaStreamSynchronize(cuda.stream), "starting the device trace");
  std::uint64_t *timer = nullptr;
  check(cudaMallocHost(reinterpret_cast<void **>(&timer), sizeof *timer), "starting the device trace");
  std::uint64_t best = UINT64_MAX;
  for (int round = 0; round < 5; ++round) {
    const std::uint64_t before = trace::clockNs();
    check(launchReadTimer(timer, cuda.stream), "reading the GPU's timer");
    check(cudaStreamSynchronize(cuda.stream), "reading the GPU's timer");
    const std::uint64_t after = trace::clockNs();
    if (after - before < best) {
      best = after - before;
      cuda.trace_offset_ns = static_cast<std::int64_t>(before + (after - before) / 2) - static_cast<std::int64_t>(*timer);
    }
  }
  cudaFreeHost(timer);
  cuda.trace = static_cast<device::TraceBuffer *>(memory);
}

// At finalize: the device's events into the PE's trace, then the buffer is freed. A GPU that
// trapped (a sticky error) gives nothing back, and says so.
void stopDeviceTrace(CudaState &cuda) {
  if (cuda.trace == nullptr) return;
  device::TraceBuffer head;
  std::vector<device::TraceEvent> events;
  bool ok = cudaDeviceSynchronize() == cudaSuccess &&
            cudaMemcpy(&head, cuda.trace, sizeof head, cudaMemcpyDeviceToHost) == cudaSuccess;
  if (ok) {
    events.resize(static_cast<std::size_t>(std::min(head.count, head.capacity)));
    ok = events.empty() || cudaMemcpy(events.data(), head.events, events.size() * sizeof(device::TraceEvent),
                                      cudaMemcpyDeviceToHost) == cudaSuccess;
  }
  if (ok) {
    trace::writeDeviceFile(events.data(), events.size(), head.count - events.size(), cuda.trace_offset_ns);
  } else {
    cudaGetLastError();
    std::fprintf(stderr, "tdist: trace: the GPU's events could not be read back (%s); the trace has none of them\n",
                 cudaGetErrorString(cudaPeekAtLastError()));
  }
  cudaFree(cuda.trace);
  cuda.trace = nullptr;
}

std::byte *ownSegment(const CudaState &cuda, int my_pe) {
  return reinterpret_cast<std::byte *>(cuda.base) + static_cast<std::size_t>(my_pe) * cuda.layout.stride;
}

}  // namespace

int registerDeviceState(void (*publish)(const device::DeviceState &)) {
  Publishers &p = publishers();
  std::lock_guard<std::mutex> lock(p.mutex);
  p.list.push_back(publish);
  if (p.current.generation != 0) {
    check(cudaSetDevice(p.device), "cudaSetDevice before publishing the device state");
    publish(p.current);
  }
  return static_cast<int>(p.list.size()) - 1;
}

bool attach_module(void *module) {
  const DriverApi &d = driver();
  CUmodule handle = static_cast<CUmodule>(module);
  CUdeviceptr address = 0;
  std::size_t bytes = 0;
  const CUresult found = d.moduleGetGlobal(&address, &bytes, handle, "tdist_device_state");
  if (found == CUDA_ERROR_NOT_FOUND) return false;
  check(found, "cuModuleGetGlobal(tdist_device_state)", ErrorCode::InvalidParam);
  if (bytes != sizeof(device::DeviceState)) {
    throw Error(ErrorCode::InvalidParam,
                "tdist::cuda::attach_module: the module's tdist_device_state has " + std::to_string(bytes) +
                    " bytes and this runtime's DeviceState " + std::to_string(sizeof(device::DeviceState)) +
                    ": the device library it links (libtdist_device) and the runtime come from different builds");
  }
  Publishers &p = publishers();
  std::lock_guard<std::mutex> lock(p.mutex);
  const auto same = [&](const AttachedModule &m) { return m.module == handle; };
  if (std::find_if(p.modules.begin(), p.modules.end(), same) == p.modules.end()) {
    p.modules.push_back({handle, address});
  }
  if (p.current.generation != 0) {
    check(cudaSetDevice(p.device), "cudaSetDevice before publishing the device state");
    if (!publishToModule({handle, address}, p.current)) std::erase_if(p.modules, same);
  }
  return true;
}

void startDeviceState(runtime::RuntimeState &state) {
  CudaState &cuda = cudaState(state);
  useDevice(cuda);
  // Host-mapped words: the device writes the hang record and reads the abort flag while the
  // host watches them, without a copy that a trapped context could no longer make.
  void *device_view = nullptr;
  check(cudaHostAlloc(reinterpret_cast<void **>(&cuda.hang), sizeof *cuda.hang, cudaHostAllocMapped),
        "cudaHostAlloc of the hang record");
  *cuda.hang = device::HangRecord{};
  check(cudaHostGetDevicePointer(&device_view, cuda.hang, 0), "cudaHostGetDevicePointer of the hang record");
  cuda.device_hang = static_cast<device::HangRecord *>(device_view);
  check(cudaHostAlloc(reinterpret_cast<void **>(&cuda.wait_note), sizeof *cuda.wait_note, cudaHostAllocMapped),
        "cudaHostAlloc of the wait note");
  *cuda.wait_note = device::WaitNote{};
  check(cudaHostGetDevicePointer(&device_view, cuda.wait_note, 0), "cudaHostGetDevicePointer of the wait note");
  cuda.device_wait_note = static_cast<device::WaitNote *>(device_view);
  check(cudaHostAlloc(reinterpret_cast<void **>(&cuda.abort_flag), sizeof *cuda.abort_flag, cudaHostAllocMapped),
        "cudaHostAlloc of the abort flag");
  *cuda.abort_flag = 0;
  check(cudaHostGetDevicePointer(&device_view, cuda.abort_flag, 0), "cudaHostGetDevicePointer of the abort flag");
  cuda.device_abort_flag = static_cast<const std::int32_t *>(device_view);
  check(cudaEventCreateWithFlags(&cuda.order_event, cudaEventDisableTiming), "cudaEventCreate");

  // The team table: the world now; team_created fills the others.
  check(cudaMalloc(reinterpret_cast<void **>(&cuda.teams), sizeof(device::TeamState) * device::kMaxDeviceTeams),
        "cudaMalloc of the device team table");
  std::vector<device::TeamState> teams(device::kMaxDeviceTeams);
  teams[shmem::kTeamWorld] = {.start = 0, .stride = 1, .size = state.n_pes, .my_pe = state.my_pe};
  check(cudaMemcpyAsync(cuda.teams, teams.data(), sizeof(device::TeamState) * teams.size(), cudaMemcpyHostToDevice,
                        cuda.stream),
        "uploading the device team table");
  // Barrier slots and epochs start at 0; init's closing barrier keeps every peer from reading
  // them before they are cleared.
  check(cudaMemsetAsync(ownSegment(cuda, state.my_pe) + cuda.layout.internal_start, 0, cuda.layout.internal.bytes,
                        cuda.stream),
        "clearing the heap's internal area");
  cuda.submitted.fetch_add(1, std::memory_order_relaxed);
  waitForStream(cuda, "init");

  if (trace::requested()) {
    startDeviceTrace(cuda);
    startStreamTrace(cuda);
  }

  device::DeviceState d;
  d.trace = cuda.trace;
  d.my_pe = state.my_pe;
  d.n_pes = state.n_pes;
  d.heap_base = reinterpret_cast<std::byte *>(cuda.base);
  d.stride = cuda.layout.stride;
  d.heap_size = cuda.layout.heap_bytes;
  d.internal = cuda.layout.internal;
  d.wait_timeout_ns = static_cast<std::uint64_t>(state.wait_timeout.count());
  d.one_device = cuda.one_device ? 1 : 0;
  d.hang = cuda.device_hang;
  d.wait_note = cuda.device_wait_note;
  d.abort_flag = cuda.device_abort_flag;
  d.teams = cuda.teams;
  {
    std::lock_guard<std::mutex> lock(publishers().mutex);
    d.generation = ++publishers().generations;
  }
  publishAll(d, cuda.device);

  setHangRecord(&state, cuda.hang);
  cuda.watchdog = std::make_unique<Watchdog>(state, cuda);
}

void stopDeviceState(runtime::RuntimeState &state) {
  CudaState &cuda = cudaState(state);
  cuda.watchdog.reset();
  setHangRecord(nullptr, nullptr);
  if (cuda.device >= 0) cudaSetDevice(cuda.device);
  stopDeviceTrace(cuda);
  stopStreamTrace();
  try {
    if (publishers().current.generation != 0) publishAll(device::DeviceState{}, cuda.device);
  } catch (...) {
    // A publisher that fails after a trap (a sticky error) must not stop the release.
  }
  if (cuda.teams != nullptr) cudaFree(cuda.teams);
  if (cuda.order_event != nullptr) cudaEventDestroy(cuda.order_event);
  for (std::uint64_t *slab : cuda.result_slabs) cudaFreeHost(slab);
  cuda.result_slabs.clear();
  cuda.free_results.clear();
  if (cuda.abort_flag != nullptr) cudaFreeHost(cuda.abort_flag);
  if (cuda.hang != nullptr) cudaFreeHost(cuda.hang);
  if (cuda.wait_note != nullptr) cudaFreeHost(cuda.wait_note);
  cuda.wait_note = nullptr;
  cuda.device_wait_note = nullptr;
  cuda.teams = nullptr;
  cuda.order_event = nullptr;
  cuda.abort_flag = nullptr;
  cuda.device_abort_flag = nullptr;
  cuda.hang = nullptr;
  cuda.device_hang = nullptr;
}

void teamCreated(runtime::RuntimeState &state, int team) {
  constexpr const char *call = "aclshmem_team_split_strided";
  CudaState &cuda = cudaState(state);
  useDevice(cuda);
  if (team < 0 || team >= device::kMaxDeviceTeams) {
    throw Error(ErrorCode::Internal, std::string(call) + ": team index " + std::to_string(team) +
                                         " is past the device team table");
  }
  const device::TeamState entry = teamState(state.teams.teams[team]);
  check(cudaMemcpyAsync(cuda.teams + team, &entry, sizeof entry, cudaMemcpyHostToDevice, cuda.stream),
        "uploading a team to the device team table");
  // A reused index may hold an earlier team's barrier words: this PE's slot and epoch restart.
  std::byte *segment = ownSegment(cuda, state.my_pe);
  check(cudaMemsetAsync(segment + cuda.layout.internal.barrier_slots + team * device::kSignalLineBytes, 0,
                        device::kSignalLineBytes, cuda.stream),
        "clearing the team's barrier slot");
  check(cudaMemsetAsync(segment + cuda.layout.internal.barrier_epochs + team * sizeof(std::uint64_t), 0,
                        sizeof(std::uint64_t), cuda.stream),
        "clearing the team's barrier epoch");
  cuda.submitted.fetch_add(1, std::memory_order_relaxed);
  waitForStream(cuda, call);
  // No member starts a device barrier of the new team before every member has reset.
  runtime::teamSync(state, state.teams.teams[team], runtime::CollectiveOp::Sync,
                    runtime::CollectiveApi::AclshmemTeamSplitStrided, call);
}

}  // namespace tdist::cuda
