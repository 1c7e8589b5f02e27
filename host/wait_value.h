// host/wait_value.h - the one implementation of "wait until a word satisfies a predicate"
// behind signal_wait_until, wait_until and dl::wait.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

#include "host/host_access.h"
#include "runtime/call_checks.h"
#include "runtime/runtime_state.h"
#include "runtime/trace.h"
#include "runtime/wait.h"
#include "tdist/shmem.h"
#include "tdist/wait_description.h"

namespace tdist::host {

// tdist/wait_description.h's test, in shmem::Cmp's terms.
template <class T>
inline bool satisfies(T observed, shmem::Cmp cmp, T value) {
  return waitSatisfied(observed, static_cast<std::int32_t>(cmp), value);
}

// Where the host reads words through the backend, a word that is not on this PE's heap (static
// data among them, on a backend that does not share it) gets the error of every other call.
inline void requireBackendWord(runtime::RuntimeState &state, const void *address, const char *call) {
  (void)runtime::peerAddress(state, address, 1, state.my_pe, call, "address");
}

// One poll of a word: an acquire load by the host, or a read through the backend. Each also
// reads the observed value for the deadline diagnostic (WaitSite::read), the same way.
//
// The host loads through its view of the words (runtime::Backend::host_view), which lies `shift`
// bytes from their symmetric addresses (0 where the view is the mapping itself, as on the cpu
// backend). The diagnostic names the symmetric address.
template <class T>
struct HostLoad {
  std::intptr_t shift = 0;
  T *view(const void *address) const {
    return reinterpret_cast<T *>(reinterpret_cast<std::intptr_t>(address) + shift);
  }
  T operator()(T *address) const { return std::atomic_ref<T>(*view(address)).load(std::memory_order_acquire); }
  // The context is this load, which outlives the wait loop.
  static std::int64_t read(const void *address, void *context) {
    const auto &load = *static_cast<const HostLoad *>(context);
    return static_cast<std::int64_t>(std::atomic_ref<T>(*load.view(address)).load(std::memory_order_relaxed));
  }
  static constexpr auto reader = read;
  void *context() const { return const_cast<HostLoad *>(this); }
};

// The host's load of the `bytes` from first, where the backend gives the host a view of them.
template <class T>
std::optional<HostLoad<T>> hostLoad(runtime::RuntimeState &state, T *first, std::size_t bytes) {
  void *view = state.backend->host_view(state, first, bytes);
  if (view == nullptr) return std::nullopt;
  return HostLoad<T>{reinterpret_cast<std::intptr_t>(view) - reinterpret_cast<std::intptr_t>(first)};
}

template <class T>
struct BackendLoad {
  runtime::RuntimeState &state;
  const char *call;
  T operator()(T *address) const { return backendLoad(state, address, call); }
  // The context is this load, which outlives the wait loop.
  static std::int64_t read(const void *address, void *context) {
    const auto &load = *static_cast<const BackendLoad *>(context);
    return static_cast<std::int64_t>(load(static_cast<T *>(const_cast<void *>(address))));
  }
  static constexpr auto reader = read;
  void *context() const { return const_cast<BackendLoad *>(this); }
};

template <class T, class Load, class OnReady>
void waitWordsWith(const Load &load, T *first, int count, std::size_t stride, shmem::Cmp cmp, T value,
                   const char *call, OnReady &on_ready) {
  std::optional<runtime::WaitLoop> loop;  // made at the first word that is not ready
  for (int slot = 0; slot < count; ++slot) {
    T *address = first + slot * stride;
    const bool traced = trace::active();
    if (traced) [[unlikely]]
      trace::recordWait(trace::Kind::WaitBegin, address, static_cast<std::int64_t>(value), static_cast<int>(cmp), call);
    T seen = load(address);
    while (!satisfies(seen, cmp, value)) {
      if (!loop) {
        runtime::WaitSite site;
        site.call = call;
        site.predicate = runtime::cmpName(cmp);
        site.expected = static_cast<std::int64_t>(value);
        site.read = Load::reader;
        site.read_context = load.context();
        site.slots = count;
        loop.emplace(site);
      }
      loop->site().address = address;
      loop->site().slot = slot;
      loop->pause();
      seen = load(address);
    }
    if (traced) [[unlikely]]
      trace::recordWait(trace::Kind::WaitEnd, address, static_cast<std::int64_t>(seen), static_cast<int>(cmp), call);
    on_ready(seen);
  }
  if (loop) loop->finish();
}

// Waits until each of `count` words of this PE, `stride` elements apart, satisfies cmp value
// with an acquire load, in order, under one deadline for the whole call; calls on_ready(value)
// with the value that satisfied each word. Where the host cannot load the heap, each poll reads
// the word through the backend.
template <class T, class OnReady>
void waitWords(runtime::RuntimeState &state, T *first, int count, std::size_t stride, shmem::Cmp cmp,
               T value, const char *call, OnReady &&on_ready) {
  runtime::checkCmp(cmp, call);
  const std::size_t bytes = count > 0 ? ((static_cast<std::size_t>(count) - 1) * stride + 1) * sizeof(T) : 0;
  const std::optional<HostLoad<T>> host = hostLoad(state, first, bytes);
  if (!host) [[unlikely]] {
    requireBackendWord(state, first, call);
    waitWordsWith(BackendLoad<T>{state, call}, first, count, stride, cmp, value, call, on_ready);
    return;
  }
  waitWordsWith(*host, first, count, stride, cmp, value, call, on_ready);
}

// Waits until *address (a word of this PE) satisfies cmp value; returns the value that did.
template <class T>
T waitValue(runtime::RuntimeState &state, T *address, shmem::Cmp cmp, T value, const char *call) {
  T seen{};
  waitWords(state, address, 1, 0, cmp, value, call, [&](T ready) { seen = ready; });
  return seen;
}

}  // namespace tdist::host
