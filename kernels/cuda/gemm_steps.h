// kernels/cuda/gemm_steps.h - the steps both overlap GEMMs take (ag_gemm.cu, gemm_rs.cu): chunk
// GEMMs through the cuBLASLt plans (cublaslt_plan.h) on a call's stream lanes (stream_lane.h),
// and the ends of a call on those streams, one-block kernels on the device epoch of common.cuh.
//
// Signals carry the device epoch of the call, never reset, each slot with one writer PE: entry[p]
// of the common slot map is PE p's "ready" (its buffers may be written), and the arrival slots,
// counted from the top of the context's slots, g(i) = ctx.slot(maxSignals - 1 - i), say
// g(p * chunks + c): chunk c from PE p has arrived. Signals and waits are one-block kernels that
// read the epoch on the device, so a captured graph replays correctly. Buffer reuse is safe by
// the entry handshake that every body shares: a PE announces "ready" on its side stream after an
// event of the call's stream, i.e. after every earlier call's reads of its buffers, and nobody
// writes into a peer's buffer before seeing that peer's ready for this epoch. So there is no
// barrier at the end of a call, and a fast PE is held back only where it would overwrite data
// still in use. The last kernel of a call (finish, after the join) records its epoch as finished.
#pragma once

#include <cuda_runtime_api.h>
#include <library_types.h>

#include <cstddef>
#include <cstdint>

// What a GEMM body's file uses besides: its table entries, the chunks, the lanes, the fused GEMM.
#include "kernels/cuda/bodies.h"
#include "kernels/cuda/chunk_bounds.h"
#include "kernels/cuda/stream_lane.h"
#if TDIST_KERNELS_HAVE_CUTLASS
#include "kernels/cuda/fused_gemm.h"
#endif
#include "tdist/cuda.h"
#include "tdist/kernels/gemm.h"

namespace tdist::kernels::cuda::gemm {

namespace tc = tdist::cuda;
using Step = tdist::trace::Category;  // of the stream spans (tc::StreamSpan) each step is

using tc::check;         // tdist/cuda.h's: every CUDA status of the steps
using tc::check_launch;  // after each launch

cudaDataType_t cudaType(DType dtype);  // f32 or bf16 (what the entry point accepts)
// Offsets of the buffers a body cuts from the scratch: multiples of 256 bytes.
std::size_t alignUp(std::size_t bytes);

// C[rows, n] (ld ldc) = A[rows, k] (ld lda) x B[k, n] (ld ldb) on stream s, one of the lane's
// compute streams (each has its workspace): rows == 0 or n == 0 does nothing, k == 0 clears C
// (cuBLASLt has no algorithm for an empty dimension).
void mma(const Streams &streams, cudaStream_t s, cudaDataType_t ab, cudaDataType_t cd, const void *a,
         std::int64_t lda, const void *b, std::int64_t ldb, void *c, std::int64_t ldc, std::int64_t rows,
         std::int64_t n, std::int64_t k);

// The arrival slot of chunk `chunk` from PE `pe` (counted down from the top of the slots).
std::uint64_t *arrivalSlot(Context &ctx, int chunks, int pe, int chunk);
// The slots of a GEMM call lie apart (slot_map.h); that the context has them, the entry point
// checked (backend.cpp).
void requireDisjointSlots(const char *kernel, Context &ctx, int n_pes, int chunks);

// The call's stream forks to the side stream; the side stream announces this PE's buffers free to
// every peer (everything earlier on the call's stream, any reader of them, is behind the fork).
void forkAndAnnounceReady(Context &ctx, const Streams &streams, int n_pes);
// Side stream: later pushes to q wait until q has announced its buffers free for this call.
void waitReady(Context &ctx, const Streams &streams, int q);
// Stream s: `count` arrival slots of chunk ch from PE src on (count = 1: only PE src's), but `skip`.
void waitArrivals(Context &ctx, cudaStream_t s, int chunks, int src, int ch, int count, int skip);
// Side stream: bytes into q's copy of dest, then chunk ch's arrival signal from this PE there.
void pushWithSignal(Context &ctx, const Streams &streams, void *dest, const void *source, std::size_t bytes,
                    int chunks, int me, int ch, int q);
// The call's stream waits for the side stream (the call is complete when its stream is), then
// finishes the call.
void join(Context &ctx, const Streams &streams);
// Stream s, last: the call is finished on this PE (its epoch recorded).
void finish(Context &ctx, cudaStream_t s);

// True when a GEMM call runs the fused strategy; throws when it was asked for and cannot run
// (no CUTLASS in the build, f32, K or N not multiples of 8, an operand not 16-byte aligned).
// k_name: what the kernel calls A's columns.
bool runsFused(GemmStrategy strategy, const char *kernel, const char *k_name, const Tensor &a, const Tensor &b,
               const Tensor &c);
// The fused GEMM's CTAs: its share of the GPU's SMs (all of them, over the PEs that drive this
// GPU), or fewer when `programs` asks. Its CTAs hold their SMs while they wait for a peer's rows;
// were they more than its share, the peers' GEMMs (under MPS, several PEs on one GPU) could take
// every SM and leave none for the kernel that a peer still has to run first. (host::smShare leaves
// a few SMs free where peers share the GPU: a copy between two PEs of one GPU is the driver's copy
// kernel, not the copy engine; 4 measured 4% faster than 8 at 2 PEs: 64 CTAs make whole waves of
// 8192 x 8192 tiles.)
int fusedCtas(int programs);

}  // namespace tdist::kernels::cuda::gemm
