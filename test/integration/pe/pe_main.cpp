// Main of the multi-PE test binary: every PE runs the same tests in the same order, under
// tdist-run; the collective calls inside them line up across PEs.
#include <gtest/gtest.h>

#include <cstdio>

#include "tdist/runtime.h"

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  tdist::init(tdist::attrFromEnvironment());
  // Only PE 0 prints progress; every PE prints its failures.
  if (tdist::myPe() != 0) {
    auto &listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    struct FailurePrinter : ::testing::EmptyTestEventListener {
      void OnTestPartResult(const ::testing::TestPartResult &result) override {
        if (result.failed()) {
          std::fprintf(stderr, "PE %d: %s:%d: %s\n", tdist::myPe(), result.file_name(),
                       result.line_number(), result.summary());
        }
      }
    };
    listeners.Append(new FailurePrinter);
  }
  int status = RUN_ALL_TESTS();
  tdist::finalize();
  return status;
}
