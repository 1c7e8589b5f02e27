// trace-cost: what a user span of tdist/trace.h costs on PE 0 (docs/TRACING.md). Each repeat
// times K iterations of an empty loop and K of the same loop with a span (begin and end: two
// events) around its body, alternating. Without tdist-run --trace the difference is the hooks'
// branch on the flag; with --trace (and TDIST_TRACE_EVENTS above 2 K, so that nothing is
// dropped) it is the recording. RESULT lines, ns per iteration: variant=loop, variant=span, and
// variant=per-event = (span - loop) / 2, repeat by repeat. The other PEs wait in barrier_all.
#include <chrono>
#include <vector>

#include "cases.h"
#include "tdist/shmem.h"
#include "tdist/trace.h"

namespace tdist::bench {
namespace {

constexpr long kDefaultTraceIters = 200000;

// One iteration's body: a compiler barrier, so that the loop is not folded away.
inline void body(long i) { asm volatile("" : : "r"(i) : "memory"); }

double nsPerIteration(long iters, bool spans) {
  const auto start = std::chrono::steady_clock::now();
  if (spans) {
    for (long i = 0; i < iters; ++i) {
      tdist::trace::Span span("trace-cost");
      body(i);
    }
  } else {
    for (long i = 0; i < iters; ++i) body(i);
  }
  const auto stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(stop - start).count() / static_cast<double>(iters);
}

}  // namespace

void runTraceCost(const Options &options, Reporter &reporter) {
  const long iters = options.iters > 0 ? options.iters : kDefaultTraceIters;
  shmem::barrier_all();
  if (shmem::my_pe() == 0) {
    nsPerIteration(warmupIterations(options, iters), false);
    std::vector<double> loop, span, per_event;
    for (int r = 0; r < options.repeats; ++r) {
      loop.push_back(nsPerIteration(iters, false));
      span.push_back(nsPerIteration(iters, true));
      per_event.push_back((span.back() - loop.back()) / 2);
    }
    const std::string traced = tdist::trace::active() ? "tracing=on" : "tracing=off";
    const auto add = [&](const std::string &variant, const std::vector<double> &samples) {
      reporter.add(Result{.case_name = "trace-cost", .variant = variant + " " + traced, .pes = shmem::n_pes(),
                          .size = 0, .iters = iters, .repeats = options.repeats, .unit = Unit::Nanoseconds,
                          .summary = summarize(samples)});
    };
    add("variant=loop", loop);
    add("variant=span", span);
    add("variant=per-event", per_event);
  }
  shmem::barrier_all();
}

}  // namespace tdist::bench
