// tdist/exit_codes.h - process exit statuses with a meaning that tdist-run reports by name.
#pragma once

// Everything declared here is exported from libtdist_runtime; the rest of it is hidden.
#pragma GCC visibility push(default)

namespace tdist {

constexpr int kExitWaitTimeout = 97;   // a device wait passed its deadline (diagnostic on stderr)
constexpr int kExitFatalError = 98;    // the runtime met an error it cannot return to the caller

}  // namespace tdist

#pragma GCC visibility pop
