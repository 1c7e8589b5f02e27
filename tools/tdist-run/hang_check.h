// hang_check.h - --hang-check: tells a job in which no PE can make progress, long before any
// wait deadline, from the wait board (common/wait_board.h) on which every PE publishes the wait
// it is blocked in.
//
// The job is stuck when every running PE is in a published wait and, for the stall time, no
// record has moved: no wait began or ended and no observed value changed. A PE that computes is
// in no published wait, so a job with one such PE is never stuck; nor is one whose PE waits for
// its own copy engine or GPU stream (runtime/wait.h, WaitSite::own_work).
//
// Across hosts each tdist-run reads only its own PEs' records. The other nodes send node 0 what
// they see (NodeHangView, over the link of node_link.h) and node 0 decides: the job is stuck when
// no node has a PE that is not in a published wait and nothing has moved on any node for the
// stall time.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "common/wait_board.h"
#include "fd_io.h"

namespace tdist::launcher {

// The job's board: a memory file of one record per PE, inherited by every PE at the number
// TDIST_WAIT_BOARD_FD names. A PE writes record TDIST_PE, so across hosts each host's board has
// a record for every PE of the job, and only its own PEs' are ever written.
class WaitBoard {
 public:
  // Throws std::system_error.
  explicit WaitBoard(int job_pes);
  ~WaitBoard();
  WaitBoard(const WaitBoard &) = delete;
  WaitBoard &operator=(const WaitBoard &) = delete;

  int fd() const { return fd_.get(); }
  const wait_board::Record &record(int pe) const { return records_[pe]; }

 private:
  UniqueFd fd_;
  wait_board::Record *records_ = nullptr;
  std::size_t bytes_ = 0;
};

// What one node's tdist-run sees of its PEs, at its last look.
struct NodeHangView {
  using Clock = std::chrono::steady_clock;

  int node = 0;
  int running = 0;       // PEs of the node still running
  bool blocked = false;  // every one of them is in a published wait
  Clock::time_point quiet_since;  // when blocked: since when no record of the node has moved
  std::vector<std::string> lines;  // when blocked: each PE's wait, "PE 2: ..."
};

// Whether another node sends node 0 `view`, after `last` (none yet: nullopt) at `sent_at`: when
// its running PEs or its blocked flag changed, when the records of its blocked PEs moved (a later
// quiet_since: node 0 must not take a node whose PEs pass from wait to wait for quiet), or, while
// blocked, once `refresh` has passed.
bool hangViewWorthSending(const NodeHangView &view, const std::optional<NodeHangView> &last,
                          NodeHangView::Clock::time_point sent_at, NodeHangView::Clock::time_point now,
                          NodeHangView::Clock::duration refresh);

class HangCheck {
 public:
  using Clock = std::chrono::steady_clock;
  // How often the board is read.
  static constexpr std::chrono::milliseconds kLookEvery{100};

  // This host's PEs are job PEs first_pe onwards, of job_pes (across hosts; else 0 and all).
  HangCheck(const WaitBoard &board, int first_pe, int job_pes, double stall_s);

  // Reads the records of the running PEs (this host's numbers, 0 to -n - 1); when they show the
  // job stuck, returns the diagnosis (lines for stderr, each "tdist-run: ..." or a PE's wait).
  std::optional<std::string> look(const std::vector<int> &running, Clock::time_point now);
  // Node 0 across hosts: the same, the job stuck only when the other nodes' views say so too.
  std::optional<std::string> lookAcrossNodes(const std::vector<int> &running,
                                             const std::vector<NodeHangView> &others,
                                             Clock::time_point now);
  // Another node across hosts: reads the records when a look is due and returns this node's view,
  // which node 0 decides on.
  std::optional<NodeHangView> view(int node, const std::vector<int> &running, Clock::time_point now);
  // When the next look is due.
  Clock::time_point nextLook() const { return next_look_; }

 private:
  // Reads the running PEs' records when a look is due; false when it is not.
  bool read(const std::vector<int> &running, Clock::time_point now);
  std::vector<std::string> waitLines(const std::vector<int> &running, Clock::time_point now) const;

  const WaitBoard &board_;
  int first_pe_;
  std::size_t job_pes_;
  Clock::duration stall_;
  std::vector<wait_board::Snapshot> last_;  // by this host's PE number
  std::vector<int> last_running_;
  bool blocked_ = false;  // at the last look, every running PE was in a published wait
  Clock::time_point quiet_since_;
  Clock::time_point next_look_;
};

}  // namespace tdist::launcher
