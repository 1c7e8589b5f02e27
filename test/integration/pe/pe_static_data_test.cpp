// The program's static data is symmetric (OpenSHMEM 1.5 §3.3): a put, get, atomic or signal to
// the address of a global or static variable reaches pe's copy of it, and waits on it work, on
// the cpu backend. On a backend that cannot reach host memory from its devices (cuda), such an
// access is a clear error.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "aclshmem.h"
#include "tdist/dl.h"
#include "tdist/error.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

namespace sh = tdist::shmem;

// Globals of every kind the standard covers: initialized (.data), zeroed (.bss), file static and
// function-local static. Each test owns its variables, so none depends on another's order.
std::int64_t static_test_initialized[4] = {11, 22, 33, 44};
char static_test_text[16] = "symmetric";
std::int64_t static_test_zeroed[64];
std::int64_t static_test_ring[8];
std::int64_t static_test_ring_copy[8];
std::int32_t static_test_owned;
std::int64_t static_test_counter;
std::uint64_t static_test_swapped;
alignas(64) std::int32_t static_test_box[16];
alignas(64) std::uint64_t static_test_signal[8];
alignas(64) std::int64_t static_test_slots[4 * 8];  // dl::wait slots, one 64-byte line each
std::int32_t static_test_forked = 41;
std::int32_t static_test_guarded[5];  // ASan puts a redzone after it
static std::int64_t s_file_static = 5;
static std::int32_t s_file_static_bss;
const std::int32_t kStaticTestReadOnly = 3;  // .rodata: not writable, not symmetric

namespace {

std::int64_t &functionLocalStatic() {
  static std::int64_t value = 9;
  return value;
}

int me() { return sh::my_pe(); }
int n() { return sh::n_pes(); }
int right() { return (me() + 1) % n(); }
int left() { return (me() + n() - 1) % n(); }

bool sharesStaticData() { return std::string(tdist::backendName()) == "cpu"; }

class StaticData : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!sharesStaticData()) GTEST_SKIP() << "static data is not symmetric on the " << tdist::backendName() << " backend";
  }
};

template <class Fn>
std::string errorOf(Fn &&fn, tdist::ErrorCode *code = nullptr) {
  try {
    fn();
  } catch (const tdist::Error &error) {
    if (code != nullptr) *code = error.code();
    return error.what();
  }
  return "";
}

TEST_F(StaticData, InitialValuesSurviveInit) {
  EXPECT_EQ(static_test_initialized[0], 11);
  EXPECT_EQ(static_test_initialized[3], 44);
  EXPECT_STREQ(static_test_text, "symmetric");
  for (std::int64_t word : static_test_zeroed) EXPECT_EQ(word, 0);
  EXPECT_EQ(s_file_static, 5);
  EXPECT_EQ(functionLocalStatic(), 9);
  // Read from every peer's copy too.
  for (int pe = 0; pe < n(); ++pe) {
    EXPECT_EQ(sh::g(&static_test_initialized[2], pe), 33) << pe;
    char text[16] = {};
    sh::getmem(text, static_test_text, sizeof text, pe);
    EXPECT_STREQ(text, "symmetric") << pe;
  }
  sh::barrier_all();
}

TEST_F(StaticData, TheProgramsDataIsSharedMemory) {
  // The page of a .data variable and of a .bss one is the memfd's now, mapped at its old address.
  auto mappingOf = [](const void *address) {
    FILE *maps = std::fopen("/proc/self/maps", "r");
    char line[512];
    std::string found;
    while (maps != nullptr && std::fgets(line, sizeof line, maps) != nullptr) {
      unsigned long start = 0, end = 0;
      if (std::sscanf(line, "%lx-%lx", &start, &end) == 2 && reinterpret_cast<unsigned long>(address) >= start &&
          reinterpret_cast<unsigned long>(address) < end) {
        found = line;
      }
    }
    if (maps != nullptr) std::fclose(maps);
    return found;
  };
  EXPECT_NE(mappingOf(static_test_initialized).find("rw-s"), std::string::npos) << mappingOf(static_test_initialized);
  EXPECT_NE(mappingOf(static_test_initialized).find("memfd:tdist-static"), std::string::npos);
  EXPECT_NE(mappingOf(static_test_zeroed).find("memfd:tdist-static"), std::string::npos);
  EXPECT_EQ(tdist::peerPointer(static_test_initialized, me()), static_test_initialized);
}

TEST_F(StaticData, PutsAndGetsReachThePeersCopy) {
  std::int64_t mine[8];
  for (int i = 0; i < 8; ++i) mine[i] = me() * 100 + i;
  sh::putmem(static_test_ring, mine, sizeof mine, right());
  sh::putmem_nbi(static_test_ring_copy, mine, sizeof mine, right());
  sh::p(&s_file_static_bss, 1000 + me(), right());
  sh::p(&functionLocalStatic(), std::int64_t{2000} + me(), right());
  sh::quiet();
  sh::barrier_all();
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(static_test_ring[i], left() * 100 + i) << i;
    EXPECT_EQ(static_test_ring_copy[i], left() * 100 + i) << i;
  }
  EXPECT_EQ(s_file_static_bss, 1000 + left());
  EXPECT_EQ(functionLocalStatic(), 2000 + left());
  // And back: the right neighbour's copy holds this PE's values.
  std::int64_t theirs[8] = {};
  sh::getmem(theirs, static_test_ring, sizeof theirs, right());
  for (int i = 0; i < 8; ++i) EXPECT_EQ(theirs[i], mine[i]) << i;
  sh::getmem_nbi(theirs, static_test_ring_copy, sizeof theirs, right());
  sh::quiet();
  for (int i = 0; i < 8; ++i) EXPECT_EQ(theirs[i], mine[i]) << i;
  EXPECT_EQ(sh::g(&s_file_static_bss, right()), 1000 + me());
  sh::barrier_all();
}

TEST_F(StaticData, PlainStoresAreSeenByPeers) {
  static_test_owned = 500 + me();
  sh::barrier_all();
  for (int pe = 0; pe < n(); ++pe) EXPECT_EQ(sh::g(&static_test_owned, pe), 500 + pe) << pe;
  // Through the C API and the peer pointer as well.
  for (int pe = 0; pe < n(); ++pe) {
    EXPECT_EQ(aclshmem_int32_g(&static_test_owned, pe), 500 + pe) << pe;
    auto *theirs = static_cast<std::int32_t *>(aclshmem_ptr(&static_test_owned, pe));
    ASSERT_NE(theirs, nullptr) << pe;
    EXPECT_EQ(*theirs, 500 + pe) << pe;
    EXPECT_EQ(tdist::dl::symm_at(&static_test_owned, pe), theirs);
  }
  sh::barrier_all();
}

TEST_F(StaticData, AtomicsOnAStaticCounter) {
  constexpr int kAdds = 50;
  for (int i = 0; i < kAdds; ++i) sh::atomic_add(&static_test_counter, std::int64_t{1}, 0);
  const std::int64_t before = sh::atomic_fetch_add(&static_test_counter, std::int64_t{2}, 0);
  EXPECT_GE(before, kAdds);
  aclshmem_int64_atomic_inc(&static_test_counter, 0);
  sh::barrier_all();
  EXPECT_EQ(sh::atomic_fetch(&static_test_counter, 0), std::int64_t{n()} * (kAdds + 3));
  // Each PE's word is swapped by its left neighbour only, from 0: that swap succeeds.
  sh::barrier_all();
  const std::uint64_t old = sh::atomic_compare_swap(&static_test_swapped, std::uint64_t{0},
                                                    static_cast<std::uint64_t>(me() + 1), right());
  sh::barrier_all();
  const std::uint64_t winner = static_test_swapped;
  EXPECT_EQ(winner, static_cast<std::uint64_t>(left() + 1));
  EXPECT_EQ(old, 0u);
  EXPECT_EQ(sh::atomic_swap(&static_test_swapped, std::uint64_t{7}, me()), winner);
  sh::barrier_all();
}

TEST_F(StaticData, SignalsAndWaitsOnStaticVariables) {
  // Data, then its signal, into the right neighbour's static buffer; this PE waits for its left's.
  std::int32_t values[16];
  for (int i = 0; i < 16; ++i) values[i] = me() * 16 + i;
  sh::putmem_signal(static_test_box, values, sizeof values, &static_test_signal[0], std::uint64_t{1},
                    sh::SignalOp::Add, right());
  EXPECT_EQ(sh::signal_wait_until(&static_test_signal[0], sh::Cmp::GE, std::uint64_t{1}), 1u);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(static_test_box[i], left() * 16 + i) << i;
  // The same with dl: notify every slot of the right neighbour; wait for all of this PE's.
  for (int slot = 0; slot < 4; ++slot) {
    tdist::dl::notify(&static_test_slots[slot * tdist::dl::kSignalSlotStride<std::int64_t>], right(),
                      std::int64_t{me() + 1});
  }
  tdist::dl::wait(static_test_slots, 4, std::int64_t{left() + 1});
  // And wait_until on a word that the peer stores through its peer pointer.
  sh::barrier_all();
  auto *remote = tdist::dl::symm_at(&static_test_signal[1], right());
  __atomic_store_n(remote, std::uint64_t{3}, __ATOMIC_RELEASE);
  sh::wait_until(reinterpret_cast<unsigned long *>(&static_test_signal[1]), sh::Cmp::EQ, 3ul);
  EXPECT_TRUE(sh::test(reinterpret_cast<unsigned long *>(&static_test_signal[1]), sh::Cmp::EQ, 3ul));
  sh::barrier_all();
}

TEST_F(StaticData, AddressesOutsideTheHeapAndTheDataAreStillRejected) {
  std::int32_t on_stack = 0;
  tdist::ErrorCode code{};
  const std::string stack = errorOf([&] { sh::p(&on_stack, 1, right()); }, &code);
  EXPECT_NE(stack.find("tdist::shmem::p: dest"), std::string::npos) << stack;
  EXPECT_NE(stack.find("is not on the symmetric heap"), std::string::npos) << stack;
  EXPECT_EQ(code, tdist::ErrorCode::InvalidParam);
  // Read-only data is not the program's writable data.
  const std::string read_only = errorOf([&] { (void)sh::g(&kStaticTestReadOnly, right()); });
  EXPECT_NE(read_only.find("is not on the symmetric heap"), std::string::npos) << read_only;
  EXPECT_EQ(aclshmem_ptr(&on_stack, right()), nullptr);
  EXPECT_EQ(aclshmem_ptr(&kStaticTestReadOnly, me()), nullptr);
  // A bad PE is still a bad PE.
  const std::string bad_pe = errorOf([&] { sh::p(&static_test_owned, 1, n()); });
  EXPECT_NE(bad_pe.find("is out of range"), std::string::npos) << bad_pe;
  EXPECT_EQ(aclshmem_ptr(&static_test_owned, n()), nullptr);
}

TEST_F(StaticData, AForkedChildHasItsOwnCopy) {
  static_test_forked = 41 + me();
  sh::barrier_all();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The child sees the parent's data as it was at the fork, and its stores stay its own.
    if (static_test_forked != 41 + me() || static_test_initialized[1] != 22) _exit(2);
    static_test_forked = 99;
    for (std::int64_t &word : static_test_zeroed) word = -1;
    _exit(static_test_forked == 99 ? 0 : 3);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(static_test_forked, 41 + me());
  EXPECT_EQ(static_test_zeroed[10], 0);
  sh::barrier_all();
  EXPECT_EQ(sh::g(&static_test_forked, right()), 41 + right());
  sh::barrier_all();
}

TEST_F(StaticData, RedzonesOfGlobalsStayPoisonedUnderAddressSanitizer) {
#if defined(__SANITIZE_ADDRESS__)
  // The move into the memfd kept the shadow memory: past the end of a global is still a redzone.
  EXPECT_TRUE(__asan_address_is_poisoned(reinterpret_cast<char *>(static_test_guarded) + sizeof static_test_guarded));
  EXPECT_FALSE(__asan_address_is_poisoned(&static_test_guarded[4]));
  sh::p(&static_test_guarded[4], 8, right());
  sh::barrier_all();
  EXPECT_EQ(static_test_guarded[4], 8);
#else
  GTEST_SKIP() << "not an AddressSanitizer build";
#endif
}

// On a backend whose devices cannot reach the host's static data, every access says so.
TEST(StaticDataElsewhere, IsAClearErrorWhereTheBackendCannotReachIt) {
  if (sharesStaticData()) GTEST_SKIP() << "the " << tdist::backendName() << " backend shares static data";
  tdist::ErrorCode code{};
  const std::string put = errorOf([&] { sh::p(&static_test_owned, 1, right()); }, &code);
  EXPECT_NE(put.find("is in the program's static data, which is not remotely accessible on the"), std::string::npos)
      << put;
  EXPECT_EQ(code, tdist::ErrorCode::NotSupported);
  const std::string signal = errorOf([&] {
    sh::signal_op(&static_test_signal[0], std::uint64_t{1}, sh::SignalOp::Set, right());
  });
  EXPECT_NE(signal.find("not remotely accessible"), std::string::npos) << signal;
  EXPECT_EQ(aclshmem_ptr(&static_test_owned, me()), nullptr);
}

}  // namespace
