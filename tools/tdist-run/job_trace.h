// job_trace.h - tdist-run --trace FILE (or TDIST_TRACE=FILE): a folder for the PEs' event files
// (TDIST_TRACE_DIR, runtime/trace.h), merged into FILE once the PEs have ended, however the job
// ended, then removed.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace tdist::launcher {

class JobTrace {
 public:
  // Creates the folder (under TMPDIR, else /tmp). Throws std::runtime_error when it cannot.
  explicit JobTrace(std::string out_path);
  ~JobTrace();  // removes the folder and what is left in it
  JobTrace(const JobTrace &) = delete;
  JobTrace &operator=(const JobTrace &) = delete;

  // What every PE is told.
  std::pair<std::string, std::string> peVariable() const { return {"TDIST_TRACE_DIR", dir_}; }
  // Merges the PEs' files into the output, with one line on stderr; false (and a message) when it
  // could not.
  bool write();

 private:
  std::string out_path_;
  std::string dir_;
};

// The trace output the job asks for: --trace, else TDIST_TRACE; "" for none.
std::string traceOutput(const std::string &option);

}  // namespace tdist::launcher
