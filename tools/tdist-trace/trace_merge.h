// trace_merge.h - one Chrome trace-event (Perfetto) file from the per-thread event files that
// the PEs of a job wrote (common/trace_format.h): a process per PE, a thread per program (and
// one for each host thread and copy engine), and a flow from every notify to the waits it
// released.
#pragma once

#include <cstdint>
#include <string>

namespace tdist::trace_merge {

struct MergeCounts {
  int files = 0;
  int pes = 0;                // PEs that left a file
  std::uint64_t events = 0;   // events read
  std::uint64_t dropped = 0;  // events that did not fit the PEs' buffers
  std::uint64_t flows = 0;
  std::uint64_t unmatched_waits = 0;  // waits no recorded notify explains (initial values)
};

// Reads every *.tdtrace file of dir and writes the merged trace to out_path. Throws
// std::runtime_error naming the file that cannot be read or written.
MergeCounts mergeTrace(const std::string &dir, const std::string &out_path);

}  // namespace tdist::trace_merge
