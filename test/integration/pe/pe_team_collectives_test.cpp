// The team collectives of tdist/shmem.h. tdist::shmem::reduce: on every member the elements of
// every member's source combined in team order, in place or apart, one step and several (arrays
// larger than a step's inbox), on the world and on a team of some PEs; an operation the type
// lacks and calls that differ fail every member alike. tdist::shmem::fcollectmem: every member's
// bytes in team order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tdist/error.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"
#include "test/integration/pe/heap_access.h"

namespace tdist {
namespace {

namespace sh = tdist::shmem;

// Member m's element i: values whose float sum depends on the order they are added in.
float contribution(int member, std::size_t i) {
  return (member % 2 == 0 ? 1.0f : -1.0f) * (1.0f + static_cast<float>(member) * 1e-7f) *
         static_cast<float>(1u << (member * 5 % 24)) + static_cast<float>(i % 97) * 0.001f;
}

// Element i of the float sum of members 0 .. n - 1, added in that order from member 0's value.
float sumInOrder(int n, std::size_t i) {
  float sum = contribution(0, i);
  for (int member = 1; member < n; ++member) sum += contribution(member, i);
  return sum;
}

template <class T>
T *allocate(std::size_t count) {
  return static_cast<T *>(allocateZeroed(count, sizeof(T)));
}

// The message of the Error f throws, or "" when it throws none.
template <class F>
std::string errorOf(F &&f) {
  try {
    f();
  } catch (const Error &error) {
    return error.what();
  }
  return "";
}

class Reduce : public ::testing::TestWithParam<std::size_t> {};

// Counts of one step (carried), of one inbox, and of several inbox steps (128 KiB each).
INSTANTIATE_TEST_SUITE_P(Counts, Reduce, ::testing::Values(std::size_t{5}, std::size_t{4096}, std::size_t{80000}),
                         [](const auto &info) { return std::to_string(info.param) + "floats"; });

TEST_P(Reduce, FloatSumIsInPeOrderApartAndInPlace) {
  const std::size_t count = GetParam();
  const int me = sh::my_pe(), n = sh::n_pes();
  float *source = allocate<float>(count);
  float *dest = allocate<float>(count);
  std::vector<float> mine(count);
  for (std::size_t i = 0; i < count; ++i) mine[i] = contribution(me, i);
  testing::heapWriteBytes(source, mine.data(), count * sizeof(float));
  sh::barrier_all();
  for (bool in_place : {false, true}) {
    float *into = in_place ? source : dest;
    sh::reduce<float>(sh::kTeamWorld, into, source, count, sh::ReduceOp::Sum);
    const std::vector<float> got = testing::heapReadArray(into, count);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < count; ++i) wrong += got[i] != sumInOrder(n, i);  // bit for bit
    EXPECT_EQ(wrong, 0u) << (in_place ? "in place" : "apart") << ", element 0: " << got[0] << " against "
                         << sumInOrder(n, 0);
  }
  sh::barrier_all();
  deallocate(dest);
  deallocate(source);
}

TEST_P(Reduce, IntegerOperations) {
  const std::size_t count = GetParam();
  const int me = sh::my_pe(), n = sh::n_pes();
  auto *source = allocate<std::int64_t>(count);
  auto *dest = allocate<std::int64_t>(count);
  std::vector<std::int64_t> mine(count);
  for (std::size_t i = 0; i < count; ++i) mine[i] = (static_cast<std::int64_t>(i) << 8) | (1 << me) | -(me % 2);
  testing::heapWriteBytes(source, mine.data(), count * sizeof(std::int64_t));
  sh::barrier_all();
  const auto value = [](int member, std::size_t i) {
    return (static_cast<std::int64_t>(i) << 8) | (1 << member) | -(member % 2);
  };
  for (sh::ReduceOp op : {sh::ReduceOp::Max, sh::ReduceOp::Min, sh::ReduceOp::Or, sh::ReduceOp::Xor}) {
    sh::reduce<std::int64_t>(sh::kTeamWorld, dest, source, count, op);
    const std::vector<std::int64_t> got = testing::heapReadArray(dest, count);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < count; ++i) {
      std::int64_t expected = value(0, i);
      for (int member = 1; member < n; ++member) {
        const std::int64_t v = value(member, i);
        expected = op == sh::ReduceOp::Max ? std::max(expected, v)
                 : op == sh::ReduceOp::Min ? std::min(expected, v)
                 : op == sh::ReduceOp::Or  ? (expected | v)
                                           : (expected ^ v);
      }
      wrong += got[i] != expected;
    }
    EXPECT_EQ(wrong, 0u) << "operation " << static_cast<int>(op);
  }
  sh::barrier_all();
  deallocate(dest);
  deallocate(source);
}

// On the team of the even PEs: its members' sum; the others are not in the call.
TEST(ReduceOnTeam, SumsOnlyItsMembers) {
  const int me = sh::my_pe(), n = sh::n_pes();
  const sh::Team evens = sh::team_split_strided(sh::kTeamWorld, 0, 2, (n + 1) / 2);
  auto *source = allocate<double>(3);
  auto *dest = allocate<double>(3);
  for (int i = 0; i < 3; ++i) testing::heapWrite(source + i, 10.0 * me + i);
  sh::barrier_all();
  if (evens != sh::kTeamInvalid) {
    sh::reduce<double>(evens, dest, source, 3, sh::ReduceOp::Prod);
    for (int i = 0; i < 3; ++i) {
      double expected = 1;
      for (int member = 0; member < n; member += 2) expected *= 10.0 * member + i;
      EXPECT_EQ(testing::heapRead(dest + i), expected) << "element " << i;
    }
    sh::team_destroy(evens);
  } else {
    EXPECT_EQ(me % 2, 1);
  }
  sh::barrier_all();
  deallocate(dest);
  deallocate(source);
}

TEST(ReduceErrors, AnOperationTheTypeLacksFailsEveryMember) {
  auto *values = allocate<float>(4);
  const std::string error = errorOf([&] { sh::reduce<float>(sh::kTeamWorld, values, values, 4, sh::ReduceOp::Xor); });
  EXPECT_NE(error.find("tdist::shmem::reduce"), std::string::npos) << error;
  EXPECT_NE(error.find("the xor reduction is not defined on its type"), std::string::npos) << error;
  const std::string unknown =
      errorOf([&] { sh::reduce<float>(sh::kTeamWorld, values, values, 4, static_cast<sh::ReduceOp>(42)); });
  EXPECT_NE(unknown.find("operation 42 is none of ReduceOp's"), std::string::npos) << unknown;
  // Nothing was left half done: the next call goes through.
  sh::reduce<float>(sh::kTeamWorld, values, values, 4, sh::ReduceOp::Max);
  sh::barrier_all();
  deallocate(values);
}

TEST(ReduceErrors, CountsThatDifferFailEveryMember) {
  if (sh::n_pes() == 1) GTEST_SKIP() << "needs two PEs";
  auto *values = allocate<std::int32_t>(8);
  const std::size_t count = sh::my_pe() == 0 ? 8 : 4;
  const std::string error =
      errorOf([&] { sh::reduce<std::int32_t>(sh::kTeamWorld, values, values, count, sh::ReduceOp::Sum); });
  EXPECT_NE(error.find("differs between PEs"), std::string::npos) << error;
  EXPECT_NE(error.find("tdist::shmem::reduce"), std::string::npos) << error;
  sh::barrier_all();
  deallocate(values);
}

// tdist::shmem::fcollectmem: every member's bytes in team order, one step (carried), one inbox
// and several (the later parts straight into dest), on the world and on a team.
class Fcollectmem : public ::testing::TestWithParam<std::size_t> {};
INSTANTIATE_TEST_SUITE_P(Bytes, Fcollectmem, ::testing::Values(std::size_t{24}, std::size_t{40000},
                                                                std::size_t{300000}),
                         [](const auto &info) { return std::to_string(info.param) + "bytes"; });

TEST_P(Fcollectmem, ConcatenatesInTeamOrder) {
  const std::size_t bytes = GetParam();
  const int me = sh::my_pe(), n = sh::n_pes();
  auto *source = allocate<unsigned char>(bytes);
  auto *dest = allocate<unsigned char>(bytes * n);
  const auto value = [](int member, std::size_t i) { return static_cast<unsigned char>(member * 37 + i * 11 + i / 251); };
  std::vector<unsigned char> mine(bytes);
  for (std::size_t i = 0; i < bytes; ++i) mine[i] = value(me, i);
  testing::heapWriteBytes(source, mine.data(), bytes);
  sh::barrier_all();
  sh::fcollectmem(sh::kTeamWorld, dest, source, bytes);
  const std::vector<unsigned char> got = testing::heapReadArray(dest, bytes * n);
  std::size_t wrong = 0;
  for (int member = 0; member < n; ++member)
    for (std::size_t i = 0; i < bytes; ++i) wrong += got[member * bytes + i] != value(member, i);
  EXPECT_EQ(wrong, 0u);
  // On the team of the even PEs: its members' blocks only.
  const sh::Team evens = sh::team_split_strided(sh::kTeamWorld, 0, 2, (n + 1) / 2);
  if (evens != sh::kTeamInvalid) {
    sh::fcollectmem(evens, dest, source, bytes);
    const std::vector<unsigned char> team_got = testing::heapReadArray(dest, bytes * ((n + 1) / 2));
    std::size_t team_wrong = 0;
    for (int member = 0; member < (n + 1) / 2; ++member)
      for (std::size_t i = 0; i < bytes; ++i) team_wrong += team_got[member * bytes + i] != value(2 * member, i);
    EXPECT_EQ(team_wrong, 0u) << "on the team of the even PEs";
    sh::team_destroy(evens);
  }
  sh::barrier_all();
  deallocate(dest);
  deallocate(source);
}

TEST(FcollectmemErrors, SizesThatDifferFailEveryMember) {
  if (sh::n_pes() == 1) GTEST_SKIP() << "needs two PEs";
  auto *source = allocate<unsigned char>(64);
  auto *dest = allocate<unsigned char>(64 * sh::n_pes());
  const std::string error =
      errorOf([&] { sh::fcollectmem(sh::kTeamWorld, dest, source, sh::my_pe() == 0 ? 64 : 32); });
  EXPECT_NE(error.find("differs between PEs"), std::string::npos) << error;
  EXPECT_NE(error.find("tdist::shmem::fcollectmem"), std::string::npos) << error;
  sh::barrier_all();
  deallocate(dest);
  deallocate(source);
}

}  // namespace
}  // namespace tdist
