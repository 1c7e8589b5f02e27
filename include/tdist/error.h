// tdist/error.h - the one error type of the C++ API.
#pragma once

#include <stdexcept>
#include <string>

// Everything declared here is exported from libtdist_runtime; the rest of it is hidden.
#pragma GCC visibility push(default)

namespace tdist {

// Mirrors aclshmem_error_t; the C API returns these values.
enum class ErrorCode : int {
  InvalidParam = -1,
  InvalidValue = -2,
  NotInitialized = -3,
  AlreadyInitialized = -4,
  Bootstrap = -5,
  SharedMemory = -6,
  HeapExhausted = -7,
  CollectiveMismatch = -8,
  NotSupported = -9,
  Internal = -10,
};

const char *toString(ErrorCode code);

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string &message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

}  // namespace tdist

#pragma GCC visibility pop
