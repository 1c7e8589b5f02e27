// host/template_library/arguments.cpp - the messages of argument errors.
#include "host/template_library/arguments.h"

#include <limits>
#include <string>

#include "tdist/error.h"

namespace tdist::host::template_library {

void throwNoElement(const char *what) {
  throw Error(ErrorCode::InvalidParam, std::string("the ") + what + " memref has no element (size 0)");
}

void throwOutOfBounds(const char *count_name, std::int64_t count, std::int64_t size, const char *what) {
  throw Error(ErrorCode::InvalidParam, std::string(count_name) + " " + std::to_string(count) +
                                           " is outside [0, " + std::to_string(size) + "], the size of the " +
                                           what + " memref");
}

void throwNotContiguous(std::int64_t stride, const char *what) {
  throw Error(ErrorCode::InvalidParam, std::string("the ") + what + " memref has stride " +
                                           std::to_string(stride) +
                                           "; a transfer needs contiguous elements (stride 1)");
}

std::size_t byteCount(std::int64_t count, std::size_t element_bytes, const char *count_name) {
  if (count < 0) [[unlikely]] {
    throw Error(ErrorCode::InvalidParam, std::string(count_name) + " " + std::to_string(count) + " is negative");
  }
  const auto limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) / element_bytes;
  if (static_cast<std::uint64_t>(count) > limit) [[unlikely]] {
    throw Error(ErrorCode::InvalidParam, std::string(count_name) + " " + std::to_string(count) +
                                             " elements of " + std::to_string(element_bytes) +
                                             " bytes overflow a byte count");
  }
  return static_cast<std::size_t>(count) * element_bytes;
}

}  // namespace tdist::host::template_library
