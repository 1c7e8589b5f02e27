#include "job_trace.h"

#include <dirent.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "fd_io.h"
#include "tools/tdist-trace/trace_merge.h"

namespace tdist::launcher {

std::string traceOutput(const std::string &option) {
  if (!option.empty()) return option;
  const char *variable = std::getenv("TDIST_TRACE");
  return variable != nullptr ? variable : "";
}

// The PEs' event files are shared mappings that every event writes into: on a disk-backed folder
// each new page costs writeback, about 1 us an event here against 0.15 us on tmpfs
// (docs/BENCHMARKS.md). So the folder is on /dev/shm unless TMPDIR names another place.
std::string traceFolderBase() {
  const char *tmp = std::getenv("TMPDIR");
  if (tmp != nullptr && *tmp != '\0') return tmp;
  if (::access("/dev/shm", W_OK | X_OK) == 0) return "/dev/shm";
  return "/tmp";
}

JobTrace::JobTrace(std::string out_path) : out_path_(std::move(out_path)) {
  std::string pattern = traceFolderBase() + "/tdist-trace-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error("--trace: cannot create a folder like " + pattern + ": " + std::strerror(errno));
  dir_ = pattern;
}

JobTrace::~JobTrace() {
  if (DIR *d = ::opendir(dir_.c_str())) {
    while (dirent *entry = ::readdir(d)) {
      const std::string name = entry->d_name;
      if (name != "." && name != "..") ::unlink((dir_ + "/" + name).c_str());
    }
    ::closedir(d);
  }
  ::rmdir(dir_.c_str());
}

bool JobTrace::write() {
  try {
    const trace_merge::MergeCounts counts = trace_merge::mergeTrace(dir_, out_path_);
    std::string line = "trace of " + std::to_string(counts.pes) + " PE(s) written to " + out_path_ + ": " +
                       std::to_string(counts.events) + " events, " + std::to_string(counts.flows) + " flows";
    if (counts.dropped != 0)
      line += ", " + std::to_string(counts.dropped) + " dropped (raise TDIST_TRACE_EVENTS)";
    report(line);
    return true;
  } catch (const std::exception &error) {
    report(std::string("--trace: ") + error.what());
    return false;
  }
}

}  // namespace tdist::launcher
