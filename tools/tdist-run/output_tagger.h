// output_tagger.h - --tag-output: every line a PE prints, prefixed with "[pe N] ".
//
// Each PE writes its stdout and stderr into pipes of its own; the launcher alone writes the
// terminal, and only whole prefixed lines, so lines of different PEs never mix mid-line whatever
// their length.
#pragma once

#include <poll.h>
#include <string>
#include <vector>

#include "fd_io.h"

namespace tdist::launcher {

class OutputTagger {
 public:
  // Creates the pipes of this host's n_pes PEs, whose job PE numbers start at first_pe (across
  // hosts; 0 otherwise): the prefix names the job's PE. Throws std::system_error.
  explicit OutputTagger(int n_pes, int first_pe = 0);

  // The write ends PE pe's stdout and stderr go to; closed in the launcher once it has started,
  // so that a pipe reports end-of-file when its PE (and what the PE started) is gone.
  int childStdout(int pe) const { return streams_[2 * pe].child_end.get(); }
  int childStderr(int pe) const { return streams_[2 * pe + 1].child_end.get(); }
  void closeChildEnds(int pe);

  // Adds one pollfd per stream still open.
  void addPollFds(std::vector<pollfd> &fds) const;
  // Reads the streams poll() reported, writing out their complete lines.
  void service(const std::vector<pollfd> &fds);
  // Reads what PE pe left in its pipes, so that its last words come out before the launcher
  // reports how it ended.
  void drain(int pe);
  // Called when every PE has ended: reads what is left without waiting for end-of-file (a
  // process the PE started may still hold the pipe), and writes partial last lines.
  void finish();

 private:
  struct Stream {
    int pe;            // the job's PE number
    int destination;   // STDOUT_FILENO or STDERR_FILENO
    UniqueFd read_end;
    UniqueFd child_end;
    std::string pending;  // bytes after the last newline
  };

  enum class ReadResult { Data, NothingNow, Closed };
  ReadResult readOnce(Stream &stream);
  void close(Stream &stream);
  void writeLines(Stream &stream, bool flush_partial);

  std::vector<Stream> streams_;
};

}  // namespace tdist::launcher
