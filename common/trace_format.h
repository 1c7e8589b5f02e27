// common/trace_format.h - the layout of a PE's trace file, shared by the runtime that writes it
// (runtime/trace.cpp) and tdist-run, which merges the files of a job (tools/tdist-trace).
//
// One file per PE and thread: a header, then `capacity` fixed-size events. The runtime maps the
// file shared and writes events in place, so what a PE recorded is on disk even when it dies.
// A full file drops further events and counts them in `dropped`.
#pragma once

#include <cstdint>

namespace tdist::trace_format {

constexpr std::uint64_t kMagic = 0x3130544443525454ull;  // "TTRCDT01"
constexpr std::uint32_t kVersion = 1;
constexpr int kNameBytes = 32;

enum class Kind : std::uint16_t {
  ProgramBegin = 1,
  ProgramEnd,
  WaitBegin,     // offset/pe: the slot; value: expected; aux: comparison
  WaitEnd,       // value: observed
  Notify,        // a signal or point put: offset/pe: the slot; value: the word's value after it
  TransferBegin, // put, get or put-with-signal: pe: target; value: bytes; aux: engine
  TransferEnd,
  CopyBegin,     // the copy engine carrying a transfer: pe: target; value: bytes
  CopyEnd,
  BarrierBegin,
  BarrierEnd,
  SpanBegin,     // a kernel-library step or a user span: name, m, n; aux: category
  SpanEnd,
};

// Span categories (Event::aux of SpanBegin/SpanEnd).
enum class Category : std::int32_t { User = 0, Call = 1, Compute = 2, Move = 3, Wait = 4 };

// Transfer kinds (Event::flags of TransferBegin/TransferEnd) and engines (Event::aux).
enum class Transfer : std::uint16_t { Put = 0, Get = 1, PutSignal = 2 };
enum class Engine : std::int32_t { Mte = 0, Sdma = 1, Backend = 2 };

constexpr std::uint64_t kNoOffset = ~0ull;

struct Event {
  std::uint64_t t_ns;       // CLOCK_MONOTONIC: one clock for every PE of the host
  Kind kind;
  std::uint16_t flags;      // Transfer kind; for a wait, 1 when it had to poll more than once
  std::int32_t program;     // linear program id in a launch; -1 outside one
  std::int32_t pe;          // slot owner or target PE; -1 when none
  std::int32_t aux;
  std::uint64_t offset;     // symmetric offset of the slot, or kNoOffset
  std::int64_t value;
  std::int32_t m, n;        // span coordinates (-1: none)
  char name[kNameBytes];    // NUL-terminated unless it fills the field
};
static_assert(sizeof(Event) == 80, "the trace file layout");

struct FileHeader {
  std::uint64_t magic;
  std::uint32_t version;
  std::int32_t pe;
  std::int32_t n_pes;
  std::int32_t thread;      // index of the thread within the PE, in order of first event
  std::uint64_t capacity;   // events the file holds
  std::uint64_t count;      // events written (atomically advanced; may exceed capacity)
  std::uint64_t dropped;    // events that did not fit
  char thread_name[kNameBytes];
  std::uint8_t reserved[48];
};
static_assert(sizeof(FileHeader) == 128, "the trace file layout");

}  // namespace tdist::trace_format
