// rank, num_ranks and symm_at seen from a kernel: the same PE numbers as the host's, and peer
// addresses by the segment arithmetic, which the peer's copy really answers to.
#include <cstdlib>
#include <cstring>
#include <string>

#include "test/cuda/cuda_test_support.cuh"

namespace tdist::cuda_test {
namespace {

struct Identity {
  int rank;
  int num_ranks;
};

__global__ void readIdentity(Identity *out) {
  out->rank = dev::rank();
  out->num_ranks = dev::num_ranks();
}

// For every PE: the address of its copy of base[offset], as char and as int64 pointers.
__global__ void peerAddresses(char *base, std::size_t offset, int n_pes, char **bytes,
                              std::int64_t **words) {
  for (int pe = 0; pe < n_pes; ++pe) {
    bytes[pe] = dev::symm_at(base + offset, pe);
    words[pe] = dev::symm_at(reinterpret_cast<std::int64_t *>(base) + offset, pe);
  }
}

// Every PE stores its number into slot `me` of every peer's array through symm_at; the fence
// makes the stores visible before the host barrier that follows the kernel.
__global__ void storeThroughPeerAddresses(std::int64_t *slots) {
  const int me = dev::rank();
  for (int pe = 0; pe < dev::num_ranks(); ++pe) *dev::symm_at(slots + me, pe) = 1000 + me;
  dev::fence();
}

__global__ void readScope(int *gpu_scope) { *gpu_scope = dev::detail::scope() == dev::ptx::Scope::Gpu ? 1 : 0; }

// The primitives synchronise at GPU scope exactly when every PE runs on this GPU (and
// TDIST_CUDA_SYNC_SCOPE does not ask for system scope); the host reference compares the GPUs'
// UUIDs, which every PE leaves in its copy of a symmetric buffer; pes_on_device() counts the equal ones.
TEST_F(CudaTest, SyncScopeIsGpuExactlyWhenEveryPeSharesThisGpu) {
  constexpr std::size_t kUuid = sizeof(cudaUUID_t);
  Symmetric<char> uuids(kUuid);
  cudaDeviceProp prop{};
  int device = -1;
  TDIST_ASSERT_CUDA(cudaGetDevice(&device));
  TDIST_ASSERT_CUDA(cudaGetDeviceProperties(&prop, device));
  uuids.write(std::vector<char>(prop.uuid.bytes, prop.uuid.bytes + kUuid));
  finishAll();
  bool one_device = true;
  int sharing = 0;
  for (int pe = 0; pe < n(); ++pe) {
    char theirs[kUuid];
    TDIST_ASSERT_CUDA(cudaMemcpy(theirs, sh::ptr(uuids.get(), pe), kUuid, cudaMemcpyDefault));
    if (std::memcmp(theirs, prop.uuid.bytes, kUuid) != 0)
      one_device = false;
    else
      ++sharing;
  }
  EXPECT_EQ(tdist::cuda::pes_on_device(), sharing) << "the PEs on this GPU, this one counted";
  const char *forced = std::getenv("TDIST_CUDA_SYNC_SCOPE");
  const bool system = forced != nullptr && std::string(forced) == "system";
  int *gpu_scope = nullptr;
  TDIST_ASSERT_CUDA(cudaMallocManaged(&gpu_scope, sizeof(int)));
  *gpu_scope = -1;
  readScope<<<1, 1, 0, stream_>>>(gpu_scope);
  finishAll();
  EXPECT_EQ(*gpu_scope, one_device && !system ? 1 : 0) << "one device: " << one_device << ", forced: " << system;
  cudaFree(gpu_scope);
}

TEST_F(CudaTest, RankAndNumRanksAreTheHosts) {
  Identity *identity = nullptr;
  TDIST_ASSERT_CUDA(cudaMallocManaged(&identity, sizeof(Identity)));
  readIdentity<<<1, 1, 0, stream_>>>(identity);
  finish();
  EXPECT_EQ(identity->rank, tdist::myPe());
  EXPECT_EQ(identity->num_ranks, tdist::nPes());
  cudaFree(identity);
}

TEST_F(CudaTest, SymmAtIsSegmentArithmetic) {
  Symmetric<std::int64_t> buffer(64);
  char **bytes = nullptr;
  std::int64_t **words = nullptr;
  TDIST_ASSERT_CUDA(cudaMallocManaged(&bytes, n() * sizeof(char *)));
  TDIST_ASSERT_CUDA(cudaMallocManaged(&words, n() * sizeof(std::int64_t *)));
  char *base = reinterpret_cast<char *>(buffer.get());
  // An odd offset: symm_at moves the pointer by whole segments, whatever it points into.
  constexpr std::size_t kOffset = 13;
  peerAddresses<<<1, 1, 0, stream_>>>(base, kOffset, n(), bytes, words);
  finish();
  // Host reference: ptr + (pe - me) * stride, with one stride for every pair of PEs, and the
  // host's own view of the peer's copy (the heap is mapped the same way on host and device).
  const std::ptrdiff_t stride = n() > 1 ? bytes[1] - bytes[0] : 0;
  for (int pe = 0; pe < n(); ++pe) {
    EXPECT_EQ(bytes[pe], base + kOffset + (pe - me()) * stride) << "PE " << pe;
    EXPECT_EQ(reinterpret_cast<char *>(words[pe]),
              reinterpret_cast<char *>(buffer.get() + kOffset) + (pe - me()) * stride)
        << "PE " << pe;
    EXPECT_EQ(bytes[pe], static_cast<char *>(sh::ptr(base + kOffset, pe))) << "PE " << pe;
  }
  EXPECT_EQ(bytes[me()], base + kOffset);
  if (n() > 1) {
    // Segments do not overlap: the stride covers the whole heap.
    EXPECT_GE(static_cast<std::size_t>(stride < 0 ? -stride : stride), tdist::heapSize());
  }
  cudaFree(words);
  cudaFree(bytes);
}

TEST_F(CudaTest, StoresThroughSymmAtReachThePeer) {
  Symmetric<std::int64_t> slots(n());
  storeThroughPeerAddresses<<<1, 1, 0, stream_>>>(slots.get());
  finishAll();
  std::vector<std::int64_t> seen = slots.read();
  for (int pe = 0; pe < n(); ++pe) EXPECT_EQ(seen[pe], 1000 + pe) << "slot of PE " << pe;
}

}  // namespace
}  // namespace tdist::cuda_test
