// tdist_scenario NAME: PE programs that end badly on purpose; scenario_test.cpp runs them under
// tdist-run and checks how the job ends.
#include <link.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "aclshmem.h"
#include "tdist/dl.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"

// The static data of the scenarios: a signal nobody sends, a word that PE 0 puts to.
alignas(64) int32_t scenario_static_signal;
int32_t scenario_static_word;
#ifdef TDIST_SCENARIO_MORE_STATIC_DATA
// tdist_scenario_other, the other program of a job of two: more static data.
char scenario_more_static_data[3 * 4096] = {1};
#endif

namespace {

int initOrReport() {
  int rc = aclshmem_init();
  if (rc != ACLSHMEM_SUCCESS) std::fprintf(stderr, "scenario: init failed (%d)\n", rc);
  return rc;
}

// PE 0 waits for a signal that nobody sends; the others go on to finalize, whose store barrier
// has a much longer deadline, so PE 0's diagnostic is the one that ends the job.
int waitForever() {
  if (initOrReport() != 0) return 1;
  auto *sig = static_cast<int32_t *>(aclshmem_calloc(64, sizeof(int32_t)));
  aclshmem_barrier_all();
  if (aclshmem_my_pe() == 0) aclshmem_signal_wait_until(sig + 16, ACLSHMEM_CMP_EQ, 1);
  aclshmem_finalize();
  return 0;
}

// The same with dl.wait over several slots, where one notify is missing.
int dlWaitMissingNotify() {
  tdist::init(tdist::attrFromEnvironment());
  auto *sig = static_cast<std::int64_t *>(tdist::allocateZeroed(4 * 8, sizeof(std::int64_t)));
  for (int slot = 0; slot < 4; ++slot) {
    if (slot != 2) tdist::dl::notify(sig + slot * 8, tdist::dl::rank(), std::int64_t{5});
  }
  tdist::dl::wait(sig, 4, std::int64_t{5});
  tdist::finalize();
  return 0;
}

// PE 1 notifies PE 0's four slots one by one, 0.4 s apart; PE 0 waits for all four with one
// dl.wait. One deadline covers the call, so a 1 s deadline passes before the third notify.
int dlWaitOneDeadline() {
  tdist::init(tdist::attrFromEnvironment());
  auto *sig = static_cast<std::int64_t *>(tdist::allocateZeroed(4 * 8, sizeof(std::int64_t)));
  tdist::shmem::barrier_all();
  if (tdist::dl::rank() == 1) {
    auto start = std::chrono::steady_clock::now();
    for (int slot = 0; slot < 4; ++slot) {
      std::this_thread::sleep_until(start + (slot + 1) * std::chrono::milliseconds(400));
      tdist::dl::notify(sig + slot * 8, 0, std::int64_t{1});
    }
  } else if (tdist::dl::rank() == 0) {
    tdist::dl::wait(sig, 4, std::int64_t{1});
  }
  tdist::finalize();
  return 0;
}

// Where a variable is in the program as the wait diagnostic names it: its offset from where the
// program was loaded (the address that nm shows).
std::uintptr_t offsetInProgram(const void *address) {
  std::uintptr_t base = 0;
  dl_iterate_phdr([](dl_phdr_info *info, std::size_t, void *out) {
    *static_cast<std::uintptr_t *>(out) = info->dlpi_addr;
    return 1;  // the first object is the program
  }, &base);
  return reinterpret_cast<std::uintptr_t>(address) - base;
}

// PE 0 waits on a static variable that nobody signals.
int staticWaitForever() {
  if (initOrReport() != 0) return 1;
  std::fprintf(stderr, "scenario: the signal is at 0x%zx\n", static_cast<std::size_t>(offsetInProgram(&scenario_static_signal)));
  aclshmem_barrier_all();
  if (aclshmem_my_pe() == 0) aclshmem_signal_wait_until(&scenario_static_signal, ACLSHMEM_CMP_EQ, 1);
  aclshmem_finalize();
  return 0;
}

// PE 0 puts to the last PE's static word and says what came of it; then the heap is used.
int staticPut() {
  tdist::init(tdist::attrFromEnvironment());
  const int last = tdist::nPes() - 1;
  if (tdist::myPe() == 0) {
    try {
      tdist::shmem::p(&scenario_static_word, 7, last);
      std::fprintf(stderr, "scenario: the put succeeded\n");
    } catch (const tdist::Error &error) {
      std::fprintf(stderr, "scenario: the put failed: %s (%s)\n", error.what(), tdist::toString(error.code()));
    }
  }
  auto *word = static_cast<int32_t *>(tdist::allocateZeroed(1, sizeof(int32_t)));
  if (tdist::myPe() == 0) tdist::shmem::p(word, 5, last);
  tdist::shmem::barrier_all();
  if (tdist::myPe() == last) {
    std::fprintf(stderr, "scenario: the heap word is %d, the static word %d\n", tdist::shmem::g(word, last),
                 scenario_static_word);
  }
  tdist::finalize();
  return 0;
}

// The same where PE 1 alone opted out of symmetric static data.
int staticPutOneOptedOut() {
  if (std::atoi(std::getenv("TDIST_PE")) == 1) setenv("TDIST_STATIC_DATA", "0", 1);
  return staticPut();
}

// The last PE dies from a signal while the others wait in a barrier.
int crash() {
  if (initOrReport() != 0) return 1;
  aclshmem_barrier_all();
  if (aclshmem_my_pe() == aclshmem_n_pes() - 1) raise(SIGSEGV);
  aclshmem_barrier_all();
  aclshmem_finalize();
  return 0;
}

// PE 1 dies (SIGKILL, nothing runs after it) while PE 0 keeps putting to it: under tdist-run
// --nodes 2, through UCX.
int crashDuringPuts() {
  if (initOrReport() != 0) return 1;
  static char local[1 << 16];
  auto *buffer = static_cast<char *>(aclshmem_malloc(sizeof local));
  aclshmem_barrier_all();
  if (aclshmem_my_pe() == 1) raise(SIGKILL);
  for (;;) aclshmem_putmem(buffer, local, sizeof local, 1);
}

// PE 1 presents another secret to the store.
int wrongSecret() {
  if (std::atoi(std::getenv("TDIST_PE")) == 1) setenv("TDIST_JOB_SECRET", "not-the-job-secret", 1);
  if (initOrReport() != 0) return 1;
  aclshmem_finalize();
  return 0;
}

// PE 0 ends the job with status 7 while the others wait for something that never comes.
int globalExit() {
  if (initOrReport() != 0) return 1;
  auto *sig = static_cast<int32_t *>(aclshmem_calloc(1, sizeof(int32_t)));
  aclshmem_barrier_all();
  if (aclshmem_my_pe() == 0) aclshmem_global_exit(7);
  aclshmem_signal_wait_until(sig, ACLSHMEM_CMP_EQ, 1);
  return 0;
}

// Every PE says it is ready once all are, then they exchange puts and barriers in rounds until
// the job is ended from outside (a fault injected once every PE is ready) or, after
// TDIST_SCENARIO_ROUNDS rounds (default: without end), finalize.
int readyThenExchange() {
  if (initOrReport() != 0) return 1;
  const int me = aclshmem_my_pe(), n = aclshmem_n_pes();
  auto *box = static_cast<int64_t *>(aclshmem_calloc(1, sizeof(int64_t)));
  aclshmem_barrier_all();
  std::printf("PE %d ready\n", me);
  std::fflush(stdout);
  const char *rounds_text = std::getenv("TDIST_SCENARIO_ROUNDS");
  const long rounds = rounds_text != nullptr ? std::atol(rounds_text) : -1;
  for (long round = 1; rounds < 0 || round <= rounds; ++round) {
    aclshmem_int64_p(box, round, (me + 1) % n);
    aclshmem_barrier_all();
    const int64_t held = *box;
    aclshmem_barrier_all();  // read before the next round's put
    if (held != round) {
      std::fprintf(stderr, "scenario: PE %d holds %lld after round %ld\n", me, static_cast<long long>(held), round);
      return 1;
    }
  }
  aclshmem_finalize();
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: tdist_scenario wait-forever|dl-wait-missing-notify|dl-wait-one-deadline|crash|crash-during-puts|wrong-secret|global-exit|"
                 "static-wait-forever|static-put|static-put-one-opted-out|ready-then-exchange\n");
    return 2;
  }
  std::string name = argv[1];
  if (name == "wait-forever") return waitForever();
  if (name == "dl-wait-missing-notify") return dlWaitMissingNotify();
  if (name == "crash") return crash();
  if (name == "crash-during-puts") return crashDuringPuts();
  if (name == "dl-wait-one-deadline") return dlWaitOneDeadline();
  if (name == "wrong-secret") return wrongSecret();
  if (name == "global-exit") return globalExit();
  if (name == "static-wait-forever") return staticWaitForever();
  if (name == "static-put") return staticPut();
  if (name == "ready-then-exchange") return readyThenExchange();
  if (name == "static-put-one-opted-out") return staticPutOneOptedOut();
  std::fprintf(stderr, "tdist_scenario: unknown scenario '%s'\n", name.c_str());
  return 2;
}
