// kernels/checks.h - the checks every entry point of the kernel library makes before its body
// runs: its tensors, its config's limits, and the agreement of every PE on the call.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include "tdist/error.h"
#include "tdist/runtime.h"

namespace tdist::kernels::detail {

// Throws Error(InvalidParam) "<kernel>: <what> ..." unless t is a contiguous row-major tensor of
// rank `rank` (-1: any) on this PE's symmetric heap, of one of `dtypes`.
void requireHeapTensor(const char *kernel, const char *what, const Tensor &t, int rank,
                       std::initializer_list<DType> dtypes);
// Throws Error(InvalidParam) "<kernel>: config.<field> = <value> is outside <low> .. <high>".
void requireRange(const char *kernel, const char *field, long long value, long long low, long long high);

// What this PE's call is, for the agreement: three values that must be equal on every PE (say,
// dtype << 32 | algorithm, numel of the input, numel of the output), and how to say them.
struct CallSignature {
  std::uint64_t value[3] = {0, 0, 0};
  std::string (*describe)(const std::uint64_t value[3]) = nullptr;  // "input [1024] f32, ..."
};

// Collective (world team): every PE passes its signature and its local error, if it found one
// (local_code: 0 = none, else an ErrorCode). Returns when no PE found an error and every
// signature is the same;
// otherwise throws on every PE: this PE's own error, or "<kernel>: failed on PE p (<code>)",
// or Error(CollectiveMismatch) "<kernel>: the call differs between PEs: PE 0 passed ..., PE 1
// passed ...". Runs on the host, never on a GPU stream: calls stay capturable.
void agree(const char *kernel, const CallSignature &mine, int local_code = 0,
           const std::string &local_error = "");

// A dtype's name and size, for messages and sizes.
const char *dtypeText(DType dtype);

}  // namespace tdist::kernels::detail
