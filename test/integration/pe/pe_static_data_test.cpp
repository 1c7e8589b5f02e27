// The program's static data is symmetric (OpenSHMEM 1.5 §3.3): a put, get, atomic or signal to
// the address of a global or static variable reaches pe's copy of it, and waits on it work, on
// the cpu backend; what the loader made read-only after relocation (vtables, the GOT) stays
// read-only and private; a child of fork gets its own copy as at the fork. On a backend that
// cannot reach host memory from its devices (cuda), such an access is a clear error.
#include <gtest/gtest.h>
#include <link.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
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
// For the fork tests: a word with its value at the fork, the stores of the child and of its
// handler, and what the handler needs (the handler is armed by the test that forks).
std::int32_t static_test_at_fork;
std::int32_t static_test_from_child;
std::int32_t static_test_from_child_handler;
bool static_test_child_handler_armed;
int static_test_child_handler_ends[2] = {-1, -1};  // a socket pair: the parent's end, the child's

namespace {

// A class with virtual functions: its vtable is a constant object with relocations, which the
// loader makes read-only after relocating it (PT_GNU_RELRO).
struct StaticTestShape {
  virtual ~StaticTestShape() = default;
  virtual int sides() const { return 0; }
};
struct StaticTestSquare : StaticTestShape {
  int sides() const override { return 4; }
};

// A child handler of fork registered before init, as a program's or a library's may be. Armed,
// in the child it waits until the parent has changed the static data after the fork, then
// stores into the static data.
void childHandlerRegisteredBeforeInit() {
  if (!static_test_child_handler_armed) return;
  close(static_test_child_handler_ends[0]);  // so that a parent that ended is an end of file
  char byte = 0;
  while (recv(static_test_child_handler_ends[1], &byte, 1, 0) < 0 && errno == EINTR) {
  }
  static_test_from_child_handler = 7;
}
const bool g_child_handler_registered = pthread_atfork(nullptr, nullptr, childHandlerRegisteredBeforeInit) == 0;

std::int64_t &functionLocalStatic() {
  static std::int64_t value = 9;
  return value;
}

int me() { return sh::my_pe(); }
int n() { return sh::n_pes(); }
int right() { return (me() + 1) % n(); }
int left() { return (me() + n() - 1) % n(); }

bool sharesStaticData() { return std::string(tdist::backendName()) == "cpu"; }

// Whether this PE reaches pe only through the network (another node, or TDIST_TRANSPORT=ucx).
bool throughTheNetwork(int pe) { return aclshmemx_transport_mask(pe) == ACLSHMEM_TRANSPORT_ROCE; }

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

// The line of /proc/self/maps that maps address; "" if none.
std::string mappingOf(const void *address) {
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
}

TEST_F(StaticData, TheProgramsDataIsSharedMemory) {
  // The page of a .data variable and of a .bss one is the memfd's now, mapped at its old address.
  EXPECT_NE(mappingOf(static_test_initialized).find("rw-s"), std::string::npos) << mappingOf(static_test_initialized);
  EXPECT_NE(mappingOf(static_test_initialized).find("memfd:tdist-static"), std::string::npos);
  EXPECT_NE(mappingOf(static_test_zeroed).find("memfd:tdist-static"), std::string::npos);
  EXPECT_EQ(tdist::peerPointer(static_test_initialized, me()), static_test_initialized);
}

// The pages the loader made read-only after relocation: the program's PT_GNU_RELRO, its end
// rounded down as the loader rounds it.
struct Relro {
  std::uintptr_t first = 0, last = 0;
};

Relro programRelro() {
  Relro relro;
  dl_iterate_phdr(
      [](dl_phdr_info *info, std::size_t, void *out) {
        const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
        auto &relro = *static_cast<Relro *>(out);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr) &h = info->dlpi_phdr[i];
          if (h.p_type != PT_GNU_RELRO) continue;
          relro.first = (info->dlpi_addr + h.p_vaddr) & ~(page - 1);
          relro.last = (info->dlpi_addr + h.p_vaddr + h.p_memsz) & ~(page - 1);
        }
        return 1;  // the first object is the program
      },
      &relro);
  return relro;
}

TEST_F(StaticData, ReadOnlyAfterRelocationStaysReadOnlyAndPrivate) {
  const StaticTestSquare square;
  const StaticTestShape &shape = square;
  EXPECT_EQ(shape.sides(), 4);
  const void *vtable = nullptr;  // the object's first word points into its class's vtable
  std::memcpy(&vtable, &square, sizeof vtable);
  const auto address = reinterpret_cast<std::uintptr_t>(vtable);
  const Relro relro = programRelro();
  ASSERT_LT(relro.first, relro.last) << "the program has no page that is read-only after relocation";
#if defined(__PIE__)
  EXPECT_TRUE(address >= relro.first && address < relro.last) << vtable;
#endif
  // Every RELRO page is still the loader's read-only private page.
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  for (std::uintptr_t at = relro.first; at < relro.last; at += page) {
    const std::string mapping = mappingOf(reinterpret_cast<const void *>(at));
    EXPECT_NE(mapping.find(" r--p "), std::string::npos) << mapping;
    EXPECT_EQ(mapping.find("memfd:"), std::string::npos) << mapping;
  }
  // This process cannot store into the vtable (the kernel refuses to: EFAULT), and no PE can
  // reach it. The bytes offered are the vtable's own.
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ASSERT_EQ(write(fds[1], vtable, sizeof(void *)), static_cast<ssize_t>(sizeof(void *)));
  errno = 0;
  EXPECT_EQ(read(fds[0], const_cast<void *>(vtable), sizeof(void *)), -1);
  EXPECT_EQ(errno, EFAULT);
  close(fds[0]);
  close(fds[1]);
  for (int pe = 0; pe < n(); ++pe) EXPECT_EQ(aclshmem_ptr(vtable, pe), nullptr) << pe;
  std::byte copy[sizeof(void *)];
  std::memcpy(copy, vtable, sizeof copy);
  const std::string put = errorOf([&] { sh::putmem(const_cast<void *>(vtable), copy, sizeof copy, right()); });
  EXPECT_NE(put.find("is not on the symmetric heap"), std::string::npos) << put;
  // The writable data beside it is shared memory.
  EXPECT_NE(mappingOf(&static_test_owned).find(" rw-s "), std::string::npos);
  sh::barrier_all();
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
    if (throughTheNetwork(pe)) {
      // Another node's copy (or every peer's, TDIST_TRANSPORT=ucx): no pointer, as for its heap.
      EXPECT_EQ(theirs, nullptr) << pe;
      EXPECT_EQ(tdist::dl::symm_at(&static_test_owned, pe), nullptr) << pe;
      continue;
    }
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
  // And wait_until on a word that the peer stores through its peer pointer (through the network
  // where it has none).
  sh::barrier_all();
  if (auto *remote = tdist::dl::symm_at(&static_test_signal[1], right()); remote != nullptr) {
    __atomic_store_n(remote, std::uint64_t{3}, __ATOMIC_RELEASE);
  } else {
    ASSERT_TRUE(throughTheNetwork(right()));
    sh::atomic_set(&static_test_signal[1], std::uint64_t{3}, right());
  }
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

// Sends a byte on the socket; false if it could not (the other end is gone).
bool tell(int socket) {
  const char byte = 1;
  ssize_t n;
  while ((n = send(socket, &byte, 1, MSG_NOSIGNAL)) < 0 && errno == EINTR) {
  }
  return n == 1;
}

// Waits for a byte from the socket; false at its end.
bool hear(int socket) {
  char byte = 0;
  ssize_t n;
  while ((n = recv(socket, &byte, 1, 0)) < 0 && errno == EINTR) {
  }
  return n == 1;
}

// The child's copy is the data as it was at the fork, whatever the parent does after: the parent
// stores right after fork returns, while the child's handlers run, and again while the child
// checks. And the child's stores are its own, those of a child handler registered before init
// (which runs before the child has returned from fork) too.
TEST_F(StaticData, AForkedChildHasTheDataAsAtTheForkAndItsStoresStayItsOwn) {
  ASSERT_TRUE(g_child_handler_registered);
  const int pe = me();
  static_test_at_fork = 100 + pe;
  static_test_from_child = 0;
  static_test_from_child_handler = 0;
  int ends[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends), 0);
  const int parent_end = ends[0], child_end = ends[1];
  static_test_child_handler_ends[0] = parent_end;
  static_test_child_handler_ends[1] = child_end;
  // Disarmed once the child has ended: the parent's stores are those of the test alone.
  struct Armed {
    Armed() { static_test_child_handler_armed = true; }
    ~Armed() { static_test_child_handler_armed = false; }
  } armed;
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The handler has run: it heard of the parent's first store (and closed the parent's end).
    int status = 0;  // what went wrong, one bit each
    if (static_test_at_fork != 100 + pe) status |= 1;
    if (static_test_from_child_handler != 7) status |= 2;
    if (!tell(child_end) || !hear(child_end)) _exit(64);
    // The parent has stored again.
    if (static_test_at_fork != 100 + pe) status |= 4;
    static_test_from_child = 1;
    static_test_at_fork = -1;
    if (static_test_from_child != 1 || static_test_at_fork != -1) status |= 8;
    _exit(status);
  }
  close(child_end);
  static_test_at_fork = 200 + pe;  // the child is still in fork, its handler waiting for this
  const bool told = tell(parent_end);
  const bool heard = told && hear(parent_end);  // then the child checks
  static_test_at_fork = 300 + pe;
  const bool told_again = heard && tell(parent_end);
  int status = 0;
  const pid_t ended = waitpid(child, &status, 0);
  close(parent_end);
  ASSERT_TRUE(told && heard && told_again);
  ASSERT_EQ(ended, child);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: the child saw the parent's store right after the fork; 2: not its "
                                       "handler's store; 4: the parent's store while it checked; 8: not its own";
  EXPECT_EQ(static_test_at_fork, 300 + pe);
  EXPECT_EQ(static_test_from_child, 0);
  EXPECT_EQ(static_test_from_child_handler, 0);
  // And the parent's data is still symmetric.
  sh::barrier_all();
  EXPECT_EQ(sh::g(&static_test_at_fork, right()), 300 + right());
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
