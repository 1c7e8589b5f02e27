// runtime/backend.cpp - choosing the backend at init.
#include "runtime/backend.h"

#include "tdist/error.h"

namespace tdist::runtime {
namespace {

std::string names(std::span<const Backend *const> backends) {
  std::string text;
  for (const Backend *b : backends) text += (text.empty() ? "" : ", ") + std::string(b->name);
  return text.empty() ? "none" : text;
}

}  // namespace

const Backend &selectBackend(std::string_view name, std::span<const Backend *const> backends) {
  if (backends.empty()) throw Error(ErrorCode::Internal, "init: this build has no backend");
  const Backend *chosen = name.empty() ? backends.front() : nullptr;
  for (const Backend *b : backends) {
    if (chosen == nullptr && name == b->name) chosen = b;
  }
  if (chosen == nullptr) {
    throw Error(ErrorCode::InvalidParam, "init: unknown backend '" + std::string(name) +
                                             "' (this build has: " + names(backends) + ")");
  }
  std::string why;
  if (!chosen->can_run(&why)) {
    throw Error(ErrorCode::NotSupported, "init: backend '" + std::string(chosen->name) +
                                             "' cannot run here: " + why);
  }
  return *chosen;
}

}  // namespace tdist::runtime
