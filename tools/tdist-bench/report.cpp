#include "report.h"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>

namespace tdist::bench {
namespace {

void readSwitches(long &voluntary, long &involuntary) {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  voluntary = usage.ru_nvcsw;
  involuntary = usage.ru_nivcsw;
}

const char *unitKey(Unit unit) {
  switch (unit) {
    case Unit::Microseconds: return "us";
    case Unit::Nanoseconds: return "ns";
    case Unit::GigabytesPerSecond: return "gbps";
    case Unit::Ratio: return "ratio";
  }
  return "?";
}

const char *unitLabel(Unit unit) {
  switch (unit) {
    case Unit::GigabytesPerSecond: return "GB/s";
    case Unit::Ratio: return "x";
    default: return unitKey(unit);
  }
}

}  // namespace

Summary summarize(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  std::size_t n = samples.size();
  double median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
  return {median, samples.front(), samples.back()};
}

void Reporter::add(const Result &r) {
  results_.push_back(r);
  const char *key = unitKey(r.unit);
  std::printf("RESULT impl=%s case=%s%s%s pes=%d size=%zu iters=%ld repeats=%d median_%s=%.4f "
              "min_%s=%.4f max_%s=%.4f vcsw_per_iter=%.3f ivcsw_per_iter=%.3f\n",
              impl_.c_str(), r.case_name.c_str(), r.variant.empty() ? "" : " ",
              r.variant.c_str(), r.pes, r.size, r.iters, r.repeats, key, r.summary.median, key,
              r.summary.min, key, r.summary.max, r.vcsw_per_iter, r.ivcsw_per_iter);
  std::fflush(stdout);
}

void Reporter::printTable() const {
  // The widest case and variant names: cuda-pingpong, path=stream op=barrier_all.
  std::printf("\n%-10s %-13s %-26s %4s %9s %8s %10s %10s %10s %6s  %s\n", "impl", "case", "variant",
              "pes", "size", "iters", "median", "min", "max", "unit", "vcsw/iter");
  for (const Result &r : results_) {
    std::printf("%-10s %-13s %-26s %4d %9s %8ld %10.3f %10.3f %10.3f %6s  %.3f\n", impl_.c_str(),
                r.case_name.c_str(), r.variant.c_str(), r.pes, formatBytes(r.size).c_str(),
                r.iters, r.summary.median, r.summary.min, r.summary.max, unitLabel(r.unit),
                r.vcsw_per_iter);
  }
  std::fflush(stdout);
}

void Stopwatch::start() {
  readSwitches(begin_vcsw_, begin_ivcsw_);
  begin_ = std::chrono::steady_clock::now();
}

void Stopwatch::stop() {
  auto end = std::chrono::steady_clock::now();
  long vcsw = 0, ivcsw = 0;
  readSwitches(vcsw, ivcsw);
  seconds_ = std::chrono::duration<double>(end - begin_).count();
  vcsw_ = vcsw - begin_vcsw_;
  ivcsw_ = ivcsw - begin_ivcsw_;
}

std::string formatBytes(std::size_t bytes) {
  char text[32];
  if (bytes >= (1u << 30) && bytes % (1u << 30) == 0) std::snprintf(text, sizeof text, "%zuGiB", bytes >> 30);
  else if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) std::snprintf(text, sizeof text, "%zuMiB", bytes >> 20);
  else if (bytes >= (1u << 10) && bytes % (1u << 10) == 0) std::snprintf(text, sizeof text, "%zuKiB", bytes >> 10);
  else std::snprintf(text, sizeof text, "%zuB", bytes);
  return text;
}

std::string formatFixed(double value, int digits) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

}  // namespace tdist::bench
