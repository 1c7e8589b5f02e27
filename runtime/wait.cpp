// runtime/wait.cpp - backoff, deadline and the wait diagnostic.
#include "runtime/wait.h"

#include <sched.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "common/wait_format.h"
#include "runtime/backend.h"
#include "runtime/environment.h"
#include "runtime/launcher_channel.h"
#include "runtime/published_wait.h"
#include "runtime/runtime_state.h"
#include "tdist/exit_codes.h"

namespace tdist::runtime {
namespace {

struct WaitPolicy {
  std::uint32_t spin_polls = 64;                     // busy polls before the first yield, ...
  std::uint32_t oversubscribed_spin_polls = 8;       // ... or when PEs outnumber the CPUs
  std::chrono::microseconds yield_for{1000};         // then yield until this much time passed
  std::chrono::microseconds first_sleep{20};         // then sleep, doubling ...
  std::chrono::microseconds max_sleep{1000};         // ... up to this
};

const WaitPolicy &policy() {
  static const WaitPolicy p = [] {
    WaitPolicy w;
    if (oversubscribed()) w.spin_polls = w.oversubscribed_spin_polls;
    w.spin_polls = static_cast<std::uint32_t>(tuningKnob("TDIST_WAIT_SPIN", w.spin_polls));
    w.yield_for = std::chrono::microseconds(tuningKnob("TDIST_WAIT_YIELD_US", w.yield_for.count()));
    return w;
  }();
  return p;
}

}  // namespace

Backoff::Backoff() { reset(); }

void Backoff::reset() {
  start_ = std::chrono::steady_clock::now();
  polls_ = 0;
  sleep_ = policy().first_sleep;
}

void Backoff::pause() {
  const WaitPolicy &p = policy();
  if (polls_ < p.spin_polls) {
    ++polls_;
    cpuRelax();
    return;
  }
  if (std::chrono::steady_clock::now() - start_ < p.yield_for) {
    sched_yield();
    return;
  }
  std::this_thread::sleep_for(sleep_);
  sleep_ = std::min(sleep_ * 2, p.max_sleep);
}

void checkExitRequest() {
  RuntimeState *state = g_state;
  if (state == nullptr || !state->channel.mapped()) return;
  std::int64_t request = state->channel.local().exit_request.value.load(std::memory_order_acquire);
  if (request != 0) {
    reportFinalized();  // ended by global_exit, as asked
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(static_cast<int>(request - 1));
  }
}

WaitLoop::WaitLoop(const WaitSite &site) : site_(site), backend_(&activeBackend()) {
  const RuntimeState *state = g_state;
  auto timeout = state != nullptr ? state->wait_timeout : std::chrono::nanoseconds(std::chrono::seconds(120));
  deadline_ = backoff_.started() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(timeout);
}

WaitLoop::~WaitLoop() {
  if (published_ != nullptr) releaseWaitBoard(*published_);
}

void WaitLoop::pause() {
  ++polls_;
  // The clock and the exit flag are read every 64 polls only: they cost more than a poll.
  if ((polls_ & 63) == 0) {
    if (std::chrono::steady_clock::now() >= deadline_) expire();
    checkExitRequest();
    publish();
  }
  // The backend may have other work of this PE to run meanwhile (the cpu backend's programs).
  if (backend_->wait_yield(polls_)) {
    in_programs_ = true;
    if (polls_ > 16 && std::chrono::steady_clock::now() >= deadline_) expire();
    return;
  }
  backoff_.pause();
}

void WaitLoop::finish() {
  if (published_ != nullptr) releaseWaitBoard(*published_);
  published_ = nullptr;
  backend_->wait_done(polls_);
}

// Where the polled word is, as messages say it: "symmetric offset 0x40 of PE 1", ...
static void describeWord(const WaitSite &site, char *where, std::size_t size) {
  const RuntimeState *state = g_state;
  const int me = state != nullptr ? state->my_pe : -1;
  const int owner = site.owner_pe >= 0 ? site.owner_pe : me;
  const std::byte *owner_base =
      (state != nullptr && owner >= 0 && owner < state->n_pes) ? state->heap.peers().base(owner)
                                                               : nullptr;
  auto addr = static_cast<const std::byte *>(site.address);
  const auto *channel = (state != nullptr && state->channel.mapped() && owner_base != nullptr)
                            ? reinterpret_cast<const std::byte *>(&state->channel.peer(owner))
                            : nullptr;
  if (owner_base != nullptr && addr >= owner_base && addr < owner_base + state->heap.size()) {
    std::snprintf(where, size, "symmetric offset 0x%zx of PE %d",
                  static_cast<std::size_t>(addr - owner_base), owner);
  } else if (channel != nullptr && addr >= channel && addr < channel + kControlBytes) {
    std::snprintf(where, size, "offset 0x%zx of PE %d's host channel",
                  static_cast<std::size_t>(addr - channel), owner);
  } else if (state == nullptr || !describeStaticAddress(*state, addr, where, size)) {
    std::snprintf(where, size, "address %p (not on the symmetric heap)", site.address);
  }
}

std::int64_t WaitLoop::observe() const {
  return site_.read != nullptr ? site_.read(site_.address, site_.read_context) : 0;
}

WaitDescription WaitLoop::describe() const {
  const RuntimeState *state = g_state;
  WaitDescription wait;
  wait.pe = state != nullptr ? state->my_pe : -1;
  wait.owner_pe = site_.owner_pe >= 0 ? site_.owner_pe : wait.pe;
  wait.slot = site_.slot;
  wait.slots = site_.slots;
  wait.expected = site_.expected;
  wait.observed = observe();
  copyWaitText(wait.call, site_.call);
  copyWaitText(wait.predicate, site_.predicate);
  describeWord(site_, wait.where, sizeof wait.where);
  return wait;
}

void WaitLoop::publish() {
  if (published_ == nullptr) {
    if (publish_tried_) return;
    publish_tried_ = true;
    // A program of a launch may wait while a sibling computes, and a wait for this PE's own work
    // waits for something busy: neither says that the PE is blocked (its GPU may: WaitNote).
    if (in_programs_ || site_.own_work || !claimWaitBoard()) return;
    published_ = waitBoardRecord();
  } else if (site_.address == published_address_) {
    wait_board::refresh(*published_, observe());  // the same word: only what it holds may change
    return;
  }
  // A new wait, or a multi-slot wait on to its next slot.
  published_address_ = site_.address;
  wait_board::publish(*published_, describe(),
                      std::chrono::duration_cast<std::chrono::nanoseconds>(backoff_.started().time_since_epoch())
                          .count());
}

void WaitLoop::expire() {
  const RuntimeState *state = g_state;
  const double seconds = state != nullptr ? std::chrono::duration<double>(state->wait_timeout).count() : 120.0;
  char text[512];
  wait_format::deadline(describe(), seconds, text, sizeof text);
  std::fprintf(stderr, "tdist: %s\n", text);
  std::fflush(stdout);
  std::fflush(stderr);
  reportEnding(kExitWaitTimeout);
  std::_Exit(kExitWaitTimeout);
}

}  // namespace tdist::runtime
