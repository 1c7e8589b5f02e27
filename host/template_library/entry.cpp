// host/template_library/entry.cpp - the fatal-error exit of the template library.
#include "host/template_library/entry.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "runtime/runtime_state.h"
#include "tdist/exit_codes.h"

namespace tdist::host::template_library {

void exitFatally(const char *symbol, const char *message) {
  const runtime::RuntimeState *state = runtime::g_state;
  if (state != nullptr) std::fprintf(stderr, "tdist: PE %d: %s: %s\n", state->my_pe, symbol, message);
  else std::fprintf(stderr, "tdist: %s: %s\n", symbol, message);
  std::fflush(nullptr);
  std::_Exit(kExitFatalError);
}

void refuseHeapTheHostCannotLoad(const runtime::RuntimeState &state) {
  throw Error(ErrorCode::NotSupported, std::string("the template library runs on the cpu backend only (this job "
                                                   "runs on the ") +
                                           state.backend->name + " backend, whose heap the host cannot load)");
}

}  // namespace tdist::host::template_library
