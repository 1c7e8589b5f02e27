#include <vector>

#include "cases.h"
#include "tdist/shmem.h"

namespace tdist::bench {

void runBarrier(const Options &options, Reporter &reporter) {
  namespace shmem = tdist::shmem;
  const long iters = latencyIterations(options);
  const long warmup = warmupIterations(options, iters);
  for (long i = 0; i < warmup; ++i) shmem::barrier_all();

  std::vector<double> samples;
  long vcsw = 0, ivcsw = 0;
  for (int r = 0; r < options.repeats; ++r) {
    Stopwatch watch;
    watch.start();
    for (long i = 0; i < iters; ++i) shmem::barrier_all();
    watch.stop();
    samples.push_back(watch.seconds() * 1e6 / static_cast<double>(iters));
    vcsw += watch.voluntarySwitches();
    ivcsw += watch.involuntarySwitches();
  }
  if (shmem::my_pe() == 0) {
    double total_iters = static_cast<double>(iters) * options.repeats;
    reporter.add(Result{.case_name = "barrier", .variant = {}, .pes = shmem::n_pes(), .size = 0, .iters = iters,
                        .repeats = options.repeats, .unit = Unit::Microseconds,
                        .summary = summarize(samples), .vcsw_per_iter = vcsw / total_iters,
                        .ivcsw_per_iter = ivcsw / total_iters});
  }
}

}  // namespace tdist::bench
