// The device side of the job trace on the host: a GPU's events (tdist/device/state.h,
// TraceEvent) written as a PE's "gpu" file, moved onto the trace's clock, and merged with the
// rest: a track per recording (block, thread), flows from a device notify to the wait it
// released across PEs, none from an ADD (whose value is an increment), and the dropped count.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/trace.h"
#include "tools/tdist-trace/trace_merge.h"

namespace {

using tdist::device::TraceEvent;

TraceEvent event(std::uint16_t kind, std::uint64_t t, int pe, std::uint64_t offset, std::int64_t value,
                 std::uint32_t block, std::uint32_t thread, std::uint16_t flags = 0) {
  TraceEvent e;
  e.t_ns = t;
  e.kind = kind;
  e.pe = pe;
  e.offset = offset;
  e.value = value;
  e.aux = 3;  // GE
  e.block = block;
  e.thread = thread;
  e.flags = flags;
  return e;
}

std::string slurp(const std::string &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class DeviceTrace : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "tdist-device-trace-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(DeviceTrace, EventsBecomeTracksFlowsAndACountOfDropped) {
  constexpr std::int64_t kOffset = 1'000'000;  // GPU ns + offset = the trace's clock
  // PE 0: block 3's thread 0 waits for slot 0x40 >= 5 and sees 5; then for >= 2 and sees 2 (the
  // ADD below wrote an increment of 2, which explains nothing). Thread 32 of the same block
  // waits once too: its own track.
  const std::vector<TraceEvent> pe0 = {
      event(3, 1000, 0, 0x40, 5, 3, 0),  event(3, 1100, 0, 0x80, 1, 3, 32), event(4, 3000, 0, 0x40, 5, 3, 0, 1),
      event(4, 3100, 0, 0x80, 1, 3, 32), event(3, 5000, 0, 0x40, 2, 3, 0),  event(4, 6000, 0, 0x40, 2, 3, 0, 1),
  };
  // PE 1: block 0 sets PE 0's slot 0x40 to 5 (the flow), later adds 2 to it (no flow).
  const std::vector<TraceEvent> pe1 = {event(5, 2000, 0, 0x40, 5, 0, 0), event(5, 5500, 0, 0x40, 2, 0, 0, 1)};
  tdist::trace::writeDeviceFile(dir_, 0, 2, pe0.data(), pe0.size(), 0, kOffset);
  tdist::trace::writeDeviceFile(dir_, 1, 2, pe1.data(), pe1.size(), 7, kOffset);
  ASSERT_TRUE(std::filesystem::exists(dir_ + "/pe0.gpu.tdtrace"));

  const std::string out = dir_ + "/job.json";
  const tdist::trace_merge::MergeCounts counts = tdist::trace_merge::mergeTrace(dir_, out);
  EXPECT_EQ(counts.files, 2);
  EXPECT_EQ(counts.pes, 2);
  EXPECT_EQ(counts.events, 8u);
  EXPECT_EQ(counts.dropped, 7u);
  EXPECT_EQ(counts.flows, 1u) << "the SET released the first wait; the ADD explains no wait";
  EXPECT_EQ(counts.unmatched_waits, 2u) << "the wait on 0x80 and the one that saw the increment";

  const std::string json = slurp(out);
  EXPECT_NE(json.find("\"GPU block 3 thread 0\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"GPU block 3 thread 32\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"GPU block 0 thread 0\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"call\":\"device wait\""), std::string::npos) << json;
  // Times are relative to the earliest event (1000 + offset): the first wait starts at 0 and
  // lasts 2 us; the notify that released it is at 1 us.
  EXPECT_NE(json.find("\"ts\":0.000,\"dur\":2.000"), std::string::npos) << json;
  EXPECT_NE(json.find("\"ph\":\"s\",\"name\":\"signal\",\"cat\":\"flow\",\"id\":1,\"pid\":1"), std::string::npos)
      << json;
  EXPECT_NE(json.find("\"dropped_events\":7"), std::string::npos) << json;
}

TEST_F(DeviceTrace, NoTraceStartedWritesNothing) {
  const std::vector<TraceEvent> events = {event(5, 10, 0, 0x40, 1, 0, 0)};
  tdist::trace::writeDeviceFile(events.data(), events.size(), 0, 0);  // no trace was started here
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
}

tdist::trace::StreamSpanRecord streamSpan(int stream, const char *name, int category, std::uint64_t begin,
                                          std::uint64_t end, int m = -1) {
  tdist::trace::StreamSpanRecord span;
  span.stream = stream;
  span.category = category;
  span.begin_ns = begin;
  span.end_ns = end;
  span.m = m;
  std::snprintf(span.name, sizeof span.name, "%s", name);
  return span;
}

// A PE's stream spans (the cuda backend's StreamSpan): a track per stream, the spans with their
// names, categories and rows, a call enclosing its steps on the same track, and the dropped count.
TEST_F(DeviceTrace, StreamSpansBecomeATrackPerStream) {
  // Stream 0: the call (1 .. 9 us) around two GEMM chunks; stream 1: a copy beside the first.
  const std::vector<tdist::trace::StreamSpanRecord> spans = {
      streamSpan(0, "all_gather_gemm", 1, 1000, 9000),  streamSpan(0, "gemm_chunk", 2, 1500, 4500, 0),
      streamSpan(1, "push_chunk", 3, 1200, 3200, 1),    streamSpan(0, "gemm_chunk", 2, 4500, 8500, 1),
  };
  tdist::trace::writeStreamFile(dir_, 1, 2, spans, 3);
  ASSERT_TRUE(std::filesystem::exists(dir_ + "/pe1.streams.tdtrace"));

  const std::string out = dir_ + "/job.json";
  const tdist::trace_merge::MergeCounts counts = tdist::trace_merge::mergeTrace(dir_, out);
  EXPECT_EQ(counts.files, 1);
  EXPECT_EQ(counts.events, 8u);
  EXPECT_EQ(counts.dropped, 6u) << "a dropped span is two events";
  const std::string json = slurp(out);
  EXPECT_NE(json.find("\"tid\":300000,\"args\":{\"name\":\"GPU stream 0\"}"), std::string::npos) << json;
  EXPECT_NE(json.find("\"tid\":300001,\"args\":{\"name\":\"GPU stream 1\"}"), std::string::npos) << json;
  // Relative to the earliest event (1 us): the call from 0 for 8 us; the copy on stream 1 at 0.2.
  EXPECT_NE(json.find("\"name\":\"all_gather_gemm\",\"cat\":\"call\",\"pid\":1,\"tid\":300000,\"ts\":0.000,"
                      "\"dur\":8.000"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"name\":\"push_chunk\",\"cat\":\"move\",\"pid\":1,\"tid\":300001,\"ts\":0.200,"
                      "\"dur\":2.000,\"args\":{\"m\":1}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"name\":\"gemm_chunk\",\"cat\":\"compute\",\"pid\":1,\"tid\":300000,\"ts\":3.500,"
                      "\"dur\":4.000,\"args\":{\"m\":1}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"dropped_events\":6"), std::string::npos) << json;
}

TEST_F(DeviceTrace, NoTraceStartedWritesNoStreamFile) {
  tdist::trace::writeStreamFile({streamSpan(0, "x", 2, 10, 20)}, 0);  // no trace was started here
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
}

}  // namespace
