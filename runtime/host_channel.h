// runtime/host_channel.h - the core's own shared host memory: one small segment per PE, mapped
// by every PE of the job.
//
// Team barriers, collective agreement and global_exit are loads and stores on it, apart from the
// symmetric heap, which a backend may keep in device memory. The segment is a memfd passed to
// the peers with the heap's descriptors: nothing is named, nothing outlives the job.
#pragma once

#include <span>
#include <vector>

#include "runtime/control_block.h"
#include "runtime/fd_exchange.h"

namespace tdist::runtime {

class HostChannel {
 public:
  HostChannel() = default;
  HostChannel(const HostChannel &) = delete;
  HostChannel &operator=(const HostChannel &) = delete;
  ~HostChannel() { unmap(); }

  // Creates and maps this PE's segment (zeroed); returns its descriptor for the exchange.
  UniqueFd create();
  // Maps every peer's segment: fds[pe] for pe != my_pe.
  void map(std::span<const UniqueFd> fds, int my_pe);
  void unmap();

  bool mapped() const { return local_ != nullptr; }
  ControlBlock &local() const { return *local_; }
  ControlBlock &peer(int pe) const { return *peers_[pe]; }

 private:
  ControlBlock *local_ = nullptr;
  std::vector<ControlBlock *> peers_;
};

}  // namespace tdist::runtime
