// host/openshmem/collectives.cpp - shmem.h's broadcast, collect, fcollect, alltoall(s) and
// reductions, on teams and on active sets: names over the runtime's team collectives
// (host/team_collectives.cpp). An active set runs on its team (runtime::teamOfActiveSet);
// pWrk is not needed; pSync joins the members of an active set that is no team (runtime/teams.h).
#include <string>

#include "host/calls.h"
#include "host/openshmem/support.h"
#include "runtime/teams.h"

namespace host = tdist::host;
using tdist::host::CollectiveCall;
using tdist::openshmem::NativeType;
using tdist::openshmem::orExit;
using tdist::openshmem::returnCode;
using tdist::runtime::CollectiveApi;
using tdist::runtime::ReduceOp;

namespace tdist::openshmem {
namespace {

// The operation of each reduction family of shmem.h.
constexpr ReduceOp kOp_and_reduce = ReduceOp::And, kOp_or_reduce = ReduceOp::Or, kOp_xor_reduce = ReduceOp::Xor,
                   kOp_max_reduce = ReduceOp::Max, kOp_min_reduce = ReduceOp::Min, kOp_sum_reduce = ReduceOp::Sum,
                   kOp_prod_reduce = ReduceOp::Prod;
constexpr ReduceOp kOp_and_to_all = ReduceOp::And, kOp_or_to_all = ReduceOp::Or, kOp_xor_to_all = ReduceOp::Xor,
                   kOp_max_to_all = ReduceOp::Max, kOp_min_to_all = ReduceOp::Min, kOp_sum_to_all = ReduceOp::Sum,
                   kOp_prod_to_all = ReduceOp::Prod;


template <class T>
int reduce(shmem_team_t team, T *dest, const T *source, std::size_t nreduce, ReduceOp op, const char *call) {
  using Native = NativeType<T>;
  return returnCode([&] {
    host::reduce(team, reinterpret_cast<Native *>(dest), reinterpret_cast<const Native *>(source), nreduce, op,
                   CollectiveCall{call, CollectiveApi::ShmemReduce});
  });
}

template <class T>
void reduceToAll(T *dest, const T *source, int nreduce, int pe_start, int log_pe_stride, int pe_size, long *psync,
                 ReduceOp op, const char *call) {
  using Native = NativeType<T>;
  onActiveSet(pe_start, log_pe_stride, pe_size, psync, call, [&](int team) {
    if (nreduce < 0) {
      throw Error(ErrorCode::InvalidParam, std::string(call) + ": nreduce " + std::to_string(nreduce) + " is negative");
    }
    host::reduce(team, reinterpret_cast<Native *>(dest), reinterpret_cast<const Native *>(source),
                   static_cast<std::size_t>(nreduce), op, CollectiveCall{call, CollectiveApi::ShmemReduce});
  });
}

}  // namespace
}  // namespace tdist::openshmem

namespace oshmem = tdist::openshmem;

// The runtime's collective CALL (with `collective` the CollectiveCall of this routine) as a
// team-based routine's return code.
#define TDIST_SHMEM_TEAM_COLLECTIVE(NAME, API, CALL)                                                    \
  returnCode([&] {                                                                                      \
    const CollectiveCall collective{"shmem_" NAME, CollectiveApi::API};                                 \
    CALL;                                                                                               \
  })

extern "C" {

#define TDIST_SHMEM_DEFINE_COLLECTIVES(TYPENAME, TYPE, A)                                                \
  int shmem_##TYPENAME##_broadcast(shmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems, int PE_root) { \
    return TDIST_SHMEM_TEAM_COLLECTIVE(#TYPENAME "_broadcast", ShmemBroadcast,                           \
                                       host::broadcast(team, dest, source, nelems * sizeof(TYPE), PE_root, false, \
                                                         collective));                                   \
  }                                                                                                      \
  int shmem_##TYPENAME##_collect(shmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems) {      \
    return TDIST_SHMEM_TEAM_COLLECTIVE(#TYPENAME "_collect", ShmemCollect,                               \
                                       host::collect(team, dest, source, nelems * sizeof(TYPE), false, collective)); \
  }                                                                                                      \
  int shmem_##TYPENAME##_fcollect(shmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems) {     \
    return TDIST_SHMEM_TEAM_COLLECTIVE(#TYPENAME "_fcollect", ShmemFcollect,                             \
                                       host::collect(team, dest, source, nelems * sizeof(TYPE), true, collective)); \
  }                                                                                                      \
  int shmem_##TYPENAME##_alltoall(shmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems) {     \
    return TDIST_SHMEM_TEAM_COLLECTIVE(#TYPENAME "_alltoall", ShmemAlltoall,                             \
                                       host::alltoall(team, dest, source, nelems * sizeof(TYPE), collective)); \
  }                                                                                                      \
  int shmem_##TYPENAME##_alltoalls(shmem_team_t team, TYPE *dest, const TYPE *source, ptrdiff_t dst,      \
                                   ptrdiff_t sst, size_t nelems) {                                       \
    return TDIST_SHMEM_TEAM_COLLECTIVE(                                                                  \
        #TYPENAME "_alltoalls", ShmemAlltoalls,                                                          \
        host::alltoalls(team, dest, source, dst, sst, nelems, sizeof(TYPE), collective));              \
  }
TDIST_SHMEM_RMA_TYPES(TDIST_SHMEM_DEFINE_COLLECTIVES, _)

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root) {
  return TDIST_SHMEM_TEAM_COLLECTIVE("broadcastmem", ShmemBroadcast,
                                     host::broadcast(team, dest, source, nelems, PE_root, false, collective));
}
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems) {
  return TDIST_SHMEM_TEAM_COLLECTIVE("collectmem", ShmemCollect,
                                     host::collect(team, dest, source, nelems, false, collective));
}
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems) {
  return TDIST_SHMEM_TEAM_COLLECTIVE("fcollectmem", ShmemFcollect,
                                     host::collect(team, dest, source, nelems, true, collective));
}
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems) {
  return TDIST_SHMEM_TEAM_COLLECTIVE("alltoallmem", ShmemAlltoall,
                                     host::alltoall(team, dest, source, nelems, collective));
}
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                       size_t nelems) {
  return TDIST_SHMEM_TEAM_COLLECTIVE("alltoallsmem", ShmemAlltoalls,
                                     host::alltoalls(team, dest, source, dst, sst, nelems, 1, collective));
}

// The active-set forms: the root's dest is left as it is (as the specification says of them).
#define TDIST_SHMEM_DEFINE_ACTIVE_SET_COLLECTIVES(BITS, A)                                               \
  void shmem_broadcast##BITS(void *dest, const void *source, size_t nelems, int PE_root, int PE_start,   \
                             int logPE_stride, int PE_size, long *pSync) {                               \
    constexpr const char *call = "shmem_broadcast" #BITS;                                                \
    oshmem::onActiveSet(PE_start, logPE_stride, PE_size, pSync, call, [&](int team) {                           \
      host::broadcast(team, dest, source, nelems * (BITS / 8), PE_root, true,                          \
                        CollectiveCall{call, CollectiveApi::ShmemBroadcast});                            \
    });                                                                                                  \
  }                                                                                                      \
  void shmem_collect##BITS(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, \
                           int PE_size, long *pSync) {                                                   \
    constexpr const char *call = "shmem_collect" #BITS;                                                  \
    oshmem::onActiveSet(PE_start, logPE_stride, PE_size, pSync, call, [&](int team) {                           \
      host::collect(team, dest, source, nelems * (BITS / 8), false,                                    \
                      CollectiveCall{call, CollectiveApi::ShmemCollect});                                \
    });                                                                                                  \
  }                                                                                                      \
  void shmem_fcollect##BITS(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, \
                            int PE_size, long *pSync) {                                                  \
    constexpr const char *call = "shmem_fcollect" #BITS;                                                 \
    oshmem::onActiveSet(PE_start, logPE_stride, PE_size, pSync, call, [&](int team) {                           \
      host::collect(team, dest, source, nelems * (BITS / 8), true,                                     \
                      CollectiveCall{call, CollectiveApi::ShmemFcollect});                               \
    });                                                                                                  \
  }                                                                                                      \
  void shmem_alltoall##BITS(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, \
                            int PE_size, long *pSync) {                                                  \
    constexpr const char *call = "shmem_alltoall" #BITS;                                                 \
    oshmem::onActiveSet(PE_start, logPE_stride, PE_size, pSync, call, [&](int team) {                           \
      host::alltoall(team, dest, source, nelems * (BITS / 8), CollectiveCall{call, CollectiveApi::ShmemAlltoall}); \
    });                                                                                                  \
  }                                                                                                      \
  void shmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                             int PE_start, int logPE_stride, int PE_size, long *pSync) {                 \
    constexpr const char *call = "shmem_alltoalls" #BITS;                                                \
    oshmem::onActiveSet(PE_start, logPE_stride, PE_size, pSync, call, [&](int team) {                           \
      host::alltoalls(team, dest, source, dst, sst, nelems, BITS / 8,                                  \
                        CollectiveCall{call, CollectiveApi::ShmemAlltoalls});                            \
    });                                                                                                  \
  }
TDIST_SHMEM_DEFINE_ACTIVE_SET_COLLECTIVES(32, _)
TDIST_SHMEM_DEFINE_ACTIVE_SET_COLLECTIVES(64, _)

#define TDIST_SHMEM_DEFINE_REDUCE(TYPENAME, TYPE, FAMILY)                                                \
  int shmem_##TYPENAME##_##FAMILY(shmem_team_t team, TYPE *dest, const TYPE *source, size_t nreduce) {    \
    return oshmem::reduce(team, dest, source, nreduce, oshmem::kOp_##FAMILY, "shmem_" #TYPENAME "_" #FAMILY); \
  }
#define TDIST_SHMEM_DEFINE_TO_ALL(TYPENAME, TYPE, FAMILY)                                                \
  void shmem_##TYPENAME##_##FAMILY(TYPE *dest, const TYPE *source, int nreduce, int PE_start,            \
                                   int logPE_stride, int PE_size, TYPE *pWrk, long *pSync) {             \
    oshmem::reduceToAll(dest, source, nreduce, PE_start, logPE_stride, PE_size, pSync, oshmem::kOp_##FAMILY, \
                        "shmem_" #TYPENAME "_" #FAMILY);                                                 \
  }
TDIST_SHMEM_REDUCTIONS(TDIST_SHMEM_DEFINE_REDUCE)
TDIST_SHMEM_TO_ALL_REDUCTIONS(TDIST_SHMEM_DEFINE_TO_ALL)

}  // extern "C"
