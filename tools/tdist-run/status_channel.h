// status_channel.h - how far each PE's runtime got, as the PE tells it: the byte 'I' once init
// has succeeded, 'F' once finalize has completed, and 'E' with a status byte just before the PE
// ends itself with that status (runtime/launcher_channel.cpp writes them).
//
// A PE that exits with status 0 between the two has left its peers waiting for it, in a barrier
// or in finalize, until their wait deadline; knowing it, the launcher ends the job at once. Each
// PE has a socket of its own, inherited at the number TDIST_STATUS_FD names, so that what arrives
// on it is that PE's word, whatever processes the PE is made of (a script that starts the program
// is still the PE).
#pragma once

#include <cstdint>
#include <optional>
#include <poll.h>
#include <vector>

#include "fd_io.h"

namespace tdist::launcher {

enum class RuntimeProgress {
  NotInitialized,  // init never succeeded, or it was never called: nobody waits for this PE
  Initialized,     // the last word was 'I': finalize has not completed since
  Finalized,
};

class StatusChannels {
 public:
  // Creates the sockets of n_pes PEs. Throws std::system_error.
  explicit StatusChannels(int n_pes);

  // The end PE pe inherits; closed in the launcher once the PE has started, so that the launcher
  // end reports end-of-file when the PE (and whatever inherited it) is gone.
  int childEnd(int pe) const { return channels_[pe].child_end.get(); }
  void closeChildEnd(int pe) { channels_[pe].child_end.reset(); }

  // Adds one pollfd per channel still open.
  void addPollFds(std::vector<pollfd> &fds) const;
  // Reads the channels poll() reported.
  void service(const std::vector<pollfd> &fds);
  // Reads all that PE pe wrote before it ended, closes its channel and says how far it got.
  RuntimeProgress finish(int pe);
  // Reads what every open channel holds now, whatever poll() said.
  void readAll();

  // A PE that said it is ending itself, and with which status.
  struct Ending {
    int pe;
    int status;
  };
  // The PE that said so first, of those read so far.
  std::optional<Ending> firstEnding() const;

 private:
  struct Channel {
    UniqueFd launcher_end;
    UniqueFd child_end;
    RuntimeProgress progress = RuntimeProgress::NotInitialized;
    bool status_next = false;           // the last byte read was 'E'
    std::optional<int> ending_status;   // what followed it
    std::uint64_t ending_order = 0;     // when it was read, among all channels
  };

  // Reads what has arrived, without waiting; false once the channel is closed.
  bool readAvailable(Channel &channel);

  std::vector<Channel> channels_;
  std::uint64_t endings_read_ = 0;
};

}  // namespace tdist::launcher
