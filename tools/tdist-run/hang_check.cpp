#include "hang_check.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <sys/mman.h>
#include <system_error>
#include <unistd.h>

#include "common/wait_format.h"

namespace tdist::launcher {

WaitBoard::WaitBoard(int job_pes) : bytes_(static_cast<std::size_t>(job_pes) * wait_board::kRecordBytes) {
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

bool hangViewWorthSending(const NodeHangView &view, const std::optional<NodeHangView> &last,
                          NodeHangView::Clock::time_point sent_at, NodeHangView::Clock::time_point now,
                          NodeHangView::Clock::duration refresh) {
  if (!last || view.running != last->running || view.blocked != last->blocked) return true;
  if (!view.blocked) return false;
  return view.quiet_since > last->quiet_since || now - sent_at >= refresh;
}

HangCheck::HangCheck(const WaitBoard &board, int first_pe, int job_pes, double stall_s)
    : board_(board), first_pe_(first_pe), job_pes_(static_cast<std::size_t>(job_pes)),
      stall_(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(stall_s))),
      quiet_since_(Clock::now()), next_look_(Clock::now()) {}

bool HangCheck::read(const std::vector<int> &running, Clock::time_point now) {
  if (now < next_look_) return false;
  next_look_ = now + kLookEvery;
  bool blocked = true;
  bool moved = running != last_running_;
  last_running_ = running;
  for (int pe : running) {
    if (static_cast<std::size_t>(pe) >= last_.size()) last_.resize(static_cast<std::size_t>(pe) + 1);
    wait_board::Snapshot seen;
    // A record being written: the PE is doing something.
    if (!wait_board::read(board_.record(first_pe_ + pe), seen)) {
      blocked = false;
      moved = true;
      continue;
    }
    wait_board::Snapshot &last = last_[static_cast<std::size_t>(pe)];
    if (!seen.waiting) blocked = false;
    if (seen.sequence != last.sequence || seen.wait.observed != last.wait.observed) moved = true;
    last = seen;
  }
  blocked_ = blocked;
  if (!blocked || moved) quiet_since_ = now;
  return true;
}

std::optional<std::string> HangCheck::look(const std::vector<int> &running, Clock::time_point now) {
  if (!read(running, now)) return std::nullopt;
  if (running.empty() || !blocked_ || now - quiet_since_ < stall_) return std::nullopt;
  char line[512];
  std::snprintf(line, sizeof line,
                "tdist-run: no PE can make progress: every %sPE has waited %.1f s with nothing "
                "changing:\n",
                running.size() == job_pes_ ? "" : "running ",
                std::chrono::duration<double>(now - quiet_since_).count());
  std::string text = line;
  for (const std::string &wait : waitLines(running, now)) text += "tdist-run:   " + wait + "\n";
  text += "tdist-run: ending the job\n";
  return text;
}

std::optional<std::string> HangCheck::lookAcrossNodes(const std::vector<int> &running,
                                                      const std::vector<NodeHangView> &others,
                                                      Clock::time_point now) {
  if (!read(running, now)) return std::nullopt;
  // A node whose PEs have all ended holds nobody up, but their ending is a change like any other:
  // the job is as quiet as its latest change on any node. (Another node's view is up to a second
  // old: its PEs may have passed the waits it shows, released by the PEs that ended here.)
  std::size_t running_total = running.size();
  bool blocked = running.empty() || blocked_;
  Clock::time_point quiet_since = quiet_since_;
  for (const NodeHangView &other : others) {
    if (other.running == 0) continue;
    running_total += static_cast<std::size_t>(other.running);
    blocked = blocked && other.blocked;
    quiet_since = std::max(quiet_since, other.quiet_since);
  }
  if (running_total == 0 || !blocked || now - quiet_since < stall_) return std::nullopt;

  char line[512];
  std::snprintf(line, sizeof line,
                "tdist-run: no PE can make progress: every %sPE of the job's %zu nodes has waited "
                "%.1f s with nothing changing:\n",
                running_total == job_pes_ ? "" : "running ", others.size() + 1,
                std::chrono::duration<double>(now - quiet_since).count());
  std::string text = line;
  auto nodeLines = [&text](int node, int running_pes, const std::vector<std::string> &waits) {
    const std::string prefix = "tdist-run:   node " + std::to_string(node) + ": ";
    if (running_pes == 0) text += prefix + "every PE has ended\n";
    for (const std::string &wait : waits) text += prefix + wait + "\n";
  };
  nodeLines(0, static_cast<int>(running.size()), waitLines(running, now));
  for (const NodeHangView &other : others) nodeLines(other.node, other.running, other.lines);
  text += "tdist-run: ending the job\n";
  return text;
}

std::optional<NodeHangView> HangCheck::view(int node, const std::vector<int> &running,
                                            Clock::time_point now) {
  if (!read(running, now)) return std::nullopt;
  NodeHangView seen{.node = node, .running = static_cast<int>(running.size()),
                    .blocked = blocked_ && !running.empty(), .quiet_since = quiet_since_,
                    .lines = {}};
  if (seen.blocked) seen.lines = waitLines(running, now);
  return seen;
}

std::vector<std::string> HangCheck::waitLines(const std::vector<int> &running,
                                              Clock::time_point now) const {
  const std::int64_t now_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  std::vector<std::string> lines;
  char line[512];
  for (int pe : running) {
    const wait_board::Snapshot &seen = last_[static_cast<std::size_t>(pe)];
    WaitDescription wait = seen.wait;
    wait.pe = first_pe_ + pe;  // the record's place on the board says whose it is
    wait_format::boardLine(wait, static_cast<double>(now_ns - seen.since_ns) / 1e9, line, sizeof line);
    lines.emplace_back(line);
  }
  return lines;
}

}  // namespace tdist::launcher
