// tools/tdist-jit/runner_options.h - tdist-jit's command line.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/value_parser.h"
#include "tdist/launch.h"

namespace tdist::jit {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct RunnerOptions {
  std::string kernel_path;
  std::string entry;
  Grid grid;
  bool inject_barrier_all = false;
  bool trace_spans = true;              // spans of linalg and marked ops when the job is traced
  int opt_level = 2;
  std::vector<std::string> arguments;   // one description per kernel parameter, in order
  std::vector<std::string> checks;      // "K=REF"
  std::vector<int> prints;              // buffer arguments to print after the run
  std::optional<double> rtol;
  std::optional<double> atol;
  int repeat = 1;                       // runs of the kernel, each from the initial values
  bool verbose = false;                 // PE 0 reports compile times
  bool compile_only = false;            // compile (cuda: into the kernel cache), run nothing
  bool help = false;
};

// Options may come before or after the kernel path; "--" only separates for readability. Throws
// UsageError with the message a user gets ("--repeat: expected an integer from 1 to 1000000, ...").
RunnerOptions parseRunnerOptions(int argc, char **argv);
values::Parsed<Grid> parseGrid(std::string_view text);  // "X[,Y[,Z]]", each >= 1, 2^20 in all
std::string runnerUsage();

}  // namespace tdist::jit
