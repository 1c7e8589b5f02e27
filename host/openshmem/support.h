// host/openshmem/support.h - what every routine of shmem.h shares: contexts, how an
// error is reported, and the conversions to the runtime's enums.
#pragma once

#include <complex>
#include <cstddef>
#include <string>

#include "runtime/c_api_support.h"
#include "runtime/teams.h"
#include "shmem.h"
#include "tdist/exit_codes.h"
#include "tdist/shmem.h"

// A context: the team its PE numbers are relative to, and the options it was made with.
struct tdist_shmem_ctx {
  shmem_team_t team;
  long options;
};

namespace tdist::openshmem {

// Routines that can return an error: the runtime's code (0 on success), reason on stderr.
template <class Fn>
int returnCode(Fn &&fn) {
  return capi::guarded(std::forward<Fn>(fn));
}

// Routines that cannot: the reason on stderr, then the job ends (kExitFatalError).
template <class Fn>
void orExit(Fn &&fn) {
  if (capi::guarded(std::forward<Fn>(fn)) != 0) shmem::global_exit(kExitFatalError);
}

template <class T, class Fn>
T valueOrExit(Fn &&fn) {
  T result{};
  orExit([&] { result = fn(); });
  return result;
}

// fn(team) on the team of an active set (runtime::teamOfActiveSet, joined through pSync where the
// set is no team), ending the job on an error: the active-set routines return none.
template <class Fn>
void onActiveSet(int pe_start, int log_pe_stride, int pe_size, long *psync, const char *call, Fn &&fn) {
  orExit([&] {
    struct Leave {
      int team;
      ~Leave() { runtime::leaveActiveSet(team); }
    } leave{runtime::teamOfActiveSet(pe_start, log_pe_stride, pe_size, psync, call)};
    fn(leave.team);
  });
}

// The world PE of `pe`, a PE of ctx's team; Error(InvalidParam) naming call otherwise.
int worldPe(shmem_ctx_t ctx, int pe, const char *call);

inline shmem::Cmp toCmp(int cmp) { return static_cast<shmem::Cmp>(cmp); }
inline shmem::SignalOp toSignalOp(int op) { return static_cast<shmem::SignalOp>(op); }

// The C++ type the runtime computes with for a type of shmem.h: itself, but std::complex for
// C's complex types (the same layout).
template <class T>
struct Native {
  using type = T;
};
template <>
struct Native<tdist_shmem_complexf> {
  using type = std::complex<float>;
};
template <>
struct Native<tdist_shmem_complexd> {
  using type = std::complex<double>;
};
template <class T>
using NativeType = typename Native<T>::type;

}  // namespace tdist::openshmem

// Defines shmem_NAME PARAMS and shmem_ctx_NAME(shmem_ctx_t ctx, PARAMS), both returning EXPR, in
// which ctx is the context (SHMEM_CTX_DEFAULT in the first) and call the routine's name.
#define TDIST_SHMEM_UNPAREN(...) __VA_ARGS__
#define TDIST_SHMEM_DEFINE_CTX_FORMS(RESULT, NAME, PARAMS, EXPR)          \
  RESULT shmem_##NAME PARAMS {                                           \
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;                                 \
    const char *call = "shmem_" #NAME;                                   \
    return EXPR;                                                         \
  }                                                                      \
  RESULT shmem_ctx_##NAME(shmem_ctx_t ctx, TDIST_SHMEM_UNPAREN PARAMS) { \
    const char *call = "shmem_ctx_" #NAME;                               \
    return EXPR;                                                         \
  }
