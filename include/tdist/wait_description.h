// tdist/wait_description.h - what a wait is for, as every diagnostic of a wait says it. One
// description shared by the host waits (runtime/wait.h), the device waits (their hang record and
// wait note, tdist/device/state.h), the cuda backend's watchdog, the job's wait board
// (common/wait_board.h) and tdist-run's hang check; common/wait_format.h is its one printer.
//
// Plain C++ for host and device code: fixed-size fields only, so that a device wait can write it
// into host-mapped memory and a process can publish it into a shared segment.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define TDIST_WAIT_HOST_DEVICE __host__ __device__
#else
#define TDIST_WAIT_HOST_DEVICE
#endif

namespace tdist {

// Whether observed satisfies the predicate cmp (shmem::Cmp's values, EQ = 0 .. LE = 5) against
// value: the one test every wait makes, on the host and on the device. Not a predicate: false,
// and the wait runs into its deadline, whose record names it.
template <class T>
TDIST_WAIT_HOST_DEVICE constexpr bool waitSatisfied(T observed, std::int32_t cmp, T value) {
  switch (cmp) {
    case 0: return observed == value;
    case 1: return observed != value;
    case 2: return observed > value;
    case 3: return observed >= value;
    case 4: return observed < value;
    case 5: return observed <= value;
    default: return false;
  }
}

// The names of shmem::Cmp's values (EQ = 0 .. LE = 5), as waits print them.
TDIST_WAIT_HOST_DEVICE constexpr const char *waitPredicateName(std::int32_t cmp) {
  switch (cmp) {
    case 0: return "EQ";
    case 1: return "NE";
    case 2: return "GT";
    case 3: return "GE";
    case 4: return "LT";
    case 5: return "LE";
    default: return "?";
  }
}

struct WaitDescription {
  std::int32_t pe = -1;                 // the PE that waits
  std::int32_t owner_pe = -1;           // whose memory holds the word; -1 when unknown
  std::int32_t slot = 0;                // multi-slot waits: the slot that is not ready
  std::int32_t slots = 1;
  std::uint16_t on_device = 0;          // 1: a device wait; block and thread say where in the grid
  std::uint16_t observed_unreadable = 0;  // 1: the observed value could not be read
  std::uint64_t offset = 0;             // symmetric offset of the word on owner_pe, when where is ""
  std::int64_t expected = 0;
  std::int64_t observed = 0;
  std::uint32_t block[3] = {0, 0, 0};
  std::uint32_t thread[3] = {0, 0, 0};
  char call[48] = {};                   // the function that waits
  char predicate[64] = {};              // how observed is compared with expected ("GE", "copy engine
                                        // tasks completed GE"); "" for a blocking call without a value
  char where[96] = {};                  // the word's place when it is not a symmetric offset; for a
                                        // call without a value, what it waits for
};

// Copies text into a fixed field, cut short and always terminated.
template <class Char, std::size_t N>
TDIST_WAIT_HOST_DEVICE inline void copyWaitText(Char (&field)[N], const char *text) {
  std::size_t i = 0;
  for (; text != nullptr && text[i] != '\0' && i + 1 < N; ++i) field[i] = text[i];
  field[i] = '\0';
}

}  // namespace tdist
