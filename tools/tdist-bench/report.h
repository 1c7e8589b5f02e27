// report.h - samples, their summary, and the two output forms of tdist-bench.
//
// A RESULT line is one measurement in key=value form, for scripts (bench/compare.sh greps them);
// bench/openshmem/shmem_bench.c prints the same keys with impl=openshmem. The table is for people.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace tdist::bench {

// Ratio: one row over another of the same repeat (cuda-put-bw's put over its reference copy).
enum class Unit { Microseconds, Nanoseconds, GigabytesPerSecond, Ratio };

struct Summary {
  double median = 0;
  double min = 0;
  double max = 0;
};

// Median (mean of the middle two for an even count), min and max; samples must not be empty.
Summary summarize(std::vector<double> samples);

struct Result {
  std::string case_name;    // put, memcpy, pingpong, ring, barrier, switch, cuda-...
  std::string variant;      // key=value words, e.g. "op=p"; empty when the case has none
  int pes = 0;
  std::size_t size = 0;     // bytes per operation
  long iters = 0;           // per repeat
  int repeats = 0;
  Unit unit = Unit::Microseconds;
  Summary summary;
  double vcsw_per_iter = 0;   // PE 0's voluntary context switches (it slept) per iteration
  double ivcsw_per_iter = 0;  // PE 0's involuntary ones (it was preempted) per iteration
};

// Prints each result as a RESULT line when added, and the table on demand.
class Reporter {
 public:
  explicit Reporter(std::string impl) : impl_(std::move(impl)) {}
  void add(const Result &result);
  void printTable() const;

 private:
  std::string impl_;
  std::vector<Result> results_;
};

// Seconds between start() and stop(), with the calling process's context switches in between.
class Stopwatch {
 public:
  void start();
  void stop();
  double seconds() const { return seconds_; }
  long voluntarySwitches() const { return vcsw_; }
  long involuntarySwitches() const { return ivcsw_; }

 private:
  std::chrono::steady_clock::time_point begin_;
  long begin_vcsw_ = 0, begin_ivcsw_ = 0;
  double seconds_ = 0;
  long vcsw_ = 0, ivcsw_ = 0;
};

std::string formatBytes(std::size_t bytes);
// value with `digits` digits after the point ("0.9873").
std::string formatFixed(double value, int digits);

}  // namespace tdist::bench
