// runtime/error.cpp - names of error codes.
#include "tdist/error.h"

namespace tdist {

const char *toString(ErrorCode code) {
  switch (code) {
    case ErrorCode::InvalidParam: return "invalid parameter";
    case ErrorCode::InvalidValue: return "invalid value";
    case ErrorCode::NotInitialized: return "not initialized";
    case ErrorCode::AlreadyInitialized: return "already initialized";
    case ErrorCode::Bootstrap: return "bootstrap error";
    case ErrorCode::SharedMemory: return "shared-memory error";
    case ErrorCode::HeapExhausted: return "symmetric heap exhausted";
    case ErrorCode::CollectiveMismatch: return "collective mismatch";
    case ErrorCode::NotSupported: return "not supported";
    case ErrorCode::Internal: return "internal error";
  }
  return "unknown error";
}

}  // namespace tdist
