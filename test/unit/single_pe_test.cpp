// The runtime in one process with n_pes = 1: init, finalize, status, errors of the host API.
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "aclshmem.h"
#include "runtime/backend.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"
#include "test/support/single_pe.h"

namespace tdist {
namespace {

using testing::Listener;

InitAttr singleAttr(const Listener &listener) { return testing::singlePeAttr(listener); }

ErrorCode initError(const InitAttr &attr) {
  try {
    init(attr);
  } catch (const Error &error) {
    return error.code();
  }
  finalize();
  return ErrorCode::Internal;  // init succeeded: not what these callers expect
}

TEST(SinglePe, CallsBeforeInitFailClearly) {
  ASSERT_FALSE(isInitialized());
  EXPECT_EQ(initStatus(), InitStatus::NotInitialized);
  try {
    allocate(64);
    FAIL() << "allocate before init did not throw";
  } catch (const Error &error) {
    EXPECT_EQ(error.code(), ErrorCode::NotInitialized);
    EXPECT_NE(std::string(error.what()).find("not initialized"), std::string::npos);
  }
  EXPECT_EQ(aclshmem_malloc(64), nullptr);
  EXPECT_NE(std::string(aclshmemx_last_error()).find("aclshmem_malloc"), std::string::npos);
  EXPECT_EQ(aclshmem_my_pe(), -1);
  EXPECT_EQ(aclshmem_finalize(), ACLSHMEM_NOT_INITED);
  EXPECT_EQ(aclshmemx_init_status(), ACLSHMEM_STATUS_NOT_INITIALIZED);
}

// Attaching a module refuses what it cannot do with a reason, whatever the build: a NULL module
// always, and any module where the cuda backend cannot run (not built, or no driver).
TEST(SinglePe, CudaModuleAttachRefusesClearly) {
  int attached = -1;
  EXPECT_EQ(aclshmemx_cuda_module_attach(nullptr, &attached), ACLSHMEM_INVALID_PARAM);
  EXPECT_EQ(attached, 0);
  EXPECT_NE(std::strstr(aclshmemx_last_error(), "module is NULL"), nullptr) << aclshmemx_last_error();
  const runtime::Backend *cuda = nullptr;
  for (const runtime::Backend *backend : runtime::builtBackends()) {
    if (std::strcmp(backend->name, "cuda") == 0) cuda = backend;
  }
  std::string why;
  if (cuda != nullptr && cuda->can_run(&why)) GTEST_SKIP() << "the cuda backend runs here: the cuda suite attaches modules";
  int not_a_module = 0;
  attached = -1;
  EXPECT_EQ(aclshmemx_cuda_module_attach(&not_a_module, &attached), ACLSHMEM_NOT_SUPPORTED);
  EXPECT_EQ(attached, 0);
  EXPECT_NE(std::strstr(aclshmemx_last_error(), "cuda backend"), nullptr) << aclshmemx_last_error();
}

TEST(SinglePe, InitFinalizeInitOnTheSameEndpoint) {
  Listener listener;
  for (int round = 0; round < 3; ++round) {
    init(singleAttr(listener));
    EXPECT_EQ(initStatus(), InitStatus::Initialized);
    EXPECT_EQ(myPe(), 0);
    EXPECT_EQ(nPes(), 1);
    void *block = allocate(4096);
    ASSERT_NE(block, nullptr);
    std::memset(block, round, 4096);
    deallocate(block);
    finalize();
    EXPECT_EQ(initStatus(), InitStatus::NotInitialized);
  }
}

TEST(SinglePe, InitTwiceIsAnErrorAndKeepsTheFirst) {
  Listener listener;
  init(singleAttr(listener));
  void *block = allocate(128);
  EXPECT_EQ(initError(singleAttr(listener)), ErrorCode::AlreadyInitialized);
  EXPECT_TRUE(isInitialized());
  EXPECT_EQ(peerPointer(block, 0), block);
  deallocate(block);
  finalize();
}

TEST(SinglePe, BadIpPortIsRejected) {
  Listener listener;
  for (const char *text : {"tcp://127.0.0.1:80", "tcp://127.0.0.1:1024", "tcp://127.0.0.1:70000",
                           "http://127.0.0.1:2000", "tcp://:2000", "127.0.0.1:2000",
                           "tcp://127.0.0.1", "tcp://127.0.0.1:20x0"}) {
    InitAttr attr = singleAttr(listener);
    attr.ip_port = text;
    EXPECT_EQ(initError(attr), ErrorCode::InvalidParam) << text;
    EXPECT_EQ(initStatus(), InitStatus::NotInitialized) << text;
  }
  aclshmemx_init_attr_t c_attr;
  ASSERT_EQ(aclshmemx_set_attributes(0, 1, 1 << 20, "tcp://127.0.0.1:99", &c_attr), 0);
  EXPECT_EQ(aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_DEFAULT, &c_attr), ACLSHMEM_INVALID_PARAM);
  EXPECT_NE(std::string(aclshmemx_last_error()).find("tcp://127.0.0.1:99"), std::string::npos);
}

TEST(SinglePe, InvalidAttributesAreRejected) {
  Listener listener;
  InitAttr attr = singleAttr(listener);
  attr.my_pe = 1;
  EXPECT_EQ(initError(attr), ErrorCode::InvalidParam);
  attr = singleAttr(listener);
  attr.n_pes = 0;
  EXPECT_EQ(initError(attr), ErrorCode::InvalidParam);
  attr = singleAttr(listener);
  attr.local_mem_size = 0;
  EXPECT_EQ(initError(attr), ErrorCode::InvalidParam);
  attr = singleAttr(listener);
  attr.engines = kEngineRoce;
  EXPECT_EQ(initError(attr), ErrorCode::NotSupported);
  attr.engines = 0x10;
  EXPECT_EQ(initError(attr), ErrorCode::InvalidParam);
}

// This program links the runtime statically: its own variables are in the data that init moves.
std::int64_t g_single_pe_word = 17;

TEST(SinglePe, StaticDataIsSymmetricAcrossInitAndFinalize) {
  Listener listener;
  for (int round = 0; round < 2; ++round) {
    init(singleAttr(listener));
    EXPECT_EQ(g_single_pe_word, 17 + round);
    EXPECT_EQ(peerPointer(&g_single_pe_word, 0), &g_single_pe_word);
    EXPECT_EQ(shmem::g(&g_single_pe_word, 0), 17 + round);
    shmem::p(&g_single_pe_word, std::int64_t{18 + round}, 0);
    EXPECT_EQ(shmem::atomic_fetch_add(&g_single_pe_word, std::int64_t{-1}, 0), 18 + round);
    ++g_single_pe_word;
    finalize();
    // The data stays where it is, and the program keeps using it.
    EXPECT_EQ(g_single_pe_word, 18 + round);
  }
}

TEST(SinglePe, StaticDataOptOut) {
  Listener listener;
  ASSERT_EQ(setenv("TDIST_STATIC_DATA", "0", 1), 0);
  init(singleAttr(listener));
  EXPECT_EQ(peerPointer(&g_single_pe_word, 0), nullptr);
  try {
    shmem::p(&g_single_pe_word, std::int64_t{1}, 0);
    ADD_FAILURE() << "a put to static data that is not symmetric did not throw";
  } catch (const Error &error) {
    EXPECT_EQ(error.code(), ErrorCode::InvalidParam);
    EXPECT_NE(std::string(error.what()).find("is in the program's static data, which is not symmetric in this job: "
                                             "TDIST_STATIC_DATA=0 on PE 0"), std::string::npos) << error.what();
  }
  finalize();
  ASSERT_EQ(setenv("TDIST_STATIC_DATA", "2", 1), 0);
  EXPECT_EQ(initError(singleAttr(listener)), ErrorCode::InvalidParam);
  ASSERT_EQ(unsetenv("TDIST_STATIC_DATA"), 0);
  // Shared again on the next init.
  init(singleAttr(listener));
  EXPECT_EQ(peerPointer(&g_single_pe_word, 0), &g_single_pe_word);
  finalize();
}

TEST(SinglePe, ConnectToNothingEndsAtTheDeadline) {
  Listener listener;
  InitAttr attr = singleAttr(listener);
  attr.my_pe = 1;
  attr.n_pes = 2;
  attr.listen_fd = -1;
  attr.init_timeout = std::chrono::milliseconds(300);
  // Nobody accepts on this port: the listener is open but PE 0 never serves it.
  close(listener.fd);
  listener.fd = -1;
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(initError(attr), ErrorCode::Bootstrap);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

class InitializedPe : public ::testing::Test {
 protected:
  void SetUp() override { init(singleAttr(listener_)); }
  void TearDown() override {
    if (isInitialized()) finalize();
  }
  Listener listener_;
};

TEST_F(InitializedPe, HeapExhaustionIsAnErrorThatLosesNothing) {
  void *keep = allocate(512 * 1024);
  ASSERT_NE(keep, nullptr);
  std::memset(keep, 0x5a, 512 * 1024);
  try {
    allocate(768 * 1024);
    FAIL() << "allocation beyond the heap did not throw";
  } catch (const Error &error) {
    EXPECT_EQ(error.code(), ErrorCode::HeapExhausted);
    EXPECT_NE(std::string(error.what()).find("786432"), std::string::npos) << error.what();
    // It names the knobs that make the heap larger.
    EXPECT_NE(std::string(error.what()).find("tdist-run --heap, TDIST_HEAP_SIZE"), std::string::npos) << error.what();
  }
  EXPECT_EQ(aclshmem_malloc(1 << 30), nullptr);
  EXPECT_EQ(static_cast<unsigned char *>(keep)[512 * 1024 - 1], 0x5a);
  // The heap still works.
  void *more = allocate(256 * 1024);
  EXPECT_NE(more, nullptr);
  deallocate(more);
  deallocate(keep);
}

TEST_F(InitializedPe, CallocZeroesAndRejectsOverflow) {
  auto *block = static_cast<unsigned char *>(allocate(4096));
  std::memset(block, 0xff, 4096);
  deallocate(block);
  auto *zeroed = static_cast<unsigned char *>(allocateZeroed(1024, 4));
  ASSERT_EQ(zeroed, block);  // the same block again, now zeroed
  for (int i = 0; i < 4096; ++i) ASSERT_EQ(zeroed[i], 0) << i;
  deallocate(zeroed);
  EXPECT_THROW(allocateZeroed(SIZE_MAX / 2, 4), Error);
  EXPECT_EQ(aclshmem_calloc(SIZE_MAX / 2, 4), nullptr);
}

TEST_F(InitializedPe, AlignAndBadAlignment) {
  void *aligned = allocate(100, 1 << 16);
  ASSERT_NE(aligned, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(aligned) % (1 << 16), 0u);
  deallocate(aligned);
  EXPECT_EQ(aclshmem_align(48, 64), nullptr);
  EXPECT_NE(std::string(aclshmemx_last_error()).find("power of two"), std::string::npos);
  // Any alignment that fits the heap (1 MiB here), none beyond it.
  void *heap_aligned = aclshmem_align(std::size_t{1} << 20, 64);
  ASSERT_NE(heap_aligned, nullptr) << aclshmemx_last_error();
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(heap_aligned) % (std::size_t{1} << 20), 0u);
  aclshmem_free(heap_aligned);
  EXPECT_EQ(aclshmem_align(std::size_t{4} << 20, 64), nullptr);
  EXPECT_NE(std::string(aclshmemx_last_error()).find("larger than the symmetric heap"), std::string::npos);
  EXPECT_EQ(aclshmem_malloc(0), nullptr);
}

TEST_F(InitializedPe, FreeErrorsAreReported) {
  void *block = allocate(256);
  deallocate(block);
  try {
    deallocate(block);
    FAIL() << "double free did not throw";
  } catch (const Error &error) {
    EXPECT_NE(std::string(error.what()).find("double free"), std::string::npos) << error.what();
  }
  int local = 0;
  try {
    deallocate(&local);
    FAIL() << "free of a stack address did not throw";
  } catch (const Error &error) {
    EXPECT_NE(std::string(error.what()).find("not on the symmetric heap"), std::string::npos);
  }
  void *again = allocate(256);
  EXPECT_EQ(again, block);
  deallocate(again);
  deallocate(nullptr);  // no-op
}

TEST_F(InitializedPe, TensorsLiveOnTheHeap) {
  Tensor t = createTensor({4, 8, 2}, DType::F32);
  EXPECT_EQ(t.numel(), 64);
  EXPECT_EQ(t.nbytes(), 256u);
  EXPECT_EQ(t.strides, (std::vector<std::int64_t>{16, 2, 1}));
  EXPECT_EQ(peerPointer(t.data, 0), t.data);
  for (int i = 0; i < 64; ++i) t.as<float>()[i] = static_cast<float>(i);
  freeTensor(t);
  EXPECT_EQ(t.data, nullptr);
  EXPECT_THROW(createTensor({2, -1}, DType::I8), Error);
}

TEST_F(InitializedPe, ZeroedTensorsAndShapesThatOverflow) {
  // A block that held other bytes comes back zeroed when asked for.
  Tensor dirty = createTensor({64}, DType::U8);
  std::memset(dirty.data, 0xab, 64);
  freeTensor(dirty);
  Tensor t = createTensor({8, 8}, DType::U8, /*zeroed=*/true);
  for (int i = 0; i < 64; ++i) ASSERT_EQ(t.as<std::uint8_t>()[i], 0) << i;
  freeTensor(t);
  // The element count, or the bytes, past 64 bits: an error, not a small allocation.
  for (const std::vector<std::int64_t> &shape :
       {std::vector<std::int64_t>{std::int64_t{1} << 32, std::int64_t{1} << 32},
        std::vector<std::int64_t>{std::int64_t{1} << 62, 4}}) {
    try {
      createTensor(shape, DType::F64);
      ADD_FAILURE() << "no error";
    } catch (const Error &error) {
      EXPECT_EQ(error.code(), ErrorCode::InvalidParam);
      EXPECT_NE(std::string(error.what()).find("overflows 64 bits"), std::string::npos) << error.what();
    }
  }
  // The heap is unharmed.
  Tensor after = createTensor({16}, DType::F32);
  EXPECT_NE(after.data, nullptr);
  freeTensor(after);
}

TEST_F(InitializedPe, PeerPointerAndTransports) {
  auto *block = static_cast<char *>(allocate(64));
  EXPECT_EQ(aclshmem_ptr(block, 0), block);
  EXPECT_EQ(aclshmem_ptr(block, 1), nullptr);
  EXPECT_EQ(aclshmem_ptr(block, -1), nullptr);
  int local = 0;
  EXPECT_EQ(aclshmem_ptr(&local, 0), nullptr);
  EXPECT_EQ(aclshmemx_transport_mask(0), static_cast<uint32_t>(ACLSHMEM_TRANSPORT_MTE));
  EXPECT_EQ(aclshmemx_transport_mask(3), 0u);
  // Device calls with a bad PE or a pointer off the heap fail and move nothing.
  block[0] = 7;
  char source = 9;
  aclshmem_putmem(block, &source, 1, 1);
  EXPECT_NE(std::string(aclshmemx_last_error()).find("PE 1 is out of range 0..0"), std::string::npos);
  aclshmem_putmem(&local, &source, 1, 0);
  EXPECT_NE(std::string(aclshmemx_last_error()).find("not on the symmetric heap"), std::string::npos);
  EXPECT_EQ(block[0], 7);
  EXPECT_EQ(local, 0);
  deallocate(block);
}

// A transfer of no bytes does nothing, whatever its pointers; the PE is still checked, and a
// put-with-signal of no bytes still delivers its signal.
TEST_F(InitializedPe, ZeroLengthTransfersAreNoOps) {
  auto *block = static_cast<char *>(allocate(64));
  auto *signal = reinterpret_cast<int32_t *>(block + 32);
  auto *signal64 = reinterpret_cast<uint64_t *>(block + 40);
  block[0] = 7;
  *signal = 0;
  *signal64 = 0;
  char source = 9;
  aclshmem_putmem(block, &source, 1, 1);  // an error to compare with: none of the calls below adds one
  const std::string before = aclshmemx_last_error();
  ASSERT_NE(before.find("PE 1 is out of range"), std::string::npos) << before;
  aclshmem_putmem(nullptr, nullptr, 0, 0);
  aclshmem_getmem(nullptr, nullptr, 0, 0);
  aclshmem_putmem_nbi(nullptr, nullptr, 0, 0);
  aclshmem_getmem_nbi(nullptr, nullptr, 0, 0);
  aclshmem_putmem(block, &source, 0, 0);
  aclshmem_putmem_signal(nullptr, nullptr, 0, signal, 5, ACLSHMEM_SIGNAL_SET, 0);
  aclshmem_putmem_signal_nbi(nullptr, nullptr, 0, signal, 2, ACLSHMEM_SIGNAL_ADD, 0);
  aclshmemx_putmem_signal64(nullptr, nullptr, 0, signal64, 11, ACLSHMEM_SIGNAL_SET, 0);
  aclshmem_quiet();
  EXPECT_EQ(std::string(aclshmemx_last_error()), before);
  EXPECT_EQ(block[0], 7);
  EXPECT_EQ(*signal, 7);
  EXPECT_EQ(*signal64, 11u);
  aclshmem_getmem(nullptr, nullptr, 0, 3);
  EXPECT_NE(std::string(aclshmemx_last_error()).find("aclshmem_getmem: PE 3 is out of range"), std::string::npos);
  deallocate(block);
}


// ---- errors name the call the user made ---------------------------------------------------------

// The message of the last failed C call; it starts with the name of the symbol called.
void expectCError(const std::string &symbol, const std::string &detail) {
  const std::string message = aclshmemx_last_error();
  EXPECT_EQ(message.rfind(symbol + ": ", 0), 0u) << "expected " << symbol << ", got: " << message;
  EXPECT_NE(message.find(detail), std::string::npos) << message;
}

// The message of the Error that fn throws, which must be InvalidParam.
template <class Fn>
std::string cxxError(Fn &&fn) {
  try {
    fn();
  } catch (const Error &error) {
    EXPECT_EQ(error.code(), ErrorCode::InvalidParam) << error.what();
    return error.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

void expectCxxError(const std::string &message, const std::string &call, const std::string &detail) {
  EXPECT_EQ(message.rfind(call + ": ", 0), 0u) << "expected " << call << ", got: " << message;
  EXPECT_NE(message.find(detail), std::string::npos) << message;
}

constexpr const char *kBadPe = "is out of range 0..0";
constexpr const char *kOffHeap = "is not on the symmetric heap";

TEST_F(InitializedPe, TypedCErrorsNameTheSymbolCalled) {
  auto *words = static_cast<std::int64_t *>(allocateZeroed(8, sizeof(std::int64_t)));
  std::int64_t off_heap[2] = {0, 0};
  auto *i32 = reinterpret_cast<std::int32_t *>(words);
  auto *u64 = reinterpret_cast<std::uint64_t *>(words + 1);
  // Point put and get.
  aclshmem_int32_p(i32, 5, 1);
  expectCError("aclshmem_int32_p", "PE 1 " + std::string(kBadPe));
  EXPECT_EQ(aclshmem_double_g(reinterpret_cast<double *>(off_heap), 0), 0.0);
  expectCError("aclshmem_double_g", kOffHeap);
  aclshmem_ulonglong_p(reinterpret_cast<unsigned long long *>(off_heap), 5, 0);
  expectCError("aclshmem_ulonglong_p", kOffHeap);
  // Transfers.
  aclshmem_getmem_nbi(off_heap, off_heap, sizeof off_heap, 0);
  expectCError("aclshmem_getmem_nbi", kOffHeap);
  aclshmem_putmem(words, off_heap, 8, -1);
  expectCError("aclshmem_putmem", "PE -1 " + std::string(kBadPe));
  // Atomics.
  EXPECT_EQ(aclshmem_uint64_atomic_fetch_add(u64, 1, 2), 0u);
  expectCError("aclshmem_uint64_atomic_fetch_add", "PE 2 " + std::string(kBadPe));
  aclshmem_int_atomic_compare_swap(reinterpret_cast<int *>(off_heap), 0, 1, 0);
  expectCError("aclshmem_int_atomic_compare_swap", kOffHeap);
  aclshmem_size_atomic_inc(reinterpret_cast<size_t *>(words + 2), -1);
  expectCError("aclshmem_size_atomic_inc", kBadPe);
  aclshmem_float_atomic_swap(reinterpret_cast<float *>(words + 3), 1.0f, 1);
  expectCError("aclshmem_float_atomic_swap", kBadPe);
  aclshmem_ptrdiff_atomic_fetch(reinterpret_cast<ptrdiff_t *>(words + 4), 7);
  expectCError("aclshmem_ptrdiff_atomic_fetch", kBadPe);
  // Waits and tests with a comparison that does not exist.
  aclshmem_long_wait_until(reinterpret_cast<long *>(words + 5), 42, 0);
  expectCError("aclshmem_long_wait_until", "comparison 42");
  EXPECT_EQ(aclshmem_uint32_test(reinterpret_cast<uint32_t *>(words + 5), 6, 0), 0);
  expectCError("aclshmem_uint32_test", "comparison 6");
  // Signals: int32 under the aclshmem names, uint64 under signal64, int64 under _i64.
  aclshmemx_signal_op(i32, 1, ACLSHMEM_SIGNAL_SET, 1);
  expectCError("aclshmemx_signal_op", kBadPe);
  aclshmemx_signal64_op(u64, 1, ACLSHMEM_SIGNAL_ADD, 3);
  expectCError("aclshmemx_signal64_op", kBadPe);
  aclshmemx_signal_op_i64(words + 6, 1, 3, 0);
  expectCError("aclshmemx_signal_op_i64", "signal operation 3");
  aclshmem_putmem_signal_nbi(words + 7, off_heap, 8, i32, 1, ACLSHMEM_SIGNAL_SET, 1);
  expectCError("aclshmem_putmem_signal_nbi", kBadPe);
  aclshmemx_putmem_signal64(words + 7, off_heap, 8, reinterpret_cast<uint64_t *>(off_heap), 1,
                            ACLSHMEM_SIGNAL_SET, 0);
  expectCError("aclshmemx_putmem_signal64", kOffHeap);
  EXPECT_EQ(aclshmem_signal_wait_until(i32, 9, 0), 0);
  expectCError("aclshmem_signal_wait_until", "comparison 9");
  aclshmemx_signal64_wait_until(u64, -1, 0);
  expectCError("aclshmemx_signal64_wait_until", "comparison -1");
  aclshmemx_signal_wait_until_i64(words + 6, 7, 0);
  expectCError("aclshmemx_signal_wait_until_i64", "comparison 7");
  // None of them changed anything.
  for (int i = 0; i < 8; ++i) EXPECT_EQ(words[i], 0) << i;
  EXPECT_EQ(off_heap[0], 0);
  EXPECT_EQ(off_heap[1], 0);
  deallocate(words);
}

TEST_F(InitializedPe, CxxErrorsNameTheFunctionCalled) {
  namespace sh = tdist::shmem;
  auto *words = static_cast<std::int64_t *>(allocateZeroed(4, sizeof(std::int64_t)));
  long off_heap = 0;
  expectCxxError(cxxError([&] { sh::p<long>(&off_heap, 1, 0); }), "tdist::shmem::p", kOffHeap);
  expectCxxError(cxxError([&] { sh::g<long>(words, 1); }), "tdist::shmem::g", kBadPe);
  expectCxxError(cxxError([&] { sh::putmem(words, &off_heap, 8, 1); }), "tdist::shmem::putmem", kBadPe);
  expectCxxError(cxxError([&] { sh::getmem_nbi(words, &off_heap, 8, 2); }), "tdist::shmem::getmem_nbi", kBadPe);
  expectCxxError(cxxError([&] { sh::atomic_fetch_add<long>(words, 1, 1); }), "tdist::shmem::atomic_fetch_add",
                 kBadPe);
  expectCxxError(cxxError([&] { sh::atomic_compare_swap<long>(&off_heap, 0, 1, 0); }),
                 "tdist::shmem::atomic_compare_swap", kOffHeap);
  expectCxxError(cxxError([&] { sh::wait_until<long>(words, static_cast<sh::Cmp>(8), 0); }),
                 "tdist::shmem::wait_until", "comparison 8");
  expectCxxError(cxxError([&] { sh::test<long>(words, static_cast<sh::Cmp>(8), 0); }), "tdist::shmem::test",
                 "comparison 8");
  expectCxxError(cxxError([&] { sh::signal_op<std::int64_t>(words, 1, sh::SignalOp::Set, 1); }),
                 "tdist::shmem::signal_op", kBadPe);
  expectCxxError(cxxError([&] { sh::putmem_signal<std::int64_t>(words + 1, &off_heap, 8, words, 1,
                                                                 sh::SignalOp::Add, 1); }),
                 "tdist::shmem::putmem_signal", kBadPe);
  expectCxxError(cxxError([&] { sh::signal_wait_until<std::int64_t>(words, static_cast<sh::Cmp>(6), 0); }),
                 "tdist::shmem::signal_wait_until", "comparison 6");
  for (int i = 0; i < 4; ++i) EXPECT_EQ(words[i], 0) << i;
  EXPECT_EQ(off_heap, 0);
  deallocate(words);
}

// ---- misaligned signals and atomics -------------------------------------------------------------

// What a call on a misaligned word reports: its name, the argument, the address, the alignment.
std::string misaligned(const char *what, const void *address, std::size_t alignment) {
  char text[128];
  std::snprintf(text, sizeof text, "%s %p is not aligned to %zu bytes", what, address, alignment);
  return text;
}

class MisalignedWords : public InitializedPe {
 protected:
  void SetUp() override {
    InitializedPe::SetUp();
    bytes_ = static_cast<unsigned char *>(allocate(kBytes));
    std::memset(bytes_, kFill, kBytes);
  }
  void TearDown() override {
    for (std::size_t i = 0; i < kBytes; ++i) EXPECT_EQ(bytes_[i], kFill) << "byte " << i << " changed";
    deallocate(bytes_);
    InitializedPe::TearDown();
  }
  template <class T>
  T *at(std::size_t offset) {
    return reinterpret_cast<T *>(bytes_ + offset);
  }
  static constexpr std::size_t kBytes = 64;
  static constexpr unsigned char kFill = 0x11;
  unsigned char *bytes_ = nullptr;
};

TEST_F(MisalignedWords, CCallsReportTheAddressAndChangeNothing) {
  auto *i32 = at<int32_t>(2);
  auto *i64 = at<int64_t>(4);  // 4-byte aligned is not enough
  auto *u64 = at<uint64_t>(1);
  aclshmemx_signal_op(i32, 1, ACLSHMEM_SIGNAL_ADD, 0);
  expectCError("aclshmemx_signal_op", misaligned("sig_addr", i32, 4));
  aclshmemx_signal64_op(u64, 1, ACLSHMEM_SIGNAL_SET, 0);
  expectCError("aclshmemx_signal64_op", misaligned("sig_addr", u64, 8));
  aclshmem_putmem_signal(at<char>(32), at<char>(48), 16, i32, 1, ACLSHMEM_SIGNAL_SET, 0);
  expectCError("aclshmem_putmem_signal", misaligned("sig_addr", i32, 4));
  EXPECT_EQ(aclshmem_int64_atomic_fetch_add(i64, 1, 0), 0);
  expectCError("aclshmem_int64_atomic_fetch_add", misaligned("dest", i64, 8));
  EXPECT_EQ(aclshmem_int32_atomic_compare_swap(i32, 0x11111111, 0, 0), 0);
  expectCError("aclshmem_int32_atomic_compare_swap", misaligned("dest", i32, 4));
  EXPECT_EQ(aclshmem_uint64_atomic_fetch(u64, 0), 0u);
  expectCError("aclshmem_uint64_atomic_fetch", misaligned("source", u64, 8));
  // A wait returns at once with the error rather than waiting for a value.
  aclshmem_int64_wait_until(i64, ACLSHMEM_CMP_EQ, 12345);
  expectCError("aclshmem_int64_wait_until", misaligned("ivar", i64, 8));
  EXPECT_EQ(aclshmem_signal_wait_until(i32, ACLSHMEM_CMP_NE, 0x11111111), 0);
  expectCError("aclshmem_signal_wait_until", misaligned("sig_addr", i32, 4));
  EXPECT_EQ(aclshmem_int32_test(i32, ACLSHMEM_CMP_EQ, 0x11111111), 0);  // holds, were it read
  expectCError("aclshmem_int32_test", misaligned("ivar", i32, 4));
  aclshmem_int64_p(i64, 5, 0);
  expectCError("aclshmem_int64_p", misaligned("dest", i64, 8));
  EXPECT_EQ(aclshmem_double_g(at<double>(4), 0), 0.0);
  expectCError("aclshmem_double_g", misaligned("source", at<double>(4), 8));
  // The aligned words next to them still work.
  EXPECT_EQ(aclshmem_int64_atomic_fetch_add(at<int64_t>(8), 0, 0), 0x1111111111111111);
  EXPECT_EQ(aclshmem_int32_g(at<int32_t>(4), 0), 0x11111111);
}

TEST_F(MisalignedWords, CxxCallsReportTheAddressAndChangeNothing) {
  namespace sh = tdist::shmem;
  auto *i32 = at<int>(1);
  auto *i64 = at<std::int64_t>(2);
  auto *u64 = at<std::uint64_t>(12);
  expectCxxError(cxxError([&] { sh::signal_op<std::uint64_t>(u64, 1, sh::SignalOp::Set, 0); }),
                 "tdist::shmem::signal_op", misaligned("sig_addr", u64, 8));
  expectCxxError(cxxError([&] { sh::putmem_signal_nbi<std::int64_t>(at<char>(32), at<char>(48), 16, i64, 1,
                                                                     sh::SignalOp::Add, 0); }),
                 "tdist::shmem::putmem_signal_nbi", misaligned("sig_addr", i64, 8));
  expectCxxError(cxxError([&] { sh::atomic_fetch_add<std::int64_t>(i64, 1, 0); }),
                 "tdist::shmem::atomic_fetch_add", misaligned("dest", i64, 8));
  expectCxxError(cxxError([&] { sh::atomic_set<float>(at<float>(3), 1.0f, 0); }), "tdist::shmem::atomic_set",
                 misaligned("dest", at<float>(3), 4));
  expectCxxError(cxxError([&] { sh::wait_until<int>(i32, sh::Cmp::EQ, 12345); }), "tdist::shmem::wait_until",
                 misaligned("ivar", i32, 4));
  expectCxxError(cxxError([&] { sh::signal_wait_until<std::uint64_t>(u64, sh::Cmp::GE, 0); }),
                 "tdist::shmem::signal_wait_until", misaligned("sig_addr", u64, 8));
  expectCxxError(cxxError([&] { sh::test<int>(i32, sh::Cmp::EQ, 0); }), "tdist::shmem::test",
                 misaligned("ivar", i32, 4));
  expectCxxError(cxxError([&] { sh::p<long long>(at<long long>(6), 5, 0); }), "tdist::shmem::p",
                 misaligned("dest", at<long long>(6), 8));
  expectCxxError(cxxError([&] { sh::g<short>(at<short>(1), 0); }), "tdist::shmem::g",
                 misaligned("source", at<short>(1), 2));
}

}  // namespace
}  // namespace tdist
