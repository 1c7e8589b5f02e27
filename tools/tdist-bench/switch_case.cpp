// switch: what one program switch of tdist::launch costs, next to the two ways of switching
// stacks that could carry it.
//
// A switch hands a worker from one program to another through the worker's scheduler context
// (program -> scheduler -> program): two context jumps. Each row reports ns per switch:
//   path=ucontext     a swapcontext round trip (main -> context -> main), glibc's ucontext
//   path=fiber        a resume round trip of boost::context::fiber (fcontext); the fiber starts
//                     with main's floating-point environment, as the launch's programs do
//   path=fiber-mxcsr  the same with the fiber's MXCSR differing from main's (one sticky flag):
//                     fcontext restores MXCSR on every jump, and loading a different value costs
//                     (x86-64 only; elsewhere the same as path=fiber)
//   path=launch       tdist::launch of 2 programs on 1 worker ping-ponging through dl::notify and
//                     dl::wait: one hand-over (a program notifies, waits, yields; the other is
//                     resumed in its wait and returns from it). Besides the switch it holds the
//                     wait's own work (the polls before it yields, its clock reads) and the notify.
//   path=launch-fpflags  the same with programs that raised an SSE exception flag (underflow) that
//                     the launching thread has not: their MXCSR differs from the worker's, as after
//                     floating-point work of their own.
// The rows alternate within each repeat. Time is the calling thread's CPU time, so that other
// processes on a shared machine are not counted. PE 0 measures; the other PEs wait at a barrier.
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>
#include <cfenv>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "cases.h"
#include "tdist/dl.h"
#include "tdist/launch.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"

namespace tdist::bench {
namespace {

namespace shmem = tdist::shmem;
namespace ctx = boost::context;

constexpr std::size_t kStackBytes = 64 * 1024;

// Raises or clears SSE exception flags (MXCSR's sticky bits). feraiseexcept may raise them on
// the x87 unit instead, which leaves MXCSR alone.
#if defined(__x86_64__)
constexpr unsigned kInexact = _MM_EXCEPT_INEXACT, kUnderflow = _MM_EXCEPT_UNDERFLOW;
void raiseSseFlags(unsigned flags) { _mm_setcsr(_mm_getcsr() | flags); }
void toggleSseFlags(unsigned flags) { _mm_setcsr(_mm_getcsr() ^ flags); }
#else
constexpr unsigned kInexact = 0, kUnderflow = 0;
void raiseSseFlags(unsigned) {}
void toggleSseFlags(unsigned) {}
#endif

// The calling thread's CPU time and context switches between start() and stop().
class ThreadClock {
 public:
  void start() { read(begin_ns_, begin_vcsw_, begin_ivcsw_); }
  void stop() { read(end_ns_, end_vcsw_, end_ivcsw_); }
  double nanoseconds() const { return end_ns_ - begin_ns_; }
  long voluntarySwitches() const { return end_vcsw_ - begin_vcsw_; }
  long involuntarySwitches() const { return end_ivcsw_ - begin_ivcsw_; }

 private:
  static void read(double &ns, long &vcsw, long &ivcsw) {
    rusage usage{};
    getrusage(RUSAGE_THREAD, &usage);
    vcsw = usage.ru_nvcsw;
    ivcsw = usage.ru_nivcsw;
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    ns = static_cast<double>(now.tv_sec) * 1e9 + static_cast<double>(now.tv_nsec);
  }
  double begin_ns_ = 0, end_ns_ = 0;
  long begin_vcsw_ = 0, begin_ivcsw_ = 0, end_vcsw_ = 0, end_ivcsw_ = 0;
};

struct Sample {
  double ns_per_switch = 0;
  long vcsw = 0, ivcsw = 0;
};

Sample sampleOf(const ThreadClock &clock, long switches) {
  return {clock.nanoseconds() / static_cast<double>(switches), clock.voluntarySwitches(),
          clock.involuntarySwitches()};
}

// glibc's ucontext, as the scheduler used it: a context on an mmap'ed stack, swapcontext both
// ways (each saves and restores the signal mask: a system call).
class UcontextLoop {
 public:
  UcontextLoop() {
    mapping_ = mmap(nullptr, kStackBytes, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (mapping_ == MAP_FAILED) throw std::runtime_error("switch: cannot map a stack");
    getcontext(&context_);
    context_.uc_stack.ss_sp = mapping_;
    context_.uc_stack.ss_size = kStackBytes;
    context_.uc_link = &main_;
    makecontext(&context_, entry, 0);
    s_loop = this;
  }
  ~UcontextLoop() {
    stop_ = true;
    swapcontext(&main_, &context_);  // lets entry return to main_
    munmap(mapping_, kStackBytes);
  }
  UcontextLoop(const UcontextLoop &) = delete;
  UcontextLoop &operator=(const UcontextLoop &) = delete;

  void roundTrips(long count) {
    for (long i = 0; i < count; ++i) swapcontext(&main_, &context_);
  }

 private:
  static void entry() {
    UcontextLoop *self = s_loop;
    while (!self->stop_) swapcontext(&self->context_, &self->main_);
  }

  static inline thread_local UcontextLoop *s_loop = nullptr;
  void *mapping_ = nullptr;
  ucontext_t main_{}, context_{};
  bool stop_ = false;
};

// boost::context::fiber: the same loop, resume both ways. The fiber starts with main's
// floating-point environment, or with its MXCSR one sticky flag (precision) off main's.
class FiberLoop {
 public:
  explicit FiberLoop(bool same_mxcsr)
      : fiber_(std::allocator_arg, ctx::protected_fixedsize_stack(kStackBytes),
               [this, same_mxcsr](ctx::fiber &&main) {
                 std::fesetenv(&env_);
                 if (!same_mxcsr) toggleSseFlags(kInexact);
                 while (!stop_) main = std::move(main).resume();
                 return std::move(main);
               }) {
    std::fegetenv(&env_);
  }
  ~FiberLoop() {
    stop_ = true;
    fiber_ = std::move(fiber_).resume();  // returns, empty, once the fiber ended
  }
  FiberLoop(const FiberLoop &) = delete;
  FiberLoop &operator=(const FiberLoop &) = delete;

  void roundTrips(long count) {
    for (long i = 0; i < count; ++i) fiber_ = std::move(fiber_).resume();
  }

 private:
  bool stop_ = false;
  std::fenv_t env_{};
  ctx::fiber fiber_;
};

// Two programs on one worker: program 0 notifies program 1 and waits for the answer, program 1
// answers. The counters are monotone (the i-th exchange writes i) from 0 at each launch.
Sample launchHandOvers(long warmup, long iters, std::int64_t *flags, bool raise_flag) {
  flags[0] = flags[8] = 0;
  ThreadClock clock;
  tdist::LaunchOptions options;
  options.workers = 1;
  tdist::launch(tdist::Grid{2}, [&] {
    const int me = tdist::dl::program_id();
    const int rank = tdist::dl::rank();
    std::int64_t *mine = flags + me * 8, *other = flags + (1 - me) * 8;
    if (raise_flag) raiseSseFlags(kUnderflow);
    for (std::int64_t i = 1; i <= warmup + iters; ++i) {
      if (me == 0) {
        if (i == warmup + 1) clock.start();
        tdist::dl::notify(other, rank, i);
        tdist::dl::wait(mine, 1, i);
      } else {
        tdist::dl::wait(mine, 1, i);
        tdist::dl::notify(other, rank, i);
      }
    }
    if (me == 0) clock.stop();
  }, options);
  return sampleOf(clock, 2 * iters);
}

void report(Reporter &reporter, const char *path, const std::vector<Sample> &samples,
            long iters) {
  std::vector<double> ns;
  double vcsw = 0, ivcsw = 0;
  for (const Sample &s : samples) {
    ns.push_back(s.ns_per_switch);
    vcsw += static_cast<double>(s.vcsw);
    ivcsw += static_cast<double>(s.ivcsw);
  }
  const double total = static_cast<double>(iters) * static_cast<double>(samples.size());
  reporter.add(Result{.case_name = "switch", .variant = std::string("path=") + path,
                      .pes = shmem::n_pes(), .size = 0, .iters = iters,
                      .repeats = static_cast<int>(samples.size()), .unit = Unit::Nanoseconds,
                      .summary = summarize(ns), .vcsw_per_iter = vcsw / total,
                      .ivcsw_per_iter = ivcsw / total});
}

}  // namespace

void runSwitch(const Options &options, Reporter &reporter) {
  const long iters = options.iters > 0 ? options.iters : kDefaultSwitchIters;
  const long warmup = warmupIterations(options, iters);
  auto *flags = static_cast<std::int64_t *>(tdist::allocateZeroed(2 * 8, sizeof(std::int64_t)));
  shmem::barrier_all();
  if (shmem::my_pe() == 0) {
    // As after any floating-point work of this thread (and the timing's own), so that the flags
    // do not change under the loops below.
    raiseSseFlags(kInexact);
    UcontextLoop ucontext_loop;
    FiberLoop fiber_loop(true), mxcsr_loop(false);
    ucontext_loop.roundTrips(warmup);
    fiber_loop.roundTrips(warmup);
    mxcsr_loop.roundTrips(warmup);
    std::vector<Sample> ucontext_samples, fiber_samples, mxcsr_samples, launch_samples,
        fpflags_samples;
    auto time = [&](auto &loop, std::vector<Sample> &samples) {
      ThreadClock clock;
      clock.start();
      loop.roundTrips(iters);
      clock.stop();
      samples.push_back(sampleOf(clock, iters));
    };
    for (int r = 0; r < options.repeats; ++r) {
      time(ucontext_loop, ucontext_samples);
      time(fiber_loop, fiber_samples);
      time(mxcsr_loop, mxcsr_samples);
      const long launch_warmup = r == 0 ? warmup : iters / 10;
      launch_samples.push_back(launchHandOvers(launch_warmup, iters, flags, false));
      fpflags_samples.push_back(launchHandOvers(launch_warmup, iters, flags, true));
    }
    report(reporter, "ucontext", ucontext_samples, iters);
    report(reporter, "fiber", fiber_samples, iters);
    report(reporter, "fiber-mxcsr", mxcsr_samples, iters);
    report(reporter, "launch", launch_samples, 2 * iters);
    report(reporter, "launch-fpflags", fpflags_samples, 2 * iters);
  }
  shmem::barrier_all();
  tdist::deallocate(flags);
}

}  // namespace tdist::bench
