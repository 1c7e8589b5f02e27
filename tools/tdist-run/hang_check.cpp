#include "hang_check.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <sys/mman.h>
#include <system_error>
#include <unistd.h>

#include "common/wait_format.h"

namespace tdist::launcher {

WaitBoard::WaitBoard(int n_pes) : bytes_(static_cast<std::size_t>(n_pes) * wait_board::kRecordBytes) {
  // Close-on-exec here; each PE inherits it by number (process_group dups it into the PE).
  fd_.reset(::memfd_create("tdist-wait-board", MFD_CLOEXEC));
  if (!fd_) throw std::system_error(errno, std::generic_category(), "memfd_create for the wait board");
  if (::ftruncate(fd_.get(), static_cast<off_t>(bytes_)) != 0)
    throw std::system_error(errno, std::generic_category(), "sizing the wait board");
  void *board = ::mmap(nullptr, bytes_, PROT_READ, MAP_SHARED, fd_.get(), 0);
  if (board == MAP_FAILED) throw std::system_error(errno, std::generic_category(), "mapping the wait board");
  records_ = static_cast<wait_board::Record *>(board);  // zeroes: no PE waits
}

WaitBoard::~WaitBoard() {
  if (records_ != nullptr) ::munmap(records_, bytes_);
}

HangCheck::HangCheck(const WaitBoard &board, int n_pes, double stall_s)
    : board_(board), n_pes_(static_cast<std::size_t>(n_pes)),
      stall_(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(stall_s))),
      quiet_since_(Clock::now()), next_look_(Clock::now()) {}

std::optional<std::string> HangCheck::look(const std::vector<int> &running, Clock::time_point now) {
  if (now < next_look_) return std::nullopt;
  next_look_ = now + kLookEvery;
  bool stuck = !running.empty();
  bool moved = running != last_running_;
  last_running_ = running;
  for (int pe : running) {
    if (static_cast<std::size_t>(pe) >= last_.size()) last_.resize(static_cast<std::size_t>(pe) + 1);
    wait_board::Snapshot seen;
    if (!wait_board::read(board_.record(pe), seen)) {  // being written: the PE is doing something
      stuck = false;
      moved = true;
      continue;
    }
    wait_board::Snapshot &last = last_[static_cast<std::size_t>(pe)];
    if (!seen.waiting) stuck = false;
    if (seen.sequence != last.sequence || seen.wait.observed != last.wait.observed) moved = true;
    last = seen;
  }
  if (!stuck || moved) {
    quiet_since_ = now;
    return std::nullopt;
  }
  if (now - quiet_since_ < stall_) return std::nullopt;
  return diagnosis(running, now);
}

std::string HangCheck::diagnosis(const std::vector<int> &running, Clock::time_point now) const {
  const std::int64_t now_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  char line[512];
  std::snprintf(line, sizeof line,
                "tdist-run: no PE can make progress: every %sPE has waited %.1f s with nothing "
                "changing:\n",
                running.size() == n_pes_ ? "" : "running ",
                std::chrono::duration<double>(now - quiet_since_).count());
  std::string text = line;
  for (int pe : running) {
    const wait_board::Snapshot &seen = last_[static_cast<std::size_t>(pe)];
    WaitDescription wait = seen.wait;
    wait.pe = pe;  // the record's place on the board says whose it is
    wait_format::boardLine(wait, static_cast<double>(now_ns - seen.since_ns) / 1e9, line, sizeof line);
    text += "tdist-run:   ";
    text += line;
    text += "\n";
  }
  text += "tdist-run: ending the job\n";
  return text;
}

}  // namespace tdist::launcher
