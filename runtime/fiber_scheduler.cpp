// runtime/fiber_scheduler.cpp - the launch of host programs (Backend::launch of both backends):
// program instances as cooperative fibers.
//
// Each worker thread owns the fibers it started (they never migrate: thread-locals stay valid
// across a switch). A worker starts a new program whenever one is left, else resumes its
// waiting programs round robin; a waiting program yields after a few polls. When a whole sweep
// of a worker's programs made no progress, the worker itself backs off like any waiter.
//
// The fibers are Boost.Context's (fcontext): a switch saves and restores the callee-saved
// registers and the floating-point control words, with no system call (glibc's swapcontext
// saves the signal mask, one rt_sigprocmask per switch). docs/BENCHMARKS.md has the numbers.
#include "runtime/fiber_scheduler.h"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <boost/context/fiber.hpp>
#include <boost/context/stack_context.hpp>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#include <cerrno>
#include <cfenv>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/environment.h"
#include "runtime/runtime_state.h"
#include "runtime/trace.h"
#include "runtime/wait.h"
#include "tdist/launch.h"

namespace tdist::runtime {
namespace {

namespace ctx = boost::context;

// AddressSanitizer must be told of every switch between a thread's stack and a program's, or it
// takes a program's frames for the thread's (false stack-buffer-overflow reports, exceptions in
// programs that it cannot unwind through).
struct StackBounds {
  const void *bottom = nullptr;
  std::size_t size = 0;
};
#if defined(__SANITIZE_ADDRESS__)
void startSwitch(void **fake_stack, const StackBounds &to) {
  __sanitizer_start_switch_fiber(fake_stack, to.bottom, to.size);
}
void finishSwitch(void *fake_stack, StackBounds *from) {
  __sanitizer_finish_switch_fiber(fake_stack, from ? &from->bottom : nullptr,
                                  from ? &from->size : nullptr);
}
#else
void startSwitch(void **, const StackBounds &) {}
void finishSwitch(void *, StackBounds *) {}
#endif

struct Launch {
  Grid grid;
  const std::function<void()> *body = nullptr;
  std::size_t stack_bytes = 0;
  std::atomic<int> next_program{0};
  std::atomic<bool> aborted{false};
  std::mutex error_mutex;
  std::exception_ptr first_error;
  // acrossPrograms: programs arrived in the current round, and rounds completed so far.
  std::atomic<int> arrived{0};
  std::atomic<std::int64_t> rounds{0};
};

std::size_t pageSize() {
  static const std::size_t size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

// The program stacks of one worker in one launch: each a mapping with a guard page below the
// stack, which turns an overflow into a fault instead of corruption. A finished program's stack
// is kept for the next program; all are unmapped with the pool.
#if defined(__SANITIZE_ADDRESS__)
void unpoison(void *address, std::size_t bytes) { __asan_unpoison_memory_region(address, bytes); }
#else
void unpoison(void *, std::size_t) {}
#endif

class StackPool {
 public:
  explicit StackPool(std::size_t stack_bytes)
      : mapping_bytes_((stack_bytes + pageSize() - 1) / pageSize() * pageSize() + pageSize()) {}
  ~StackPool() {
    for (void *mapping : free_) munmap(mapping, mapping_bytes_);
  }
  StackPool(const StackPool &) = delete;
  StackPool &operator=(const StackPool &) = delete;

  ctx::stack_context allocate() {
    void *mapping = nullptr;
    if (!free_.empty()) {
      mapping = free_.back();
      free_.pop_back();
    } else {
      mapping = mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
      if (mapping == MAP_FAILED) {
        throw Error(ErrorCode::Internal, std::string("launch: cannot map a program stack: ") +
                                             std::strerror(errno));
      }
      if (mprotect(mapping, pageSize(), PROT_NONE) != 0) {
        const int error = errno;
        munmap(mapping, mapping_bytes_);
        throw Error(ErrorCode::Internal, std::string("launch: cannot protect a stack's guard page: ") +
                                             std::strerror(error));
      }
    }
    ctx::stack_context stack;
    stack.sp = static_cast<char *>(mapping) + mapping_bytes_;  // the stack grows down from here
    stack.size = mapping_bytes_ - pageSize();                  // down to the guard page
    // A finished program leaves by a switch out of its entry frames, which never return: their
    // redzones stay poisoned in AddressSanitizer's shadow (and an unmapped stack's shadow stays
    // as it was). A program on such a stack would inherit that poison where code without the
    // sanitizer's instrumentation (UCX, libc) keeps its locals, and the sanitizer's checks of
    // those (sendmsg's message, in UCX's flush) would fail on them: every stack starts clean.
    unpoison(static_cast<char *>(stack.sp) - stack.size, stack.size);
    return stack;
  }

  void deallocate(ctx::stack_context &stack) noexcept {
    free_.push_back(static_cast<char *>(stack.sp) - mapping_bytes_);
  }

 private:
  std::size_t mapping_bytes_;
  std::vector<void *> free_;
};

// Boost.Context's StackAllocator: a program's fiber holds a copy, the pool stays the worker's.
struct PooledStack {
  StackPool *pool;
  StackBounds *bounds;
  ctx::stack_context allocate() {
    ctx::stack_context stack = pool->allocate();
    *bounds = {static_cast<char *>(stack.sp) - stack.size, stack.size};
    return stack;
  }
  void deallocate(ctx::stack_context &stack) noexcept { pool->deallocate(stack); }
};

struct Program {
  ctx::fiber context;  // the suspended program; empty once it has finished
  StackBounds stack;
  void *fake_stack = nullptr;
  int id = 0;
  int coords[3] = {0, 0, 0};
};

struct Worker {
  Launch *launch = nullptr;
  StackPool *stacks = nullptr;
  ctx::fiber scheduler;  // where the running program yields to
  StackBounds thread_stack;
  void *fake_stack = nullptr;
  Program *running = nullptr;
  bool progress = false;
  // The thread's floating-point environment, which its programs start with (each fiber has its
  // own control words from then on: a switch saves and restores them).
  std::fenv_t float_env{};
};

thread_local Worker *t_worker = nullptr;

void recordError(Launch &launch, std::exception_ptr error) {
  std::lock_guard<std::mutex> lock(launch.error_mutex);
  if (!launch.first_error) launch.first_error = error;
  launch.aborted.store(true, std::memory_order_release);
}

// The body of a program's fiber; returns the scheduler to switch back to.
ctx::fiber runProgram(Worker &worker, ctx::fiber &&scheduler) {
  finishSwitch(nullptr, &worker.thread_stack);
  worker.scheduler = std::move(scheduler);
  std::fesetenv(&worker.float_env);
  const int id = worker.running->id;
  if (trace::active()) [[unlikely]] trace::recordProgram(trace::Kind::ProgramBegin, id);
  // On every way out: a program that threw ends in the trace too.
  struct TracedEnd {
    int id;
    ~TracedEnd() {
      if (trace::active()) [[unlikely]] trace::recordProgram(trace::Kind::ProgramEnd, id);
    }
  } traced_end{id};
  try {
    (*worker.launch->body)();
  } catch (const ctx::detail::forced_unwind &) {
    throw;  // the fiber is being destroyed: Boost.Context unwinds it to its entry
  } catch (const LaunchAborted &) {
    // Unwound because another program failed; that program's error is the one reported.
  } catch (...) {
    recordError(*worker.launch, std::current_exception());
  }
  startSwitch(nullptr, worker.thread_stack);  // this program's stack is done with
  return std::move(worker.scheduler);
}

std::unique_ptr<Program> startProgram(Worker &worker, int id) {
  const Grid &grid = worker.launch->grid;
  auto program = std::make_unique<Program>();
  program->id = id;
  program->coords[0] = id % grid.x;
  program->coords[1] = (id / grid.x) % grid.y;
  program->coords[2] = id / (grid.x * grid.y);
  Worker *w = &worker;
  program->context = ctx::fiber(std::allocator_arg, PooledStack{worker.stacks, &program->stack},
                                [w](ctx::fiber &&scheduler) {
                                  return runProgram(*w, std::move(scheduler));
                                });
  return program;
}

// Runs program until it yields or finishes.
void resume(Worker &worker, Program &program) {
  worker.running = &program;
  trace::setProgram(program.id);
  startSwitch(&worker.fake_stack, program.stack);
  program.context = std::move(program.context).resume();
  finishSwitch(worker.fake_stack, nullptr);
  trace::setProgram(-1);
  worker.running = nullptr;
}

void runWorker(Launch &launch) {
  StackPool stacks(launch.stack_bytes);
  Worker worker;
  worker.launch = &launch;
  worker.stacks = &stacks;
  std::fegetenv(&worker.float_env);
  t_worker = &worker;
  std::deque<std::unique_ptr<Program>> waiting;
  const int total = launch.grid.size();
  Backoff idle;
  std::size_t sweep_left = 0;  // resumes left in the current sweep over `waiting`
  bool sweep_progress = false;

  for (;;) {
    std::unique_ptr<Program> program;
    int id = launch.aborted.load(std::memory_order_acquire)
                 ? total
                 : launch.next_program.fetch_add(1, std::memory_order_relaxed);
    if (id < total) {
      try {
        program = startProgram(worker, id);
      } catch (...) {
        recordError(launch, std::current_exception());
        continue;
      }
    } else if (!waiting.empty()) {
      program = std::move(waiting.front());
      waiting.pop_front();
    } else {
      break;
    }

    worker.progress = false;
    resume(worker, *program);
    if (!program->context) {
      worker.progress = true;  // finished: its stack went back to the pool
    } else {
      waiting.push_back(std::move(program));
    }

    sweep_progress |= worker.progress;
    if (sweep_left > 0) --sweep_left;
    if (sweep_left == 0) {
      if (sweep_progress) {
        idle.reset();
      } else if (!waiting.empty()) {
        idle.pause();
      }
      sweep_left = waiting.size();
      sweep_progress = false;
    }
  }
  t_worker = nullptr;
}

int defaultWorkers() {
  if (long workers = tuningKnob("TDIST_WORKERS", 0); workers > 0) return static_cast<int>(workers);
  int cores = static_cast<int>(std::thread::hardware_concurrency());
  return std::max(1, cores / localPes());
}

}  // namespace

bool inProgramFiber() { return t_worker != nullptr && t_worker->running != nullptr; }

void yieldProgram() {
  Worker *worker = t_worker;
  Program *program = worker->running;
  startSwitch(&program->fake_stack, worker->thread_stack);
  worker->scheduler = std::move(worker->scheduler).resume();
  finishSwitch(program->fake_stack, &worker->thread_stack);
}

void noteProgramProgress() {
  if (t_worker != nullptr) t_worker->progress = true;
}

bool launchAborted() {
  return t_worker != nullptr && t_worker->launch->aborted.load(std::memory_order_relaxed);
}

namespace {

std::int64_t readArrived(const void *address, void *) {
  return static_cast<const std::atomic<int> *>(address)->load(std::memory_order_relaxed);
}

}  // namespace

void acrossPrograms(const char *call, const std::function<void()> &once_all_arrived) {
  if (!inProgramFiber()) {
    once_all_arrived();
    return;
  }
  Launch &launch = *t_worker->launch;
  // In a failed launch, unwind at once rather than wait for programs that will not come.
  if (launch.aborted.load(std::memory_order_acquire)) throw LaunchAborted{};
  const int total = launch.grid.size();
  // Only the last arrival of a round completes it, so the round read here is this program's.
  const std::int64_t round = launch.rounds.load(std::memory_order_acquire);
  // acq_rel: the last arrival sees every program's writes before the PE-level operation
  // publishes them to the other PEs.
  if (launch.arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == total) {
    once_all_arrived();
    launch.arrived.store(0, std::memory_order_relaxed);
    launch.rounds.store(round + 1, std::memory_order_release);
    return;
  }
  WaitSite site;
  site.call = call;
  site.address = &launch.arrived;
  site.predicate = "programs of the launch arrived at the barrier EQ";
  site.expected = total;
  site.read = readArrived;
  waitUntil(site, [&] { return launch.rounds.load(std::memory_order_acquire) != round; });
}

int programId(int axis) {
  if (!inProgramFiber()) return 0;
  return t_worker->running->coords[axis];
}

int numPrograms(int axis) {
  if (!inProgramFiber()) return 1;
  const Grid &grid = t_worker->launch->grid;
  return axis == 0 ? grid.x : axis == 1 ? grid.y : grid.z;
}

}  // namespace tdist::runtime

namespace tdist::runtime {

void launchPrograms(const Grid &grid, const std::function<void()> &body, const LaunchOptions &options) {
  runtime::Launch state;
  state.grid = grid;
  state.body = &body;
  state.stack_bytes = options.stack_bytes < 16 * 1024 ? 16 * 1024 : options.stack_bytes;
  int workers = options.workers > 0 ? options.workers : runtime::defaultWorkers();
  workers = std::min(workers, grid.size());

  std::vector<std::thread> threads;
  for (int w = 1; w < workers; ++w) threads.emplace_back([&state] { runtime::runWorker(state); });
  runtime::runWorker(state);
  for (auto &t : threads) t.join();
  if (state.first_error) std::rethrow_exception(state.first_error);
}

bool programWaitYield(std::uint32_t polls) {
  if (!inProgramFiber()) return false;
  if (launchAborted()) throw LaunchAborted{};
  if (polls > 16) yieldProgram();
  else cpuRelax();
  return true;
}

void programWaitDone(std::uint32_t polls) {
  if (inProgramFiber() && polls > 16) noteProgramProgress();
}

}  // namespace tdist::runtime
