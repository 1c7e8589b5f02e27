// runtime/host_channel.h - the core's own shared host memory: a ControlBlock per PE.
//
// Team barriers, collective agreement and global_exit are loads and stores on it, apart from the
// symmetric heap, which a backend may keep in device memory. Each PE makes one segment with a slot
// per PE of the job (a memfd passed to the peers of its node with the heap's descriptors: nothing
// is named, nothing outlives the job): its own slot holds its ControlBlock, which the PEs of its
// node map; the slot of a PE of another node is this PE's mirror of that PE's block, which that PE
// writes through the network (a push model: a PE's step writes its record, its carried bytes and,
// after them, its line into every remote member's mirror of it, through the ChannelLink the
// backend provides; a step may deliver data into a remote member's heap before its line). Readers load the same fields either way: peer(pe) is the mapped block or the
// mirror.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "runtime/control_block.h"
#include "runtime/fd_exchange.h"

namespace tdist::runtime {

// How a PE writes into the channel segment of a PE of another node: the backend's network engine.
// Offsets are in that PE's segment (slot i at i * kSlotBytes).
class ChannelLink {
 public:
  virtual ~ChannelLink() = default;
  // Bytes into PE pe's segment, landing before the next store to pe. The link may read source
  // until settle() returns (a large put's bytes are sent from where they are).
  virtual void put(int pe, std::size_t offset, const void *source, std::size_t bytes) = 0;
  // Bytes into PE pe's copy of symmetric memory at dest (the address host calls give for that
  // copy, as peerAddress returns it), landing before the next store to pe like put's; source as
  // put's.
  virtual void putMemory(int pe, void *dest, const void *source, std::size_t bytes) = 0;
  // An atomic store of an 8-byte word of PE pe's segment (a line, an exit request), with release
  // order: after the puts to pe before it.
  virtual void store(int pe, std::size_t offset, std::int64_t value) = 0;
  // Every store so far (and the puts before them) has left this PE: a step returns only then, so
  // that nothing of it waits in a queue that nobody progresses. Throws at the job's wait deadline.
  virtual void settle() = 0;
  // What was put and stored so far has landed, or `deadline_ms` passed (false; nothing thrown).
  virtual bool flush(long deadline_ms) = 0;
  // Drops what was put since the last store to each PE: a push that failed half way, whose
  // writes must not go with the next push's.
  virtual void discard() = 0;
};

class HostChannel {
 public:
  HostChannel() = default;
  HostChannel(const HostChannel &) = delete;
  HostChannel &operator=(const HostChannel &) = delete;
  ~HostChannel() { unmap(); }

  // Creates and maps this PE's segment (zeroed: n_pes slots); returns its descriptor for the exchange.
  UniqueFd create(int n_pes, int my_pe);
  // Maps the block of every peer whose descriptor is given (fds[pe], a PE of this node); a peer
  // without one (another node) is read from its mirror in this PE's segment.
  void map(std::span<const UniqueFd> fds);
  void unmap();

  bool mapped() const { return local_ != nullptr; }
  ControlBlock &local() const { return *local_; }
  const ControlBlock &peer(int pe) const { return *peers_[pe]; }

  // The segment, for the backend to register with its engine; whether PE pe is read from a mirror.
  std::span<std::byte> segment() const { return {reinterpret_cast<std::byte *>(segment_), segment_bytes_}; }
  bool mirrored(int pe) const { return pe != my_pe_ && peers_[pe] == slot(pe); }
  // What mirrored PE pe delivered to this PE's inbox of it with its step `sequence` of team
  // `team` (each part's header names the step), or null where no part holds it. pe's deliveries
  // to this PE go to the kInboxParts parts in turn, at most one a step. This PE reads what pe's
  // step s delivered before it posts its step s + 2 (a call of several inbox steps posts s + 1
  // first, then reads s's, so that the next part travels while it reads), and pe posts a step
  // only once every member posted the one before it: pe's next delivery to the same part, with
  // its step s + 3 or later, lands after this PE is done with the part. No count of this PE's own is
  // kept, so a call that failed before it took what pe sent leaves nothing behind.
  const std::byte *takeInbox(int pe, int team, std::uint64_t sequence) const {
    for (int p = 0; p < kInboxParts; ++p) {
      const std::byte *part = reinterpret_cast<const std::byte *>(slot(pe)) + kControlBytes + p * kInboxPartBytes;
      InboxHeader header;
      std::memcpy(&header, part, sizeof header);
      if (header.sequence == sequence && header.team == static_cast<std::uint64_t>(team)) {
        return part + kInboxHeaderBytes;
      }
    }
    return nullptr;
  }
  bool anyMirrored() const { return any_mirrored_; }
  // The backend's link to the mirrored PEs (null: none yet, or no longer).
  void link(ChannelLink *link) { link_ = link; }
  bool linked() const { return link_ != nullptr; }

  // Data a step delivers to a PE of another node: bytes from source into that PE's copy of
  // symmetric memory at dest (as peerAddress names it), or into its inbox of this PE when dest is
  // null (at most kInboxBytes; takeInbox() there), landed before the step's line there.
  struct Delivery {
    int pe = -1;
    void *dest = nullptr;
    const void *source = nullptr;
    std::size_t bytes = 0;
  };

  // After this PE wrote its record of a step of team `team` (with `carried_bytes` of carried
  // data) into its own block and stored its line: the same into the mirrors of the PEs `to`,
  // each after the deliveries to it (every Delivery's pe is among `to`).
  void pushStep(std::span<const int> to, int team, std::uint64_t sequence, std::size_t carried_bytes,
                std::span<const Delivery> deliveries = {});
  // global_exit's request into every PE's own block; mirrored PEs' through the link, waited for
  // at most deadline_ms (they may be gone).
  void requestExit(std::int64_t request, long deadline_ms);

 private:
  ControlBlock *slot(int pe) const { return reinterpret_cast<ControlBlock *>(segment_ + pe * kSlotBytes); }
  // pushStep's writes, up to the stores of its lines.
  void pushTo(std::span<const int> to, int team, std::uint64_t sequence, std::size_t carried_bytes,
              std::span<const Delivery> deliveries);

  std::byte *segment_ = nullptr;
  std::size_t segment_bytes_ = 0;
  int my_pe_ = 0;
  ControlBlock *local_ = nullptr;
  std::vector<ControlBlock *> peers_;  // a mapping of a PE of this node, else its mirror: slot(pe)
  bool any_mirrored_ = false;
  ChannelLink *link_ = nullptr;
  std::vector<std::uint64_t> sent_;   // per PE: deliveries to its inbox of this PE so far
};

}  // namespace tdist::runtime
