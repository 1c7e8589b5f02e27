// --tag-output: whole lines, each prefixed with the PE that printed it, on the stream it used.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>

#include "launcher_harness.h"

namespace tdist::launcher::test {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

// The lines of text that came from pe, in order, without the prefix.
std::vector<std::string> linesOfPe(const std::string &text, int pe) {
  const std::string prefix = "[pe " + std::to_string(pe) + "] ";
  std::vector<std::string> lines;
  for (const std::string &line : splitLines(text))
    if (line.starts_with(prefix)) lines.push_back(line.substr(prefix.size()));
  return lines;
}

TEST(TagOutput, PrefixesStdoutAndStderrLinesAndFlushesPartialLastLines) {
  LauncherResult result = runLauncher(shellJob(
      2, R"(echo "out $TDIST_PE"; echo "err $TDIST_PE" >&2; printf "partial $TDIST_PE")",
      {"--tag-output"}));
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_THAT(splitLines(result.out),
              UnorderedElementsAre("[pe 0] out 0", "[pe 0] partial 0", "[pe 1] out 1",
                                   "[pe 1] partial 1"));
  EXPECT_THAT(linesOfPe(result.out, 0), ElementsAre("out 0", "partial 0"));
  EXPECT_THAT(linesOfPe(result.out, 1), ElementsAre("out 1", "partial 1"));
  EXPECT_TRUE(result.out.ends_with("\n"));
  EXPECT_THAT(splitLines(result.err), UnorderedElementsAre("[pe 0] err 0", "[pe 1] err 1"));
}

// Many long lines from several PEs at once: each comes out whole, and each PE's in order.
TEST(TagOutput, LinesOfDifferentPesNeverMix) {
  constexpr int kPes = 3;
  constexpr int kLines = 300;
  LauncherResult result = runLauncher(shellJob(kPes, R"(
    padding=$(printf '%0200d' 0)
    i=0
    while [ $i -lt 300 ]; do echo "pe $TDIST_PE line $i $padding"; i=$((i + 1)); done)",
                                               {"--tag-output"}));
  ASSERT_EQ(result.exit_status, 0) << result.err;
  const std::regex line_format(R"(\[pe (\d)\] pe (\d) line (\d+) 0{200})");
  std::map<int, int> next_line_of_pe;
  for (const std::string &line : splitLines(result.out)) {
    std::smatch match;
    ASSERT_TRUE(std::regex_match(line, match, line_format)) << "mixed line: " << line;
    ASSERT_EQ(match[1], match[2]);
    int pe = std::stoi(match[1]);
    EXPECT_EQ(std::stoi(match[3]), next_line_of_pe[pe]++) << "PE " << pe << " out of order";
  }
  for (int pe = 0; pe < kPes; ++pe) EXPECT_EQ(next_line_of_pe[pe], kLines);
}

TEST(TagOutput, LastWordsOfAFailingPeComeBeforeTheLaunchersReport) {
  LauncherResult result = runLauncher(shellJob(
      2, R"(if [ "$TDIST_PE" = 1 ]; then echo "last words" >&2; exit 3; fi; sleep 600)",
      {"--tag-output"}));
  EXPECT_EQ(result.exit_status, 3);
  std::size_t words = result.err.find("[pe 1] last words\n");
  std::size_t report = result.err.find("tdist-run: PE 1 ");
  ASSERT_NE(words, std::string::npos) << result.err;
  ASSERT_NE(report, std::string::npos) << result.err;
  EXPECT_LT(words, report);
}

TEST(TagOutput, WithoutItPesWriteStraightThrough) {
  LauncherResult result = runLauncher(shellJob(2, "echo plain; printf partial >&2"));
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.out, "plain\nplain\n");
  EXPECT_EQ(result.err, "partialpartial");
}

}  // namespace
}  // namespace tdist::launcher::test
