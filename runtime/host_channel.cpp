// runtime/host_channel.cpp - memfd segments holding one ControlBlock each.
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

ControlBlock *mapBlock(int fd, const std::string &whose) {
  void *addr = mmap(nullptr, kControlBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (addr == MAP_FAILED) fail("mapping " + whose + " segment");
  return static_cast<ControlBlock *>(addr);
}

}  // namespace

UniqueFd HostChannel::create() {
  UniqueFd fd(memfd_create("tdist-channel", MFD_CLOEXEC));
  if (!fd.valid()) fail("memfd_create");
  if (ftruncate(fd.get(), kControlBytes) != 0) fail("sizing the segment");
  local_ = mapBlock(fd.get(), "this PE's");
  return fd;
}

void HostChannel::map(std::span<const UniqueFd> fds, int my_pe) {
  peers_.assign(fds.size(), nullptr);
  for (std::size_t pe = 0; pe < fds.size(); ++pe) {
    peers_[pe] = static_cast<int>(pe) == my_pe ? local_ : mapBlock(fds[pe].get(), "PE " + std::to_string(pe) + "'s");
  }
}

void HostChannel::unmap() {
  for (ControlBlock *block : peers_) {
    if (block != nullptr && block != local_) munmap(block, kControlBytes);
  }
  peers_.clear();
  if (local_ != nullptr) munmap(local_, kControlBytes);
  local_ = nullptr;
}

}  // namespace tdist::runtime
