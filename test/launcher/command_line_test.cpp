// Command lines tdist-run accepts: where its options end and the program's words begin, which of
// repeated options counts, and what a .mlir program hands to tdist-jit.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "launcher_harness.h"

namespace tdist::launcher::test {
namespace {

// sh -c '...' sh WORDS...: prints the words the PE was given, on one line.
const std::vector<std::string> kEchoWords = {"/bin/sh", "-c", R"(printf '%s\n' "$*")", "sh"};

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string> &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(CommandLine, WordsAfterTheSeparatorAreTheProgramsEvenWhenTheyLookLikeOptions) {
  LauncherResult result = runLauncher(
      concat(concat({"-n", "1", "--"}, kEchoWords), {"-n", "--heap", "--", "x"}));
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.out, "-n --heap -- x\n");
}

TEST(CommandLine, TheProgramMayFollowTheOptionsWithoutASeparator) {
  LauncherResult result = runLauncher(
      concat(concat({"-n", "1", "--tag-output"}, kEchoWords), {"--timeout", "x"}));
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.out, "[pe 0] --timeout x\n");
}

TEST(CommandLine, TheLastValueOfARepeatedOptionCounts) {
  LauncherResult result = runLauncher(
      {"-n", "3", "-n", "1", "--heap", "1G", "--heap=2K", "--", "/bin/sh", "-c",
       "echo $TDIST_N_PES $TDIST_HEAP_SIZE"});
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.out, "1 2048\n");
}

TEST(CommandLine, SizesAndDurationsReachThePesInTheirPlainForm) {
  LauncherResult result = runLauncher(
      {"-n", "1", "--heap", "3T", "--wait-timeout", "500ms", "--engines", "sdma,mte,sdma", "--",
       "/bin/sh", "-c", "echo $TDIST_HEAP_SIZE $TDIST_WAIT_TIMEOUT $TDIST_ENGINES"});
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.out, std::to_string(3ull << 40) + " 0.5 sdma,mte\n");
}

TEST(CommandLine, TimeoutTakesAUnit) {
  LauncherResult result = runLauncher(shellJob(1, "exit 0", {"--timeout", "2m"}));
  EXPECT_EQ(result.exit_status, 0) << result.err;
}

// A copy of tdist-run with a stand-in tdist-jit beside it that prints its arguments, so that the
// IR-kernel form is checked in builds without the compiler too.
class KernelRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_);
    std::filesystem::copy_file(TDIST_RUN_PATH, launcher_);
    std::ofstream(dir_ / "tdist-jit") << "#!/bin/sh\necho \"$0\" \"$@\"\n";
    std::filesystem::permissions(dir_ / "tdist-jit", std::filesystem::perms::owner_all);
    std::ofstream(kernel_) << "module {}\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  const std::filesystem::path dir_ = std::filesystem::temp_directory_path() /
                                     ("tdist-run-kernel-test-" + std::to_string(::getpid()));
  const std::string launcher_ = dir_ / "tdist-run";
  const std::string kernel_ = dir_ / "kernel.mlir";
};

TEST_F(KernelRunnerTest, AMlirProgramRunsUnderTdistJitWithItsEntryAndGrid) {
  LauncherResult result = runLauncherAt(
      launcher_, {"-n", "2", "--entry", "ring", "--grid", "2,1", kernel_, "--", "i64[4]",
                  "--check", "0=1"});
  EXPECT_EQ(result.exit_status, 0) << result.err;
  const std::string line = (dir_ / "tdist-jit").string() + " --entry ring --grid 2,1 " + kernel_ +
                           " -- i64[4] --check 0=1\n";
  EXPECT_EQ(result.out, line + line);
}

TEST_F(KernelRunnerTest, EntryAloneMakesAnyFileAKernel) {
  LauncherResult result = runLauncherAt(launcher_, {"-n", "1", "--entry=ring", "--", kernel_});
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.out, (dir_ / "tdist-jit").string() + " --entry ring " + kernel_ + "\n");
}

TEST_F(KernelRunnerTest, AKernelNeedsItsEntry) {
  LauncherResult result = runLauncherAt(launcher_, {"-n", "1", kernel_});
  EXPECT_EQ(result.exit_status, 2);
  EXPECT_EQ(result.err, "tdist-run: '" + kernel_ + "' is an IR kernel: name its function with "
                        "--entry NAME\nTry 'tdist-run --help' for more information.\n");
}

}  // namespace
}  // namespace tdist::launcher::test
