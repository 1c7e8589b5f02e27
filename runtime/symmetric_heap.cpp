// runtime/symmetric_heap.cpp - POSIX shared-memory segments, one per PE, mapped by all PEs.
#include "runtime/symmetric_heap.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <span>

#include "aclshmem.h"
#include "tdist/error.h"

namespace tdist::runtime {
namespace {

[[noreturn]] void throwSystem(const std::string &what) {
  throw Error(ErrorCode::SharedMemory, what + ": " + std::strerror(errno));
}

std::string randomHex(std::size_t bytes) {
  std::vector<unsigned char> raw(bytes);
  if (getrandom(raw.data(), raw.size(), 0) != static_cast<ssize_t>(raw.size())) {
    throwSystem("getrandom");
  }
  static const char digits[] = "0123456789abcdef";
  std::string text;
  for (unsigned char c : raw) {
    text += digits[c >> 4];
    text += digits[c & 15];
  }
  return text;
}

std::span<const std::byte> asBytes(const std::string &text) {
  return {reinterpret_cast<const std::byte *>(text.data()), text.size()};
}

// Maps the segment at an address aligned to kHeapBaseAlignment, so that an offset aligned to
// at most that is an aligned address on every PE.
std::byte *mapSegment(int fd, std::size_t size, const std::string &name) {
  const std::size_t span = size + kHeapBaseAlignment;
  void *reserved = mmap(nullptr, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (reserved == MAP_FAILED) throwSystem("reserving address space for heap segment " + name);
  auto start = reinterpret_cast<std::uintptr_t>(reserved);
  auto aligned = (start + kHeapBaseAlignment - 1) / kHeapBaseAlignment * kHeapBaseAlignment;
  void *addr = mmap(reinterpret_cast<void *>(aligned), size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
  if (addr == MAP_FAILED) {
    int saved = errno;
    munmap(reserved, span);
    errno = saved;
    throwSystem("mmap of heap segment " + name);
  }
  // Give back the reservation around the mapping.
  if (aligned > start) munmap(reserved, aligned - start);
  std::size_t tail = start + span - (aligned + size);
  if (tail > 0) munmap(reinterpret_cast<void *>(aligned + size), tail);
  return static_cast<std::byte *>(addr);
}

}  // namespace

void SymmetricHeap::create(BootstrapStore &store, std::size_t user_bytes, unsigned engines,
                           const std::string &job_id) {
  const int me = store.myPe();
  const int n = store.nPes();
  const std::size_t size = kControlBytes + (user_bytes + 4095) / 4096 * 4096;

  // Every PE must have the same heap size, or offsets would not be symmetric.
  std::uint64_t my_size = size;
  auto sizes = store.allgather({reinterpret_cast<const std::byte *>(&my_size), sizeof my_size});
  for (int pe = 0; pe < n; ++pe) {
    std::uint64_t theirs = 0;
    std::memcpy(&theirs, sizes[pe].data(), sizeof theirs);
    if (theirs != my_size) {
      throw Error(ErrorCode::CollectiveMismatch,
                  "init: local_mem_size differs between PEs: PE " + std::to_string(me) + " has " +
                      std::to_string(user_bytes) + " bytes, PE " + std::to_string(pe) +
                      " has a heap of " + std::to_string(theirs - kControlBytes) + " bytes");
    }
  }

  const std::string name = "/tdist-" + job_id + "-pe" + std::to_string(me) + "-" + randomHex(8);
  int fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, S_IRUSR | S_IWUSR);
  if (fd < 0) throwSystem("shm_open " + name);
  // Reserve the pages now: a full /dev/shm is an error here, not a SIGBUS on first touch.
  int rc = ftruncate(fd, static_cast<off_t>(size));
  if (rc == 0) rc = posix_fallocate(fd, 0, static_cast<off_t>(size));
  if (rc != 0) {
    if (rc > 0) errno = rc;
    int saved = errno;
    close(fd);
    shm_unlink(name.c_str());
    errno = saved;
    throwSystem("reserving " + std::to_string(size) + " bytes for heap segment " + name);
  }
  try {
    local_ = mapSegment(fd, size, name);
  } catch (...) {
    close(fd);
    shm_unlink(name.c_str());
    throw;
  }
  close(fd);
  size_ = size;

  peers_ = PeerTable{};
  peers_.p2p_base.assign(n, nullptr);
  peers_.sdma_base.assign(n, nullptr);
  peers_.rdma_base.assign(n, nullptr);
  peers_.transports.assign(n, 0);
  try {
    auto names = store.allgather(asBytes(name));
    for (int pe = 0; pe < n; ++pe) {
      if (pe == me) {
        peers_.p2p_base[pe] = local_;
        continue;
      }
      std::string peer_name(reinterpret_cast<const char *>(names[pe].data()), names[pe].size());
      int peer_fd = shm_open(peer_name.c_str(), O_RDWR, 0);
      if (peer_fd < 0) throwSystem("shm_open of PE " + std::to_string(pe) + "'s heap " + peer_name);
      try {
        peers_.p2p_base[pe] = mapSegment(peer_fd, size, peer_name);
      } catch (...) {
        close(peer_fd);
        throw;
      }
      close(peer_fd);
    }
    for (int pe = 0; pe < n; ++pe) {
      peers_.transports[pe] = ACLSHMEM_TRANSPORT_MTE;
      if (engines & ACLSHMEM_DATA_OP_SDMA) {
        peers_.sdma_base[pe] = peers_.p2p_base[pe];
        peers_.transports[pe] |= ACLSHMEM_TRANSPORT_SDMA;
      }
    }
    // Once every PE has mapped every segment, nobody needs the names: unlink so that nothing
    // outlives the job, even if it crashes later.
    store.barrier();
  } catch (...) {
    shm_unlink(name.c_str());
    unmap();
    throw;
  }
  shm_unlink(name.c_str());
}

void SymmetricHeap::unmap() {
  for (std::size_t pe = 0; pe < peers_.p2p_base.size(); ++pe) {
    std::byte *base = peers_.p2p_base[pe];
    if (base != nullptr && base != local_) munmap(base, size_);
  }
  if (local_ != nullptr) munmap(local_, size_);
  local_ = nullptr;
  size_ = 0;
  peers_ = PeerTable{};
}

}  // namespace tdist::runtime
