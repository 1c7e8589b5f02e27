// --backend cuda: the GPU count, and the MPS daemon a job whose PEs outnumber its GPUs gets.
//
// The hosts these tests run on may have no GPU, so the count comes from --gpus, and the daemon is
// a fake nvidia-cuda-mps-control first on PATH that appends what it is asked to a record file,
// as the PEs do: the order of the lines is the order of the events.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

#include "launcher_harness.h"

namespace tdist::launcher::test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr Seconds kPromptly{10};

// -d: records its folders and creates the control pipe (a plain file will do), or fails as a
// daemon that is already running does when FAKE_MPS_FAIL is set. Otherwise reads one command
// from stdin, records it and, for quit, removes the pipe.
constexpr const char *kFakeMpsControl = R"sh(#!/bin/sh
if [ "$1" = "-d" ]; then
  if [ -n "$FAKE_MPS_FAIL" ]; then echo "An instance of this daemon is already running"; exit 1; fi
  echo "start pipe=$CUDA_MPS_PIPE_DIRECTORY log=$CUDA_MPS_LOG_DIRECTORY" >> "$FAKE_MPS_RECORD"
  : > "$CUDA_MPS_PIPE_DIRECTORY/control"
  exit 0
fi
read command
echo "$command pipe=$CUDA_MPS_PIPE_DIRECTORY" >> "$FAKE_MPS_RECORD"
[ "$command" = quit ] && rm -f "$CUDA_MPS_PIPE_DIRECTORY/control"
exit 0
)sh";

// What a PE appends to the record: whether the daemon answers (its control pipe exists) and the
// folders it was given.
constexpr const char *kRecordPe =
    R"(if [ -e "$CUDA_MPS_PIPE_DIRECTORY/control" ]; then up=up; else up=down; fi; )"
    R"(echo "pe $TDIST_PE local=$TDIST_LOCAL_PE $up pipe=${CUDA_MPS_PIPE_DIRECTORY-unset} )"
    R"(log=${CUDA_MPS_LOG_DIRECTORY-unset}" >> "$FAKE_MPS_RECORD"; )";

class GpuJob : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string base = (fs::path(::testing::TempDir()) / "tdist-gpu-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(base.data()), nullptr);
    base_ = base;
    fs::create_directories(base_ / "bin");
    fs::create_directories(base_ / "tmp");
    fs::create_directories(base_ / "empty");
    const fs::path control = base_ / "bin" / "nvidia-cuda-mps-control";
    std::ofstream(control) << kFakeMpsControl;
    fs::permissions(control, fs::perms::owner_all);
  }
  void TearDown() override { fs::remove_all(base_); }

  // The fake first on PATH, the job's temporary folders under tmp/, no MPS of the user's.
  std::vector<std::string> environment(const std::vector<std::string> &more = {}) const {
    const char *path = std::getenv("PATH");
    std::vector<std::string> entries = {
        "PATH=" + (base_ / "bin").string() + ":" + (path ? path : "/usr/bin:/bin"),
        "TMPDIR=" + (base_ / "tmp").string(), "FAKE_MPS_RECORD=" + record().string(),
        "CUDA_MPS_PIPE_DIRECTORY=", "CUDA_MPS_LOG_DIRECTORY="};
    for (const std::string &entry : more) {
      const std::string name = entry.substr(0, entry.find('=') + 1);
      std::erase_if(entries, [&](const std::string &e) { return e.starts_with(name); });
      entries.push_back(entry);
    }
    return entries;
  }
  fs::path record() const { return base_ / "record"; }
  std::vector<std::string> recordLines() const {
    std::ifstream file(record());
    std::vector<std::string> lines;
    for (std::string line; std::getline(file, line);) lines.push_back(line);
    return lines;
  }
  bool tmpIsEmpty() const { return fs::is_empty(base_ / "tmp"); }
  // The daemon's start line: its pipe folder, checked to be <TMPDIR>/tdist-<job>-XXXXXX/mps-pipe
  // with mps-log beside it.
  std::string startedPipe(const std::string &start_line) const {
    const std::string folder = (base_ / "tmp").string() + R"(/tdist-[0-9a-f]{12}-\w{6})";
    std::smatch match;
    EXPECT_TRUE(std::regex_match(start_line, match,
                                 std::regex("start pipe=(" + folder + ")/mps-pipe log=(.*)")))
        << start_line;
    if (match.size() < 3) return "";
    EXPECT_EQ(match[2].str(), match[1].str() + "/mps-log");
    return match[1].str() + "/mps-pipe";
  }

  fs::path base_;
};

TEST_F(GpuJob, PesSharingAGpuGetAPrivateDaemonStartedBeforeAndStoppedAfterThem) {
  LauncherResult result = runLauncherWithEnvironment(
      environment(), shellJob(3, kRecordPe, {"--backend", "cuda", "--gpus", "1"}));
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.err, "");
  std::vector<std::string> lines = recordLines();
  ASSERT_EQ(lines.size(), 5u) << ::testing::PrintToString(lines);
  const std::string pipe = startedPipe(lines.front());
  const std::string log = pipe.substr(0, pipe.rfind('/')) + "/mps-log";
  std::vector<std::string> pe_lines(lines.begin() + 1, lines.end() - 1);
  std::sort(pe_lines.begin(), pe_lines.end());
  for (int pe = 0; pe < 3; ++pe) {
    EXPECT_EQ(pe_lines[pe], "pe " + std::to_string(pe) + " local=" + std::to_string(pe) +
                                " up pipe=" + pipe + " log=" + log);
  }
  EXPECT_EQ(lines.back(), "quit pipe=" + pipe);
  EXPECT_TRUE(tmpIsEmpty()) << "the job's temporary folder outlived it";
}

TEST_F(GpuJob, DaemonIsStoppedAfterAFailingJob) {
  LauncherResult result = runLauncherWithEnvironment(
      environment(), shellJob(2, R"(if [ "$TDIST_PE" = 1 ]; then exit 3; fi; sleep 600)",
                              {"--backend", "cuda", "--gpus", "1"}));
  EXPECT_EQ(result.exit_status, 3) << result.err;
  EXPECT_LT(result.elapsed, kPromptly);
  std::vector<std::string> lines = recordLines();
  ASSERT_EQ(lines.size(), 2u) << ::testing::PrintToString(lines);
  EXPECT_EQ(lines[1], "quit pipe=" + startedPipe(lines[0]));
  EXPECT_TRUE(tmpIsEmpty());
}

TEST_F(GpuJob, DaemonIsStoppedAfterTheJobDeadline) {
  LauncherResult result = runLauncherWithEnvironment(
      environment(), shellJob(2, "sleep 600", {"--backend", "cuda", "--gpus", "1", "--timeout", "1"}));
  EXPECT_EQ(result.exit_status, 124) << result.err;
  std::vector<std::string> lines = recordLines();
  ASSERT_EQ(lines.size(), 2u) << ::testing::PrintToString(lines);
  EXPECT_EQ(lines[1], "quit pipe=" + startedPipe(lines[0]));
  EXPECT_TRUE(tmpIsEmpty());
}

class GpuJobStopRequest : public GpuJob, public ::testing::WithParamInterface<int> {};

TEST_P(GpuJobStopRequest, StopsTheDaemonAfterThePes) {
  LauncherProcess launcher(TDIST_RUN_PATH,
                           shellJob(2, "echo ready; sleep 600", {"--backend", "cuda", "--gpus", "1"}),
                           environment());
  ASSERT_TRUE(launcher.waitForStdout([](const std::string &out) {
    return splitLines(out).size() == 2;
  }));
  launcher.sendSignal(GetParam());
  LauncherResult result = launcher.finish();
  EXPECT_EQ(result.exit_status, 128 + GetParam()) << result.err;
  std::vector<std::string> lines = recordLines();
  ASSERT_EQ(lines.size(), 2u) << ::testing::PrintToString(lines);
  EXPECT_EQ(lines[1], "quit pipe=" + startedPipe(lines[0]));
  EXPECT_TRUE(tmpIsEmpty());
}

INSTANTIATE_TEST_SUITE_P(Signals, GpuJobStopRequest, ::testing::Values(SIGINT, SIGTERM),
                         [](const ::testing::TestParamInfo<int> &info) {
                           return std::string("SIG") + ::sigabbrev_np(info.param);
                         });

// A PE spinning in a kernel may take its time over SIGTERM; one that ignores it stands for that.
// The crash of another still ends the job within the grace period, and the daemon stops after.
TEST_F(GpuJob, PeCrashingWhileOthersSpinEndsTheJobWithinSeconds) {
  LauncherResult result = runLauncherWithEnvironment(
      environment(), shellJob(3, R"(
        marker=$TMPDIR/spinning-$TDIST_PE
        if [ "$TDIST_PE" != 2 ]; then trap "" TERM; : > "$marker"; while :; do :; done; fi
        while [ ! -e "$TMPDIR/spinning-0" ] || [ ! -e "$TMPDIR/spinning-1" ]; do sleep 0.05; done
        rm -f "$TMPDIR"/spinning-*
        ulimit -c 0; kill -SEGV $$)",
                              {"--backend", "cuda", "--gpus", "1"}));
  EXPECT_FALSE(result.hung);
  EXPECT_EQ(result.exit_status, 128 + SIGSEGV) << result.err;
  EXPECT_LT(result.elapsed, kPromptly);
  EXPECT_THAT(result.err, HasSubstr("PEs 0, 1 still running 2 s after SIGTERM; sending SIGKILL"));
  std::vector<std::string> lines = recordLines();
  ASSERT_EQ(lines.size(), 2u) << ::testing::PrintToString(lines);
  EXPECT_EQ(lines[1], "quit pipe=" + startedPipe(lines[0]));
  EXPECT_TRUE(tmpIsEmpty());
}

TEST_F(GpuJob, NoDaemonWhenEveryPeHasAGpuOfItsOwn) {
  LauncherResult result = runLauncherWithEnvironment(
      environment(), shellJob(2, kRecordPe, {"--backend", "cuda", "--gpus", "2"}));
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.err, "");
  std::vector<std::string> lines = recordLines();
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<std::string>{"pe 0 local=0 down pipe= log=",
                                             "pe 1 local=1 down pipe= log="}));
}

TEST_F(GpuJob, MpsOnStartsADaemonEvenForOnePePerGpu) {
  LauncherResult result = runLauncherWithEnvironment(
      environment(), shellJob(1, kRecordPe, {"--backend", "cuda", "--gpus", "1", "--mps", "on"}));
  ASSERT_EQ(result.exit_status, 0) << result.err;
  std::vector<std::string> lines = recordLines();
  ASSERT_EQ(lines.size(), 3u) << ::testing::PrintToString(lines);
  const std::string pipe = startedPipe(lines[0]);
  EXPECT_THAT(lines[1], HasSubstr("pe 0 local=0 up pipe=" + pipe));
  EXPECT_EQ(lines[2], "quit pipe=" + pipe);
}

TEST_F(GpuJob, MpsOffStartsNoDaemonAndSaysNothing) {
  LauncherResult result = runLauncherWithEnvironment(
      environment(), shellJob(3, "true", {"--backend", "cuda", "--gpus", "1", "--mps", "off"}));
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.err, "");
  EXPECT_FALSE(fs::exists(record()));
}

TEST_F(GpuJob, TheUsersOwnDaemonIsUsedAndNoneStarted) {
  LauncherResult result = runLauncherWithEnvironment(
      environment({"CUDA_MPS_PIPE_DIRECTORY=/run/their-mps"}),
      shellJob(2, kRecordPe, {"--backend", "cuda", "--gpus", "1"}));
  ASSERT_EQ(result.exit_status, 0) << result.err;
  std::vector<std::string> lines = recordLines();
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<std::string>{"pe 0 local=0 down pipe=/run/their-mps log=",
                                             "pe 1 local=1 down pipe=/run/their-mps log="}));
}

TEST_F(GpuJob, WithoutTheDaemonProgramItWarnsAndRunsTimeSliced) {
  // Only the shell's builtins are needed, and no nvidia-cuda-mps-control is to be found.
  std::vector<std::string> env = environment({"PATH=" + (base_ / "empty").string()});
  LauncherResult result = runLauncherWithEnvironment(
      env, shellJob(3, "echo ${CUDA_MPS_PIPE_DIRECTORY:-unset}", {"--backend", "cuda", "--gpus", "1"}));
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.err, "tdist-run: warning: 3 PEs share 1 GPU(s) and nvidia-cuda-mps-control was "
                        "not found: their kernels will time-slice (much slower)\n");
  EXPECT_EQ(result.out, "unset\nunset\nunset\n");
  EXPECT_TRUE(tmpIsEmpty());
}

TEST_F(GpuJob, WithoutTheDaemonProgramMpsOnIsAnError) {
  std::vector<std::string> env = environment({"PATH=" + (base_ / "empty").string()});
  LauncherResult result = runLauncherWithEnvironment(
      env, shellJob(1, "echo started", {"--backend", "cuda", "--gpus", "1", "--mps", "on"}));
  EXPECT_EQ(result.exit_status, 1);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err, "tdist-run: --mps on: nvidia-cuda-mps-control was not found on PATH\n");
}

TEST_F(GpuJob, ADaemonThatDoesNotStartIsAWarning) {
  LauncherResult result = runLauncherWithEnvironment(
      environment({"FAKE_MPS_FAIL=1"}),
      shellJob(2, "echo ${CUDA_MPS_PIPE_DIRECTORY:-unset}", {"--backend", "cuda", "--gpus", "1"}));
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.err, "tdist-run: warning: 2 PEs share 1 GPU(s) and their MPS daemon did not "
                        "start (nvidia-cuda-mps-control -d exited with status 1: An instance of "
                        "this daemon is already running): their kernels will time-slice (much "
                        "slower)\n");
  EXPECT_EQ(result.out, "unset\nunset\n");
  EXPECT_TRUE(tmpIsEmpty());
}

// CUDA_VISIBLE_DEVICES=-1 hides every GPU, so that this holds on a host with GPUs too.
TEST_F(GpuJob, NoVisibleGpuIsAClearErrorBeforeAnythingStarts) {
  for (const std::vector<std::string> &how :
       {std::vector<std::string>{"--backend", "cuda"}, std::vector<std::string>{}}) {
    LauncherResult result = runLauncherWithEnvironment(
        environment({"CUDA_VISIBLE_DEVICES=-1", "TDIST_BACKEND=cuda"}),
        shellJob(2, "echo started", how));
    EXPECT_EQ(result.exit_status, 77);
    EXPECT_EQ(result.out, "");
    EXPECT_THAT(result.err, HasSubstr("tdist-run: --backend cuda: no CUDA GPU is visible ("));
    EXPECT_THAT(result.err, HasSubstr("CUDA_VISIBLE_DEVICES='-1')\n"));
    EXPECT_FALSE(fs::exists(record()));
  }
}

TEST_F(GpuJob, BackendOptionBeatsTheEnvironmentAndReachesThePes) {
  const std::string script = "echo ${TDIST_BACKEND-unset}";
  EXPECT_EQ(runLauncherWithEnvironment(environment(), shellJob(1, script)).out, "unset\n");
  EXPECT_EQ(runLauncherWithEnvironment(environment({"TDIST_BACKEND=cpu"}), shellJob(1, script)).out,
            "cpu\n");
  LauncherResult result = runLauncherWithEnvironment(
      environment({"TDIST_BACKEND=cuda", "CUDA_VISIBLE_DEVICES=-1"}),
      shellJob(2, script, {"--backend", "cpu"}));
  EXPECT_EQ(result.exit_status, 0) << result.err;
  EXPECT_EQ(result.out, "cpu\ncpu\n");
}

}  // namespace
}  // namespace tdist::launcher::test
