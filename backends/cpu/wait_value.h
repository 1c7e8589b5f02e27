// backends/cpu/wait_value.h - the one implementation of "wait until a word satisfies a predicate"
// behind signal_wait_until, wait_until and dl::wait.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "runtime/runtime_state.h"
#include "runtime/wait.h"
#include "tdist/shmem.h"

namespace tdist::device {

template <class T>
inline bool satisfies(T observed, shmem::Cmp cmp, T value) {
  switch (cmp) {
    case shmem::Cmp::EQ: return observed == value;
    case shmem::Cmp::NE: return observed != value;
    case shmem::Cmp::GT: return observed > value;
    case shmem::Cmp::GE: return observed >= value;
    case shmem::Cmp::LT: return observed < value;
    case shmem::Cmp::LE: return observed <= value;
  }
  return false;
}

inline const char *cmpName(shmem::Cmp cmp) {
  static const char *names[] = {"EQ", "NE", "GT", "GE", "LT", "LE"};
  int index = static_cast<int>(cmp);
  return index >= 0 && index < 6 ? names[index] : "?";
}

inline void checkCmp(shmem::Cmp cmp, const char *call) {
  if (static_cast<unsigned>(cmp) > 5u) [[unlikely]] {
    throw Error(ErrorCode::InvalidParam, std::string(call) + ": comparison " +
                                             std::to_string(static_cast<int>(cmp)) +
                                             " is not one of EQ, NE, GT, GE, LT, LE");
  }
}

template <class T>
std::int64_t readAs64(const void *address) {
  return static_cast<std::int64_t>(
      std::atomic_ref<T>(*const_cast<T *>(static_cast<const T *>(address))).load(std::memory_order_relaxed));
}

// Waits until each of `count` words of this PE, `stride` elements apart, satisfies cmp value
// with an acquire load, in order, under one deadline for the whole call; calls on_ready(value)
// with the value that satisfied each word.
template <class T, class OnReady>
void waitWords(T *first, int count, std::size_t stride, shmem::Cmp cmp, T value, const char *call,
               OnReady &&on_ready) {
  checkCmp(cmp, call);
  std::optional<runtime::WaitLoop> loop;  // made at the first word that is not ready
  for (int slot = 0; slot < count; ++slot) {
    T *address = first + slot * stride;
    std::atomic_ref<T> word(*address);
    T seen = word.load(std::memory_order_acquire);
    while (!satisfies(seen, cmp, value)) {
      if (!loop) {
        runtime::WaitSite site;
        site.call = call;
        site.predicate = cmpName(cmp);
        site.expected = static_cast<std::int64_t>(value);
        site.read = readAs64<T>;
        site.slots = count;
        loop.emplace(site);
      }
      loop->site().address = address;
      loop->site().slot = slot;
      loop->pause();
      seen = word.load(std::memory_order_acquire);
    }
    on_ready(seen);
  }
  if (loop) loop->finish();
}

// Waits until *address (a word of this PE) satisfies cmp value; returns the value that did.
template <class T>
T waitValue(T *address, shmem::Cmp cmp, T value, const char *call) {
  T seen{};
  waitWords(address, 1, 0, cmp, value, call, [&](T ready) { seen = ready; });
  return seen;
}

}  // namespace tdist::device
