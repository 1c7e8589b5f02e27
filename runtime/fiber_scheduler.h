// runtime/fiber_scheduler.h - what waits need to know about the program that runs them.
#pragma once

namespace tdist::runtime {

// Thrown inside the programs of a launch in which another program failed, to unwind them.
struct LaunchAborted {};

bool inProgramFiber();
// Hands the worker to its other programs; returns when this program is resumed.
void yieldProgram();
// A wait of the running program was satisfied after it had yielded.
void noteProgramProgress();
// A program of the running launch threw: waits of the others must unwind.
bool launchAborted();

// Program coordinates of the running program; 0 and 1 outside a launch.
int programId(int axis);
int numPrograms(int axis);

}  // namespace tdist::runtime
