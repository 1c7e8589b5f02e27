// backends/cpu/template_library/entry.h - how an entry point of the template library ends on error.
//
// Its callers are compiled kernels, which cannot catch C++ exceptions: an error is reported as
// "tdist: PE <r>: <symbol>: <message>" and ends the PE with kExitFatalError, which tdist-run
// names and turns into the end of the job. LaunchAborted is not an error and passes through: it
// unwinds a program whose launch another program ended, as every wait does.
#pragma once

#include <exception>
#include <utility>

namespace tdist::device::template_library {

[[noreturn]] void exitFatally(const char *symbol, const char *message);

// Runs fn and returns what it returns; any std::exception (tdist::Error among them) ends the PE.
template <class Fn>
decltype(auto) runOrExit(const char *symbol, Fn &&fn) {
  try {
    return std::forward<Fn>(fn)();
  } catch (const std::exception &error) {
    exitFatally(symbol, error.what());
  }
}

}  // namespace tdist::device::template_library
