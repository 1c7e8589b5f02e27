// backends/cpu/copy_engine.cpp - the copy thread.
#include "backends/cpu/copy_engine.h"

#include <pthread.h>

#include <cstring>

#include "runtime/trace.h"
#include "runtime/wait.h"

namespace tdist::cpu {

CopyEngine::CopyEngine() : thread_([this] { run(); }) {
  pthread_setname_np(thread_.native_handle(), "tdist-copy");  // the trace's name for it
}

CopyEngine::~CopyEngine() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_one();
  thread_.join();
}

std::uint64_t CopyEngine::submit(const runtime::Transfer &task) {
  std::uint64_t ticket;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(task);
    ticket = submitted_.fetch_add(1, std::memory_order_relaxed) + 1;
  }
  ready_.notify_one();
  return ticket;
}

void CopyEngine::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and drained
    runtime::Transfer task = queue_.front();
    queue_.pop_front();
    lock.unlock();
    const bool traced = trace::active();
    if (traced) [[unlikely]] trace::recordCopy(trace::Kind::CopyBegin, task.dest, task.bytes);
    if (task.bytes != 0) std::memcpy(task.dest, task.source, task.bytes);
    if (task.signal != nullptr) runtime::applySignal(task.signal, task.signal_bytes, task.signal_value, task.signal_op);
    if (traced) [[unlikely]] trace::recordCopy(trace::Kind::CopyEnd, task.dest, task.bytes);
    completed_.fetch_add(1, std::memory_order_release);
    lock.lock();
  }
}

namespace {
std::int64_t readCompleted(const void *counter, void *) {
  return static_cast<std::int64_t>(static_cast<const std::atomic<std::uint64_t> *>(counter)->load());
}
}  // namespace

void CopyEngine::waitFor(std::uint64_t ticket, const char *call) const {
  runtime::WaitSite site;
  site.call = call;
  site.address = &completed_;
  site.predicate = "copy engine tasks completed GE";
  site.expected = static_cast<std::int64_t>(ticket);
  site.read = readCompleted;
  site.own_work = true;
  runtime::waitUntil(site, [&] { return completed_.load(std::memory_order_acquire) >= ticket; });
}

}  // namespace tdist::cpu
