// kernels/checks.h - the checks every entry point of the kernel library makes before its body
// runs: its tensors, its config's limits, and the agreement of every PE on the call.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include "tdist/error.h"
#include "tdist/kernels/context.h"
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

// The same agreement, and the same errors, for a call on ctx (collective over the world team in
// the order of the context's calls). cuda: agree() above. cpu: in band, through the context's
// handshake table, 2 parities x n_pes rows: handshake h (the context's h-th) writes this PE's
// row into row [h & 1][me] of every PE's table (a put with a SET signal of h), waits until
// every row [h & 1][q] of its own carries h (a wait of the runtime, with its deadline and
// diagnostic), and every PE, seeing every row, reaches the same verdict. A PE enters call h
// only after it returned from call h - 1, so once a handshake is through, every PE has
// finished every earlier call on the context: no body needs a closing barrier for the sake of
// the next call. And a fast PE cannot overwrite a row of parity h & 1 (at h + 2) before every
// PE has written its row h + 1, i.e. read all of its rows h.
void agree(Context &ctx, const char *kernel, const CallSignature &mine, int local_code = 0,
           const std::string &local_error = "");

// A row of the handshake table (one 64-byte slot). `sequence` is the signal, written last.
struct HandshakeRow {
  std::uint64_t sequence = 0;  // the handshake's number h
  std::uint64_t kernel = 0;    // the kernel called (a hash of its name)
  std::int64_t status = 0;     // 0, or the ErrorCode this PE found in its own arguments
  std::uint64_t value[3] = {0, 0, 0};
  std::uint64_t unused[2] = {0, 0};
};
static_assert(sizeof(HandshakeRow) == 64);

// A dtype's name and size, for messages and sizes.
const char *dtypeText(DType dtype);

}  // namespace tdist::kernels::detail
