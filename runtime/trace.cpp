// runtime/trace.cpp - per-thread event files of a PE's trace.
#include "runtime/trace.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <pthread.h>
#include <string>
#include <vector>

#include "runtime/runtime_state.h"

extern "C" {
int tdist_trace_active = 0;
}

namespace tdist::trace {
namespace {

using trace_format::Event;
using trace_format::FileHeader;

static_assert(trace_format::kNameBytes == TDIST_TRACE_NAME_MAX + 1, "a name and its NUL fill the event's field");

constexpr std::uint64_t kDefaultEvents = 1u << 18;  // 20 MiB a thread, mapped lazily

struct Recorder {
  std::mutex mutex;  // guards the lists below; never taken on the recording path
  std::string dir;
  int pe = 0;
  int n_pes = 1;
  std::uint64_t capacity = kDefaultEvents;
  std::atomic<std::uint64_t> generation{0};  // a new one each start: thread buffers go stale
  int threads = 0;
  struct Mapping {
    void *address;
    std::size_t bytes;
  };
  std::vector<Mapping> mappings;
  // Where a slot's address is: this PE's heap and its peers' mappings of the others'.
  const std::byte *heap_base = nullptr;
  std::size_t heap_bytes = 0;
  std::vector<const std::byte *> peer_bases;
};

Recorder &recorder() {
  static Recorder *r = new Recorder;  // outlives every thread that may still record
  return *r;
}

struct ThreadBuffer {
  std::uint64_t generation = 0;
  FileHeader *header = nullptr;  // nullptr: none (or it could not be made)
  Event *events = nullptr;
  int program = -1;
};

thread_local ThreadBuffer t_buffer;

void complain(const std::string &what) {
  static std::once_flag once;
  std::call_once(once, [&] { std::fprintf(stderr, "tdist: trace: %s; this thread records nothing\n", what.c_str()); });
}

// Maps this thread's file; leaves header null when it cannot.
void openThreadFile(ThreadBuffer &buffer, std::uint64_t generation) {
  Recorder &r = recorder();
  buffer.generation = generation;
  buffer.header = nullptr;
  std::lock_guard<std::mutex> lock(r.mutex);
  const int thread = r.threads++;
  const std::string path = r.dir + "/pe" + std::to_string(r.pe) + "." + std::to_string(thread) + ".tdtrace";
  const std::size_t bytes = sizeof(FileHeader) + r.capacity * sizeof(Event);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return complain("cannot create " + path + ": " + std::strerror(errno));
  if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    ::close(fd);
    return complain("cannot size " + path + ": " + std::strerror(errno));
  }
  void *address = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (address == MAP_FAILED) return complain("cannot map " + path + ": " + std::strerror(errno));
  r.mappings.push_back({address, bytes});
  auto *header = static_cast<FileHeader *>(address);
  header->version = trace_format::kVersion;
  header->pe = r.pe;
  header->n_pes = r.n_pes;
  header->thread = thread;
  header->capacity = r.capacity;
  char name[16] = "";
  pthread_getname_np(pthread_self(), name, sizeof name);
  std::snprintf(header->thread_name, sizeof header->thread_name, "%s", name);
  std::atomic_ref<std::uint64_t>(header->magic).store(trace_format::kMagic, std::memory_order_release);
  buffer.header = header;
  buffer.events = reinterpret_cast<Event *>(header + 1);
}

std::uint64_t now() {
  timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u + static_cast<std::uint64_t>(ts.tv_nsec);
}

// The next free event of this thread, or nullptr (counted as dropped) when the file is full.
Event *claim(Kind kind) {
  ThreadBuffer &buffer = t_buffer;
  const std::uint64_t generation = recorder().generation.load(std::memory_order_acquire);
  if (buffer.generation != generation) [[unlikely]] openThreadFile(buffer, generation);
  FileHeader *header = buffer.header;
  if (header == nullptr) return nullptr;
  std::atomic_ref<std::uint64_t> count(header->count);
  const std::uint64_t index = count.load(std::memory_order_relaxed);
  if (index >= header->capacity) {
    std::atomic_ref<std::uint64_t>(header->dropped).fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  Event *event = &buffer.events[index];
  std::memset(event, 0, sizeof *event);
  event->t_ns = now();
  event->kind = kind;
  event->program = buffer.program;
  event->pe = -1;
  event->offset = trace_format::kNoOffset;
  event->m = event->n = -1;
  return event;
}

// Published after its fields: a reader of a live file sees whole events only.
void commit() {
  std::atomic_ref<std::uint64_t> count(t_buffer.header->count);
  count.store(count.load(std::memory_order_relaxed) + 1, std::memory_order_release);
}

// The first TDIST_TRACE_NAME_MAX bytes of the name, then a NUL.
void setName(Event &event, const char *name) {
  if (name == nullptr) return;
  const std::size_t length = strnlen(name, sizeof event.name - 1);
  std::memcpy(event.name, name, length);
  event.name[length] = '\0';
}

// The slot an address names: the owner PE and the symmetric offset, when it is on a heap.
void locate(Event &event, const void *address) {
  const Recorder &r = recorder();
  const auto *byte = static_cast<const std::byte *>(address);
  if (byte >= r.heap_base && byte < r.heap_base + r.heap_bytes) {
    event.pe = r.pe;
    event.offset = static_cast<std::uint64_t>(byte - r.heap_base);
    return;
  }
  for (std::size_t pe = 0; pe < r.peer_bases.size(); ++pe) {
    const std::byte *base = r.peer_bases[pe];
    if (base != nullptr && byte >= base && byte < base + r.heap_bytes) {
      event.pe = static_cast<int>(pe);
      event.offset = static_cast<std::uint64_t>(byte - base);
      return;
    }
  }
}

}  // namespace

bool requested() {
  const char *dir = std::getenv("TDIST_TRACE_DIR");
  return dir != nullptr && *dir != '\0';
}

std::uint64_t eventCapacity() {
  const char *events = std::getenv("TDIST_TRACE_EVENTS");
  if (events == nullptr || *events == '\0') return kDefaultEvents;
  char *end = nullptr;
  unsigned long long value = std::strtoull(events, &end, 10);
  if (*end != '\0' || value == 0 || value > (1ull << 30)) {
    static std::once_flag once;
    std::call_once(once, [&] {
      std::fprintf(stderr, "tdist: TDIST_TRACE_EVENTS=%s: expected a count of events in 1..2^30; using %llu\n",
                   events, static_cast<unsigned long long>(kDefaultEvents));
    });
    return kDefaultEvents;
  }
  return value;
}

void startFromEnvironment(const runtime::RuntimeState &state) {
  if (!requested()) return;
  Recorder &r = recorder();
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    r.dir = std::getenv("TDIST_TRACE_DIR");
    r.pe = state.my_pe;
    r.n_pes = state.n_pes;
    r.threads = 0;
    r.capacity = eventCapacity();
    r.heap_base = state.heap.base();
    r.heap_bytes = state.heap.size();
    r.peer_bases.clear();
    for (int pe = 0; pe < state.n_pes; ++pe) r.peer_bases.push_back(state.heap.peers().base(pe));
  }
  r.generation.fetch_add(1, std::memory_order_release);
  tdist_trace_active = 1;
}

void stop() {
  if (tdist_trace_active == 0) return;
  tdist_trace_active = 0;
  // The files stay mapped: a thread of the PE (the copy engine) may be recording its last
  // event. They are whole on disk already; the process's end unmaps them.
}

void setProgram(int program) { t_buffer.program = program; }

void recordProgram(Kind kind, int program) {
  if (Event *event = claim(kind)) {
    event->program = program;
    commit();
  }
}

void recordWait(Kind kind, const void *address, std::int64_t value, int cmp, const char *call) {
  if (Event *event = claim(kind)) {
    locate(*event, address);
    event->value = value;
    event->aux = cmp;
    setName(*event, call);
    commit();
  }
}

std::uint64_t clockNs() { return now(); }

void recordNotify(const void *word, std::int64_t value_after, std::uint64_t t_ns) {
  if (Event *event = claim(Kind::Notify)) {
    event->t_ns = t_ns;
    locate(*event, word);
    event->value = value_after;
    commit();
  }
}

void recordTransfer(Kind kind, trace_format::Transfer what, int pe, std::size_t bytes,
                    trace_format::Engine engine) {
  if (Event *event = claim(kind)) {
    event->flags = static_cast<std::uint16_t>(what);
    event->pe = pe;
    event->value = static_cast<std::int64_t>(bytes);
    event->aux = static_cast<std::int32_t>(engine);
    commit();
  }
}

void recordCopy(Kind kind, const void *dest, std::size_t bytes) {
  if (Event *event = claim(kind)) {
    if (dest != nullptr) locate(*event, dest);
    event->value = static_cast<std::int64_t>(bytes);
    commit();
  }
}

void recordBarrier(Kind kind, const char *call) {
  if (Event *event = claim(kind)) {
    setName(*event, call);
    commit();
  }
}

namespace {

// Where a file of this PE goes: the folder of the trace started at init (empty: none was).
struct Target {
  std::string dir;
  int pe = 0;
  int n_pes = 1;
};

Target startedTrace() {
  Recorder &r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  return Target{r.dir, r.pe, r.n_pes};
}

// A file of the PE beside its threads' (pe<P>.<suffix>.tdtrace) with its header written, or null
// (and a line on stderr saying what is lost).
std::FILE *openPeFile(const std::string &dir, int pe, int n_pes, const char *suffix, const char *thread_name,
                      std::uint64_t count, std::uint64_t dropped, const char *what) {
  const std::string path = dir + "/pe" + std::to_string(pe) + "." + suffix + ".tdtrace";
  std::FILE *out = std::fopen(path.c_str(), "wb");
  if (out == nullptr) {
    std::fprintf(stderr, "tdist: trace: cannot write %s: %s; %s lost\n", path.c_str(), std::strerror(errno), what);
    return nullptr;
  }
  FileHeader header{};
  header.magic = trace_format::kMagic;
  header.version = trace_format::kVersion;
  header.pe = pe;
  header.n_pes = n_pes;
  header.thread = -1;
  header.capacity = count;
  header.count = count;
  header.dropped = dropped;
  std::snprintf(header.thread_name, sizeof header.thread_name, "%s", thread_name);
  if (std::fwrite(&header, sizeof header, 1, out) != 1) {
    std::fclose(out);
    std::fprintf(stderr, "tdist: trace: writing %s failed; %s lost\n", path.c_str(), what);
    return nullptr;
  }
  return out;
}

}  // namespace

void writeDeviceFile(const device::TraceEvent *events, std::size_t count, std::uint64_t dropped,
                     std::int64_t offset_ns) {
  const Target target = startedTrace();
  if (!target.dir.empty()) writeDeviceFile(target.dir, target.pe, target.n_pes, events, count, dropped, offset_ns);
}

void writeDeviceFile(const std::string &dir, int pe, int n_pes, const device::TraceEvent *events,
                     std::size_t count, std::uint64_t dropped, std::int64_t offset_ns) {
  static_assert(static_cast<int>(Kind::WaitBegin) == 3 && static_cast<int>(Kind::WaitEnd) == 4 &&
                    static_cast<int>(Kind::Notify) == 5 && static_cast<int>(Kind::TransferBegin) == 6 &&
                    static_cast<int>(Kind::TransferEnd) == 7 && static_cast<int>(Kind::BarrierBegin) == 10 &&
                    static_cast<int>(Kind::BarrierEnd) == 11,
                "tdist/device/trace.cuh numbers the kinds as trace_format does");
  std::FILE *out = openPeFile(dir, pe, n_pes, "gpu", "gpu", count, dropped, "the device's events are");
  if (out == nullptr) return;
  bool ok = true;
  for (std::size_t i = 0; ok && i < count; ++i) {
    const device::TraceEvent &d = events[i];
    Event e{};
    e.t_ns = static_cast<std::uint64_t>(static_cast<std::int64_t>(d.t_ns) + offset_ns);
    e.kind = static_cast<Kind>(d.kind);
    e.flags = d.flags;
    e.program = -1;
    e.pe = d.pe;
    e.aux = d.aux;
    e.offset = d.offset;
    e.value = d.value;
    e.m = static_cast<std::int32_t>(d.block);  // the track: (block, thread)
    e.n = static_cast<std::int32_t>(d.thread);
    switch (e.kind) {
      case Kind::WaitBegin: case Kind::WaitEnd: setName(e, "device wait"); break;
      case Kind::BarrierBegin: case Kind::BarrierEnd: setName(e, "device barrier"); break;
      case Kind::TransferBegin: case Kind::TransferEnd: e.aux = static_cast<std::int32_t>(trace_format::Engine::Mte); break;
      case Kind::Notify:
        if (d.flags == 1) e.offset = trace_format::kNoOffset;  // an ADD: its value is the increment, no flow
        break;
      default: break;
    }
    ok = std::fwrite(&e, sizeof e, 1, out) == 1;
  }
  if (std::fclose(out) != 0 || !ok)
    std::fprintf(stderr, "tdist: trace: writing PE %d's gpu file failed; the device's events may be cut short\n", pe);
}

void writeStreamFile(const std::vector<StreamSpanRecord> &spans, std::uint64_t dropped) {
  const Target target = startedTrace();
  if (!target.dir.empty()) writeStreamFile(target.dir, target.pe, target.n_pes, spans, dropped);
}

void writeStreamFile(const std::string &dir, int pe, int n_pes, const std::vector<StreamSpanRecord> &spans,
                     std::uint64_t dropped) {
  std::FILE *out = openPeFile(dir, pe, n_pes, "streams", "gpu streams", 2 * spans.size(), 2 * dropped,
                              "the streams' spans are");
  if (out == nullptr) return;
  bool ok = true;
  for (const StreamSpanRecord &span : spans) {
    Event e{};
    e.kind = Kind::SpanBegin;
    e.program = span.stream;  // the track
    e.pe = -1;
    e.aux = span.category;
    e.offset = trace_format::kNoOffset;
    e.m = span.m;
    e.n = span.n;
    std::memcpy(e.name, span.name, sizeof e.name);
    e.t_ns = span.begin_ns;
    ok = ok && std::fwrite(&e, sizeof e, 1, out) == 1;
    e.kind = Kind::SpanEnd;
    e.t_ns = span.end_ns < span.begin_ns ? span.begin_ns : span.end_ns;
    ok = ok && std::fwrite(&e, sizeof e, 1, out) == 1;
  }
  if (std::fclose(out) != 0 || !ok)
    std::fprintf(stderr, "tdist: trace: writing PE %d's streams file failed; its spans may be cut short\n", pe);
}

}  // namespace tdist::trace

extern "C" {

void tdist_trace_record_begin(const char *name, int m, int n, int category) {
  if (tdist_trace_active == 0) return;
  if (tdist::trace_format::Event *event = tdist::trace::claim(tdist::trace::Kind::SpanBegin)) {
    tdist::trace::setName(*event, name);
    event->m = m;
    event->n = n;
    event->aux = category;
    tdist::trace::commit();
  }
}

void tdist_trace_record_end(void) {
  if (tdist_trace_active == 0) return;
  if (tdist::trace::claim(tdist::trace::Kind::SpanEnd) != nullptr) tdist::trace::commit();
}

}
