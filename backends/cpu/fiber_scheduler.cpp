// backends/cpu/fiber_scheduler.cpp - the cpu backend's launch: program instances as cooperative fibers.
//
// Each worker thread owns the fibers it started (they never migrate: thread-locals stay valid
// across a switch). A worker starts a new program whenever one is left, else resumes its
// waiting programs round robin; a waiting program yields after a few polls. When a whole sweep
// of a worker's programs made no progress, the worker itself backs off like any waiter.
#include "backends/cpu/fiber_scheduler.h"

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
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
#include "runtime/wait.h"
#include "tdist/launch.h"

namespace tdist::runtime {
namespace {

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

struct Fiber {
  ucontext_t context{};
  void *stack = nullptr;      // mapping, guard page first
  std::size_t mapping = 0;
  int program = 0;
  int coords[3] = {0, 0, 0};
  bool finished = false;
};

struct Worker {
  Launch *launch = nullptr;
  ucontext_t scheduler{};
  Fiber *running = nullptr;
  bool progress = false;
  std::vector<Fiber *> spare;  // finished fibers whose stacks can be reused
};

thread_local Worker *t_worker = nullptr;

std::size_t pageSize() {
  static const std::size_t size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

Fiber *newFiber(std::size_t stack_bytes) {
  auto fiber = std::make_unique<Fiber>();
  const std::size_t page = pageSize();
  fiber->mapping = (stack_bytes + page - 1) / page * page + page;
  void *mem = mmap(nullptr, fiber->mapping, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (mem == MAP_FAILED) {
    throw Error(ErrorCode::Internal, std::string("launch: cannot map a program stack: ") +
                                         std::strerror(errno));
  }
  // A guard page below the stack turns an overflow into a fault instead of corruption.
  mprotect(mem, page, PROT_NONE);
  fiber->stack = mem;
  return fiber.release();
}

void deleteFiber(Fiber *fiber) {
  munmap(fiber->stack, fiber->mapping);
  delete fiber;
}

void recordError(Launch &launch, std::exception_ptr error) {
  std::lock_guard<std::mutex> lock(launch.error_mutex);
  if (!launch.first_error) launch.first_error = error;
  launch.aborted.store(true, std::memory_order_release);
}

void fiberEntry() {
  Worker *worker = t_worker;
  Fiber *fiber = worker->running;
  try {
    (*worker->launch->body)();
  } catch (const LaunchAborted &) {
    // Unwound because another program failed; that program's error is the one reported.
  } catch (...) {
    recordError(*worker->launch, std::current_exception());
  }
  fiber->finished = true;
  // Returning switches to uc_link, the worker's scheduler context.
}

void startFiber(Worker &worker, Fiber *fiber, int program) {
  const Grid &grid = worker.launch->grid;
  fiber->program = program;
  fiber->coords[0] = program % grid.x;
  fiber->coords[1] = (program / grid.x) % grid.y;
  fiber->coords[2] = program / (grid.x * grid.y);
  fiber->finished = false;
  getcontext(&fiber->context);
  const std::size_t page = pageSize();
  fiber->context.uc_stack.ss_sp = static_cast<char *>(fiber->stack) + page;
  fiber->context.uc_stack.ss_size = fiber->mapping - page;
  fiber->context.uc_link = &worker.scheduler;
  makecontext(&fiber->context, fiberEntry, 0);
}

void resume(Worker &worker, Fiber *fiber) {
  worker.running = fiber;
  swapcontext(&worker.scheduler, &fiber->context);
  worker.running = nullptr;
}

void runWorker(Launch &launch) {
  Worker worker;
  worker.launch = &launch;
  t_worker = &worker;
  std::deque<Fiber *> waiting;
  const int total = launch.grid.size();
  Backoff idle;
  std::size_t sweep_left = 0;  // resumes left in the current sweep over `waiting`
  bool sweep_progress = false;

  for (;;) {
    Fiber *fiber = nullptr;
    int program = launch.aborted.load(std::memory_order_acquire)
                      ? total
                      : launch.next_program.fetch_add(1, std::memory_order_relaxed);
    if (program < total) {
      if (worker.spare.empty()) {
        try {
          fiber = newFiber(launch.stack_bytes);
        } catch (...) {
          recordError(launch, std::current_exception());
          continue;
        }
      } else {
        fiber = worker.spare.back();
        worker.spare.pop_back();
      }
      startFiber(worker, fiber, program);
    } else if (!waiting.empty()) {
      fiber = waiting.front();
      waiting.pop_front();
    } else {
      break;
    }

    worker.progress = false;
    resume(worker, fiber);
    if (fiber->finished) {
      worker.spare.push_back(fiber);
      worker.progress = true;
    } else {
      waiting.push_back(fiber);
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
  for (Fiber *f : worker.spare) deleteFiber(f);
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
  Fiber *fiber = worker->running;
  swapcontext(&fiber->context, &worker->scheduler);
}

void noteProgramProgress() {
  if (t_worker != nullptr) t_worker->progress = true;
}

bool launchAborted() {
  return t_worker != nullptr && t_worker->launch->aborted.load(std::memory_order_relaxed);
}

namespace {

std::int64_t readArrived(const void *address) {
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

}  // namespace tdist::runtime
