// runtime/call_checks.cpp - the shared argument checks.
#include "runtime/call_checks.h"

#include <cstdio>
#include <string>

#include "tdist/error.h"
#include "tdist/wait_description.h"

namespace tdist::runtime {

const char *cmpName(shmem::Cmp cmp) { return waitPredicateName(static_cast<std::int32_t>(cmp)); }

void checkCmp(shmem::Cmp cmp, const char *call) {
  if (static_cast<unsigned>(cmp) > 5u) [[unlikely]] {
    throw Error(ErrorCode::InvalidParam, std::string(call) + ": comparison " +
                                             std::to_string(static_cast<int>(cmp)) +
                                             " is not one of EQ, NE, GT, GE, LT, LE");
  }
}

void checkSignalOp(shmem::SignalOp op, const char *call) {
  if (op != shmem::SignalOp::Set && op != shmem::SignalOp::Add) [[unlikely]] {
    throw Error(ErrorCode::InvalidParam, std::string(call) + ": signal operation " +
                                             std::to_string(static_cast<int>(op)) +
                                             " is neither SET (0) nor ADD (1)");
  }
}

void throwMisaligned(const void *address, std::size_t alignment, std::size_t bytes, const char *call,
                     const char *what) {
  char text[256];
  std::snprintf(text, sizeof text,
                "%s: %s %p is not aligned to %zu bytes, which atomic access to a word of %zu bytes requires",
                call, what, address, alignment, bytes);
  throw Error(ErrorCode::InvalidParam, text);
}

}  // namespace tdist::runtime
