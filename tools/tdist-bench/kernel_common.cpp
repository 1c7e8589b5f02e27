// kernel_common.cpp - what the kernel library's cases share with the other measuring tools
// (tdist-tune): their inputs and exact checks, the checked rows timed alternately, the slowest
// PE's samples (kernel_common.h).
#include "kernel_common.h"

#include <cblas.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "host_data.h"
#include "tdist/shmem.h"

namespace tdist::bench {

namespace shmem = tdist::shmem;
namespace kn = tdist::kernels;

// ---- data and its checks -----------------------------------------------------------------------

float collectiveValue(int pe, std::size_t i) {
  return static_cast<float>(static_cast<int>((i * 7 + static_cast<std::size_t>(pe) * 13) % 17) - 8) * 0.25f;
}

std::vector<float> allReduceExpected(int n_pes, std::size_t count, DType dtype) {
  std::vector<float> expected(count, 0.0f);
  for (int pe = 0; pe < n_pes; ++pe)
    for (std::size_t i = 0; i < count; ++i) expected[i] += collectiveValue(pe, i);
  for (float &e : expected) e = storedAs(dtype, e);
  return expected;
}

void requireEqual(const std::string &what, const std::vector<float> &got, const std::vector<float> &expected) {
  if (got.size() != expected.size())
    throw std::runtime_error(what + ": output has " + std::to_string(got.size()) + " elements, expected " +
                             std::to_string(expected.size()));
  std::size_t wrong = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] == expected[i]) continue;
    if (wrong++ == 0) first = i;
  }
  if (wrong == 0) return;
  char text[160];
  std::snprintf(text, sizeof text, ": %zu of %zu elements wrong, the first at %zu: %g, expected %g", wrong, got.size(),
                first, static_cast<double>(got[first]), static_cast<double>(expected[first]));
  throw std::runtime_error(what + text);
}

// ---- timing ------------------------------------------------------------------------------------

std::vector<double> slowestPe(const std::vector<double> &mine) {
  const int n = shmem::n_pes();
  const std::size_t count = mine.size();
  auto *all = static_cast<double *>(tdist::allocate(sizeof(double) * count * n));
  shmem::putmem(all + count * shmem::my_pe(), mine.data(), sizeof(double) * count, 0);
  shmem::barrier_all();  // quiet + barrier: every PE's samples are in PE 0's heap
  std::vector<double> slowest(mine);
  if (shmem::my_pe() == 0) {
    std::vector<double> gathered(count * n);
    shmem::getmem(gathered.data(), all, sizeof(double) * count * n, 0);
    for (int pe = 0; pe < n; ++pe)
      for (std::size_t r = 0; r < count; ++r) slowest[r] = std::max(slowest[r], gathered[pe * count + r]);
  }
  shmem::barrier_all();
  tdist::deallocate(all);
  return slowest;
}

Result rowResult(const char *case_name, const std::string &variant, std::size_t size, long iters,
                 const std::vector<double> &us, long vcsw, long ivcsw) {
  const double total = static_cast<double>(iters) * static_cast<double>(us.size());
  return Result{.case_name = case_name,
                .variant = variant,
                .pes = shmem::n_pes(),
                .size = size,
                .iters = iters,
                .repeats = static_cast<int>(us.size()),
                .unit = Unit::Microseconds,
                .summary = summarize(us),
                .vcsw_per_iter = vcsw / total,
                .ivcsw_per_iter = ivcsw / total};
}

float aValue(long row, long col) { return static_cast<float>((row * 3 + col * 5) % 5 - 2); }
float bValue(long row, long col) { return static_cast<float>((row * 7 + col * 2) % 5 - 2); }

namespace {

// Times `iters` calls of row.call between a barrier and ctx.synchronize(); appends this PE's
// us per call.
void timeRepeat(kn::Context &ctx, Row &row, long iters) {
  shmem::barrier_all();
  Stopwatch watch;
  watch.start();
  for (long i = 0; i < iters; ++i) row.call();
  ctx.synchronize();
  watch.stop();
  row.us.push_back(watch.seconds() * 1e6 / static_cast<double>(iters));
  row.vcsw += watch.voluntarySwitches();
  row.ivcsw += watch.involuntarySwitches();
}

}  // namespace

std::vector<std::vector<double>> timeAlternately(kn::Context &ctx, std::vector<Row> &rows, long warmup, int repeats,
                                                 long iters) {
  for (Row &row : rows)
    for (long i = 0; i < warmup; ++i) row.call();
  ctx.synchronize();
  // Forward on even repeats, backward on odd ones: no row always runs first (the first of a
  // repeat measured a few % faster on cpu, which a fixed order turns into a bias).
  for (int r = 0; r < repeats; ++r) {
    for (std::size_t i = 0; i < rows.size(); ++i) timeRepeat(ctx, rows[r % 2 == 0 ? i : rows.size() - 1 - i], iters);
  }
  std::vector<std::vector<double>> slowest;
  for (Row &row : rows) slowest.push_back(slowestPe(row.us));
  return slowest;
}

void addCheckedRow(std::vector<Row> &rows, Row row, kn::Context &ctx, const Tensor &output,
                   const std::vector<float> &expected, const std::string &what) {
  upload(output, std::vector<float>(static_cast<std::size_t>(output.numel()), 0.0f));
  shmem::barrier_all();
  row.call();
  ctx.synchronize();
  requireEqual(what, download(output), expected);
  rows.push_back(std::move(row));
}

void sgemm(long m, long n, long k, const float *a, const float *b, float *c) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k),
              1.0f, a, static_cast<int>(k), b, static_cast<int>(n), 0.0f, c, static_cast<int>(n));
}

void keepWritten(void *buffer) { asm volatile("" : : "r"(buffer) : "memory"); }

}  // namespace tdist::bench
