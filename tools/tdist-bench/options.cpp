#include "options.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace tdist::bench {
namespace {

// "4096", "4K", "4KiB", "64M" -> bytes.
std::size_t parseSize(const std::string &flag, const std::string &text) {
  char *end = nullptr;
  unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (end == text.c_str()) throw std::invalid_argument(flag + ": not a size: '" + text + "'");
  std::string suffix(end);
  if (suffix.ends_with("iB")) suffix.resize(suffix.size() - 2);
  else if (suffix.ends_with("B")) suffix.resize(suffix.size() - 1);
  if (suffix == "K" || suffix == "k") value <<= 10;
  else if (suffix == "M" || suffix == "m") value <<= 20;
  else if (suffix == "G" || suffix == "g") value <<= 30;
  else if (!suffix.empty()) throw std::invalid_argument(flag + ": bad size suffix in '" + text + "'");
  return static_cast<std::size_t>(value);
}

long parseCount(const std::string &flag, const std::string &text, long min_value) {
  char *end = nullptr;
  long value = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0' || value < min_value)
    throw std::invalid_argument(flag + ": expected an integer >= " + std::to_string(min_value) +
                                ", got '" + text + "'");
  return value;
}

void addCase(Options &options, const std::string &name) {
  auto add = [&](Case c) {
    if (std::find(options.cases.begin(), options.cases.end(), c) == options.cases.end())
      options.cases.push_back(c);
  };
  if (name == "put") add(Case::Put);
  else if (name == "pingpong") add(Case::PingPong);
  else if (name == "ring") add(Case::Ring);
  else if (name == "barrier") add(Case::Barrier);
  else if (name == "switch") add(Case::Switch);
  else if (name == "all") {
    add(Case::Put);
    add(Case::PingPong);
    add(Case::Ring);
    add(Case::Barrier);
  }
  else throw std::invalid_argument("unknown case '" + name + "'");
}

}  // namespace

Options parseOptions(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_value = false;
    if (auto eq = arg.find('='); arg.starts_with("--") && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg.resize(eq);
      has_value = true;
    }
    auto next = [&]() -> std::string {
      if (has_value) return value;
      if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--repeats") options.repeats = static_cast<int>(parseCount(arg, next(), 1));
    else if (arg == "--iters") options.iters = parseCount(arg, next(), 1);
    else if (arg == "--warmup") options.warmup = parseCount(arg, next(), 0);
    else if (arg == "--min-size") options.min_size = parseSize(arg, next());
    else if (arg == "--max-size") options.max_size = parseSize(arg, next());
    else if (arg == "--size-factor") options.size_factor = static_cast<unsigned>(parseCount(arg, next(), 2));
    else if (arg == "--put-bytes") options.put_bytes = parseSize(arg, next());
    else if (arg == "--op") {
      std::string op = next();
      if (op == "p") options.ping_op = PingOp::P;
      else if (op == "signal") options.ping_op = PingOp::Signal;
      else throw std::invalid_argument("--op: expected p or signal, got '" + op + "'");
    } else if (arg == "--no-table") options.table = false;
    else if (arg.starts_with("-")) throw std::invalid_argument("unknown flag '" + arg + "'");
    else addCase(options, arg);
  }
  if (options.cases.empty()) throw std::invalid_argument("no case given");
  if (options.min_size == 0 || options.min_size > options.max_size)
    throw std::invalid_argument("--min-size must be in 1..--max-size");
  return options;
}

std::string usage(const char *program) {
  return std::string("usage: ") + program +
         " CASE... [flags]   (run under tdist-run)\n"
         "cases: put pingpong ring barrier all, and switch\n"
         "  put       PE 0 putmem + quiet to PE 1, and PE 0's private memcpy of the same sizes\n"
         "  pingpong  pairs (0<->1, 2<->3, ...) at once; half round trip\n"
         "  ring      a token around all PEs (0 -> 1 -> ... -> 0); time per hop\n"
         "  barrier   barrier_all latency\n"
         "  switch    PE 0: one program switch of tdist::launch, and raw ucontext and Boost.Context\n"
         "            switches (not in all)\n"
         "flags:\n"
         "  --repeats R      timed repeats (5); median, min and max are over them\n"
         "  --iters K        iterations per repeat (pingpong/ring/barrier 10000; switch 100000;\n"
         "                   put: --put-bytes/size)\n"
         "  --warmup W       untimed iterations before the repeats (one repeat's worth)\n"
         "  --min-size S --max-size S --size-factor F   put sizes (4K 64M 4)\n"
         "  --put-bytes B    bytes per put repeat when --iters is not given (256M)\n"
         "  --op p|signal    pingpong/ring flag: p + wait_until (default) or signal_op + signal_wait_until\n"
         "  --no-table       RESULT lines only\n";
}

const char *caseName(Case c) {
  switch (c) {
    case Case::Put: return "put";
    case Case::PingPong: return "pingpong";
    case Case::Ring: return "ring";
    case Case::Barrier: return "barrier";
    case Case::Switch: return "switch";
  }
  return "?";
}

const char *pingOpName(PingOp op) { return op == PingOp::P ? "p" : "signal"; }

long putIterations(const Options &options, std::size_t size) {
  if (options.iters > 0) return options.iters;
  return std::clamp<long>(static_cast<long>(options.put_bytes / size), 2, 1000000);
}

long latencyIterations(const Options &options) {
  return options.iters > 0 ? options.iters : kDefaultLatencyIters;
}

long warmupIterations(const Options &options, long iters) {
  return options.warmup >= 0 ? options.warmup : iters;
}

}  // namespace tdist::bench
