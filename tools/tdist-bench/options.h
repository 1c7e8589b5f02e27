// options.h - command line of tdist-bench.
//
// bench/openshmem/shmem_bench.c accepts the same flags, so that bench/compare.sh can hand both
// programs one argument list and compare like with like.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tdist::bench {

enum class Case { Put, PingPong, Ring, Barrier, Switch };

// How the ping-pong carries its flag: p() + wait_until (what OpenSHMEM 1.4 offers too), or
// signal_op(SET) + signal_wait_until (OpenSHMEM 1.5's signal API; tdist only here).
enum class PingOp { P, Signal };

struct Options {
  std::vector<Case> cases;
  int repeats = 5;                       // timed repeats; each reports one sample
  long iters = 0;                        // iterations per repeat; 0 = the case's default
  long warmup = -1;                      // untimed iterations first; -1 = one repeat's worth
  std::size_t min_size = 4u << 10;       // put sizes: min_size * size_factor^k <= max_size
  std::size_t max_size = 64u << 20;
  unsigned size_factor = 4;
  std::size_t put_bytes = 256u << 20;    // bytes moved per put repeat when iters == 0
  PingOp ping_op = PingOp::P;
  bool table = true;                     // the human table after the RESULT lines
  bool show_help = false;
};

constexpr long kDefaultLatencyIters = 10000;
constexpr long kDefaultSwitchIters = 100000;

// Throws std::invalid_argument with a message that names the bad flag. Values are read by
// common/value_parser.h, as tdist-run and the runtime read theirs.
Options parseOptions(int argc, char **argv);
std::string usage(const char *program);

const char *caseName(Case c);
const char *pingOpName(PingOp op);

// Iterations of one put repeat of `size` bytes.
long putIterations(const Options &options, std::size_t size);
long latencyIterations(const Options &options);
long warmupIterations(const Options &options, long iters);

}  // namespace tdist::bench
