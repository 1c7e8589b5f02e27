// backends/cuda/stream_trace.cpp - spans of the work on a PE's CUDA streams in the job trace
// (tdist::cuda::StreamSpan, docs/TRACING.md).
//
// A span is two CUDA events recorded on its stream: one when it opens (before the work the host
// enqueues in its scope), one when it closes (after it). The GPU stamps them when the stream
// reaches them, so a span is when the GPU ran that work, not when the host enqueued it.
//
// Clock: CUDA events only measure against each other (cudaEventElapsedTime, float ms). Anchor
// events on a private, otherwise idle stream tie them to the trace's clock: the first one's time
// is measured from the host at start (of five, the shortest round trip, at its midpoint); every
// later one is recorded when a span opens more than kAnchorEveryNs after the last, and its time is
// the previous anchor's plus the elapsed time between them. A span is measured from the anchor
// recorded last before it opened, so every float difference stays short and precise. Nothing here
// waits for a stream: an anchor is recorded, never synchronized, after the start.
//
// Finished spans are resolved as their end events complete (polled, never waited for, when more
// than kReapAfter are pending) and their events reused; the rest at finalize, after the device is
// synchronized. TDIST_TRACE_EVENTS bounds the spans kept; later ones are counted as dropped.
// Spans that open while their stream is being captured into a CUDA graph are not recorded (an
// event recorded during capture is a dependency, not a timestamp).
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <deque>
#include <map>
#include <mutex>
#include <vector>

#include "backends/cuda/cuda_state.h"
#include "runtime/trace.h"
#include "tdist/cuda.h"

namespace tdist::cuda {
namespace {

constexpr std::uint64_t kAnchorEveryNs = 500'000'000;  // 0.5 s: float ms keep ~30 ns there
constexpr std::size_t kReapAfter = 512;

struct Anchor {
  cudaEvent_t event = nullptr;
  std::uint64_t host_ns = 0;  // when it was recorded (host clock), to know when to take the next
  double trace_ns = 0;        // its time on the trace's clock, once known
  bool known = false;
};

struct Pending {
  cudaEvent_t begin = nullptr;
  cudaEvent_t end = nullptr;
  std::size_t anchor = 0;
  bool closed = false;
  trace::StreamSpanRecord record;
};

struct Recorder {
  std::mutex mutex;
  bool on = false;
  int device = -1;
  cudaStream_t anchor_stream = nullptr;
  std::vector<Anchor> anchors;
  std::vector<cudaEvent_t> pool;
  std::deque<Pending> pending;  // in the order the spans opened
  std::uint64_t first_id = 0;   // the id of pending.front()
  std::vector<trace::StreamSpanRecord> done;
  std::map<cudaStream_t, int> streams;
  std::uint64_t capacity = 0;
  std::uint64_t dropped = 0;
};

Recorder &recorder() {
  static Recorder *r = new Recorder;  // outlives every static destructor that may still trace
  return *r;
}

cudaEvent_t takeEvent(Recorder &r) {
  if (!r.pool.empty()) {
    cudaEvent_t e = r.pool.back();
    r.pool.pop_back();
    return e;
  }
  cudaEvent_t e = nullptr;
  if (cudaEventCreate(&e) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return e;
}

// The anchors' times up to `upto`, from the first: false when one has not completed yet.
bool anchorKnown(Recorder &r, std::size_t upto, bool wait) {
  for (std::size_t i = 1; i <= upto; ++i) {
    Anchor &a = r.anchors[i];
    if (a.known) continue;
    if (!wait && cudaEventQuery(a.event) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    float ms = 0;
    if (cudaEventElapsedTime(&ms, r.anchors[i - 1].event, a.event) != cudaSuccess) {
      cudaGetLastError();
      ms = static_cast<float>(static_cast<double>(a.host_ns - r.anchors[i - 1].host_ns) / 1e6);  // the host's view
    }
    a.trace_ns = r.anchors[i - 1].trace_ns + static_cast<double>(ms) * 1e6;
    a.known = true;
  }
  return true;
}

// The front span into `done` if its events completed (or `wait`: the device is synchronized).
bool resolveFront(Recorder &r, bool wait) {
  Pending &p = r.pending.front();
  if (!p.closed) {
    if (!wait) return false;
    ++r.dropped;  // its scope never closed (the PE is finishing inside it)
  } else {
    if (!wait && cudaEventQuery(p.end) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    if (!anchorKnown(r, p.anchor, wait)) return false;
    float begin_ms = 0, end_ms = 0;
    const cudaEvent_t anchor = r.anchors[p.anchor].event;
    if (cudaEventElapsedTime(&begin_ms, anchor, p.begin) == cudaSuccess &&
        cudaEventElapsedTime(&end_ms, p.begin, p.end) == cudaSuccess) {
      const double begin_ns = r.anchors[p.anchor].trace_ns + static_cast<double>(begin_ms) * 1e6;
      p.record.begin_ns = static_cast<std::uint64_t>(begin_ns);
      p.record.end_ns = static_cast<std::uint64_t>(begin_ns + static_cast<double>(end_ms) * 1e6);
      r.done.push_back(p.record);
    } else {
      cudaGetLastError();
      ++r.dropped;
    }
  }
  if (p.begin != nullptr) r.pool.push_back(p.begin);
  if (p.end != nullptr) r.pool.push_back(p.end);
  r.pending.pop_front();
  ++r.first_id;
  return true;
}

}  // namespace

void startStreamTrace(CudaState &cuda) {
  Recorder &r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.capacity = trace::eventCapacity() / 2;  // two events of the trace per span
  r.device = cuda.device;
  if (cudaStreamCreateWithFlags(&r.anchor_stream, cudaStreamNonBlocking) != cudaSuccess) {
    cudaGetLastError();
    std::fprintf(stderr, "tdist: trace: cannot create a stream to time the GPU's streams by; they record nothing\n");
    return;
  }
  Anchor first;
  std::uint64_t best = UINT64_MAX;
  for (int round = 0; round < 5; ++round) {
    cudaEvent_t e = takeEvent(r);
    if (e == nullptr) break;
    const std::uint64_t before = trace::clockNs();
    const bool ok = cudaEventRecord(e, r.anchor_stream) == cudaSuccess && cudaEventSynchronize(e) == cudaSuccess;
    const std::uint64_t after = trace::clockNs();
    if (!ok) {
      cudaGetLastError();
      r.pool.push_back(e);
      break;
    }
    if (after - before < best) {
      best = after - before;
      if (first.event != nullptr) r.pool.push_back(first.event);
      first.event = e;
      first.host_ns = after;
      first.trace_ns = static_cast<double>(before + (after - before) / 2);
      first.known = true;
    } else {
      r.pool.push_back(e);
    }
  }
  if (first.event == nullptr) {
    std::fprintf(stderr, "tdist: trace: cannot time the GPU's streams (CUDA events); they record nothing\n");
    return;
  }
  r.anchors.push_back(first);
  r.on = true;
}

void stopStreamTrace() {
  Recorder &r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (!r.on && r.anchors.empty()) return;
  r.on = false;
  const bool synchronized = cudaDeviceSynchronize() == cudaSuccess;
  if (!synchronized) cudaGetLastError();
  while (!r.pending.empty()) {
    if (synchronized) {
      resolveFront(r, true);
    } else {  // a trapped GPU answers nothing: what is still pending is lost
      ++r.dropped;
      r.pending.pop_front();
    }
  }
  if (!r.done.empty() || r.dropped != 0) trace::writeStreamFile(r.done, r.dropped);
  for (cudaEvent_t e : r.pool) cudaEventDestroy(e);
  for (Anchor &a : r.anchors) cudaEventDestroy(a.event);
  if (r.anchor_stream != nullptr) cudaStreamDestroy(r.anchor_stream);
  cudaGetLastError();
  r.pool.clear();
  r.anchors.clear();
  r.done.clear();
  r.streams.clear();
  r.anchor_stream = nullptr;
  r.first_id = 0;
  r.dropped = 0;
}

void StreamSpan::open(cudaStream_t stream, trace::Category category, const char *name, int m, int n) {
  Recorder &r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (!r.on) return;
  // Events belong to the device current when they are created: the PE's GPU, whatever the
  // calling thread has current (a program's worker thread may have another).
  int current = -1;
  if (cudaGetDevice(&current) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  struct Restore {
    int device;
    ~Restore() {
      if (device >= 0) cudaSetDevice(device);
    }
  } restore{current != r.device && cudaSetDevice(r.device) == cudaSuccess ? current : -1};
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capturing) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  if (capturing != cudaStreamCaptureStatusNone) return;
  if (r.pending.size() > kReapAfter) {
    while (!r.pending.empty() && resolveFront(r, false)) {
    }
  }
  if (r.done.size() + r.pending.size() >= r.capacity) {
    ++r.dropped;
    return;
  }
  const std::uint64_t now = trace::clockNs();
  if (now - r.anchors.back().host_ns > kAnchorEveryNs) {
    Anchor next;
    next.event = takeEvent(r);
    next.host_ns = now;
    if (next.event != nullptr && cudaEventRecord(next.event, r.anchor_stream) == cudaSuccess) {
      r.anchors.push_back(next);
    } else {
      cudaGetLastError();
      if (next.event != nullptr) r.pool.push_back(next.event);
    }
  }
  Pending p;
  p.begin = takeEvent(r);
  p.end = takeEvent(r);
  p.anchor = r.anchors.size() - 1;
  if (p.begin == nullptr || p.end == nullptr || cudaEventRecord(p.begin, stream) != cudaSuccess) {
    cudaGetLastError();
    if (p.begin != nullptr) r.pool.push_back(p.begin);
    if (p.end != nullptr) r.pool.push_back(p.end);
    ++r.dropped;
    return;
  }
  auto [entry, fresh] = r.streams.try_emplace(stream, static_cast<int>(r.streams.size()));
  p.record.stream = entry->second;
  p.record.category = static_cast<int>(category);
  p.record.m = m;
  p.record.n = n;
  std::snprintf(p.record.name, sizeof p.record.name, "%s", name != nullptr ? name : "");
  stream_ = stream;
  id_ = static_cast<long long>(r.first_id + r.pending.size());
  r.pending.push_back(p);
}

void StreamSpan::close() {
  Recorder &r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  const auto id = static_cast<std::uint64_t>(id_);
  if (!r.on || id < r.first_id || id - r.first_id >= r.pending.size()) return;  // the trace stopped
  Pending &p = r.pending[id - r.first_id];
  if (cudaEventRecord(p.end, stream_) == cudaSuccess) {
    p.closed = true;
  } else {
    cudaGetLastError();  // resolved as dropped: never closed
  }
}

}  // namespace tdist::cuda
