// hang_check.h - --hang-check: tells a job in which no PE can make progress, long before any
// wait deadline, from the wait board (common/wait_board.h) on which every PE publishes the wait
// it is blocked in.
//
// The job is stuck when every running PE is in a published wait and, for the stall time, no
// record has moved: no wait began or ended and no observed value changed. A PE that computes is
// in no published wait, so a job with one such PE is never stuck; nor is one whose PE waits for
// its own copy engine or GPU stream (runtime/wait.h, WaitSite::own_work).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "common/wait_board.h"
#include "fd_io.h"

namespace tdist::launcher {

// The job's board: a memory file of one record per PE, inherited by every PE at the number
// TDIST_WAIT_BOARD_FD names.
class WaitBoard {
 public:
  // Throws std::system_error.
  explicit WaitBoard(int n_pes);
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

class HangCheck {
 public:
  using Clock = std::chrono::steady_clock;
  // How often the board is read.
  static constexpr std::chrono::milliseconds kLookEvery{100};

  HangCheck(const WaitBoard &board, int n_pes, double stall_s);

  // Reads the records of the running PEs; when they show the job stuck, returns the diagnosis
  // (lines for stderr, each "tdist-run: ..." or a PE's wait).
  std::optional<std::string> look(const std::vector<int> &running, Clock::time_point now);
  // When the next look is due.
  Clock::time_point nextLook() const { return next_look_; }

 private:
  std::string diagnosis(const std::vector<int> &running, Clock::time_point now) const;

  const WaitBoard &board_;
  std::size_t n_pes_;
  Clock::duration stall_;
  std::vector<wait_board::Snapshot> last_;
  std::vector<int> last_running_;
  Clock::time_point quiet_since_;
  Clock::time_point next_look_;
};

}  // namespace tdist::launcher
