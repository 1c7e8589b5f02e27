// runtime/symmetric_heap.h - this PE's shared-memory segment and its view of every peer's.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/bootstrap_store.h"
#include "runtime/control_block.h"

namespace tdist::runtime {

// Base addresses per transport, as aclshmem's device state: p2p for load/store, sdma for the
// copy engine, rdma for a network engine (never set on the cpu backend). A null entry means
// that transport does not reach the PE.
// Every PE maps every heap at an address aligned to this: the largest alignment that
// aclshmem_align can honour.
constexpr std::size_t kHeapBaseAlignment = std::size_t{2} << 20;

struct PeerTable {
  std::vector<std::byte *> p2p_base;
  std::vector<std::byte *> sdma_base;
  std::vector<std::byte *> rdma_base;
  std::vector<std::uint32_t> transports;  // ACLSHMEM_TRANSPORT_* bits per PE
};

class SymmetricHeap {
 public:
  SymmetricHeap() = default;
  SymmetricHeap(const SymmetricHeap &) = delete;
  SymmetricHeap &operator=(const SymmetricHeap &) = delete;
  ~SymmetricHeap() { unmap(); }

  // Creates this PE's segment (mode 0600, random name), publishes its name through the store,
  // maps every peer's, and unlinks its own once all PEs have mapped it.
  void create(BootstrapStore &store, std::size_t user_bytes, unsigned engines,
              const std::string &job_id);
  void unmap();

  bool mapped() const { return local_ != nullptr; }
  std::byte *base() const { return local_; }
  std::size_t size() const { return size_; }
  const PeerTable &peers() const { return peers_; }
  ControlBlock &control() const { return *reinterpret_cast<ControlBlock *>(local_); }
  ControlBlock &peerControl(int pe) const {
    return *reinterpret_cast<ControlBlock *>(peers_.p2p_base[pe]);
  }

  bool contains(const void *ptr, std::size_t bytes = 1) const {
    auto p = reinterpret_cast<std::uintptr_t>(ptr);
    auto b = reinterpret_cast<std::uintptr_t>(local_);
    return p >= b && bytes <= size_ && p - b <= size_ - bytes;
  }
  std::size_t offsetOf(const void *ptr) const {
    return static_cast<std::size_t>(static_cast<const std::byte *>(ptr) - local_);
  }

 private:
  std::byte *local_ = nullptr;
  std::size_t size_ = 0;
  PeerTable peers_;
};

}  // namespace tdist::runtime
