// runtime/c_api_support.h - how the C API turns tdist::Error into return codes.
#pragma once

#include <exception>
#include <utility>

#include "tdist/error.h"

namespace tdist::capi {

// Records message as this thread's last error and prints it once to stderr.
void reportError(ErrorCode code, const char *message);

// The message of the last reported error on this thread ("" when none).
const char *lastError();

// Runs fn; on tdist::Error reports it and returns its code, else ACLSHMEM_SUCCESS (0).
template <class Fn>
int guarded(Fn &&fn) {
  try {
    std::forward<Fn>(fn)();
    return 0;
  } catch (const Error &error) {
    reportError(error.code(), error.what());
    return static_cast<int>(error.code());
  } catch (const std::exception &error) {
    reportError(ErrorCode::Internal, error.what());
    return static_cast<int>(ErrorCode::Internal);
  }
}

// Runs fn and returns its value; on error reports it and returns fallback.
template <class T, class Fn>
T guardedValue(T fallback, Fn &&fn) {
  T result = fallback;
  guarded([&] { result = std::forward<Fn>(fn)(); });
  return result;
}

}  // namespace tdist::capi
