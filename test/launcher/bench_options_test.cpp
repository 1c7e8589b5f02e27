// tdist-bench's command line, under tdist-run as it is used: values read by the shared parser,
// errors reported once (by PE 0) with exit status 2, before the runtime starts.
#include <algorithm>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "launcher_harness.h"

namespace tdist::launcher::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

LauncherResult runBench(int n_pes, const std::vector<std::string> &args, const std::vector<std::string> &launcher = {}) {
  std::vector<std::string> job = {"-n", std::to_string(n_pes)};
  job.insert(job.end(), launcher.begin(), launcher.end());
  job.insert(job.end(), {"--", TDIST_BENCH_PATH});
  job.insert(job.end(), args.begin(), args.end());
  return runLauncher(job);
}

std::size_t occurrences(const std::string &text, const std::string &part) {
  std::size_t count = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
    ++count;
  return count;
}

// 17179869185G is 2^64 + 2^30 bytes: shifted without a check it wraps to 1 GiB, and runs. The
// message comes once, from PE 0, however soon the other PEs are done.
TEST(BenchOptions, SizesBeyond64BitsAreRefused) {
  LauncherResult result = runBench(4, {"barrier", "--max-size", "17179869185G"});
  EXPECT_EQ(result.exit_status, 2) << result.err;
  EXPECT_EQ(occurrences(result.err,
                        "tdist-bench: --max-size: size '17179869185G' is more than 2^64 - 1 bytes\n"),
            1u)
      << result.err;
}

TEST(BenchOptions, BadValuesNameTheirFlag) {
  LauncherResult repeats = runBench(1, {"barrier", "--repeats", "0"});
  EXPECT_EQ(repeats.exit_status, 2);
  EXPECT_THAT(repeats.err,
              HasSubstr("tdist-bench: --repeats: expected an integer from 1 to 2147483647, got '0'"));
  LauncherResult op = runBench(1, {"pingpong", "--op=put"});
  EXPECT_EQ(op.exit_status, 2);
  EXPECT_THAT(op.err, HasSubstr("tdist-bench: --op: expected p, signal or put-signal, got 'put'"));
  LauncherResult put = runBench(1, {"put", "--put-bytes", "2T"});
  EXPECT_EQ(put.exit_status, 2);
  EXPECT_THAT(put.err, HasSubstr("tdist-bench: --put-bytes: expected a size of at most "
                                 "1099511627776 bytes, got '2T'"));
  LauncherResult dtype = runBench(1, {"allreduce", "--dtype", "f16"});
  EXPECT_EQ(dtype.exit_status, 2);
  EXPECT_THAT(dtype.err, HasSubstr("tdist-bench: --dtype: expected f32 or bf16, got 'f16'"));
  LauncherResult order = runBench(1, {"ag-gemm", "--tile-order", "m3"});
  EXPECT_EQ(order.exit_status, 2);
  EXPECT_THAT(order.err, HasSubstr("tdist-bench: --tile-order: expected auto, or n or m and a swizzle of 1, 2, 4 "
                                   "or 8 (n1, m4), got 'm3'"));
  LauncherResult unknown = runBench(1, {"barier"});
  EXPECT_EQ(unknown.exit_status, 2);
  EXPECT_THAT(unknown.err, HasSubstr("tdist-bench: CASE: unknown case 'barier' (known: put, "
                                     "pingpong, ring, barrier, switch, all"));
}

TEST(BenchOptions, HelpIsPrintedOnceAndExitsZero) {
  LauncherResult result = runBench(2, {"--help"});
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(occurrences(result.out, "CASE... [flags]"), 1u) << result.out;
  EXPECT_THAT(result.out, HasSubstr("--put-bytes B"));
}

TEST(BenchOptions, FlagsReachTheCases) {
  LauncherResult result =
      runBench(2, {"barrier", "--repeats=1", "--iters", "20", "--warmup", "0", "--no-table"});
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("RESULT impl=tdist case=barrier pes=2 size=0 iters=20 "
                                    "repeats=1 "));
  EXPECT_THAT(result.out, Not(HasSubstr("vcsw/iter"))) << "--no-table leaves out the table";
}

// The put-with-signal ping-pong checks, at every exchange, that the payload landed before its
// signal: on one node (loads and stores) and between two (the network engine's put, fence, atomic).
TEST(BenchOptions, PutSignalPingPongRunsOnEveryPath) {
  std::vector<std::vector<std::string>> paths = {{}};
#ifdef TDIST_TEST_WITH_UCX
  paths.push_back({"--nodes", "2"});
#endif
  for (const auto &path : paths) {
    LauncherResult result =
        runBench(2, {"pingpong", "--op", "put-signal", "--repeats", "2", "--iters", "200", "--no-table"}, path);
    EXPECT_EQ(result.exit_status, 0) << result.err;
    EXPECT_THAT(result.out, HasSubstr("RESULT impl=tdist case=pingpong op=put-signal pes=2 size=8 iters=200 "));
  }
}

// The kernel cases in bf16: each size is checked exactly against its reference (rounded to bf16)
// before it is timed, so a wrong conversion on the way in or out fails the job.
TEST(BenchOptions, Bf16ReachesTheKernelCases) {
  LauncherResult result = runBench(2, {"allreduce", "reducescatter", "--dtype", "bf16", "--algo", "two-shot",
                                       "--min-size", "16K", "--max-size", "16K", "--repeats", "1", "--iters",
                                       "2", "--no-table"});
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("RESULT impl=tdist case=allreduce variant=two-shot pes=2 size=16384 "));
  EXPECT_THAT(result.out, HasSubstr("RESULT impl=tdist case=reducescatter pes=2 size=16384 "));
}

// The median_us of a RESULT line of `variant` in the output.
double medianOf(const std::string &out, const std::string &variant) {
  const std::size_t line = out.find("variant=" + variant + " ");
  if (line == std::string::npos) return -1.0;
  const std::size_t at = out.find("median_us=", line);
  return at == std::string::npos ? -1.0 : std::stod(out.substr(at + 10));
}

// ideal = max(gemm, comm) and serial = gemm + comm, repeat by repeat, of the rows of those names:
// so the ideal's median is at least each one's, and the serial's at least the ideal's.
TEST(BenchOptions, IdealAndSerialComeFromTheGemmAndCommRows) {
  for (const char *kernel : {"ag-gemm", "gemm-rs"}) {
    LauncherResult result = runBench(2, {kernel, "--m", "64", "--n", "64", "--k", "64", "--repeats", "3", "--iters",
                                         "2", "--no-table"});
    ASSERT_EQ(result.exit_status, 0) << result.err;
    const double gemm = medianOf(result.out, "gemm"), comm = medianOf(result.out, "comm");
    const double ideal = medianOf(result.out, "ideal"), serial = medianOf(result.out, "serial");
    ASSERT_GT(gemm, 0.0) << result.out;
    ASSERT_GT(comm, 0.0) << result.out;
    EXPECT_GE(ideal, std::max(gemm, comm) * (1 - 1e-6)) << kernel << "\n" << result.out;
    EXPECT_GE(serial, ideal * (1 - 1e-6)) << kernel << "\n" << result.out;
    EXPECT_LE(serial, (gemm + comm) * 2) << kernel << "\n" << result.out;
  }
}

}  // namespace
}  // namespace tdist::launcher::test
