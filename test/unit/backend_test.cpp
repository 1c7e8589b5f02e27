// The backend seam: choosing a backend at init, the core's collective line, and init's refusals.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "runtime/backend.h"
#include "runtime/control_block.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"
#include "test/support/single_pe.h"

namespace tdist {
namespace {

using runtime::Backend;

bool runs(std::string *) { return true; }
bool missingDriver(std::string *why) {
  *why = "no driver found";
  return false;
}

const Backend kRunnable = {.name = "alpha", .can_run = runs};
const Backend kUnrunnable = {.name = "beta", .can_run = missingDriver};
const Backend *const kBoth[] = {&kRunnable, &kUnrunnable};

std::string errorOf(std::string_view name, ErrorCode *code) {
  try {
    runtime::selectBackend(name, kBoth);
  } catch (const Error &error) {
    *code = error.code();
    return error.what();
  }
  return "";
}

TEST(Backend, TheDefaultIsTheFirstAndANameChoosesAmongThem) {
  EXPECT_EQ(&runtime::selectBackend("", kBoth), &kRunnable);
  EXPECT_EQ(&runtime::selectBackend("alpha", kBoth), &kRunnable);
}

TEST(Backend, AnUnknownNameListsTheBackendsOfTheBuild) {
  ErrorCode code{};
  std::string error = errorOf("gamma", &code);
  EXPECT_EQ(code, ErrorCode::InvalidParam);
  EXPECT_NE(error.find("unknown backend 'gamma' (this build has: alpha, beta)"), std::string::npos) << error;
}

TEST(Backend, ABackendThatCannotRunSaysWhy) {
  ErrorCode code{};
  std::string error = errorOf("beta", &code);
  EXPECT_EQ(code, ErrorCode::NotSupported);
  EXPECT_NE(error.find("backend 'beta' cannot run here: no driver found"), std::string::npos) << error;
}

TEST(Backend, TheBuildHasTheCpuBackendFirst) {
  auto built = runtime::builtBackends();
  ASSERT_FALSE(built.empty());
  EXPECT_STREQ(built.front()->name, "cpu");
  std::string why;
  EXPECT_TRUE(built.front()->can_run(&why)) << why;
}

// A member already in a later collective call releases a waiter at an earlier one: sequences
// are monotone, so a slow member can never be left polling for a step that was passed.
TEST(CollectiveLine, AnyLaterStepReleasesTheWaiter) {
  using runtime::CollectiveOp;
  const std::int64_t at_5 = runtime::lineValue(5, CollectiveOp::Barrier, CollectiveOp::Free);
  EXPECT_EQ(runtime::lineSequence(at_5), 5u);
  EXPECT_EQ(runtime::lineOp(at_5), CollectiveOp::Barrier);
  EXPECT_TRUE(runtime::lineReached(at_5, 5));
  EXPECT_FALSE(runtime::lineReached(at_5, 6));
  for (std::uint64_t later : {6u, 7u, 1000u}) {
    EXPECT_TRUE(runtime::lineReached(runtime::lineValue(later, CollectiveOp::Allocate, CollectiveOp::None), 5))
        << later;
  }
}

// A member one step ahead tells by its line what it did at the waiter's step.
TEST(CollectiveLine, AMemberOneStepAheadShowsItsPreviousOperation) {
  using runtime::CollectiveOp;
  const std::int64_t at_6 = runtime::lineValue(6, CollectiveOp::Allocate, CollectiveOp::Barrier);
  EXPECT_EQ(runtime::lineOpAt(at_6, 6), CollectiveOp::Allocate);
  EXPECT_EQ(runtime::lineOpAt(at_6, 5), CollectiveOp::Barrier);
}

class InitChoice : public ::testing::Test {
 protected:
  void TearDown() override {
    unsetenv("TDIST_BACKEND");
    unsetenv("TDIST_ALLOW_NO_SECRET");
    if (isInitialized()) finalize();
  }
  std::string initError(const InitAttr &attr, ErrorCode *code) {
    try {
      init(attr);
    } catch (const Error &error) {
      *code = error.code();
      return error.what();
    }
    return "";
  }
};

TEST_F(InitChoice, TheBackendComesFromTheAttributeOrTheEnvironment) {
  testing::Listener listener;
  InitAttr attr = testing::singlePeAttr(listener);
  attr.backend = "ascend";
  ErrorCode code{};
  std::string error = initError(attr, &code);
  EXPECT_EQ(code, ErrorCode::InvalidParam);
  EXPECT_NE(error.find("unknown backend 'ascend' (this build has: cpu"), std::string::npos) << error;
  EXPECT_FALSE(isInitialized());

  setenv("TDIST_BACKEND", "nosuch", 1);
  attr.backend = "";
  error = initError(attr, &code);
  EXPECT_NE(error.find("unknown backend 'nosuch'"), std::string::npos) << error;

  setenv("TDIST_BACKEND", "cpu", 1);
  init(attr);
  EXPECT_TRUE(isInitialized());
}

TEST_F(InitChoice, WithoutASecretInitFailsUnlessTheUserOptsOut) {
  testing::Listener listener;
  InitAttr attr = testing::singlePeAttr(listener);
  attr.job_secret = "";
  ErrorCode code{};
  std::string error = initError(attr, &code);
  EXPECT_EQ(code, ErrorCode::InvalidParam);
  EXPECT_NE(error.find("no job secret"), std::string::npos) << error;
  EXPECT_NE(error.find("TDIST_ALLOW_NO_SECRET=1"), std::string::npos) << error;
  EXPECT_FALSE(isInitialized());

  attr.allow_no_secret = true;
  init(attr);
  EXPECT_TRUE(isInitialized());
  finalize();

  setenv("TDIST_ALLOW_NO_SECRET", "1", 1);
  attr.allow_no_secret = false;
  init(attr);
  EXPECT_TRUE(isInitialized());
}

// Nothing of the job is named: the heap and the host channel are memfds, not /dev/shm files.
TEST_F(InitChoice, HeapAndChannelAreUnnamedMemfds) {
  testing::Listener listener;
  init(testing::singlePeAttr(listener));
  std::ifstream maps("/proc/self/maps");
  std::string line, heap, channel;
  while (std::getline(maps, line)) {
    EXPECT_EQ(line.find("/dev/shm/tdist"), std::string::npos) << line;
    if (line.find("memfd:tdist-heap-pe0") != std::string::npos) heap = line;
    if (line.find("memfd:tdist-channel") != std::string::npos) channel = line;
  }
  EXPECT_FALSE(heap.empty());
  EXPECT_FALSE(channel.empty());
  // The heap is where the runtime says it is.
  EXPECT_EQ(std::stoull(heap.substr(0, heap.find('-')), nullptr, 16),
            reinterpret_cast<std::uintptr_t>(heapBase()));
}

// Host-only calls are refused inside the programs of a launch (they would race on shared state).
TEST_F(InitChoice, HostOnlyCallsFromProgramsAreRefused) {
  testing::Listener listener;
  init(testing::singlePeAttr(listener));
  auto expectRefused = [](const std::function<void()> &call, const char *name) {
    try {
      launch(Grid{2}, call);
      ADD_FAILURE() << name << " was not refused";
    } catch (const Error &error) {
      EXPECT_EQ(error.code(), ErrorCode::InvalidParam);
      EXPECT_NE(std::string(error.what()).find("is a host-only call"), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find(name), std::string::npos) << error.what();
    }
  };
  expectRefused([] { allocate(64); }, "tdist::allocate");
  expectRefused([] { deallocate(nullptr); }, "tdist::deallocate");
  expectRefused([] { shmem::team_split_strided(shmem::kTeamWorld, 0, 1, 1); }, "aclshmem_team_split_strided");
  expectRefused([] { shmem::barrier(shmem::kTeamWorld); }, "aclshmem_barrier");
  expectRefused([] { shmem::sync(shmem::kTeamWorld); }, "aclshmem_team_sync");
  // Nothing was allocated meanwhile, and the runtime is intact.
  void *p = allocate(64);
  EXPECT_EQ(p, heapBase());
  deallocate(p);
  // barrier_all is a device function: every program of the launch may call it.
  launch(Grid{3}, [] { shmem::barrier_all(); });
}

}  // namespace
}  // namespace tdist
