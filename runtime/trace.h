// runtime/trace.h - the runtime's side of the job trace (docs/TRACING.md): the hooks that the
// backends and the kernel library call, each behind one predictable branch on a global flag.
//
// Recording starts at init when tdist-run gave the PE TDIST_TRACE_DIR, and stops at finalize.
// Every thread of the PE writes to a file of its own in that folder (common/trace_format.h),
// mapped shared: single writer, no lock, nothing to flush, and nothing lost when the PE dies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/trace_format.h"
#include "tdist/device/state.h"
#include "tdist/trace.h"

namespace tdist::runtime {
struct RuntimeState;
}

namespace tdist::trace {

using trace_format::Kind;

// Init and finalize: start when the environment asks for a trace, stop (unmaps every file).
void startFromEnvironment(const runtime::RuntimeState &state);
void stop();

// The program the calling thread runs now (-1 outside a launch); set by the launch's scheduler.
void setProgram(int program);

// The hooks, to be called only when active().
void recordProgram(Kind kind, int program);
void recordWait(Kind kind, const void *address, std::int64_t value, int cmp, const char *call);
// A signal's update of a word: value_after is the word's value after it, t_ns (clockNs) when it
// began.
void recordNotify(const void *word, std::int64_t value_after, std::uint64_t t_ns);
// The trace's clock: CLOCK_MONOTONIC, in ns.
std::uint64_t clockNs();
void recordTransfer(Kind kind, trace_format::Transfer what, int pe, std::size_t bytes,
                    trace_format::Engine engine);
void recordCopy(Kind kind, const void *dest, std::size_t bytes);
void recordBarrier(Kind kind, const char *call);

// The device side (the cuda backend): whether this PE records a trace (TDIST_TRACE_DIR), known
// before the trace starts, and how many events each buffer holds (TDIST_TRACE_EVENTS).
bool requested();
std::uint64_t eventCapacity();
// Writes the events a device recorded as one more file of this PE (thread "gpu"), each moved by
// offset_ns onto the trace's clock; a track per recording (block, thread). `dropped`: the events
// the device buffer could not hold. The first form writes into the trace started at init (after
// stop too); nothing when none was.
void writeDeviceFile(const device::TraceEvent *events, std::size_t count, std::uint64_t dropped,
                     std::int64_t offset_ns);
void writeDeviceFile(const std::string &dir, int pe, int n_pes, const device::TraceEvent *events,
                     std::size_t count, std::uint64_t dropped, std::int64_t offset_ns);

// Spans of work on a GPU's streams (the cuda backend's StreamSpan, timed by CUDA events),
// already on the trace's clock: written as one more file of this PE (thread "gpu streams"), a
// track per stream ("GPU stream S", S in Event::program). `dropped`: spans that were not kept.
// The first form writes into the trace started at init (after stop too); nothing when none was.
struct StreamSpanRecord {
  std::uint64_t begin_ns = 0;
  std::uint64_t end_ns = 0;
  int stream = 0;  // the stream's index on this PE, in order of first use
  int category = 0;
  int m = -1;
  int n = -1;
  char name[trace_format::kNameBytes] = {};
};
void writeStreamFile(const std::vector<StreamSpanRecord> &spans, std::uint64_t dropped);
void writeStreamFile(const std::string &dir, int pe, int n_pes, const std::vector<StreamSpanRecord> &spans,
                     std::uint64_t dropped);

}  // namespace tdist::trace
