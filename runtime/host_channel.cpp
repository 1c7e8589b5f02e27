// runtime/host_channel.cpp - memfd segments of ControlBlocks, mapped on a node, mirrored across nodes.
#include "runtime/host_channel.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "tdist/error.h"

namespace tdist::runtime {
namespace {

[[noreturn]] void fail(const std::string &what) {
  throw Error(ErrorCode::SharedMemory, "init: host channel: " + what + ": " + std::strerror(errno));
}

void *mapShared(int fd, std::size_t bytes, off_t offset, const std::string &whose) {
  void *addr = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset);
  if (addr == MAP_FAILED) fail("mapping " + whose + " segment");
  return addr;
}

template <class Field>
std::size_t fieldOffset(const ControlBlock &block, const Field &field) {
  return static_cast<std::size_t>(reinterpret_cast<const std::byte *>(&field) -
                                  reinterpret_cast<const std::byte *>(&block));
}

}  // namespace

UniqueFd HostChannel::create(int n_pes, int my_pe) {
  UniqueFd fd(memfd_create("tdist-channel", MFD_CLOEXEC));
  if (!fd.valid()) fail("memfd_create");
  segment_bytes_ = static_cast<std::size_t>(n_pes) * kSlotBytes;
  if (ftruncate(fd.get(), static_cast<off_t>(segment_bytes_)) != 0) fail("sizing the segment");
  segment_ = static_cast<std::byte *>(mapShared(fd.get(), segment_bytes_, 0, "this PE's"));
  my_pe_ = my_pe;
  local_ = slot(my_pe);
  sent_.assign(static_cast<std::size_t>(n_pes), 0);
  return fd;
}

void HostChannel::map(std::span<const UniqueFd> fds) {
  peers_.assign(fds.size(), nullptr);
  for (std::size_t pe = 0; pe < fds.size(); ++pe) {
    if (static_cast<int>(pe) == my_pe_) {
      peers_[pe] = local_;
    } else if (fds[pe].valid()) {  // its own slot of its segment
      peers_[pe] = static_cast<ControlBlock *>(mapShared(fds[pe].get(), kControlBytes,
                                                         static_cast<off_t>(pe * kSlotBytes),
                                                         "PE " + std::to_string(pe) + "'s"));
    } else {  // another node's PE: its mirror here
      peers_[pe] = slot(static_cast<int>(pe));
      any_mirrored_ = true;
    }
  }
}

void HostChannel::unmap() {
  link_ = nullptr;
  for (std::size_t pe = 0; pe < peers_.size(); ++pe) {
    const int p = static_cast<int>(pe);
    if (p != my_pe_ && peers_[pe] != nullptr && !mirrored(p)) munmap(peers_[pe], kControlBytes);
  }
  peers_.clear();
  any_mirrored_ = false;
  if (segment_ != nullptr) munmap(segment_, segment_bytes_);
  segment_ = nullptr;
  segment_bytes_ = 0;
  local_ = nullptr;
}

void HostChannel::pushStep(std::span<const int> to, int team, std::uint64_t sequence, std::size_t carried_bytes,
                           std::span<const Delivery> deliveries) {
  if (to.empty()) return;
  if (link_ == nullptr) {
    throw Error(ErrorCode::Internal, "host channel: PEs of other nodes, and no network link to reach them");
  }
  try {
    pushTo(to, team, sequence, carried_bytes, deliveries);
  } catch (...) {
    link_->discard();  // what this push wrote before it failed does not go with the next one
    throw;
  }
  link_->settle();
}

void HostChannel::pushTo(std::span<const int> to, int team, std::uint64_t sequence, std::size_t carried_bytes,
                         std::span<const Delivery> deliveries) {
  const std::size_t base = static_cast<std::size_t>(my_pe_) * kSlotBytes;  // my slot in their segment
  const ControlBlock &mine = *local_;
  const auto &record = mine.records[team][sequence & 1];
  const auto &carried = mine.carried[team][sequence & 1];
  for (const Delivery &delivery : deliveries) {
    if (delivery.bytes == 0) continue;
    if (delivery.dest != nullptr) {
      link_->putMemory(delivery.pe, delivery.dest, delivery.source, delivery.bytes);
    } else if (delivery.bytes <= kInboxBytes) {
      // The step's name (the header) and the bytes, in one message before the line: a part is
      // taken whole or not at all.
      const InboxHeader header{sequence, static_cast<std::uint64_t>(team)};
      const std::size_t part = base + kControlBytes + (sent_[delivery.pe]++ % kInboxParts) * kInboxPartBytes;
      link_->put(delivery.pe, part, &header, sizeof header);
      link_->put(delivery.pe, part + kInboxHeaderBytes, delivery.source, delivery.bytes);
    } else {
      throw Error(ErrorCode::Internal, "host channel: " + std::to_string(delivery.bytes) + " bytes for PE " +
                                           std::to_string(delivery.pe) + "'s inbox of " +
                                           std::to_string(kInboxBytes));
    }
  }
  for (int pe : to) {
    link_->put(pe, base + fieldOffset(mine, record), &record, sizeof record);
    if (carried_bytes != 0) link_->put(pe, base + fieldOffset(mine, carried), carried, carried_bytes);
  }
  const std::int64_t line = mine.team_line[team].value.load(std::memory_order_relaxed);
  // The line, after the deliveries, the record and the carried bytes (the link's order).
  for (int pe : to) link_->store(pe, base + fieldOffset(mine, mine.team_line[team]), line);
}

void HostChannel::requestExit(std::int64_t request, long deadline_ms) {
  bool sent = false;
  for (std::size_t pe = 0; pe < peers_.size(); ++pe) {
    if (!mirrored(static_cast<int>(pe))) {
      peers_[pe]->exit_request.value.store(request, std::memory_order_release);
    } else if (link_ != nullptr) {  // its own block, in its segment
      const std::size_t offset = pe * kSlotBytes + fieldOffset(*local_, local_->exit_request);
      link_->store(static_cast<int>(pe), offset, request);
      sent = true;
    }
  }
  if (sent) link_->flush(deadline_ms);
}

}  // namespace tdist::runtime
