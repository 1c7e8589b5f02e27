// host/host_access.h - heap words as host calls reach them: through the host's view of
// the heap where the backend gives one (runtime::Backend::host_view), else through the backend
// (the cuda backend's heap is GPU memory).
//
// The host calls of shmem.h and dl.h load and store heap words themselves where the backend gives
// the host a view of them (cpu: the fast path); otherwise they move bytes with a blocking submit
// and change words with word_op. Every argument check happens before either path, so the errors
// are the same on both.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "runtime/backend.h"
#include "runtime/runtime_state.h"

namespace tdist::host {

// Where the host may load and store the word at address (a symmetric address in this process's
// mapping, as peerAddress returns it), or null where only the backend reaches it.
template <class T>
T *hostView(runtime::RuntimeState &state, const T *address) {
  return static_cast<T *>(state.backend->host_view(state, address, sizeof(T)));
}

// Whether the host may load this PE's heap at all. Asked of the PE's own segment, so every PE of
// a job answers alike (the backend is the job's): for choices that every PE must make alike, and
// for code that loads the heap without saying where first (compiled kernels).
inline bool hostViewsHeap(runtime::RuntimeState &state) {
  return state.backend->host_view(state, state.heap.base(), state.heap.size()) != nullptr;
}

// Words of 4 and 8 bytes are changed by word_op; narrower ones are moved as bytes.
template <class T>
constexpr bool kBackendWord = sizeof(T) == 4 || sizeof(T) == 8;

template <class T>
using WordBits = std::conditional_t<sizeof(T) == 8, std::uint64_t,
                                    std::conditional_t<sizeof(T) == 4, std::uint32_t,
                                                       std::conditional_t<sizeof(T) == 2, std::uint16_t, std::uint8_t>>>;

// word_op's operands and result carry a word's bit pattern in their low sizeof(T) bytes, the
// rest zero: a signed or floating-point value keeps its bits, whatever the width.
template <class T>
std::uint64_t toWordBits(T value) {
  return static_cast<std::uint64_t>(std::bit_cast<WordBits<T>>(value));
}

template <class T>
T fromWordBits(std::uint64_t bits) {
  return std::bit_cast<T>(static_cast<WordBits<T>>(bits));
}

// op on the word at address (any PE's, in this process's mapping); returns its previous value.
template <class T>
T backendWordOp(runtime::RuntimeState &state, runtime::WordOp op, const T *address, T operand, T compare,
                const char *call) {
  static_assert(kBackendWord<T>, "word_op changes words of 4 or 8 bytes");
  return fromWordBits<T>(state.backend->word_op(state, op, const_cast<T *>(address), sizeof(T),
                                                toWordBits(operand), toWordBits(compare), call));
}

// Reads the word at address with acquire order.
template <class T>
T backendLoad(runtime::RuntimeState &state, const T *address, const char *call) {
  if constexpr (kBackendWord<T>) {
    return backendWordOp(state, runtime::WordOp::Fetch, address, T{}, T{}, call);
  } else {
    T value{};
    runtime::Transfer transfer;
    transfer.dest = reinterpret_cast<std::byte *>(&value);
    transfer.source = address;
    transfer.bytes = sizeof(T);
    state.backend->submit(state, transfer, true, call);
    return value;
  }
}

// Writes the word at address with release order.
template <class T>
void backendStore(runtime::RuntimeState &state, T *address, T value, const char *call) {
  if constexpr (kBackendWord<T>) {
    backendWordOp(state, runtime::WordOp::PutSet, address, value, T{}, call);
  } else {
    runtime::Transfer transfer;
    transfer.dest = reinterpret_cast<std::byte *>(address);
    transfer.source = &value;
    transfer.bytes = sizeof(T);
    state.backend->submit(state, transfer, true, call);
  }
}

}  // namespace tdist::host
