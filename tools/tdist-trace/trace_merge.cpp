// trace_merge.cpp - merges a job's event files into one trace-event JSON file.
#include "trace_merge.h"

#include <dirent.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <memory>
#include <set>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "common/trace_format.h"
#include "tdist/wait_description.h"

namespace tdist::trace_merge {
namespace {

using trace_format::Category;
using trace_format::Event;
using trace_format::FileHeader;
using trace_format::Kind;

struct ThreadFile {
  FileHeader header;
  std::vector<Event> events;
};

// The file of one thread; nullopt for one its PE created but died (or was ended) before it wrote
// the header, which it writes last (the magic word): such a thread recorded nothing.
std::optional<ThreadFile> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read trace file " + path + ": " + std::strerror(errno));
  ThreadFile file{};
  in.read(reinterpret_cast<char *>(&file.header), sizeof file.header);
  if (in.gcount() == 0 || (in && file.header.magic == 0)) return std::nullopt;
  if (!in || file.header.magic != trace_format::kMagic || file.header.version != trace_format::kVersion)
    throw std::runtime_error(path + " is not a tdist trace file of version " +
                             std::to_string(trace_format::kVersion));
  const std::uint64_t count = std::min(file.header.count, file.header.capacity);
  file.events.resize(count);
  in.read(reinterpret_cast<char *>(file.events.data()), static_cast<std::streamsize>(count * sizeof(Event)));
  if (!in) throw std::runtime_error(path + " is shorter than its header says");
  return file;
}

std::string jsonString(const char *text, std::size_t max) {
  std::string out = "\"";
  for (std::size_t i = 0; i < max && text[i] != '\0'; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}
std::string jsonString(const std::string &text) { return jsonString(text.c_str(), text.size()); }
std::string eventName(const Event &event) { return jsonString(event.name, sizeof event.name); }

std::string micros(std::uint64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
  return text;
}

std::string slotText(int pe, std::uint64_t offset) {
  if (offset == trace_format::kNoOffset) return "\"(not on the heap)\"";
  char text[64];
  std::snprintf(text, sizeof text, "\"PE %d +0x%" PRIx64 "\"", pe, offset);
  return text;
}

const char *categoryName(std::int32_t category) {
  switch (static_cast<Category>(category)) {
    case Category::Call: return "call";
    case Category::Compute: return "compute";
    case Category::Move: return "move";
    case Category::Wait: return "wait";
    case Category::User: break;
  }
  return "user";
}

const char *engineName(std::int32_t engine) {
  switch (static_cast<trace_format::Engine>(engine)) {
    case trace_format::Engine::Mte: return "mte";
    case trace_format::Engine::Sdma: return "sdma";
    case trace_format::Engine::Backend: return "backend";
  }
  return "?";
}

const char *transferName(std::uint16_t what) {
  switch (static_cast<trace_format::Transfer>(what)) {
    case trace_format::Transfer::Put: return "put";
    case trace_format::Transfer::Get: return "get";
    case trace_format::Transfer::PutSignal: return "put_signal";
  }
  return "transfer";
}

// A slice of the merged trace: an X event, from a begin and its end.
struct Slice {
  int pe, tid;
  std::uint64_t begin, end;
  Event first, last;
  bool unfinished = false;
};

struct Notify {
  int pe, tid;
  std::uint64_t t;
  Event event;
};

}  // namespace

MergeCounts mergeTrace(const std::string &dir, const std::string &out_path) {
  MergeCounts counts;
  std::vector<ThreadFile> files;
  if (DIR *d = ::opendir(dir.c_str())) {
    std::vector<std::string> names;
    while (dirent *entry = ::readdir(d)) {
      std::string name = entry->d_name;
      if (name.size() > 8 && name.ends_with(".tdtrace")) names.push_back(name);
    }
    ::closedir(d);
    std::sort(names.begin(), names.end());
    for (const std::string &name : names) {
      if (std::optional<ThreadFile> file = readFile(dir + "/" + name)) files.push_back(std::move(*file));
    }
  } else {
    throw std::runtime_error("cannot read the trace folder " + dir + ": " + std::strerror(errno));
  }
  counts.files = static_cast<int>(files.size());

  std::uint64_t origin = UINT64_MAX;
  std::map<int, std::uint64_t> dropped_by_pe, last_by_pe;
  std::map<std::pair<int, int>, std::string> thread_names;
  for (const ThreadFile &file : files) {
    dropped_by_pe[file.header.pe] += file.header.dropped;
    counts.dropped += file.header.dropped;
    counts.events += file.events.size();
    for (const Event &event : file.events) {
      origin = std::min(origin, event.t_ns);
      last_by_pe[file.header.pe] = std::max(last_by_pe[file.header.pe], event.t_ns);
    }
  }
  counts.pes = static_cast<int>(dropped_by_pe.size());
  if (origin == UINT64_MAX) origin = 0;

  std::vector<Slice> slices;
  std::vector<Notify> notifies;
  for (const ThreadFile &file : files) {
    const int pe = file.header.pe;
    const bool copy_engine = std::strncmp(file.header.thread_name, "tdist-copy", 10) == 0;
    // A device's file (writeDeviceFile): a track per recording (block, thread), in m and n.
    const bool gpu = std::strncmp(file.header.thread_name, "gpu", 4) == 0;
    // A device's stream spans (writeStreamFile): a track per stream, in program.
    const bool gpu_streams = std::strncmp(file.header.thread_name, "gpu streams", 12) == 0;
    std::map<std::pair<int, int>, int> gpu_tracks;
    std::map<int, std::vector<Event>> open;  // by tid
    for (const Event &event : file.events) {
      int tid;
      if (gpu) {
        auto [track, fresh] = gpu_tracks.try_emplace({event.m, event.n}, 200000 + static_cast<int>(gpu_tracks.size()));
        tid = track->second;
        if (fresh)
          thread_names[{pe, tid}] = "GPU block " + std::to_string(event.m) + " thread " + std::to_string(event.n);
      } else if (gpu_streams) {
        tid = 300000 + event.program;
        thread_names[{pe, tid}] = "GPU stream " + std::to_string(event.program);
      } else if (event.program >= 0) {
        tid = 1 + event.program;
        thread_names[{pe, tid}] = "program " + std::to_string(event.program);
      } else if (copy_engine) {
        tid = 100000 + file.header.thread;
        thread_names[{pe, tid}] = "copy engine";
      } else {
        tid = 0 == file.header.thread ? 0 : 50000 + file.header.thread;
        thread_names[{pe, tid}] = tid == 0 ? "host" : "host thread " + std::to_string(file.header.thread);
      }
      switch (event.kind) {
        case Kind::ProgramBegin: case Kind::WaitBegin: case Kind::TransferBegin: case Kind::CopyBegin:
        case Kind::BarrierBegin: case Kind::SpanBegin:
          open[tid].push_back(event);
          break;
        case Kind::ProgramEnd: case Kind::WaitEnd: case Kind::TransferEnd: case Kind::CopyEnd:
        case Kind::BarrierEnd: case Kind::SpanEnd: {
          auto &stack = open[tid];
          if (stack.empty()) break;  // its begin was dropped
          Slice slice{pe, tid, stack.back().t_ns, event.t_ns, stack.back(), event};
          stack.pop_back();
          slices.push_back(slice);
          break;
        }
        case Kind::Notify:
          notifies.push_back({pe, tid, event.t_ns, event});
          break;
      }
    }
    // A PE that died mid-span: its spans end where its trace ends.
    for (auto &[tid, stack] : open) {
      for (const Event &event : stack) {
        Slice slice{pe, tid, event.t_ns, last_by_pe[pe], event, event};
        slice.unfinished = true;
        slices.push_back(slice);
      }
    }
  }

  // Flows: each wait that ended on a value, from the latest notify that wrote that value to the
  // slot no later than the wait ended (one clock for every PE of the host).
  std::map<std::tuple<int, std::uint64_t, std::int64_t>, std::vector<const Notify *>> by_slot;
  for (const Notify &notify : notifies)
    if (notify.event.offset != trace_format::kNoOffset)
      by_slot[{notify.event.pe, notify.event.offset, notify.event.value}].push_back(&notify);
  for (auto &[key, list] : by_slot)
    std::sort(list.begin(), list.end(), [](const Notify *a, const Notify *b) { return a->t < b->t; });

  std::FILE *out = std::fopen(out_path.c_str(), "w");
  if (out == nullptr) throw std::runtime_error("cannot write the trace " + out_path + ": " + std::strerror(errno));
  std::unique_ptr<std::FILE, int (*)(std::FILE *)> closer(out, std::fclose);
  bool first = true;
  auto emit = [&](const std::string &json) {
    std::fputs(first ? "\n" : ",\n", out);
    std::fputs(json.c_str(), out);
    first = false;
  };
  std::fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
  for (const auto &[pe, dropped] : dropped_by_pe) {
    emit("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + std::to_string(pe) +
         ",\"args\":{\"name\":\"PE " + std::to_string(pe) + "\"}}");
    emit("{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" + std::to_string(pe) +
         ",\"args\":{\"sort_index\":" + std::to_string(pe) + "}}");
    emit("{\"ph\":\"M\",\"name\":\"tdist_dropped_events\",\"pid\":" + std::to_string(pe) +
         ",\"args\":{\"dropped\":" + std::to_string(dropped) + "}}");
  }
  for (const auto &[key, name] : thread_names) {
    emit("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" + std::to_string(key.first) + ",\"tid\":" +
         std::to_string(key.second) + ",\"args\":{\"name\":" + jsonString(name) + "}}");
    emit("{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":" + std::to_string(key.first) + ",\"tid\":" +
         std::to_string(key.second) + ",\"args\":{\"sort_index\":" + std::to_string(key.second) + "}}");
  }

  std::stable_sort(slices.begin(), slices.end(), [](const Slice &a, const Slice &b) { return a.begin < b.begin; });
  std::uint64_t flow_id = 0;
  for (const Slice &slice : slices) {
    const Event &e = slice.first;
    std::string name, category, args;
    switch (e.kind) {
      case Kind::ProgramBegin:
        name = "\"program " + std::to_string(e.program) + "\"";
        category = "program";
        break;
      case Kind::WaitBegin:
        name = "\"wait\"";
        category = "wait";
        args = "\"call\":" + eventName(e) + ",\"slot\":" + slotText(e.pe, e.offset) + ",\"owner_pe\":" +
               std::to_string(e.pe) + ",\"offset\":" + std::to_string(e.offset == trace_format::kNoOffset ? -1 : static_cast<long long>(e.offset)) +
               ",\"cmp\":\"" + waitPredicateName(e.aux) + "\",\"expected\":" + std::to_string(e.value);
        if (!slice.unfinished) args += ",\"observed\":" + std::to_string(slice.last.value);
        break;
      case Kind::TransferBegin:
        name = std::string("\"") + transferName(e.flags) + "\"";
        category = "move";
        args = "\"bytes\":" + std::to_string(e.value) + ",\"pe\":" + std::to_string(e.pe) + ",\"engine\":\"" +
               engineName(e.aux) + "\"";
        break;
      case Kind::CopyBegin:
        name = "\"copy\"";
        category = "move";
        args = "\"bytes\":" + std::to_string(e.value) + ",\"pe\":" + std::to_string(e.pe) + ",\"engine\":\"sdma\"";
        break;
      case Kind::BarrierBegin:
        name = eventName(e);
        category = "barrier";
        break;
      default:
        name = eventName(e);
        category = categoryName(e.aux);
        if (e.m >= 0) args = "\"m\":" + std::to_string(e.m);
        if (e.n >= 0) args += std::string(args.empty() ? "" : ",") + "\"n\":" + std::to_string(e.n);
        break;
    }
    if (slice.unfinished) args += std::string(args.empty() ? "" : ",") + "\"unfinished\":true";
    const std::string where = ",\"pid\":" + std::to_string(slice.pe) + ",\"tid\":" + std::to_string(slice.tid);
    emit("{\"ph\":\"X\",\"name\":" + name + ",\"cat\":\"" + category + "\"" + where + ",\"ts\":" +
         micros(slice.begin - origin) + ",\"dur\":" + micros(slice.end - slice.begin) + ",\"args\":{" + args + "}}");

    if (e.kind == Kind::WaitBegin && !slice.unfinished && e.offset != trace_format::kNoOffset) {
      auto found = by_slot.find({e.pe, e.offset, slice.last.value});
      const Notify *source = nullptr;
      if (found != by_slot.end()) {
        for (const Notify *candidate : found->second)
          if (candidate->t <= slice.end) source = candidate;
      }
      if (source == nullptr) {
        ++counts.unmatched_waits;
        continue;
      }
      ++counts.flows;
      const std::string id = std::to_string(++flow_id);
      emit("{\"ph\":\"s\",\"name\":\"signal\",\"cat\":\"flow\",\"id\":" + id + ",\"pid\":" +
           std::to_string(source->pe) + ",\"tid\":" + std::to_string(source->tid) + ",\"ts\":" +
           micros(source->t - origin) + "}");
      emit("{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"signal\",\"cat\":\"flow\",\"id\":" + id + where +
           ",\"ts\":" + micros(slice.end - origin) + "}");
    }
  }
  for (const Notify &notify : notifies) {
    emit("{\"ph\":\"X\",\"name\":\"notify\",\"cat\":\"signal\",\"pid\":" + std::to_string(notify.pe) +
         ",\"tid\":" + std::to_string(notify.tid) + ",\"ts\":" + micros(notify.t - origin) +
         ",\"dur\":0.001,\"args\":{\"slot\":" + slotText(notify.event.pe, notify.event.offset) +
         ",\"target_pe\":" + std::to_string(notify.event.pe) + ",\"value\":" + std::to_string(notify.event.value) + "}}");
  }
  std::string per_pe;
  for (const auto &[pe, dropped] : dropped_by_pe)
    per_pe += std::string(per_pe.empty() ? "" : ",") + "\"" + std::to_string(pe) + "\":" + std::to_string(dropped);
  std::fprintf(out,
               "\n],\"otherData\":{\"tool\":\"tdist\",\"clock\":\"CLOCK_MONOTONIC\",\"origin_ns\":%" PRIu64
               ",\"pes\":%d,\"events\":%" PRIu64 ",\"dropped_events\":%" PRIu64
               ",\"dropped_by_pe\":{%s},\"flows\":%" PRIu64 ",\"unmatched_waits\":%" PRIu64 "}}\n",
               origin, counts.pes, counts.events, counts.dropped, per_pe.c_str(), counts.flows,
               counts.unmatched_waits);
  if (std::ferror(out) != 0) throw std::runtime_error("cannot write the trace " + out_path);
  return counts;
}

}  // namespace tdist::trace_merge
