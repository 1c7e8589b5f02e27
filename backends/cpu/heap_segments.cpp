// backends/cpu/heap_segments.cpp - the cpu backend's heap: one memfd segment per PE, mapped by
// every PE. The descriptors reach the peers over a Unix socket (runtime/fd_exchange.h), so no
// segment is ever named and none outlives the job, whatever way it ends.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <string>

#include "aclshmem.h"
#include "backends/cpu/cpu_state.h"
#include "tdist/error.h"

namespace tdist::cpu {
namespace {

using runtime::kHeapBaseAlignment;

[[noreturn]] void throwSystem(const std::string &what, int err = errno) {
  throw Error(ErrorCode::SharedMemory, what + ": " + std::strerror(err));
}

// The alignment of every heap's mapping: the segment's size rounded up to a power of two (at least
// kHeapBaseAlignment). Every PE's heap then starts at a multiple of every alignment that fits the
// heap, so an offset aligned to it is an aligned address on every PE (shmem_align).
std::size_t mappingAlignment(std::size_t size) { return std::max(std::bit_ceil(size), kHeapBaseAlignment); }

// Maps the segment at an address aligned to mappingAlignment(size), within a reservation of
// address space (no memory) that is given back around it.
std::byte *mapSegment(int fd, std::size_t size, const std::string &whose) {
  const std::size_t alignment = mappingAlignment(size);
  const std::size_t span = size + alignment;
  void *reserved = mmap(nullptr, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (reserved == MAP_FAILED) throwSystem("reserving address space for " + whose + " heap");
  auto start = reinterpret_cast<std::uintptr_t>(reserved);
  auto aligned = (start + alignment - 1) / alignment * alignment;
  void *addr = mmap(reinterpret_cast<void *>(aligned), size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
  if (addr == MAP_FAILED) {
    int saved = errno;
    munmap(reserved, span);
    throwSystem("mapping " + whose + " heap", saved);
  }
  // Give back the reservation around the mapping.
  if (aligned > start) munmap(reserved, aligned - start);
  std::size_t tail = start + span - (aligned + size);
  if (tail > 0) munmap(reinterpret_cast<void *>(aligned + size), tail);
  return static_cast<std::byte *>(addr);
}

// Address space without memory for a PE of another node: the range this process names that PE's
// segment by (host calls address its words there; the network engine carries them).
std::byte *reserveSegment(std::size_t size, const std::string &whose) {
  void *reserved = mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (reserved == MAP_FAILED) throwSystem("reserving address space for " + whose + " heap");
  return static_cast<std::byte *>(reserved);
}

}  // namespace

int createSegment(runtime::RuntimeState &state, std::size_t bytes) {
  const std::string name = "tdist-heap-pe" + std::to_string(state.my_pe);
  int fd = memfd_create(name.c_str(), MFD_CLOEXEC);
  if (fd < 0) throwSystem("memfd_create for the heap");
  // Reserve the pages now: a full tmpfs is an error here, not a SIGBUS on first touch.
  int rc = ftruncate(fd, static_cast<off_t>(bytes));
  if (rc == 0) rc = posix_fallocate(fd, 0, static_cast<off_t>(bytes));
  if (rc != 0) {
    int err = rc > 0 ? rc : errno;
    close(fd);
    throwSystem("reserving " + std::to_string(bytes) + " bytes for the heap", err);
  }
  cpuState(state).segment_bytes = bytes;
  return fd;
}

void mapSegments(runtime::RuntimeState &state, std::span<const int> fds) {
  CpuState &cpu = cpuState(state);
  const int n = state.n_pes;
  cpu.mappings.assign(n, nullptr);
  for (int pe = 0; pe < n; ++pe) {
    const std::string whose = pe == state.my_pe ? "this PE's" : "PE " + std::to_string(pe) + "'s";
    cpu.mappings[pe] = fds[pe] >= 0 ? mapSegment(fds[pe], cpu.segment_bytes, whose)
                                    : reserveSegment(cpu.segment_bytes, whose);
  }
  runtime::PeerTable peers;
  peers.reset(n);
  const bool sdma = (state.attr.engines & kEngineSdma) != 0;
  for (int pe = 0; pe < n; ++pe) {
    if (fds[pe] < 0) continue;  // another node's: the network engine reaches it (startEngines)
    peers.p2p_base[pe] = cpu.mappings[pe];
    peers.transports[pe] = ACLSHMEM_TRANSPORT_MTE;
    if (sdma) {
      peers.sdma_base[pe] = cpu.mappings[pe];
      peers.transports[pe] |= ACLSHMEM_TRANSPORT_SDMA;
    }
  }
  state.heap.assign(cpu.mappings[state.my_pe], cpu.segment_bytes, std::move(peers));
}

void unmapSegments(runtime::RuntimeState &state) {
  CpuState &cpu = cpuState(state);
  state.heap.clear();
  for (std::byte *base : cpu.mappings) {
    if (base != nullptr) munmap(base, cpu.segment_bytes);
  }
  cpu.mappings.clear();
}

}  // namespace tdist::cpu
