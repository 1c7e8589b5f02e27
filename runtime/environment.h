// runtime/environment.h - the one place that reads the runtime's environment variables.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace tdist::runtime {

// TDIST_WAIT_TIMEOUT (seconds), when set; Error(InvalidParam) when it is not a positive number.
std::optional<std::chrono::milliseconds> waitTimeoutFromEnvironment();
// TDIST_JOB_SECRET, or "".
std::string jobSecretFromEnvironment();
// TDIST_BACKEND, or "".
std::string backendFromEnvironment();
// TDIST_ALLOW_NO_SECRET=1 (only 0 or 1 are accepted).
bool allowNoSecretFromEnvironment();
// TDIST_STATIC_DATA: false for 0, true for 1 or unset (only 0 or 1 are accepted).
bool staticDataFromEnvironment();
// PEs on this host: TDIST_LOCAL_PES, else the job's size when initialized, else 1.
int localPes();
// More PEs on this host than CPUs to run them: the PE a waiter waits for may need the waiter's
// own CPU, so every poll spent spinning delays it (each poll costs ~40 ns; a hand-over through a
// yield ~2 us). Measured in docs/BENCHMARKS.md.
bool oversubscribed();
// A non-negative integer knob (TDIST_WORKERS, TDIST_WAIT_SPIN, ...), or fallback when unset or
// not a non-negative integer.
long tuningKnob(const char *name, long fallback);

}  // namespace tdist::runtime
