// runtime/fiber_scheduler.h - host programs as fibers: the launch that every backend's table
// uses, and what waits need to know about the program that runs them.
#pragma once

#include <cstdint>
#include <functional>

#include "tdist/launch.h"

namespace tdist::runtime {

// Runs body once per program of grid as fibers on worker threads (grid checked by the caller).
void launchPrograms(const Grid &grid, const std::function<void()> &body, const LaunchOptions &options);

// Thrown inside the programs of a launch in which another program failed, to unwind them.
struct LaunchAborted {};

bool inProgramFiber();
// Hands the worker to its other programs; returns when this program is resumed.
void yieldProgram();
// A wait of the running program was satisfied after it had yielded.
void noteProgramProgress();
// A program of the running launch threw: waits of the others must unwind.
bool launchAborted();

// The Backend::wait_yield and wait_done of backends whose host programs are these fibers: a
// program spins very little, since its siblings on this worker may be the ones it waits for.
bool programWaitYield(std::uint32_t polls);
void programWaitDone(std::uint32_t polls);

// A barrier of the programs of the running launch around a PE-level operation. Every program
// of the grid must call it the same number of times: the last to arrive runs once_all_arrived
// (say, the PE barrier), then all are released; the others wait as waits do (yielding their
// worker, unwinding when the launch is aborted, ending in the wait diagnostic past the deadline,
// which is where a program that never arrives leads). Outside a launch, runs it directly.
void acrossPrograms(const char *call, const std::function<void()> &once_all_arrived);

// Program coordinates of the running program along axis 0..2 (checked by dl); 0 and 1 outside
// a launch.
int programId(int axis);
int numPrograms(int axis);

}  // namespace tdist::runtime
