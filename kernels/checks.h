// kernels/checks.h - the checks every entry point of the kernel library makes before its body
// runs: its tensors, its config's limits, and the agreement of every PE on the call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

#include "tdist/error.h"
#include "tdist/kernels/context.h"
#include "tdist/runtime.h"

namespace tdist::kernels::detail {

// Whether PE pe is reached through the network (another node; tdist::transportMask's RoCE bit).
bool throughNetwork(int pe);

// Throws Error(InvalidParam) "<kernel>: <what> ..." unless t is a contiguous row-major tensor of
// rank `rank` (-1: any) on this PE's symmetric heap, of one of `dtypes`.
void requireHeapTensor(const char *kernel, const char *what, const Tensor &t, int rank,
                       std::initializer_list<DType> dtypes);
// Throws Error(InvalidParam) "<kernel>: config.<field> = <value> is outside <low> .. <high>".
void requireRange(const char *kernel, const char *field, long long value, long long low, long long high);

// The signal slots a backend's body takes for a call, and how they are counted (for the message
// when the context has fewer: "n_pes * (chunks_per_pe + 1) + 7").
struct SlotNeed {
  long long slots = 0;
  std::string formula;
};
// Throws Error(InvalidParam) "<kernel>: needs <formula> = <slots> signals on the <backend>
// backend, the context has <max> (ContextOptions::max_signals)" unless the context has them.
void requireSignals(const char *kernel, const Context &ctx, const char *backend, const SlotNeed &need);

// What this PE's call is, for the agreement: every argument that must be the same on every PE,
// each a field `name=value` in the order the entry point adds them (tensors by heap offset,
// dtype and shape; every config field; the context). The PEs compare a digest of the whole; when
// one differs they exchange the fields, and the error names the first field that differs and
// what each PE passed in it. Entry points build it from the call itself (forEachField below), so
// a new argument or config field cannot be left out.
class CallSignature {
 public:
  void add(std::string_view name, long long value);
  void add(std::string_view name, std::string_view text);  // no spaces
  // "f32[128,64]@0x2000" (offset from the heap's base; "@-" for an empty tensor, "@off-heap");
  // "f32[*,64]" for a tensor whose dimension `varying` (-1: none) may differ between PEs: such a
  // tensor is each PE's own, and where it lies is not compared.
  void tensor(std::string_view name, const Tensor &t, int varying = -1);
  void context(const Context &ctx);  // which context: the heap offset of its signals
  const std::string &text() const { return text_; }
  std::uint64_t digest() const;

 private:
  void field(std::string_view name);  // " name=" (no space before the first)
  std::string text_;
};

// Every config struct's fields go into a signature through a structured binding of the whole
// struct (`const auto &[a, b, c] = config;`), which stops compiling when the struct gains a field:
// the entry points' addConfig overloads (collectives.cpp, gemm.cpp, moe.cpp, context.cpp).

// Collective (world team): every PE passes its signature and its local error, if it found one
// (local_code: 0 = none, else an ErrorCode). Returns when no PE found an error and every
// signature is the same;
// otherwise throws on every PE: this PE's own error, or "<kernel>: failed on PE p (<code>)",
// or Error(CollectiveMismatch) "<kernel>: the call differs between PEs: PE 0 called <kernel>,
// PE 1 called <another>", or "<kernel>: the call differs between PEs in <field>: PE 0 passed
// <value>, PE 1 passed <value>" (then every PE's fields travel in a few more steps of the
// runtime's agreement). Each PE says (kernel hash, status, signature digest) through the
// runtime's agreement on the host (tdist::exchangeCallArgs), never on a GPU stream: calls stay
// capturable.
void agree(const char *kernel, const CallSignature &mine, int local_code = 0,
           const std::string &local_error = "");

// The same agreement, and the same errors, for a call on ctx (collective over the world team in
// the order of the context's calls), the two ways of the backends' tables (kernels/backend.h).
// On the host (cuda): agree() above. In band (cpu): through the context's handshake table,
// 2 parities x n_pes rows: handshake h (the context's h-th) writes this PE's row into row
// [h & 1][me] of every PE's table (a put with a SET signal of h), waits until every row [h & 1][q]
// of its own carries h (a wait of the runtime, with its deadline and diagnostic), and every PE,
// seeing every row, reaches the same verdict. A PE enters call h only after it returned from call
// h - 1, so once a handshake is through, every PE has finished every earlier call on the context:
// no body needs a closing barrier for the sake of the next call. And a fast PE cannot overwrite
// a row of parity h & 1 (at h + 2) before every PE has written its row h + 1, i.e. read all of
// its rows h.
//
// `carried` (in band only; on the host it must be empty): bytes this PE sends every peer with its
// row (CARRIED BYTES below), which a body that asked for them (KernelBody::carried) reads once
// the verdict is through. Nothing is carried where a local check failed.
void agreeOnHost(Context &ctx, const char *kernel, const CallSignature &mine, int local_code,
                 const std::string &local_error, std::span<const std::byte> carried = {});
void agreeInBand(Context &ctx, const char *kernel, const CallSignature &mine, int local_code,
                 const std::string &local_error, std::span<const std::byte> carried = {});

// Whether some peer of this PE is reached through the network: alike on every PE of a job (its
// nodes have the same PE count; a forced network path is the whole job's).
bool anyPeerThroughNetwork();

// CARRIED BYTES (cpu, where the job has peers through the network): a small call's data sent
// with its handshake row, one message each way through the network instead of the row's and then
// the data's (the one-shot all_reduce: docs/RUNTIME.md, "A small all_reduce's data with its
// handshake"). Each row of such a context's table is followed by carriedBytesPerSource(n) bytes
// (handshakeRowBytes), which the row's put carries before its signal: once the verdict is
// through, row [h & 1][q]'s bytes are q's, landed, and stay until q's handshake h + 2, which
// comes after this PE's row h + 1, i.e. after it finished the call of h (the argument above).
constexpr std::size_t kCarriedReceivedBytes = std::size_t{48} << 10;  // what a PE receives, from all peers
constexpr std::size_t carriedBytesPerSource(int n_pes) {
  return n_pes < 2 ? 0 : (kCarriedReceivedBytes / static_cast<std::size_t>(n_pes - 1)) & ~std::size_t{63};
}

// A row of the handshake table (one 64-byte slot). `sequence` is the signal, written last.
struct HandshakeRow {
  std::uint64_t sequence = 0;  // the handshake's number h
  std::uint64_t kernel = 0;    // the kernel called (a hash of its name)
  std::int64_t status = 0;     // 0, or the ErrorCode this PE found in its own arguments
  std::uint64_t digest = 0;    // CallSignature::digest
  std::uint64_t unused[4] = {0, 0, 0, 0};
};
static_assert(sizeof(HandshakeRow) == 64);

// A context's rows: 64 bytes each, or 64 and the bytes each carries (CARRIED BYTES above).
constexpr std::size_t handshakeRowBytes(bool carries, int n_pes) {
  return sizeof(HandshakeRow) + (carries ? carriedBytesPerSource(n_pes) : 0);
}
// Row [parity][q] of a handshake table of rows `row_bytes` apart (this PE's copy).
inline HandshakeRow *handshakeRow(void *table, std::size_t row_bytes, int n_pes, int parity, int q) {
  return reinterpret_cast<HandshakeRow *>(
      static_cast<std::byte *>(table) +
      (static_cast<std::size_t>(parity) * static_cast<std::size_t>(n_pes) + static_cast<std::size_t>(q)) * row_bytes);
}

// A dtype's name and size, for messages and sizes.
const char *dtypeText(DType dtype);

}  // namespace tdist::kernels::detail
