// tdist-jit's command line: options anywhere around the kernel and its arguments, every value read
// by the value parser with tdist-run's messages, and a usage error for anything else.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bad_command_line.h"
#include "tools/tdist-jit/runner_options.h"

namespace tdist::jit {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

RunnerOptions parse(std::vector<std::string> words) {
  words.insert(words.begin(), "tdist-jit");
  std::vector<char *> argv;
  for (std::string &word : words) argv.push_back(word.data());
  return parseRunnerOptions(static_cast<int>(argv.size()), argv.data());
}

std::string usageErrorOf(const std::vector<std::string> &words) {
  try {
    parse(words);
  } catch (const UsageError &error) {
    return error.what();
  }
  ADD_FAILURE() << "no usage error";
  return {};
}

TEST(JitOptions, OptionsComeBeforeAndAfterTheKernelAndItsArguments) {
  const RunnerOptions options =
      parse({"--entry", "ag_gemm", "--grid", "2,3", "k.mlir", "--", "f32[8]=iota", "--check", "1=gather(arg(0))",
             "i32=1", "--check=2=arg(1)", "--print", "1", "--print=0", "-O3", "--repeat", "5", "--tolerance",
             "1e-3,1e-6", "-v", "--inject-barrier-all", "--no-trace-spans"});
  EXPECT_EQ(options.entry, "ag_gemm");
  EXPECT_EQ(options.kernel_path, "k.mlir");
  EXPECT_EQ(options.arguments, (std::vector<std::string>{"f32[8]=iota", "i32=1"}));
  EXPECT_EQ(options.grid.x, 2);
  EXPECT_EQ(options.grid.y, 3);
  EXPECT_EQ(options.grid.z, 1);
  EXPECT_EQ(options.checks, (std::vector<std::string>{"1=gather(arg(0))", "2=arg(1)"}));
  EXPECT_EQ(options.prints, (std::vector<int>{1, 0}));
  EXPECT_EQ(options.opt_level, 3);
  EXPECT_EQ(options.repeat, 5);
  EXPECT_EQ(options.rtol, 1e-3);
  EXPECT_EQ(options.atol, 1e-6);
  EXPECT_TRUE(options.verbose);
  EXPECT_TRUE(options.inject_barrier_all);
  EXPECT_FALSE(options.trace_spans);
}

TEST(JitOptions, DefaultsWhenOnlyTheEntryAndTheKernelAreGiven) {
  const RunnerOptions options = parse({"k.mlir", "--entry=main"});
  EXPECT_EQ(options.grid.x * options.grid.y * options.grid.z, 1);
  EXPECT_EQ(options.opt_level, 2);
  EXPECT_EQ(options.repeat, 1);
  EXPECT_FALSE(options.rtol.has_value());
  EXPECT_FALSE(options.atol.has_value());
  EXPECT_TRUE(options.trace_spans);
  EXPECT_TRUE(options.arguments.empty());
  EXPECT_EQ(parse({"k.mlir", "--entry=main", "--tolerance", "0.5"}).atol, std::nullopt);
}

TEST(JitOptions, HelpNeedsNothingElse) { EXPECT_TRUE(parse({"--help"}).help); }

using BadJitUsage = ::tdist::test::BadCommandLine;

class JitUsage : public ::testing::TestWithParam<BadJitUsage> {};

TEST_P(JitUsage, IsAUsageErrorThatSaysWhatIsWrong) {
  EXPECT_THAT(usageErrorOf(GetParam().args), HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    BadCommandLines, JitUsage,
    ::testing::Values(
        BadJitUsage{"NoKernel", {"--entry", "k"}, "missing the kernel file (a .mlir module)"},
        BadJitUsage{"NoEntry", {"k.mlir"}, "missing --entry NAME, the kernel function to run"},
        BadJitUsage{"EmptyEntry", {"k.mlir", "--entry", ""}, "expected a function name"},
        BadJitUsage{"EntryWithoutItsValue", {"k.mlir", "--entry="}, "--entry: 1 required NAME missing"},
        BadJitUsage{"GridOfZero", {"--entry", "k", "k.mlir", "--grid", "0"},
                    "--grid: expected an integer from 1 to 1048576, got '0'"},
        BadJitUsage{"GridOfFourAxes", {"--entry", "k", "k.mlir", "--grid", "1,1,1,1"},
                    "--grid: at most 3 axes (X,Y,Z), got '1,1,1,1'"},
        BadJitUsage{"GridOfTooManyPrograms", {"--entry", "k", "k.mlir", "--grid", "1024,1024,2"},
                    "--grid: 1024,1024,2 is 2097152 programs, more than 1048576"},
        BadJitUsage{"OptimizationLevelOutOfRange", {"--entry", "k", "k.mlir", "-O7"},
                    "-O: expected an integer from 0 to 3, got '7'"},
        BadJitUsage{"RepeatOfZero", {"--entry", "k", "k.mlir", "--repeat", "0"},
                    "--repeat: expected an integer from 1 to 1000000, got '0'"},
        BadJitUsage{"PrintOfAWord", {"--entry", "k", "k.mlir", "--print", "last"},
                    "--print: expected an integer from 0 to 65536, got 'last'"},
        BadJitUsage{"NegativeTolerance", {"--entry", "k", "k.mlir", "--tolerance", "1e-3,-1"},
                    "--tolerance: expected a non-negative number, got '-1'"},
        BadJitUsage{"FlagGivenAValue", {"--entry", "k", "k.mlir", "--no-trace-spans=1"},
                    "--no-trace-spans: takes no value, got '1'"},
        BadJitUsage{"UnknownOption", {"--entry", "k", "k.mlir", "--bogus=3"}, "unknown option '--bogus'"}),
    ::tdist::test::badCommandLineName);

TEST(JitOptions, TheUsageOpensWithItsLinesAndListsEveryOptionAndTheArgumentGrammar) {
  const std::string usage = runnerUsage();
  EXPECT_THAT(usage, StartsWith("Usage: tdist-jit --entry NAME"));
  for (const char *option : {"--entry", "--grid", "--check", "--print", "--tolerance", "--repeat",
                             "--inject-barrier-all", "--no-trace-spans", "-O", "--verbose", "--help"}) {
    EXPECT_THAT(usage, HasSubstr(option)) << option;
  }
  EXPECT_THAT(usage, HasSubstr("DTYPE[DIMS][=INIT]"));
  EXPECT_THAT(usage, HasSubstr("Exit status:"));
}

}  // namespace
}  // namespace tdist::jit
