// host/wait_set.cpp - waits and tests on a set of words (OpenSHMEM's wait_until_all,
// _any, _some and their _vector and test forms), through the runtime's one wait loop.
#include <atomic>
#include <cstdint>
#include <limits>
#include <optional>

#include "host/calls.h"
#include "host/wait_value.h"
#include "runtime/call_checks.h"
#include "runtime/runtime_state.h"
#include "runtime/wait.h"

namespace tdist::host {

using shmem::Cmp;

namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

template <class T, class Load>
struct WordSet {
  const Load &load;
  T *ivars;
  std::size_t nelems;
  const int *status;
  Cmp cmp;
  const T *values;
  T value;

  bool active(std::size_t i) const { return status == nullptr || status[i] == 0; }
  T expected(std::size_t i) const { return values != nullptr ? values[i] : value; }
  bool ready(std::size_t i) const { return satisfies(load(ivars + i), cmp, expected(i)); }

  // One poll. All: advances `next` past the words that are ready, done when none is left. Any:
  // the first ready word. Some: every ready word. `pending` is the first word still waited for.
  bool poll(WaitSet kind, std::size_t &next, std::size_t &result, std::size_t *indices, std::size_t &pending) const {
    pending = kNone;
    switch (kind) {
      case WaitSet::All:
        for (; next < nelems; ++next) {
          if (active(next) && !ready(next)) {
            pending = next;
            return false;
          }
        }
        result = 1;
        return true;
      case WaitSet::Any:
        for (std::size_t i = 0; i < nelems; ++i) {
          if (!active(i)) continue;
          if (ready(i)) {
            result = i;
            return true;
          }
          if (pending == kNone) pending = i;
        }
        result = kNone;
        return pending == kNone;  // nothing left to wait for
      case WaitSet::Some: {
        std::size_t count = 0;
        for (std::size_t i = 0; i < nelems; ++i) {
          if (!active(i)) continue;
          if (ready(i)) {
            if (indices != nullptr) indices[count] = i;
            ++count;
          } else if (pending == kNone) {
            pending = i;
          }
        }
        result = count;
        return count > 0 || pending == kNone;
      }
    }
    return true;
  }
};

template <class T, class Load>
std::size_t waitSetWith(const Load &load, WaitSet kind, T *ivars, std::size_t nelems, const int *status, Cmp cmp,
                        const T *values, T value, std::size_t *indices, bool block, const char *call) {
  const WordSet<T, Load> set{load, ivars, nelems, status, cmp, values, value};
  std::size_t next = 0, result = 0, pending = kNone;
  if (set.poll(kind, next, result, indices, pending)) return result;
  if (!block) return kind == WaitSet::All ? 0 : result;
  runtime::WaitSite site;
  site.call = call;
  site.predicate = runtime::cmpName(cmp);
  site.read = Load::reader;
  site.read_context = load.context();
  site.slots = static_cast<int>(std::min<std::size_t>(nelems, std::numeric_limits<int>::max()));
  runtime::WaitLoop loop(site);
  for (;;) {
    loop.site().address = ivars + pending;
    loop.site().slot = static_cast<int>(pending);
    loop.site().expected = static_cast<std::int64_t>(set.expected(pending));
    loop.pause();
    if (set.poll(kind, next, result, indices, pending)) break;
  }
  loop.finish();
  return result;
}

}  // namespace

template <class T>
std::size_t waitSet(WaitSet kind, T *ivars, std::size_t nelems, const int *status, Cmp cmp, const T *values,
                    T value, std::size_t *indices, bool block, const char *call) {
  auto &state = runtime::requireState(call);
  runtime::checkCmp(cmp, call);
  if (nelems == 0) return kind == WaitSet::All ? 1 : kind == WaitSet::Any ? kNone : 0;
  runtime::requireAtomicAlignment<T>(ivars, call, "ivars");
  runtime::peerAddress(state, ivars, nelems * sizeof(T), state.my_pe, call, "ivars");
  const std::optional<HostLoad<T>> host = hostLoad(state, ivars, nelems * sizeof(T));
  if (!host) [[unlikely]] {
    return waitSetWith(BackendLoad<T>{state, call}, kind, ivars, nelems, status, cmp, values, value, indices, block,
                       call);
  }
  return waitSetWith(*host, kind, ivars, nelems, status, cmp, values, value, indices, block, call);
}

#define TDIST_INSTANTIATE_WAIT_SET(T)                                                                   \
  template std::size_t waitSet<T>(WaitSet, T *, std::size_t, const int *, Cmp, const T *, T, std::size_t *, \
                                  bool, const char *);
TDIST_INSTANTIATE_WAIT_SET(short)
TDIST_INSTANTIATE_WAIT_SET(unsigned short)
TDIST_INSTANTIATE_WAIT_SET(int)
TDIST_INSTANTIATE_WAIT_SET(long)
TDIST_INSTANTIATE_WAIT_SET(long long)
TDIST_INSTANTIATE_WAIT_SET(unsigned int)
TDIST_INSTANTIATE_WAIT_SET(unsigned long)
TDIST_INSTANTIATE_WAIT_SET(unsigned long long)
#undef TDIST_INSTANTIATE_WAIT_SET

}  // namespace tdist::host
