// Bad input on the cuda backend gets the errors the cpu backend gives (runtime/runtime.cpp
// checkPe and peerAddress, runtime/call_checks.cpp throwMisaligned, runtime/heap.cpp): the same
// code and the same words, before anything is enqueued, and the PE goes on working.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <string>

#include "tdist/cuda.h"
#include "tdist/error.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"

namespace tdist {
namespace {

namespace cu = tdist::cuda;
namespace sh = tdist::shmem;

// Runs call, which must throw Error(code) whose message contains `words`.
void expectError(const std::function<void()> &call, ErrorCode code, const std::string &words) {
  try {
    call();
    ADD_FAILURE() << "no error; expected one with \"" << words << "\"";
  } catch (const Error &error) {
    EXPECT_EQ(error.code(), code) << error.what();
    EXPECT_NE(std::string(error.what()).find(words), std::string::npos) << error.what();
  }
}

class CudaErrors : public ::testing::Test {
 protected:
  CudaErrors() { cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking); }
  ~CudaErrors() override { cudaStreamDestroy(stream_); }

  // After the errors: a transfer and a signal that are right still work, and nothing the bad
  // calls did is left on the stream.
  void expectStillWorking(std::uint64_t *words) {
    const int next = (myPe() + 1) % nPes();
    cu::putmem_signal_on_stream(words + 1, words + 2, sizeof(std::uint64_t), words, std::uint64_t{1},
                                sh::SignalOp::Add, next, stream_);
    cu::signal_wait_until_on_stream(words, sh::Cmp::GE, std::uint64_t{1}, stream_);
    EXPECT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
    sh::barrier_all();
  }

  cudaStream_t stream_ = nullptr;
};

TEST_F(CudaErrors, InvalidPeIsRefused) {
  auto *words = static_cast<std::uint64_t *>(allocateZeroed(16, sizeof(std::uint64_t)));
  const int n = nPes();
  const std::string range = " is out of range 0.." + std::to_string(n - 1);
  for (int pe : {n, -1}) {
    const std::string words_of = "PE " + std::to_string(pe) + range;
    expectError([&] { cu::putmem_on_stream(words + 8, words + 9, 8, pe, stream_); }, ErrorCode::InvalidParam,
                words_of);
    expectError([&] { cu::getmem_on_stream(words + 8, words + 9, 8, pe, stream_); }, ErrorCode::InvalidParam,
                words_of);
    expectError([&] { cu::putmem_signal_on_stream(words + 8, words + 9, 8, words, std::uint64_t{1},
                                                  sh::SignalOp::Set, pe, stream_); },
                ErrorCode::InvalidParam, words_of);
    expectError([&] { cu::signal_op_on_stream(words, std::uint64_t{1}, sh::SignalOp::Add, pe, stream_); },
                ErrorCode::InvalidParam, words_of);
  }
  expectStillWorking(words);
  deallocate(words);
}

TEST_F(CudaErrors, PointerOffTheHeapIsRefused) {
  auto *words = static_cast<std::uint64_t *>(allocateZeroed(16, sizeof(std::uint64_t)));
  // Device memory of this process, but not on the symmetric heap.
  std::uint64_t *private_words = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&private_words), 64), cudaSuccess);
  constexpr const char *kOffHeap = "is not on the symmetric heap";
  expectError([&] { cu::putmem_on_stream(private_words, words, 8, myPe(), stream_); }, ErrorCode::InvalidParam,
              kOffHeap);
  expectError([&] { cu::getmem_on_stream(words, private_words, 8, myPe(), stream_); }, ErrorCode::InvalidParam,
              kOffHeap);
  // A transfer that starts on the heap and runs past its end.
  char *last = static_cast<char *>(heapBase()) + heapSize() - 4;
  expectError([&] { cu::putmem_on_stream(last, words, 8, myPe(), stream_); }, ErrorCode::InvalidParam, kOffHeap);
  expectError([&] { cu::signal_op_on_stream(private_words, std::uint64_t{1}, sh::SignalOp::Set, myPe(), stream_); },
              ErrorCode::InvalidParam, kOffHeap);
  expectError([&] { cu::signal_wait_until_on_stream(private_words, sh::Cmp::EQ, std::uint64_t{0}, stream_); },
              ErrorCode::InvalidParam, kOffHeap);
  cudaFree(private_words);
  expectStillWorking(words);
  deallocate(words);
}

TEST_F(CudaErrors, MisalignedSignalIsRefused) {
  auto *words = static_cast<std::uint64_t *>(allocateZeroed(16, sizeof(std::uint64_t)));
  auto *misaligned = reinterpret_cast<std::uint64_t *>(reinterpret_cast<char *>(words + 8) + 4);
  auto *misaligned32 = reinterpret_cast<std::int32_t *>(reinterpret_cast<char *>(words + 8) + 2);
  constexpr const char *kMisaligned8 = "is not aligned to 8 bytes";
  expectError([&] { cu::signal_op_on_stream(misaligned, std::uint64_t{1}, sh::SignalOp::Set, myPe(), stream_); },
              ErrorCode::InvalidParam, kMisaligned8);
  expectError([&] { cu::putmem_signal_on_stream(words + 4, words + 5, 8, misaligned, std::uint64_t{1},
                                                sh::SignalOp::Add, myPe(), stream_); },
              ErrorCode::InvalidParam, kMisaligned8);
  expectError([&] { cu::signal_wait_until_on_stream(misaligned, sh::Cmp::EQ, std::uint64_t{0}, stream_); },
              ErrorCode::InvalidParam, kMisaligned8);
  expectError([&] { cu::signal_op_on_stream(misaligned32, std::int32_t{1}, sh::SignalOp::Add, myPe(), stream_); },
              ErrorCode::InvalidParam, "is not aligned to 4 bytes");
  expectStillWorking(words);
  deallocate(words);
}

TEST_F(CudaErrors, HeapExhaustionIsAnErrorOnEveryPe) {
  auto *words = static_cast<std::uint64_t *>(allocateZeroed(16, sizeof(std::uint64_t)));
  // Collective: every PE asks for more than the heap holds, and every PE gets the error.
  const std::size_t too_much = heapSize() + 64;
  expectError([&] { allocate(too_much); }, ErrorCode::HeapExhausted,
              "cannot allocate " + std::to_string(too_much) + " bytes");
  // The heap is unharmed: a fitting allocation works and words still do.
  void *fits = allocate(1 << 20);
  EXPECT_NE(fits, nullptr);
  deallocate(fits);
  expectStillWorking(words);
  deallocate(words);
}

// The one check of CUDA statuses: a failure names the call and CUDA's error, with the code asked
// for; a launch check reports the last error of the thread; the PE goes on working.
TEST_F(CudaErrors, CudaStatusesBecomeErrorsNamingTheCall) {
  auto *words = static_cast<std::uint64_t *>(allocateZeroed(16, sizeof(std::uint64_t)));
  EXPECT_NO_THROW(cu::check(cudaSuccess, "nothing"));
  expectError([] { cu::check(cudaErrorInvalidValue, "cudaMemcpy(the test's buffer)"); }, ErrorCode::Internal,
              "cudaMemcpy(the test's buffer): cudaErrorInvalidValue (");
  expectError([] { cu::check(cudaErrorInvalidValue, "asked", ErrorCode::InvalidParam); }, ErrorCode::InvalidParam,
              "asked: cudaErrorInvalidValue");
  // An allocation that cannot succeed leaves its error as the thread's last one, which the launch
  // check after it reports, and clears.
  void *huge = nullptr;
  ASSERT_NE(cudaMalloc(&huge, std::size_t{1} << 60), cudaSuccess);
  expectError([] { cu::check_launch("the_test_kernel"); }, ErrorCode::Internal,
              "the_test_kernel: cudaErrorMemoryAllocation");
  EXPECT_NO_THROW(cu::check_launch("the_test_kernel"));
  expectStillWorking(words);
  deallocate(words);
}

}  // namespace
}  // namespace tdist
