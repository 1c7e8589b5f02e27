// runtime/heap_fault.h - names the fault of a host load or store of the symmetric heap where the
// host cannot reach it (the cuda backend: the heap is GPU memory). Without it, such a program
// (an OpenSHMEM program written for host memory, say) ends with a bare segmentation fault.
//
// While installed, a SIGSEGV or SIGBUS at an address of any PE's segment prints, on stderr,
//   tdist: PE 0: error: the host loaded or stored 0x... in PE 1's symmetric heap (offset 0x40),
//   which is GPU memory on the cuda backend: ...
// and the fault then goes on as before (the previous handler, or the default: the PE ends by the
// signal, which tdist-run reports). Faults elsewhere pass through unchanged.
#pragma once

namespace tdist::runtime {

struct RuntimeState;

// After the backend mapped every segment, on a backend whose host cannot load the heap.
void installHeapFaultMessage(const RuntimeState &state);
// Before the segments are unmapped; a no-op when not installed.
void removeHeapFaultMessage();

}  // namespace tdist::runtime
