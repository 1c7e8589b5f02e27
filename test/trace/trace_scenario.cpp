// tdist_trace_scenario NAME: PE programs whose traces test/trace/trace_test.py checks.
//   ring      every PE puts a block with a signal to the next PE (putmem_signal, SET 1 + PE) and
//             waits for its own (signal_wait_until EQ 1 + previous PE), inside a user span, then
//             a barrier: n flows, each from PE p's notify to PE p+1's wait. Then a span whose
//             name is longer than the TDIST_TRACE_NAME_MAX bytes the trace keeps.
//   many      a ring repeated 200 times, with spans from the C API: more events than a small
//             buffer holds.
//   fail      PE 0 records a span, then exits 3 without finalize.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "aclshmem.h"
#include "tdist/shmem.h"
#include "tdist/trace.h"

namespace {

namespace sh = tdist::shmem;

int ring(int rounds) {
  if (aclshmem_init() != ACLSHMEM_SUCCESS) return 1;
  const int me = sh::my_pe(), n = sh::n_pes();
  auto *data = static_cast<char *>(aclshmem_malloc(256));
  auto *signal = static_cast<std::uint64_t *>(aclshmem_malloc(sizeof(std::uint64_t)));
  *signal = 0;
  aclshmem_barrier_all();
  char block[256];
  std::memset(block, me, sizeof block);
  for (int round = 0; round < rounds; ++round) {
    const std::uint64_t base = static_cast<std::uint64_t>(round) * 1000;
    if (rounds == 1) {
      tdist::trace::Span span("ring_step", me, round);
      sh::putmem_signal<std::uint64_t>(data, block, sizeof block, signal, base + 1 + me, sh::SignalOp::Set, (me + 1) % n);
      sh::signal_wait_until<std::uint64_t>(signal, sh::Cmp::EQ, base + 1 + (me + n - 1) % n);
    } else {
      tdist_trace_begin_tile("ring_step", me, round);
      sh::putmem_signal<std::uint64_t>(data, block, sizeof block, signal, base + 1 + me, sh::SignalOp::Set, (me + 1) % n);
      sh::signal_wait_until<std::uint64_t>(signal, sh::Cmp::EQ, base + 1 + (me + n - 1) % n);
      tdist_trace_end();
    }
    aclshmem_barrier_all();
  }
  if (rounds == 1) {
    tdist::trace::Span span("a_user_span_whose_name_is_longer_than_the_trace_keeps");
  }
  const bool ok = data[0] == static_cast<char>((me + n - 1) % n);
  aclshmem_finalize();
  if (!ok) std::fprintf(stderr, "PE %d: wrong data\n", me);
  return ok ? 0 : 1;
}

int fail() {
  if (aclshmem_init() != ACLSHMEM_SUCCESS) return 1;
  tdist_trace_begin("before_failure");
  if (sh::my_pe() == 0) return 3;
  tdist_trace_end();
  aclshmem_barrier_all();  // ended by the launcher once PE 0 has failed
  aclshmem_finalize();
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  const std::string name = argc > 1 ? argv[1] : "";
  if (name == "ring") return ring(1);
  if (name == "many") return ring(200);
  if (name == "fail") return fail();
  std::fprintf(stderr, "usage: tdist_trace_scenario ring|many|fail\n");
  return 2;
}
