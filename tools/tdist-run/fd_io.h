// fd_io.h - owning file descriptors and whole writes, the plumbing every part of tdist-run shares.
#pragma once

#include <string_view>
#include <utility>

namespace tdist::launcher {

// Closes its descriptor when it goes out of scope, so that no error path leaks a pipe end or the
// bootstrap socket into a PE started later.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd &&other) noexcept : fd_(other.release()) {}
  UniqueFd &operator=(UniqueFd &&other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  UniqueFd(const UniqueFd &) = delete;
  UniqueFd &operator=(const UniqueFd &) = delete;

  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  void reset(int fd = -1);
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// Writes all of data, retrying short writes. Returns false when the reader went away (EPIPE) or
// the descriptor is unusable; the launcher then drops output rather than abandoning its PEs.
bool writeAll(int fd, std::string_view data);

// One "tdist-run: <message>\n" on stderr, in a single write so that it never splits a PE's line.
void report(std::string_view message);

}  // namespace tdist::launcher
