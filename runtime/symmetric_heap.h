// runtime/symmetric_heap.h - this PE's view of the symmetric heap: its own segment and the base
// of every peer's, as the backend mapped them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tdist::runtime {

// Every PE maps every heap at an address aligned to at least this. A block aligned to more
// takes an offset that is aligned on this PE's base (runtime/heap.cpp), which must be the same
// offset on every PE: the cpu backend maps each heap at a multiple of its size rounded up to a
// power of two, so that every alignment that fits the heap is one on every PE.
constexpr std::size_t kHeapBaseAlignment = std::size_t{2} << 20;

// Base addresses per transport, as aclshmem's device state: p2p for load/store, sdma for the
// copy engine, rdma for a network engine. A null entry means that transport does not reach the
// PE.
struct PeerTable {
  std::vector<std::byte *> p2p_base;
  std::vector<std::byte *> sdma_base;
  std::vector<std::byte *> rdma_base;
  std::vector<std::uint32_t> transports;  // ACLSHMEM_TRANSPORT_* bits per PE

  // Where this process names PE pe's segment: its mapping for loads and stores, else the range a
  // network engine knows it by (host calls address a peer's words there either way).
  std::byte *base(int pe) const { return p2p_base[pe] != nullptr ? p2p_base[pe] : rdma_base[pe]; }

  void reset(int n_pes) {
    p2p_base.assign(n_pes, nullptr);
    sdma_base.assign(n_pes, nullptr);
    rdma_base.assign(n_pes, nullptr);
    transports.assign(n_pes, 0);
  }
};

class SymmetricHeap {
 public:
  // Set by the backend once every segment is mapped; cleared before it unmaps them.
  void assign(std::byte *local, std::size_t size, PeerTable peers) {
    local_ = local;
    size_ = size;
    peers_ = std::move(peers);
  }
  void clear() { assign(nullptr, 0, PeerTable{}); }

  bool mapped() const { return local_ != nullptr; }
  std::byte *base() const { return local_; }
  std::size_t size() const { return size_; }
  const PeerTable &peers() const { return peers_; }

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
