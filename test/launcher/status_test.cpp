// The status channel, spoken by shell PEs: a PE that said 'I' (init succeeded) and exits 0
// without 'F' (finalize completed) ends the job at once, naming the PE; every other ending is as
// it was. The runtime's side is runtime_status_test.cpp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <regex>
#include <unistd.h>
#include <set>

#include "launcher_harness.h"

namespace tdist::launcher::test {
namespace {

using ::testing::HasSubstr;

// Far less than the PEs' sleep 600, with room for a loaded CI machine.
constexpr Seconds kPromptly{10};

// tdist-run -n n_pes -- bash -c script: bash, as dash cannot redirect to a descriptor above 9.
std::vector<std::string> bashJob(int n_pes, const std::string &script) {
  return {"-n", std::to_string(n_pes), "--", "/bin/bash", "-c", script};
}

TEST(Status, PeThatExitsAfterInitWithoutFinalizeEndsTheJob) {
  LauncherResult result = runLauncher(bashJob(3, R"(
    printf I >&$TDIST_STATUS_FD
    if [ "$TDIST_PE" = 1 ]; then exit 0; fi
    sleep 600)"));
  EXPECT_FALSE(result.hung);
  EXPECT_EQ(result.exit_status, 99);
  EXPECT_LT(result.elapsed, kPromptly);
  EXPECT_THAT(result.err, HasSubstr("tdist-run: PE 1 (pid "));
  EXPECT_THAT(result.err,
              HasSubstr(") exited with status 0 without calling finalize; ending the job"));
}

TEST(Status, PeThatInitializedAgainAfterFinalizeMustFinalizeAgain) {
  LauncherResult result = runLauncher(bashJob(2, R"(
    printf IF >&$TDIST_STATUS_FD
    if [ "$TDIST_PE" = 0 ]; then printf I >&$TDIST_STATUS_FD; exit 0; fi
    sleep 600)"));
  EXPECT_EQ(result.exit_status, 99);
  EXPECT_LT(result.elapsed, kPromptly);
  EXPECT_THAT(result.err, HasSubstr("PE 0 (pid "));
  EXPECT_THAT(result.err, HasSubstr("without calling finalize"));
}

TEST(Status, FinalizedPesEndTheJobCleanly) {
  LauncherResult result = runLauncher(bashJob(3, R"(printf IFIF >&$TDIST_STATUS_FD)"));
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.err, "");
}

// Programs that never initialize the runtime (tdist-run -n 2 -- true) owe the launcher nothing.
TEST(Status, PesThatNeverInitializeEndTheJobCleanly) {
  LauncherResult result = runLauncher({"-n", "2", "--", "true"});
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.err, "");
}

// A failure stays a failure, reported with its own status, initialized or not.
TEST(Status, FailingPeAfterInitIsReportedByItsStatus) {
  LauncherResult result = runLauncher(bashJob(2, R"(
    printf I >&$TDIST_STATUS_FD
    if [ "$TDIST_PE" = 1 ]; then exit 3; fi
    sleep 600)"));
  EXPECT_EQ(result.exit_status, 3);
  EXPECT_THAT(result.err, HasSubstr(") exited with status 3; ending the job"));
  EXPECT_THAT(result.err, ::testing::Not(HasSubstr("finalize")));
}

// Each PE has a socket of its own: what arrives on it is that PE's word alone.
TEST(Status, EveryPeHasAStatusSocketOfItsOwn) {
  LauncherResult result = runLauncher(shellJob(
      4, R"sh(echo "pe=$TDIST_PE $(readlink /proc/$$/fd/$TDIST_STATUS_FD)")sh"));
  ASSERT_EQ(result.exit_status, 0) << result.err;
  const std::regex line_format(R"(pe=(\d) (socket:\[\d+\]))");
  std::set<std::string> sockets;
  for (const std::string &line : splitLines(result.out)) {
    std::smatch match;
    ASSERT_TRUE(std::regex_match(line, match, line_format)) << line;
    sockets.insert(match[2]);
  }
  EXPECT_EQ(sockets.size(), 4u) << result.out;
}

// A PE that says it is ending ('E' and its status, as the runtime does past a wait's deadline)
// is the job's cause even when a peer that fails of it is seen to end first; the word may come
// in two writes.
TEST(Status, PeThatSaidItIsEndingIsTheCauseOfAPeerThatEndsFirst) {
  const std::string marker = ::testing::TempDir() + "/tdist_status_said_" + std::to_string(::getpid());
  LauncherResult result = runLauncher(bashJob(3, R"(
    printf I >&$TDIST_STATUS_FD
    if [ "$TDIST_PE" = 0 ]; then printf E >&$TDIST_STATUS_FD; printf '\141' >&$TDIST_STATUS_FD; touch )" +
                                                      marker + R"(; fi
    if [ "$TDIST_PE" = 2 ]; then until [ -e )" + marker + R"( ]; do sleep 0.01; done; exit 5; fi
    sleep 600)"));
  std::remove(marker.c_str());
  EXPECT_FALSE(result.hung);
  EXPECT_EQ(result.exit_status, 97) << result.err;
  EXPECT_LT(result.elapsed, kPromptly);
  EXPECT_THAT(result.err, HasSubstr("tdist-run: PE 0 (pid "));
  EXPECT_THAT(result.err, HasSubstr(") is exiting with status 97 (a wait passed its deadline); ending the job"));
  EXPECT_THAT(result.err, ::testing::Not(HasSubstr("PE 2"))) << result.err;
}

// Said and then done: the PE's own exit is the news, worded as always.
TEST(Status, PeThatSaidItIsEndingAndEndsIsReportedByItsExit) {
  LauncherResult result = runLauncher(bashJob(2, R"(
    printf I >&$TDIST_STATUS_FD
    if [ "$TDIST_PE" = 1 ]; then printf 'E\141' >&$TDIST_STATUS_FD; exit 97; fi
    sleep 600)"));
  EXPECT_EQ(result.exit_status, 97);
  EXPECT_THAT(result.err, HasSubstr("tdist-run: PE 1 (pid "));
  EXPECT_THAT(result.err, HasSubstr(") exited with status 97 (a wait passed its deadline); ending the job"));
}

}  // namespace
}  // namespace tdist::launcher::test
