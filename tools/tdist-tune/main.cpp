// tdist-tune - measures the kernel library's candidate configs on this machine and writes the
// tuning table that the kernels' Auto fields read (docs/TUNING.md).
//
//   build/bin/tdist-run -n 2 -- build/bin/tdist-tune --kernels all_reduce --table tune.txt
//   build/bin/tdist-run -n 2 -- build/bin/tdist-tune --table tune.txt --compare --no-tune
//
// Every PE runs the same problems (problems.h). For each, every candidate is checked once against
// the host reference, then the candidates and the call as Auto resolves it without a table
// (today's choice) are timed in alternation (tdist-bench's timeAlternately: a sample is the slowest
// PE's time per call in a repeat). PE 0 takes the row with the lowest median (today's choice
// included), tells every PE (so all keep the same entry), and writes the table, merged into the file's entries of this
// backend and device. --compare then times Auto on a context that reads the table against Auto
// on one that reads none, alternating, per problem.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "kernel_common.h"
#include "options.h"
#include "problems.h"
#include "report.h"
#include "tdist/error.h"
#include "tdist/kernels/context.h"
#include "tdist/kernels/tuning.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"
#include "tool_main.h"

namespace {

namespace kn = tdist::kernels;
namespace shmem = tdist::shmem;
using namespace tdist::tune;

bool leader() { return tdist::myPe() == 0; }

// PE 0's value, on every PE. Collective.
int fromPe0(int value) {
  auto *slot = static_cast<int *>(tdist::allocate(sizeof(int)));
  if (leader())
    for (int pe = 0; pe < tdist::nPes(); ++pe) shmem::putmem(slot, &value, sizeof value, pe);
  shmem::barrier_all();  // quiet + barrier: every PE's slot holds PE 0's value
  int got = 0;
  shmem::getmem(&got, slot, sizeof got, tdist::myPe());
  shmem::barrier_all();
  tdist::deallocate(slot);
  return got;
}

std::size_t largestCollective(const Options &options) {
  const std::vector<std::size_t> sizes = collectiveSizes(options);
  return sizes.empty() ? 0 : sizes.back();
}

// The contexts' scratch: the library's default, or what the GEMMs' shapes keep there at most:
// all_gather_gemm the gathered A (or its f32 chunks), gemm_reduce_scatter the f32 partials of
// [M / n_pes, N] from every PE and up to two send buffers of as much (M × N f32 twice at most;
// cuda's chunked GEMM + ReduceScatter at 2048 × 8192 needs 96 MiB, 1.5 × the default).
std::size_t scratchBytes(const Options &options) {
  std::size_t need = kn::ContextOptions{}.scratch_bytes;
  for (const GemmShape &s : options.shapes) {
    need = std::max<std::size_t>(need, sizeof(float) * s.m * std::max(s.k, s.n));
    need = std::max<std::size_t>(need, 2 * sizeof(float) * s.m * s.n);
  }
  return need;
}

// Heap for two contexts (the comparison's) and the largest problem's tensors, with room to spare.
std::uint64_t heapBytes(const Options &options, int n_pes) {
  std::uint64_t tensors = static_cast<std::uint64_t>(largestCollective(options)) * (2 + n_pes);
  for (const GemmShape &s : options.shapes)
    tensors = std::max<std::uint64_t>(tensors, sizeof(float) * (s.m * s.k + s.k * s.n + s.m * s.n));
  const std::uint64_t signals = static_cast<std::uint64_t>(kn::ContextOptions{}.max_signals) * 64;
  return 2 * (scratchBytes(options) + signals) + tensors + (32u << 20);
}

kn::ContextOptions contextOptions(const Options &options, const std::string &table) {
  kn::ContextOptions o;
  o.scratch_bytes = scratchBytes(options);
  o.tuning_table = table;
  return o;
}

long warmupOf(const Options &options, long iters) { return options.warmup >= 0 ? options.warmup : iters; }

std::string us(double value) { return tdist::bench::formatFixed(value, 1); }

void printRow(const std::string &label, const std::string &before, const std::string &after, const std::string &ratio,
              const std::string &config) {
  std::printf("%-44s %12s %12s %8s  %s\n", label.c_str(), before.c_str(), after.c_str(), ratio.c_str(), config.c_str());
}

// The candidates of p that pass their check on ctx, as rows (row 0: today's Auto).
std::vector<tdist::bench::Row> checkedRows(kn::Context &ctx, Problem &p, std::vector<std::size_t> &kept) {
  std::vector<tdist::bench::Row> rows;
  tdist::bench::addCheckedRow(rows, {.variant = "today", .us = {}, .call = [&ctx, &p] { p.auto_call(ctx); }}, ctx,
                              *p.output, p.expected, p.label + " (Auto without a table)");
  for (std::size_t i = 0; i < p.candidates.size(); ++i) {
    Candidate &c = p.candidates[i];
    try {
      tdist::bench::addCheckedRow(rows,
                                  {.variant = fieldsText(c.fields), .us = {}, .call = [&ctx, &c] { c.call(ctx); }}, ctx,
                                  *p.output, p.expected, p.label + " " + fieldsText(c.fields));
      kept.push_back(i);
    } catch (const tdist::Error &e) {
      // A form this build or machine lacks (cuda's fused GEMMs: bf16, CUTLASS): every PE says so.
      if (e.code() != tdist::ErrorCode::NotSupported) throw;
      if (leader()) std::printf("# %s: skipped %s: %s\n", p.label.c_str(), fieldsText(c.fields).c_str(), e.what());
    }
  }
  return rows;
}

// The fastest of many noisy rows is biased fast (the winner's curse): the search's winner takes
// today's place only if it wins again, timed alone against today's choice, by --min-gain both
// times. True (on every PE) when it does; then auto_us and best_us are the second timing's.
bool timedAgain(const Options &options, kn::Context &ctx, const Problem &p, const tdist::bench::Row &today_row,
                const tdist::bench::Row &winner_row, double search_auto, double search_best, double &auto_us,
                double &best_us) {
  std::vector<tdist::bench::Row> pair{today_row, winner_row};
  for (tdist::bench::Row &row : pair) row.us.clear();
  const auto again = tdist::bench::timeAlternately(ctx, pair, warmupOf(options, p.iters), options.repeats, p.iters);
  const double today = tdist::bench::summarize(again[0]).median, challenger = tdist::bench::summarize(again[1]).median;
  const double need = 1.0 + options.min_gain_percent / 100.0;
  const bool wins = search_auto >= need * search_best && today >= need * challenger;
  if (leader()) {
    std::printf("# %s: %s: %s us against Auto's %s, then alone %s against %s: %s\n", p.label.c_str(),
                winner_row.variant.c_str(), us(search_best).c_str(), us(search_auto).c_str(), us(challenger).c_str(), us(today).c_str(),
                wins ? "taken" : "not faster by --min-gain twice: today's choice kept");
  }
  auto_us = today;
  best_us = challenger;
  return fromPe0(wins ? 1 : 0) == 1;
}

// Measures p's candidates; returns the entry of the fastest (on every PE).
kn::TuningEntry tuneProblem(const Options &options, kn::Context &ctx, Problem &p) {
  std::vector<std::size_t> kept;
  std::vector<tdist::bench::Row> rows = checkedRows(ctx, p, kept);
  if (leader()) {
    std::printf("# %s: %zu candidates checked; %d repeats of %ld calls each\n", p.label.c_str(), kept.size(),
                options.repeats, p.iters);
    std::fflush(stdout);
  }
  const auto samples = tdist::bench::timeAlternately(ctx, rows, warmupOf(options, p.iters), options.repeats, p.iters);
  // Row 0, today's Auto, competes too: where nothing beats it, the entry is its config.
  int best = 0;
  std::vector<double> medians;
  for (const auto &s : samples) medians.push_back(tdist::bench::summarize(s).median);
  for (std::size_t r = 1; r < rows.size(); ++r)
    if (medians[r] < medians[best]) best = static_cast<int>(r);
  best = fromPe0(best);
  double auto_us = medians[0], best_us = medians[best];
  if (best != 0 && !timedAgain(options, ctx, p, rows[0], rows[static_cast<std::size_t>(best)], medians[0],
                              medians[best], auto_us, best_us)) {
    best = 0;
    best_us = auto_us = medians[0];
  }
  kn::TuningEntry entry = p.key;
  entry.fields = best == 0 ? p.resolved(ctx) : p.candidates[kept[static_cast<std::size_t>(best - 1)]].fields;
  entry.note = "median " + us(best_us) + " us; Auto without a table " + us(auto_us) + " us";
  if (leader()) {
    printRow(p.label, us(auto_us), us(best_us), tdist::bench::formatFixed(auto_us / best_us, 2) + "x",
             fieldsText(entry.fields));
    std::fflush(stdout);
  }
  return entry;
}

// Auto reading the table against Auto reading none, alternating.
void compareProblem(const Options &options, kn::Context &today, kn::Context &tuned, Problem &p) {
  std::vector<tdist::bench::Row> rows;
  tdist::bench::addCheckedRow(rows, {.variant = "today", .us = {}, .call = [&today, &p] { p.auto_call(today); }}, today,
                              *p.output, p.expected, p.label + " (Auto without a table)");
  tdist::bench::addCheckedRow(rows, {.variant = "tuned", .us = {}, .call = [&tuned, &p] { p.auto_call(tuned); }}, tuned,
                              *p.output, p.expected, p.label + " (Auto with the table)");
  // Both contexts' calls alternate; each context orders only its own calls (kernels' contract).
  shmem::barrier_all();
  const auto samples = tdist::bench::timeAlternately(today, rows, warmupOf(options, p.iters), options.repeats, p.iters);
  if (!leader()) return;
  const double before = tdist::bench::summarize(samples[0]).median, after = tdist::bench::summarize(samples[1]).median;
  printRow(p.label, us(before), us(after), tdist::bench::formatFixed(before / after, 2) + "x",
           fieldsText(p.resolved(tuned)));
  std::fflush(stdout);
}

void run(const Options &options) {
  const std::string path = options.table.empty() ? kn::tuning_table_path() : options.table;
  if (path == "none") throw std::invalid_argument("no table to write: TDIST_TUNE_TABLE is none; pass --table PATH");
  const std::string backend = tdist::backendName(), device = kn::tuning_device();
  if (leader()) {
    std::printf("# tdist-tune: backend %s, device '%s', %d PEs on %d node(s), table %s\n", backend.c_str(),
                device.c_str(), tdist::nPes(), tdist::nNodes(), path.c_str());
  }
  if (!options.no_tune) {
    // The file as it is: entries of other kernels and sizes stay; a table of another machine is not ours.
    kn::TuningTable table;
    if (std::optional<kn::TuningTable> existing = kn::TuningTable::load(path)) {
      if (existing->backend != backend || existing->device != device) {
        throw std::invalid_argument(path + " holds the table of backend " + existing->backend + ", device '" +
                                    existing->device + "', not this one's: pass another --table");
      }
      table = std::move(*existing);
    }
    table.backend = backend;
    table.device = device;
    if (leader()) {
      std::printf("# median us per call, the slowest PE's per repeat; gain = Auto without a table / the best\n");
      printRow("kernel size", "Auto (us)", "best (us)", "gain", "best config");
    }
    std::size_t measured = 0;
    {
      kn::Context ctx(contextOptions(options, "none"));
      for (const std::string &kernel : options.kernels)
        for (std::size_t i = 0; i < problemCount(options, kernel); ++i) {
          Problem p = makeProblem(options, kernel, i);
          table.put(tuneProblem(options, ctx, p));
          ++measured;
        }
    }
    if (leader() && !options.dry_run) {
      table.save(path);
      std::printf("# wrote %zu entries to %s (%zu in the table)\n", measured, path.c_str(), table.entries.size());
    }
    shmem::barrier_all();  // the file is there before any PE reads it
  }
  if (options.compare) {
    kn::Context today(contextOptions(options, "none"));
    kn::Context tuned(contextOptions(options, path));
    if (tuned.tuning_table().empty()) {
      throw std::invalid_argument("--compare: " + path + " is no table of this backend and device");
    }
    if (leader()) {
      std::printf("# Auto without a table (today's choices) against Auto reading %s, alternating; median us per call\n",
                  path.c_str());
      printRow("kernel size", "today (us)", "tuned (us)", "gain", "tuned config");
    }
    for (const std::string &kernel : options.kernels)
      for (std::size_t i = 0; i < problemCount(options, kernel); ++i) {
        Problem p = makeProblem(options, kernel, i);
        compareProblem(options, today, tuned, p);
      }
  }
}

}  // namespace

int main(int argc, char **argv) {
  return tdist::bench::toolMain<Options>(
      "tdist-tune", argc, argv, parseOptions, usage,
      [](tdist::InitAttr &attr, const Options &options) {
        attr.local_mem_size = std::max<std::uint64_t>(attr.local_mem_size, heapBytes(options, attr.n_pes));
      },
      run);
}
