// Bad command lines: exit 2 with a message that says what is wrong, before any PE starts.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "bad_command_line.h"
#include "launcher_harness.h"

namespace tdist::launcher::test {
namespace {

using ::testing::HasSubstr;

using BadUsage = ::tdist::test::BadCommandLine;

class UsageTest : public ::testing::TestWithParam<BadUsage> {};

TEST_P(UsageTest, ExitsTwoWithAMessage) {
  LauncherResult result = runLauncher(GetParam().args);
  EXPECT_EQ(result.exit_status, 2);
  EXPECT_EQ(result.out, "");
  EXPECT_THAT(result.err, HasSubstr("tdist-run: " + GetParam().message + "\n"));
  EXPECT_THAT(result.err, HasSubstr("tdist-run --help"));
}

INSTANTIATE_TEST_SUITE_P(
    BadCommandLines, UsageTest,
    ::testing::Values(
        BadUsage{"NoArguments", {}, "missing -n N, the number of PEs"},
        BadUsage{"NoPeCount", {"--", "/bin/true"}, "missing -n N, the number of PEs"},
        BadUsage{"ZeroPes", {"-n", "0", "--", "/bin/true"},
                 "-n: expected an integer from 1 to 4096, got '0'"},
        BadUsage{"NegativePes", {"-n", "-3", "--", "/bin/true"},
                 "-n: expected an integer from 1 to 4096, got '-3'"},
        BadUsage{"PeCountNotANumber", {"-n", "two", "--", "/bin/true"},
                 "-n: expected an integer from 1 to 4096, got 'two'"},
        BadUsage{"PeCountMissing", {"-n"}, "-n: 1 required N missing"},
        BadUsage{"NoProgram", {"-n", "2"}, "missing the program to run (after --)"},
        BadUsage{"NothingAfterTheSeparator", {"-n", "2", "--"},
                 "missing the program to run (after --)"},
        BadUsage{"ProgramPathDoesNotExist", {"-n", "2", "--", "/nonexistent/foo"},
                 "cannot execute '/nonexistent/foo': No such file or directory"},
        BadUsage{"ProgramNotOnPath", {"-n", "2", "--", "tdist-no-such-program"},
                 "cannot execute 'tdist-no-such-program': No such file or directory"},
        BadUsage{"ProgramNotExecutable", {"-n", "2", "--", "/etc/passwd"},
                 "cannot execute '/etc/passwd': Permission denied"},
        BadUsage{"ProgramIsADirectory", {"-n", "2", "--", "/tmp"},
                 "cannot execute '/tmp': Is a directory"},
        BadUsage{"HeapSizeUnknownSuffix", {"-n", "2", "--heap", "12Q", "--", "/bin/true"},
                 "--heap: expected a size in bytes such as 4096, 64K, 256M or 2G, got '12Q'"},
        BadUsage{"HeapSizeMissing", {"-n", "2", "--heap"}, "--heap: 1 required SIZE missing"},
        // 2^64 + 2^30 bytes, which wraps to 1 GiB without a check.
        BadUsage{"HeapSizeBeyond64Bits", {"-n", "2", "--heap", "17179869185G", "--", "/bin/true"},
                 "--heap: size '17179869185G' is more than 2^64 - 1 bytes"},
        BadUsage{"UnknownEngine", {"-n", "2", "--engines", "mte,dma", "--", "/bin/true"},
                 "--engines: unknown engine 'dma' in 'mte,dma' (known: mte, sdma, roce, udma)"},
        BadUsage{"ZeroWaitTimeout", {"-n", "2", "--wait-timeout", "0", "--", "/bin/true"},
                 "--wait-timeout: expected a number of seconds greater than 0 (or with a unit: "
                 "500ms, 2m, 1h), got '0'"},
        BadUsage{"NegativeJobTimeout", {"-n", "2", "--timeout", "-1", "--", "/bin/true"},
                 "--timeout: expected a number of seconds, 0 or more (or with a unit: 500ms, 2m, "
                 "1h), got '-1'"},
        BadUsage{"JobTimeoutNotANumber", {"-n", "2", "--timeout", "soon", "--", "/bin/true"},
                 "--timeout: expected a number of seconds, 0 or more (or with a unit: 500ms, 2m, "
                 "1h), got 'soon'"},
        BadUsage{"JobTimeoutBeyondTheLimit", {"-n", "2", "--timeout", "1e300", "--", "/bin/true"},
                 "--timeout: duration '1e300' is more than 1e+09 seconds"},
        BadUsage{"NegativeHangCheck", {"-n", "2", "--hang-check", "-1", "--", "/bin/true"},
                 "--hang-check: expected a number of seconds, 0 or more (or with a unit: 500ms, "
                 "2m, 1h), got '-1'"},
        BadUsage{"FlagGivenAValue", {"-n", "2", "--tag-output=yes", "--", "/bin/true"},
                 "--tag-output: takes no value, got 'yes'"},
        BadUsage{"UnknownOption", {"-n", "2", "--bogus", "--", "/bin/true"},
                 "unknown option '--bogus'"},
        BadUsage{"UnknownOptionWithValue", {"-n", "2", "--bogus=1", "--", "/bin/true"},
                 "unknown option '--bogus'"},
        BadUsage{"UnknownOptionAlone", {"--bogus"}, "unknown option '--bogus'"},
        BadUsage{"EmptyEntry", {"-n", "2", "--entry", "", "--", "/bin/true"},
                 "--entry: expected a function name"},
        BadUsage{"EmptyHost", {"-n", "2", "--host", "", "--", "/bin/true"},
                 "--host: expected an address, got ''"},
        BadUsage{"EmptyBackend", {"-n", "2", "--backend", "", "--", "/bin/true"},
                 "--backend: expected a backend name, got ''"},
        BadUsage{"GpusWithoutCuda", {"-n", "2", "--gpus", "1", "--", "/bin/true"},
                 "--gpus is for --backend cuda"},
        BadUsage{"MpsWithoutCuda", {"-n", "2", "--backend", "cpu", "--mps", "on", "--", "/bin/true"},
                 "--mps is for --backend cuda"},
        BadUsage{"ZeroGpus", {"-n", "2", "--backend", "cuda", "--gpus", "0", "--", "/bin/true"},
                 "--gpus: expected an integer from 1 to 4096, got '0'"},
        BadUsage{"UnknownMpsMode", {"-n", "2", "--backend", "cuda", "--mps", "yes", "--", "/bin/true"},
                 "--mps: expected auto, on or off, got 'yes'"},
        BadUsage{"GridWithoutKernel", {"-n", "2", "--grid", "2", "--", "/bin/true"},
                 "--grid is for IR kernels (a .mlir program with --entry NAME)"},
        // An address of the documentation range, which no host has: binding it fails.
        BadUsage{"HostWithoutThisAddress", {"-n", "2", "--host", "192.0.2.1", "--", "/bin/true"},
                 "--host: cannot listen on '192.0.2.1': Cannot assign requested address"},
        // Jobs across hosts (across_hosts_test.cpp runs them).
        BadUsage{"NodesAndNnodes", {"-n", "2", "--nodes", "2", "--nnodes", "2", "--", "/bin/true"},
                 "--nodes (nodes simulated on this host) and --nnodes (one tdist-run per host) cannot "
                 "be combined"},
        BadUsage{"NnodesWithoutRdzv", {"-n", "2", "--nnodes", "2", "--", "/bin/true"},
                 "--nnodes 2 needs --rdzv HOST:PORT, node 0's address, where every node's tdist-run meets"},
        BadUsage{"ZeroNnodes", {"-n", "2", "--nnodes", "0", "--", "/bin/true"},
                 "--nnodes: expected an integer from 1 to 16384, got '0'"},
        BadUsage{"NodeRankNotBelowNnodes",
                 {"-n", "2", "--nnodes", "2", "--node-rank", "2", "--rdzv", "10.0.0.1:29400", "--", "/bin/true"},
                 "--node-rank 2 is not below --nnodes 2: nodes are numbered from 0"},
        BadUsage{"NegativeNodeRank", {"-n", "2", "--nnodes", "2", "--node-rank", "-1", "--", "/bin/true"},
                 "--node-rank: expected an integer from 0 to 16383, got '-1'"},
        BadUsage{"RdzvWithoutNnodes", {"-n", "2", "--rdzv", "10.0.0.1:29400", "--", "/bin/true"},
                 "--rdzv is for a job across hosts: give --nnodes K too"},
        BadUsage{"NodeRankWithoutNnodes", {"-n", "2", "--node-rank", "1", "--", "/bin/true"},
                 "--node-rank is for a job across hosts: give --nnodes K too"},
        BadUsage{"RdzvWithoutPort", {"-n", "2", "--nnodes", "2", "--rdzv", "10.0.0.1", "--", "/bin/true"},
                 "--rdzv: expected HOST:PORT, node 0's address and a port (10.0.0.1:29400, "
                 "[fd00::1]:29400), got '10.0.0.1'"},
        BadUsage{"RdzvPortOutOfRange", {"-n", "2", "--nnodes", "2", "--rdzv", "node0:65536", "--", "/bin/true"},
                 "--rdzv: expected a port from 1 to 65535 after the address, got 'node0:65536'"},
        BadUsage{"RdzvIpv6WithoutBrackets", {"-n", "2", "--nnodes", "2", "--rdzv", "fd00::1:29400", "--", "/bin/true"},
                 "--rdzv: an IPv6 address goes in brackets: [ADDRESS]:PORT, got 'fd00::1:29400'"},
        BadUsage{"RdzvOnEveryAddress", {"-n", "2", "--nnodes", "2", "--rdzv", "0.0.0.0:29400", "--", "/bin/true"},
                 "--rdzv: expected an address of node 0 that the other nodes can reach, got '0.0.0.0:29400'"},
        BadUsage{"ZeroJoinTimeout",
                 {"-n", "2", "--nnodes", "2", "--rdzv", "10.0.0.1:29400", "--join-timeout", "0", "--", "/bin/true"},
                 "--join-timeout: expected a number of seconds greater than 0 (or with a unit: 500ms, 2m, 1h), "
                 "got '0'"},
        BadUsage{"TooManyPesInTheJob",
                 {"-n", "4096", "--nnodes", "8", "--rdzv", "10.0.0.1:29400", "--", "/bin/true"},
                 "-n 4096 on each of --nnodes 8 is 32768 PEs; a job has at most 16384"},
        // The test runs tdist-run without any TDIST_ variable.
        BadUsage{"AcrossHostsWithoutSecret", {"-n", "2", "--nnodes", "2", "--rdzv", "10.0.0.1:29400", "--", "/bin/true"},
                 "a job across hosts needs TDIST_JOB_SECRET, the same on every node (at least 16 bytes): "
                 "export TDIST_JOB_SECRET=$(openssl rand -hex 16) and give every node the same"}),
    ::tdist::test::badCommandLineName);

TEST(Usage, HelpGoesToStdoutAndExitsZero) {
  LauncherResult result = runLauncher({"--help"});
  EXPECT_EQ(result.exit_status, 0);
  EXPECT_THAT(result.out, HasSubstr("Usage: tdist-run -n N [options] -- program [args...]"));
  EXPECT_EQ(result.err, "");
}

TEST(Usage, HangCheckVariableIsCheckedLikeTheOption) {
  LauncherResult result = runLauncherWithEnvironment({"TDIST_HANG_CHECK=soon"}, {"-n", "1", "--", "/bin/true"});
  EXPECT_EQ(result.exit_status, 2);
  EXPECT_THAT(result.err, HasSubstr("tdist-run: TDIST_HANG_CHECK: expected a number of seconds, 0 or more "
                                    "(or with a unit: 500ms, 2m, 1h), got 'soon'\n"));
}

TEST(Usage, ShortJobSecretAcrossHostsIsRefused) {
  LauncherResult result = runLauncherWithEnvironment(
      {"TDIST_JOB_SECRET=0123456789"}, {"-n", "1", "--nnodes", "2", "--rdzv", "127.0.0.1:29400", "--", "/bin/true"});
  EXPECT_EQ(result.exit_status, 2);
  EXPECT_THAT(result.err, HasSubstr("tdist-run: TDIST_JOB_SECRET has 10 bytes; a job secret has at least 16: "
                                    "export TDIST_JOB_SECRET=$(openssl rand -hex 16) and give every node the same\n"));
}

// Node 0 listens on the --rdzv address: a host without it is not node 0.
TEST(Usage, RdzvAddressThatIsNotThisHostsIsNamed) {
  LauncherResult result = runLauncherWithEnvironment(
      {"TDIST_JOB_SECRET=0123456789abcdef"},
      {"-n", "1", "--nnodes", "2", "--rdzv", "192.0.2.1:29400", "--", "/bin/true"});
  EXPECT_EQ(result.exit_status, 2);
  EXPECT_THAT(result.err, HasSubstr("tdist-run: --rdzv: cannot listen on 192.0.2.1:29400: Cannot assign requested "
                                    "address (node 0's tdist-run listens on the --rdzv address: is this host node "
                                    "0?)\n"));
  EXPECT_EQ(result.out, "");
}

TEST(Usage, ValuesMayBeJoinedToTheirOption) {
  LauncherResult result = runLauncher(
      {"-n2", "--heap=4K", "--", "/bin/sh", "-c", "echo $TDIST_N_PES $TDIST_HEAP_SIZE"});
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.out, "2 4096\n2 4096\n");
}

}  // namespace
}  // namespace tdist::launcher::test
