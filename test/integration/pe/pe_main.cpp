// Main of the multi-PE test binaries (the conformance suite, the kernel library's, the cuda
// device tests): every PE runs the same tests in the same order, under tdist-run; the collective
// calls inside them line up across PEs.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "tdist/runtime.h"

namespace {

// Only PE 0 prints progress; every other PE prints its failures.
struct FailurePrinter : ::testing::EmptyTestEventListener {
  void OnTestPartResult(const ::testing::TestPartResult &result) override {
    if (result.failed()) {
      std::fprintf(stderr, "PE %d: %s:%d: %s\n", tdist::myPe(), result.file_name(),
                   result.line_number(), result.summary());
    }
  }
};

// A PE that fails an assertion puts the collective calls of the test out of step (a fatal
// failure returns early, a non-fatal one may skip a signal), and its peers would wait for it
// until their deadline. With more than one PE, the first failure names the PE and the test and
// ends this PE at once; tdist-run then names it and ends the others. (Not global_exit: peers
// that see its request end with the same status, and may end first, so that the launcher would
// name one of them.)
struct EndJobOnFailure : ::testing::EmptyTestEventListener {
  // (UnitTest::current_test_info() would deadlock here: GoogleTest holds its lock.)
  void OnTestStart(const ::testing::TestInfo &test) override {
    test_name = std::string(test.test_suite_name()) + "." + test.name();
  }
  void OnTestEnd(const ::testing::TestInfo &) override { test_name.clear(); }
  void OnTestPartResult(const ::testing::TestPartResult &result) override {
    if (!result.failed()) return;
    std::fflush(stdout);
    const int me = tdist::myPe();
    if (test_name.empty()) std::fprintf(stderr, "PE %d: failure outside any test; ending the job\n", me);
    else std::fprintf(stderr, "PE %d: %s failed; ending the job\n", me, test_name.c_str());
    std::fflush(stderr);
    std::_Exit(1);
  }
  std::string test_name;
};

}  // namespace

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  tdist::InitAttr attr = tdist::attrFromEnvironment();
#ifdef TDIST_TEST_BACKEND
  attr.backend = TDIST_TEST_BACKEND;  // a suite of one backend's own (test/cuda), whatever TDIST_BACKEND says
#endif
  tdist::init(attr);
  auto &listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (tdist::myPe() != 0) {
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailurePrinter);
  }
  // Appended last: the failure is printed before the job ends.
  if (tdist::nPes() > 1) listeners.Append(new EndJobOnFailure);
  int status = RUN_ALL_TESTS();
  tdist::finalize();
  return status;
}
