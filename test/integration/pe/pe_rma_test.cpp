// Puts, gets and point operations between PEs (their ordering with signals: pe_ordering_test.cpp).
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "aclshmem.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"
#include "test/integration/pe/heap_access.h"
#include "test/integration/pe/ring.h"

namespace tdist {
namespace {

namespace sh = tdist::shmem;

using testing::heapRead;
using testing::heapWrite;
using testing::next;
using testing::prev;

TEST(Rma, PeQueriesMatchTheLauncher) {
  EXPECT_EQ(aclshmem_my_pe(), std::atoi(std::getenv("TDIST_PE")));
  EXPECT_EQ(aclshmem_n_pes(), std::atoi(std::getenv("TDIST_N_PES")));
  // Every PE is reached by load/store; by the copy engine too when it is enabled.
  const char *engines = std::getenv("TDIST_ENGINES");
  uint32_t expected = ACLSHMEM_TRANSPORT_MTE;
  if (engines != nullptr && std::strstr(engines, "sdma") != nullptr) expected |= ACLSHMEM_TRANSPORT_SDMA;
  // With TDIST_TRANSPORT=ucx every peer is reached through the network (RoCE's bit), this PE
  // itself as ever; under tdist-run --nodes K, the PEs of the other nodes (blocks of N / K PEs).
  const char *transport = std::getenv("TDIST_TRANSPORT");
  const bool network = transport != nullptr && std::strcmp(transport, "ucx") == 0;
  const char *nodes = std::getenv("TDIST_N_NODES");
  const int per_node = sh::n_pes() / (nodes != nullptr ? std::atoi(nodes) : 1);
  for (int pe = 0; pe < sh::n_pes(); ++pe) {
    const bool other_node = pe / per_node != sh::my_pe() / per_node;
    EXPECT_EQ(aclshmemx_transport_mask(pe),
              (network || other_node) && pe != sh::my_pe() ? uint32_t{ACLSHMEM_TRANSPORT_ROCE} : expected);
  }
  // The nodes: groups of PEs that map each other's heaps; through the network everywhere, every PE.
  EXPECT_EQ(nNodes(), network ? sh::n_pes() : sh::n_pes() / per_node);
}

// The host channel (team lines, collective records) of a PE of another node is not mapped: it is
// a mirror in this PE's own segment, which that PE writes through the network (as across hosts).
// The mappings of the channel in this process: this PE's segment and one block per PE of its node.
TEST(Rma, HostChannelsOfOtherNodesAreMirrorsNotMappings) {
  const char *nodes = std::getenv("TDIST_N_NODES");
  const int per_node = sh::n_pes() / (nodes != nullptr ? std::atoi(nodes) : 1);
  std::ifstream maps("/proc/self/maps");
  int channel_mappings = 0;
  for (std::string line; std::getline(maps, line);) channel_mappings += line.find("tdist-channel") != std::string::npos;
  EXPECT_EQ(channel_mappings, per_node);
  // And the collective steps across nodes go through the mirrors.
  sh::barrier_all();
  auto *block = static_cast<std::int64_t *>(allocate(64));
  sh::barrier_all();
  deallocate(block);
}

TEST(Rma, PeerPointersAddressTheSameOffset) {
  auto *block = static_cast<std::int64_t *>(allocate(64));
  heapWrite<std::int64_t>(block, 1000 + sh::my_pe());
  sh::barrier_all();
  for (int pe = 0; pe < sh::n_pes(); ++pe) {
    // (The host may not load through the pointer on every backend: the value comes by a get.)
    auto *remote = static_cast<std::int64_t *>(aclshmem_ptr(block, pe));
    EXPECT_EQ(sh::g(block, pe), 1000 + pe);
    if (aclshmemx_transport_mask(pe) == ACLSHMEM_TRANSPORT_ROCE) {
      // Through the network only (TDIST_TRANSPORT=ucx): no pointer, as for a PE on another host.
      EXPECT_EQ(remote, nullptr);
      continue;
    }
    ASSERT_NE(remote, nullptr);
    // The same symmetric offset from each PE's heap base.
    EXPECT_EQ(static_cast<char *>(aclshmem_ptr(block, pe)) - static_cast<char *>(aclshmem_ptr(heapBase(), pe)),
              reinterpret_cast<char *>(block) - static_cast<char *>(heapBase()));
  }
  EXPECT_EQ(aclshmem_ptr(block, sh::n_pes()), nullptr);
  sh::barrier_all();
  deallocate(block);
}

TEST(Rma, GetmemReadsThePeersCopy) {
  auto *block = static_cast<std::int32_t *>(allocate(256 * sizeof(std::int32_t)));
  std::vector<std::int32_t> mine(256);
  for (int i = 0; i < 256; ++i) mine[i] = sh::my_pe() * 1000 + i;
  testing::heapWriteBytes(block, mine.data(), 256 * sizeof(std::int32_t));
  sh::barrier_all();
  std::vector<std::int32_t> copy(256);
  for (int pe = 0; pe < sh::n_pes(); ++pe) {
    aclshmem_getmem(copy.data(), block, 256 * sizeof(std::int32_t), pe);
    EXPECT_EQ(copy[17], pe * 1000 + 17);
    aclshmem_getmem_nbi(copy.data(), block + 100, sizeof(std::int32_t), pe);
    aclshmem_quiet();
    EXPECT_EQ(copy[0], pe * 1000 + 100);
  }
  sh::barrier_all();
  deallocate(block);
}

template <class T>
void pointRoundTrip(T base) {
  auto *slot = static_cast<T *>(allocateZeroed(sh::n_pes(), sizeof(T)));
  // Every PE writes its value into its own index on every PE.
  for (int pe = 0; pe < sh::n_pes(); ++pe) sh::p<T>(slot + sh::my_pe(), static_cast<T>(base + sh::my_pe()), pe);
  sh::barrier_all();
  for (int pe = 0; pe < sh::n_pes(); ++pe) {
    EXPECT_EQ(heapRead(slot + pe), static_cast<T>(base + pe));
    EXPECT_EQ(sh::g<T>(slot + sh::my_pe(), pe), static_cast<T>(base + sh::my_pe()));
  }
  sh::barrier_all();
  deallocate(slot);
}

TEST(Rma, PointPutAndGetOfEveryType) {
  pointRoundTrip<int>(-5);
  pointRoundTrip<long>(1L << 40);
  pointRoundTrip<long long>(-(1LL << 50));
  pointRoundTrip<unsigned int>(3000000000u);
  pointRoundTrip<unsigned long>(1UL << 63);
  pointRoundTrip<unsigned long long>(42);
  pointRoundTrip<float>(0.5f);
  pointRoundTrip<double>(-2.25);
  // The C names reach the same implementation.
  auto *x = static_cast<double *>(allocateZeroed(1, sizeof(double)));
  aclshmem_double_p(x, 3.5 + sh::my_pe(), next(sh::my_pe()));
  sh::barrier_all();
  EXPECT_EQ(heapRead(x), 3.5 + prev(sh::my_pe()));
  EXPECT_EQ(aclshmem_double_g(x, next(sh::my_pe())), 3.5 + sh::my_pe());
  sh::barrier_all();
  deallocate(x);
}

TEST(Rma, InvalidPeMovesNothing) {
  auto *block = static_cast<std::int32_t *>(allocateZeroed(4, sizeof(std::int32_t)));
  std::int32_t value = 77;
  aclshmem_putmem(block, &value, sizeof value, sh::n_pes());
  EXPECT_NE(std::string(aclshmemx_last_error()).find("out of range"), std::string::npos);
  aclshmem_int32_p(block, 5, -1);
  aclshmemx_signal_op(block, 5, ACLSHMEM_SIGNAL_SET, sh::n_pes() + 3);
  sh::barrier_all();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(heapRead(block + i), 0);
  sh::barrier_all();
  deallocate(block);
}

}  // namespace
}  // namespace tdist
