#include "output_tagger.h"

#include <cerrno>
#include <algorithm>
#include <fcntl.h>
#include <system_error>
#include <unistd.h>

namespace tdist::launcher {
namespace {

// A PE that prints without newlines must not grow the launcher without bound; past this size its
// output is cut into lines of this length.
constexpr std::size_t kMaxLineBytes = 64 * 1024;

}  // namespace

OutputTagger::OutputTagger(int n_pes, int first_pe) {
  for (int pe = 0; pe < n_pes; ++pe) {
    for (int destination : {STDOUT_FILENO, STDERR_FILENO}) {
      int ends[2];
      if (::pipe2(ends, O_CLOEXEC) != 0)
        throw std::system_error(errno, std::generic_category(), "pipe for --tag-output");
      // Non-blocking, so that one chatty PE never stalls the loop that watches all of them.
      ::fcntl(ends[0], F_SETFL, ::fcntl(ends[0], F_GETFL) | O_NONBLOCK);
      streams_.push_back({.pe = first_pe + pe, .destination = destination,
                          .read_end = UniqueFd(ends[0]), .child_end = UniqueFd(ends[1]),
                          .pending = {}});
    }
  }
}

void OutputTagger::closeChildEnds(int pe) {
  streams_[2 * pe].child_end.reset();
  streams_[2 * pe + 1].child_end.reset();
}

void OutputTagger::addPollFds(std::vector<pollfd> &fds) const {
  for (const Stream &stream : streams_)
    if (stream.read_end) fds.push_back({.fd = stream.read_end.get(), .events = POLLIN, .revents = 0});
}

void OutputTagger::service(const std::vector<pollfd> &fds) {
  for (const pollfd &fd : fds) {
    if (fd.revents == 0) continue;
    for (Stream &stream : streams_) {
      if (stream.read_end.get() != fd.fd) continue;
      if (readOnce(stream) == ReadResult::Closed) close(stream);
      break;
    }
  }
}

void OutputTagger::drain(int pe) {
  for (Stream *stream : {&streams_[2 * pe], &streams_[2 * pe + 1]}) {
    ReadResult result = ReadResult::Data;
    while (stream->read_end && (result = readOnce(*stream)) == ReadResult::Data) {
    }
    if (result == ReadResult::Closed) close(*stream);
  }
}

void OutputTagger::finish() {
  for (Stream &stream : streams_) {
    while (stream.read_end && readOnce(stream) == ReadResult::Data) {
    }
    close(stream);
  }
}

OutputTagger::ReadResult OutputTagger::readOnce(Stream &stream) {
  char buffer[16 * 1024];
  ssize_t got = ::read(stream.read_end.get(), buffer, sizeof buffer);
  if (got < 0 && (errno == EINTR || errno == EAGAIN)) return ReadResult::NothingNow;
  if (got <= 0) return ReadResult::Closed;
  stream.pending.append(buffer, static_cast<std::size_t>(got));
  writeLines(stream, /*flush_partial=*/false);
  return ReadResult::Data;
}

void OutputTagger::close(Stream &stream) {
  writeLines(stream, /*flush_partial=*/true);
  stream.read_end.reset();
}

void OutputTagger::writeLines(Stream &stream, bool flush_partial) {
  const std::string prefix = "[pe " + std::to_string(stream.pe) + "] ";
  std::string out;
  std::size_t start = 0;
  while (start < stream.pending.size()) {
    std::size_t newline = stream.pending.find('\n', start);
    bool complete = newline != std::string::npos && newline - start < kMaxLineBytes;
    std::size_t end = complete ? newline + 1
                               : std::min(stream.pending.size(), start + kMaxLineBytes);
    if (!complete && !flush_partial && end - start < kMaxLineBytes) break;
    out += prefix;
    out.append(stream.pending, start, end - start);
    if (!complete) out += '\n';  // the next line, of any PE, starts at a line start
    start = end;
  }
  stream.pending.erase(0, start);
  writeAll(stream.destination, out);
}

}  // namespace tdist::launcher
