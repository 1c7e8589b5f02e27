// tdist/dl.h - the seeds' `dl` primitives in C++: rank, num_ranks, symm_at, notify, wait,
// consume_token, and the program id of the running program instance.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tdist/shmem.h"

// Everything declared here is exported from libtdist_runtime; the rest of it is hidden.
#pragma GCC visibility push(default)

namespace tdist::dl {

// The numbering of the `distributed` dialect's enum attributes (Triton-distributed's).
enum class SignalOp : int { Set = 1, Add = 2 };
enum class CommScope : int { Gpu = 1, IntraNode = 2, InterNode = 3 };
enum class MemScope : int { Gpu = 1, Cta = 2, System = 3 };
enum class MemSemantic : int { Relaxed = 1, Acquire = 2, Release = 3, AcquireRelease = 4 };

// One signal slot per 64-byte line: wait() walks n slots at this stride.
template <class S>
constexpr std::size_t kSignalSlotStride = 64 / sizeof(S);

// The most slots one wait may cover (the dialect's verifier checks constant counts against it).
constexpr int kMaxWaitSlots = 65536;

struct Token {
  std::uint64_t value = 0;
};

int rank();
int num_ranks();
// The running program's coordinate along axis 0..2 of its launch's grid, and the grid's size
// along it: 0 and 1 outside a launch. Another axis is an InvalidParam error.
int program_id(int axis = 0);
int num_programs(int axis = 0);

template <class T>
T *symm_at(T *ptr, int rank) {
  return static_cast<T *>(shmem::ptr(ptr, rank));
}

// SET stores value into rank's copy of *sig with release order; ADD adds it atomically.
// S is int32_t, int64_t or uint64_t.
template <class S>
TDIST_EXPORT void notify(S *sig, int rank, S value, SignalOp op = SignalOp::Set,
            CommScope scope = CommScope::InterNode);

// Waits until each of the n slots sig[0], sig[stride], ... equals value (non-consuming); n is in
// 1..kMaxWaitSlots, and one deadline covers the whole call.
// S is any fixed-width integer type, float or double.
template <class S>
TDIST_EXPORT Token wait(S *sig, int n, S value, MemScope scope = MemScope::System,
           MemSemantic semantic = MemSemantic::Acquire);

// Returns x; later accesses through the result are ordered after the wait that made token.
// A compiler barrier only: no runtime cost.
template <class T>
T consume_token(T x, Token token) {
  if constexpr (sizeof(T) <= sizeof(void *) && std::is_trivially_copyable_v<T>) {
    asm volatile("" : "+r"(x) : "r"(token.value) : "memory");
  } else {
    asm volatile("" : : "r"(token.value) : "memory");
  }
  return x;
}

}  // namespace tdist::dl

#pragma GCC visibility pop
