// tdist/launch.h - launching a grid of program instances on the calling PE.
//
// Programs run as cooperative fibers on a few worker threads: a program whose wait is not yet
// satisfied yields its worker to the others, so a grid whose programs wait on each other never
// deadlocks for lack of cores, whatever its size.
#pragma once

#include <cstddef>
#include <functional>

// Everything declared here is exported from libtdist_runtime; the rest of it is hidden.
#pragma GCC visibility push(default)

namespace tdist {

struct Grid {
  int x = 1;
  int y = 1;
  int z = 1;
  int size() const { return x * y * z; }
};

struct LaunchOptions {
  int workers = 0;                        // 0: TDIST_WORKERS, else cores / PEs on this host
  std::size_t stack_bytes = 256 * 1024;   // per program fiber
};

// Runs body once per program instance of grid; returns when all have finished. The first
// exception thrown by a program is rethrown here after the others stopped.
void launch(const Grid &grid, const std::function<void()> &body, const LaunchOptions &options = {});

}  // namespace tdist

#pragma GCC visibility pop
