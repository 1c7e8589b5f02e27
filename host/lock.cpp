// host/lock.cpp - OpenSHMEM's distributed locks: a symmetric long whose copy on PE 0 holds
// 0 when free and 1 + the holder's PE when taken, changed by the runtime's remote atomics.
#include <string>

#include "host/calls.h"
#include "runtime/runtime_state.h"
#include "runtime/wait.h"

namespace tdist::host {

namespace {

constexpr int kLockHome = 0;  // the PE whose copy of the lock word is the lock

std::int64_t readLock(const void *address, void *) {
  return atomicFetch(static_cast<const long *>(address), kLockHome, "shmem_set_lock");
}

long holderMark(const runtime::RuntimeState &state) { return 1 + state.my_pe; }

}  // namespace

void setLock(long *lock, const char *call) {
  auto &state = runtime::requireState(call);
  const long mine = holderMark(state);
  auto take = [&] { return atomicCompareSwap(lock, 0L, mine, kLockHome, call) == 0; };
  runtime::WaitSite site;
  site.call = call;
  site.address = lock;
  site.owner_pe = kLockHome;
  site.predicate = "lock word (0 = free, else 1 + the holder's PE) EQ";
  site.expected = 0;
  site.read = readLock;
  runtime::waitUntil(site, take);
}

bool testLock(long *lock, const char *call) {
  auto &state = runtime::requireState(call);
  return atomicCompareSwap(lock, 0L, holderMark(state), kLockHome, call) != 0;
}

void clearLock(long *lock, const char *call) {
  auto &state = runtime::requireState(call);
  // Whatever the holder wrote under the lock is delivered before the next holder takes it.
  shmem::quiet();
  const long mine = holderMark(state);
  const long seen = atomicCompareSwap(lock, mine, 0L, kLockHome, call);
  if (seen != mine) {
    throw Error(ErrorCode::InvalidParam,
                std::string(call) + ": the lock is not held by PE " + std::to_string(state.my_pe) +
                    (seen == 0 ? " (it is free)" : " (PE " + std::to_string(seen - 1) + " holds it)"));
  }
}

}  // namespace tdist::host
