// host/template_library/entry.h - how an entry point of the template library ends on error.
//
// Its callers are compiled kernels, which cannot catch C++ exceptions: an error is reported as
// "tdist: PE <r>: <symbol>: <message>" and ends the PE with kExitFatalError, which tdist-run
// names and turns into the end of the job. LaunchAborted is not an error and passes through: it
// unwinds a program whose launch another program ended, as every wait does.
#pragma once

#include <exception>
#include <utility>

#include "host/host_access.h"
#include "runtime/runtime_state.h"

namespace tdist::host::template_library {

[[noreturn]] void exitFatally(const char *symbol, const char *message);

// Compiled kernels load and store the heap's memrefs themselves, on the host: the library serves
// only backends whose heap the host can load. Elsewhere every entry point throws
// Error(NotSupported) (refuseHeapTheHostCannotLoad).
[[noreturn, gnu::cold]] void refuseHeapTheHostCannotLoad(const runtime::RuntimeState &state);

// Runs fn and returns what it returns; any std::exception (tdist::Error among them) ends the PE.
template <class Fn>
decltype(auto) runOrExit(const char *symbol, Fn &&fn) {
  try {
    if (runtime::RuntimeState *state = runtime::g_state; state != nullptr && !hostViewsHeap(*state)) [[unlikely]] {
      refuseHeapTheHostCannotLoad(*state);
    }
    return std::forward<Fn>(fn)();
  } catch (const std::exception &error) {
    exitFatally(symbol, error.what());
  }
}

}  // namespace tdist::host::template_library
