// host/openshmem/setup.cpp - shmem.h's setup, queries, heap, teams and contexts: names over
// the runtime's init, allocator, address translation and teams.
#include <algorithm>
#include <cstring>
#include <string>

#include "host/calls.h"
#include "host/openshmem/support.h"
#include "runtime/heap.h"
#include "runtime/runtime_state.h"
#include "runtime/teams.h"
#include "shmemx.h"
#include "tdist/runtime.h"

using tdist::Error;
using tdist::ErrorCode;
using tdist::openshmem::orExit;
using tdist::openshmem::returnCode;
using tdist::openshmem::valueOrExit;
using tdist::runtime::CollectiveApi;

struct tdist_shmem_ctx tdist_shmem_ctx_default = {SHMEM_TEAM_WORLD, 0};

namespace {
// What shmem_init_thread provided (shmem_init: the most it can).
int g_thread_level = SHMEM_THREAD_SERIALIZED;
}  // namespace

namespace tdist::openshmem {

int worldPe(shmem_ctx_t ctx, int pe, const char *call) {
  if (ctx == SHMEM_CTX_INVALID) {
    throw Error(ErrorCode::InvalidParam, std::string(call) + ": the context is SHMEM_CTX_INVALID");
  }
  if (ctx->team == SHMEM_TEAM_WORLD) return pe;  // the runtime checks it against the job
  const int world = shmem::team_translate_pe(ctx->team, pe, SHMEM_TEAM_WORLD);
  if (world < 0) {
    throw Error(ErrorCode::InvalidParam, std::string(call) + ": PE " + std::to_string(pe) +
                                             " is not a PE of the context's team (of " +
                                             std::to_string(shmem::team_n_pes(ctx->team)) + " PEs)");
  }
  return world;
}

namespace {

void requireConfigMask(long mask, const char *call) {
  if ((mask & ~SHMEM_TEAM_NUM_CONTEXTS) != 0) {
    throw Error(ErrorCode::InvalidParam, std::string(call) + ": config_mask " + std::to_string(mask) +
                                             " has bits other than SHMEM_TEAM_NUM_CONTEXTS");
  }
}

int teamSplit(shmem_team_t parent, int start, int stride, int size, shmem_team_t *new_team, const char *call,
              CollectiveApi api) {
  return returnCode([&] {
    if (new_team == nullptr) throw Error(ErrorCode::InvalidParam, std::string(call) + ": new_team is NULL");
    *new_team = SHMEM_TEAM_INVALID;
    *new_team = runtime::splitStrided(parent, start, stride, size, call, api);
  });
}

shmem_ctx_t *requireCtxOut(shmem_ctx_t *ctx, const char *call) {
  if (ctx == nullptr) throw Error(ErrorCode::InvalidParam, std::string(call) + ": ctx is NULL");
  *ctx = SHMEM_CTX_INVALID;
  return ctx;
}

}  // namespace
}  // namespace tdist::openshmem

extern "C" {

// ---- setup, exit and queries ---------------------------------------------------------------

void shmem_init(void) {
  orExit([] { tdist::init(tdist::attrFromEnvironment()); });
  g_thread_level = SHMEM_THREAD_SERIALIZED;
}

// Host calls may come from any thread one at a time; RMA, atomics and waits from several at once.
int shmem_init_thread(int requested, int *provided) {
  return returnCode([&] {
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE) {
      throw Error(ErrorCode::InvalidParam,
                  "shmem_init_thread: requested " + std::to_string(requested) + " is not a SHMEM_THREAD_ level");
    }
    tdist::init(tdist::attrFromEnvironment());
    g_thread_level = std::min(requested, SHMEM_THREAD_SERIALIZED);
    if (provided != nullptr) *provided = g_thread_level;
  });
}

void shmem_query_thread(int *provided) {
  orExit([&] {
    tdist::runtime::requireState("shmem_query_thread");
    if (provided != nullptr) *provided = g_thread_level;
  });
}

void shmem_finalize(void) {
  orExit([] { tdist::finalize(); });
}

void shmem_global_exit(int status) { tdist::shmem::global_exit(status); }

int shmem_my_pe(void) {
  return valueOrExit<int>([] { return tdist::runtime::requireState("shmem_my_pe").my_pe; });
}

int shmem_n_pes(void) {
  return valueOrExit<int>([] { return tdist::runtime::requireState("shmem_n_pes").n_pes; });
}

int shmem_pe_accessible(int pe) {
  return valueOrExit<int>([&] {
    const auto &state = tdist::runtime::requireState("shmem_pe_accessible");
    return pe >= 0 && pe < state.n_pes && tdist::transportMask(pe) != 0 ? 1 : 0;
  });
}

// Accessible: the runtime translates it to pe's copy (what every RMA call does first).
int shmem_addr_accessible(const void *addr, int pe) {
  return valueOrExit<int>([&] {
    auto &state = tdist::runtime::requireState("shmem_addr_accessible");
    if (pe < 0 || pe >= state.n_pes) return 0;
    try {
      tdist::runtime::peerAddress(state, addr, 1, pe, "shmem_addr_accessible", "addr");
      return 1;
    } catch (const Error &) {
      return 0;
    }
  });
}

void *shmem_ptr(const void *dest, int pe) {
  return valueOrExit<void *>([&] {
    tdist::runtime::requireState("shmem_ptr");
    return tdist::peerPointer(dest, pe);
  });
}

void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe) {
  return valueOrExit<void *>([&]() -> void * {
    auto &state = tdist::runtime::requireState("shmem_team_ptr");
    tdist::runtime::requireTeam(state, team, "shmem_team_ptr");
    const int world = tdist::shmem::team_translate_pe(team, pe, SHMEM_TEAM_WORLD);
    return world < 0 ? nullptr : tdist::peerPointer(dest, world);
  });
}

void shmem_info_get_version(int *major, int *minor) {
  if (major != nullptr) *major = SHMEM_MAJOR_VERSION;
  if (minor != nullptr) *minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char *name) {
  if (name == nullptr) return;
  std::strncpy(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN - 1);
  name[SHMEM_MAX_NAME_LEN - 1] = '\0';
}

// ---- symmetric heap ------------------------------------------------------------------------

void *shmem_malloc(size_t size) {
  return tdist::capi::guardedValue<void *>(nullptr, [&] {
    return tdist::runtime::allocateAs(CollectiveApi::ShmemMalloc, size, tdist::kDefaultAlignment);
  });
}

void *shmem_calloc(size_t count, size_t size) {
  return tdist::capi::guardedValue<void *>(
      nullptr, [&] { return tdist::runtime::allocateZeroedAs(CollectiveApi::ShmemCalloc, count, size); });
}

void *shmem_align(size_t alignment, size_t size) {
  return tdist::capi::guardedValue<void *>(
      nullptr, [&] { return tdist::runtime::allocateAs(CollectiveApi::ShmemAlign, size, alignment); });
}

// Hints say how the memory will be used; every block serves every use alike here.
void *shmem_malloc_with_hints(size_t size, long hints) {
  return tdist::capi::guardedValue<void *>(nullptr, [&] {
    if ((hints & ~(SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE)) != 0) {
      throw Error(ErrorCode::InvalidParam,
                  "shmem_malloc_with_hints: hints " + std::to_string(hints) + " has unknown bits");
    }
    return tdist::runtime::allocateAs(CollectiveApi::ShmemMalloc, size, tdist::kDefaultAlignment);
  });
}

// A new block, the old one's bytes copied into it (as far as both reach), then the old one freed:
// each step collective, so every PE's heap stays the same.
void *shmem_realloc(void *ptr, size_t size) {
  constexpr const char *call = "shmem_realloc";
  return tdist::capi::guardedValue<void *>(nullptr, [&]() -> void * {
    auto &state = tdist::runtime::requireState(call);
    if (ptr == nullptr) return tdist::runtime::allocateAs(CollectiveApi::ShmemRealloc, size, tdist::kDefaultAlignment);
    if (!state.heap.contains(ptr) || state.allocator.blockSize(state.heap.offsetOf(ptr)) == 0) {
      throw Error(ErrorCode::InvalidParam, std::string(call) + ": ptr is not a block of the symmetric heap");
    }
    if (size == 0) {
      tdist::runtime::deallocateAs(CollectiveApi::ShmemRealloc, ptr);
      return nullptr;
    }
    const std::size_t old_size = state.allocator.blockSize(state.heap.offsetOf(ptr));
    void *moved = tdist::runtime::allocateAs(CollectiveApi::ShmemRealloc, size, tdist::kDefaultAlignment);
    tdist::host::put(moved, ptr, std::min(old_size, size), state.my_pe, true, call);
    tdist::runtime::deallocateAs(CollectiveApi::ShmemRealloc, ptr);
    return moved;
  });
}

void shmem_free(void *ptr) {
  orExit([&] { tdist::runtime::deallocateAs(CollectiveApi::ShmemFree, ptr); });
}

// ---- teams ---------------------------------------------------------------------------------

int shmem_team_my_pe(shmem_team_t team) {
  return valueOrExit<int>([&] { return tdist::shmem::team_my_pe(team); });
}

int shmem_team_n_pes(shmem_team_t team) {
  return valueOrExit<int>([&] { return tdist::shmem::team_n_pes(team); });
}

int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config) {
  constexpr const char *call = "shmem_team_get_config";
  return returnCode([&] {
    tdist::runtime::requireTeam(tdist::runtime::requireState(call), team, call);
    tdist::openshmem::requireConfigMask(config_mask, call);
    if (config != nullptr && (config_mask & SHMEM_TEAM_NUM_CONTEXTS) != 0) config->num_contexts = 0;
  });
}

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team) {
  return valueOrExit<int>([&] { return tdist::shmem::team_translate_pe(src_team, src_pe, dest_team); });
}

int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team) {
  constexpr const char *call = "shmem_team_split_strided";
  if (int rc = returnCode([&] { tdist::openshmem::requireConfigMask(config_mask, call); }); rc != 0) return rc;
  return tdist::openshmem::teamSplit(parent_team, start, stride, size, new_team, call,
                                     CollectiveApi::ShmemTeamSplitStrided);
}

// Rows of xrange parent PEs form the x teams, columns the y teams: one strided split per row and
// per column, each collective over the parent, so every PE is in one of each.
int shmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config,
                        long xaxis_mask, shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team) {
  constexpr const char *call = "shmem_team_split_2d";
  constexpr auto api = CollectiveApi::ShmemTeamSplit2d;
  return returnCode([&] {
    auto &state = tdist::runtime::requireState(call);
    const int size = tdist::runtime::requireTeam(state, parent_team, call).size;
    tdist::openshmem::requireConfigMask(xaxis_mask, call);
    tdist::openshmem::requireConfigMask(yaxis_mask, call);
    if (xaxis_team == nullptr || yaxis_team == nullptr) {
      throw Error(ErrorCode::InvalidParam, std::string(call) + ": xaxis_team or yaxis_team is NULL");
    }
    if (xrange < 1) throw Error(ErrorCode::InvalidParam, std::string(call) + ": xrange " + std::to_string(xrange) + " is below 1");
    const int x = std::min(xrange, size);
    const int rows = (size + x - 1) / x;
    *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
    for (int row = 0; row < rows; ++row) {
      const int team = tdist::runtime::splitStrided(parent_team, row * x, 1, std::min(x, size - row * x), call, api);
      if (team != SHMEM_TEAM_INVALID) *xaxis_team = team;
    }
    for (int column = 0; column < x; ++column) {
      const int team =
          tdist::runtime::splitStrided(parent_team, column, x, (size - column + x - 1) / x, call, api);
      if (team != SHMEM_TEAM_INVALID) *yaxis_team = team;
    }
  });
}

void shmem_team_destroy(shmem_team_t team) {
  orExit([&] { tdist::runtime::destroyTeam(team, "shmem_team_destroy", CollectiveApi::ShmemTeamDestroy); });
}

// ---- contexts --------------------------------------------------------------------------------

int shmem_ctx_create(long options, shmem_ctx_t *ctx) { return shmem_team_create_ctx(SHMEM_TEAM_WORLD, options, ctx); }

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx) {
  constexpr const char *call = "shmem_team_create_ctx";
  return returnCode([&] {
    shmem_ctx_t *out = tdist::openshmem::requireCtxOut(ctx, call);
    tdist::runtime::requireTeam(tdist::runtime::requireState(call), team, call);
    if ((options & ~(SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE)) != 0) {
      throw Error(ErrorCode::InvalidParam, std::string(call) + ": options " + std::to_string(options) +
                                               " has bits other than SHMEM_CTX_PRIVATE, _SERIALIZED, _NOSTORE");
    }
    *out = new tdist_shmem_ctx{team, options};
  });
}

void shmem_ctx_destroy(shmem_ctx_t ctx) {
  orExit([&] {
    if (ctx == SHMEM_CTX_DEFAULT || ctx == SHMEM_CTX_INVALID) {
      throw Error(ErrorCode::InvalidParam, "shmem_ctx_destroy: SHMEM_CTX_DEFAULT and SHMEM_CTX_INVALID "
                                           "cannot be destroyed");
    }
    tdist::shmem::quiet();
    delete ctx;
  });
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team) {
  return returnCode([&] {
    if (team == nullptr) throw Error(ErrorCode::InvalidParam, "shmem_ctx_get_team: team is NULL");
    *team = SHMEM_TEAM_INVALID;
    if (ctx == SHMEM_CTX_INVALID) {
      throw Error(ErrorCode::InvalidParam, "shmem_ctx_get_team: the context is SHMEM_CTX_INVALID");
    }
    *team = ctx->team;
  });
}

// ---- extensions (shmemx.h) -------------------------------------------------------------------

const char *shmemx_last_error(void) { return tdist::capi::lastError(); }

void *shmemx_heap_base(void) {
  return valueOrExit<void *>([] { return tdist::heapBase(); });
}

size_t shmemx_heap_size(void) {
  return valueOrExit<size_t>([] { return tdist::heapSize(); });
}

}  // extern "C"
