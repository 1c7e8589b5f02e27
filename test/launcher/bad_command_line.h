// test/launcher/bad_command_line.h - a bad command line as the parameter of a test: the test's
// name, the words after the program's name, and what the error must say.
#pragma once

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

namespace tdist::test {

struct BadCommandLine {
  std::string name;  // of the test: <Suite>/<Test>.<Case>/<name>
  std::vector<std::string> args;
  std::string message;
};

// What a failure prints as the parameter: the words, quoted.
inline void PrintTo(const BadCommandLine &line, std::ostream *out) {
  for (const std::string &arg : line.args) *out << " '" << arg << "'";
}

// The name generator of INSTANTIATE_TEST_SUITE_P: the case's own name, never its raw bytes.
inline std::string badCommandLineName(const ::testing::TestParamInfo<BadCommandLine> &info) {
  return info.param.name;
}

}  // namespace tdist::test
