// tdist_hang_scenario NAME: jobs that tdist-run's hang check must end (no PE can make progress)
// and jobs it must leave alone (a PE is still computing, or the job is slow but moves);
// hang_scenario_test.cpp runs them under tdist-run.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>

#include "aclshmem.h"

namespace {

using Clock = std::chrono::steady_clock;

std::int32_t *initWithSignals(int count) {
  if (aclshmem_init() != ACLSHMEM_SUCCESS) {
    std::fprintf(stderr, "hang scenario: init failed\n");
    return nullptr;
  }
  auto *signals = static_cast<std::int32_t *>(aclshmem_calloc(static_cast<std::size_t>(count) * 16, sizeof(std::int32_t)));
  aclshmem_barrier_all();
  return signals;
}

void notify(std::int32_t *signal, int pe) {
  aclshmem_int32_atomic_add(signal, 1, pe);
  aclshmem_quiet();
}

// Each of two PEs waits for the other's notify before sending its own.
int deadlock() {
  std::int32_t *signal = initWithSignals(1);
  if (signal == nullptr) return 1;
  const int other = 1 - aclshmem_my_pe();
  aclshmem_signal_wait_until(signal, ACLSHMEM_CMP_EQ, 1);
  notify(signal, other);
  aclshmem_finalize();
  return 0;
}

// PE 0 waits for a notify from every other PE, and the last one never sends it: PE 0 waits in
// signal_wait_until, the others in the barrier after their notify.
int missingNotify() {
  std::int32_t *signal = initWithSignals(1);
  if (signal == nullptr) return 1;
  const int me = aclshmem_my_pe();
  const int n = aclshmem_n_pes();
  if (me == 0) aclshmem_signal_wait_until(signal, ACLSHMEM_CMP_GE, n - 1);
  else if (me != n - 1) notify(signal, 0);
  aclshmem_barrier_all();
  aclshmem_finalize();
  return 0;
}

// PE 0 waits for a notify that PE 1 never sends; the others are in finalize.
int missingNotifyBeforeFinalize() {
  std::int32_t *signal = initWithSignals(1);
  if (signal == nullptr) return 1;
  if (aclshmem_my_pe() == 0) aclshmem_signal_wait_until(signal, ACLSHMEM_CMP_EQ, 1);
  aclshmem_finalize();
  return 0;
}

// PE 0 computes for `seconds` (no call into the runtime) while the others wait for it in a
// barrier; then the job ends normally.
int computeWhileOthersWait(double seconds) {
  if (initWithSignals(1) == nullptr) return 1;
  if (aclshmem_my_pe() == 0) {
    const auto until = Clock::now() + std::chrono::duration<double>(seconds);
    volatile std::uint64_t work = 0;
    while (Clock::now() < until)
      for (int i = 0; i < 100000; ++i) work = work + static_cast<std::uint64_t>(i);
  }
  aclshmem_barrier_all();
  aclshmem_finalize();
  return 0;
}

// A slow but live chain: PE 0 sends a notify every 0.4 s, ten times, to every other PE, which
// waits for each; the job lasts longer than the hang check, but something always moves.
int slowButLive() {
  std::int32_t *signal = initWithSignals(1);
  if (signal == nullptr) return 1;
  const int n = aclshmem_n_pes();
  for (int round = 1; round <= 10; ++round) {
    if (aclshmem_my_pe() == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(400));
      for (int pe = 1; pe < n; ++pe) notify(signal, pe);
    } else {
      aclshmem_signal_wait_until(signal, ACLSHMEM_CMP_GE, round);
    }
  }
  aclshmem_barrier_all();
  aclshmem_finalize();
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  const std::string name = argc == 2 ? argv[1] : "";
  if (name == "deadlock") return deadlock();
  if (name == "missing-notify") return missingNotify();
  if (name == "missing-notify-before-finalize") return missingNotifyBeforeFinalize();
  if (name == "compute-while-others-wait") return computeWhileOthersWait(5.0);
  if (name == "slow-but-live") return slowButLive();
  std::fprintf(stderr, "usage: tdist_hang_scenario deadlock|missing-notify|missing-notify-before-finalize|"
                       "compute-while-others-wait|slow-but-live\n");
  return 2;
}
