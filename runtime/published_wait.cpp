#include "runtime/published_wait.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/value_parser.h"

namespace tdist::runtime {
namespace {

void complain(const std::string &what) {
  const char *pe = std::getenv("TDIST_PE");
  std::fprintf(stderr, "tdist: PE %s: %s; tdist-run will not see this PE's waits\n",
               pe != nullptr ? pe : "?", what.c_str());
}

std::optional<long long> integerVariable(const char *name, long long max) {
  const char *text = std::getenv(name);
  if (text == nullptr || *text == '\0') return std::nullopt;
  values::Parsed<long long> number = values::parseInteger(text, {.min = 0, .max = max});
  if (!number) {
    complain(std::string(name) + ": " + number.error);
    return std::nullopt;
  }
  return number.value;
}

// Maps record TDIST_PE of the board TDIST_WAIT_BOARD_FD names, then closes the descriptor: what
// this process starts must not write for the PE.
wait_board::Record *mapRecord() {
  const std::optional<long long> fd = integerVariable("TDIST_WAIT_BOARD_FD", INT_MAX);
  if (!fd) return nullptr;
  const std::optional<long long> pe = integerVariable("TDIST_PE", INT_MAX);
  if (!pe) {
    complain("TDIST_WAIT_BOARD_FD is set without TDIST_PE");
    return nullptr;
  }
  struct stat info {};
  if (::fstat(static_cast<int>(*fd), &info) != 0) {
    complain("TDIST_WAIT_BOARD_FD=" + std::to_string(*fd) + ": " + std::strerror(errno));
    return nullptr;
  }
  const auto offset = static_cast<off_t>(*pe) * static_cast<off_t>(wait_board::kRecordBytes);
  if (!S_ISREG(info.st_mode) || info.st_size < offset + static_cast<off_t>(wait_board::kRecordBytes)) {
    complain("TDIST_WAIT_BOARD_FD=" + std::to_string(*fd) + " has no record for PE " + std::to_string(*pe));
    return nullptr;
  }
  // The whole board: the offset of one record need not be a page's.
  void *board = ::mmap(nullptr, static_cast<std::size_t>(info.st_size), PROT_READ | PROT_WRITE,
                       MAP_SHARED, static_cast<int>(*fd), 0);
  if (board == MAP_FAILED) {
    complain(std::string("cannot map the wait board: ") + std::strerror(errno));
    return nullptr;
  }
  ::close(static_cast<int>(*fd));
  return reinterpret_cast<wait_board::Record *>(static_cast<std::byte *>(board) + offset);
}

std::atomic<bool> g_claimed{false};

}  // namespace

wait_board::Record *waitBoardRecord() {
  static wait_board::Record *const record = mapRecord();
  return record;
}

bool claimWaitBoard() {
  if (waitBoardRecord() == nullptr) return false;
  return !g_claimed.exchange(true, std::memory_order_acquire);
}

void releaseWaitBoard(wait_board::Record &record) {
  wait_board::clear(record);
  g_claimed.store(false, std::memory_order_release);
}

PublishedBlock::PublishedBlock(const char *call, const char *what) {
  if (!claimWaitBoard()) return;
  record_ = waitBoardRecord();
  WaitDescription wait;
  copyWaitText(wait.call, call);
  copyWaitText(wait.where, what);  // no value to compare (predicate ""): `where` says it all
  wait_board::publish(*record_, wait,
                      std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now().time_since_epoch()).count());
}

PublishedBlock::~PublishedBlock() {
  if (record_ != nullptr) releaseWaitBoard(*record_);
}

}  // namespace tdist::runtime
