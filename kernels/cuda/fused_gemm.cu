// kernels/cuda/fused_gemm.cu - the fused strategy's GEMM (fused_gemm.h): CUTLASS's sm90 TMA
// warp-specialized cooperative mainloop and epilogue, under a tile scheduler of ours that rotates
// the rows so that this PE's own come first and makes the producer warp wait for the rows a tile
// reads before it loads them.
//
// How the scheduler plugs in: CUTLASS's kernel asks detail::TileSchedulerSelector for the
// scheduler of its tag; SignalledRows is our tag, and its scheduler is CUTLASS's static persistent
// one with three methods wrapped: the work it hands out is rotated (initial_work_tile_info,
// fetch_next_work), and the producer's mainloop warp (warp 0 of the producer warpgroup, the one
// that issues the TMA loads of A and B) waits there for the tile's rows. The consumers and the
// epilogue warp get the same rotated tiles and never wait: they consume what the producer loaded.
#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "kernels/cuda/common.cuh"
#include "kernels/cuda/fused_gemm.h"
#include "tdist/device/shmem.cuh"
#include "tdist/error.h"

#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/gemm/device/gemm_universal_adapter.h"
#include "cutlass/gemm/kernel/gemm_universal.hpp"
#include "cutlass/gemm/kernel/tile_scheduler.hpp"
#include "cutlass/util/packed_stride.hpp"

namespace tdist::kernels::cuda::fused {

// CUTLASS's static persistent scheduler whose arguments carry `Extra` to the device, and the
// real tiles of one batch along M and N (the grid may round up to the cluster).
template <class Extra>
class PersistentWith : public cutlass::gemm::kernel::detail::PersistentTileSchedulerSm90 {
 protected:
  using Base = cutlass::gemm::kernel::detail::PersistentTileSchedulerSm90;

 public:
  using WorkTileInfo = typename Base::WorkTileInfo;
  struct Arguments : Base::Arguments {
    Extra extra;
  };
  struct Params : Base::Params {
    Extra extra;
    int tiles_m = 0;
    int tiles_n = 0;
  };

  template <class ProblemShapeMNKL, class TileShape, class ClusterShape>
  static Params to_underlying_arguments(ProblemShapeMNKL problem, TileShape tile, ClusterShape cluster,
                                        cutlass::KernelHardwareInfo const &hw, Arguments const &args,
                                        void *workspace = nullptr, const uint32_t epilogue_subtile = 1,
                                        uint32_t k_align = 1u) {
    Params params;
    static_cast<typename Base::Params &>(params) =
        Base::to_underlying_arguments(problem, tile, cluster, hw, args, workspace, epilogue_subtile, k_align);
    params.extra = args.extra;
    params.tiles_m = static_cast<int>((cute::get<0>(problem) + kTileM - 1) / kTileM);
    params.tiles_n = static_cast<int>((cute::get<1>(problem) + kTileN - 1) / kTileN);
    return params;
  }

  CUTLASS_HOST_DEVICE PersistentWith() {}
  CUTLASS_DEVICE explicit PersistentWith(Params const &params) : Base(params) {}
};

struct SignalledRows {};  // the scheduler tag

// The wait for a chunk of rows that had not arrived at the first look (or while the job traces),
// out of line. Inlined, the full wait (deadline, hang note, trace) made the kernel spill at its
// 168 registers; so it does not, and the producer warp polls once inline. (ptxas still ignores
// setmaxnreg, C7507, since the kernel makes a call; a build with no call, where it does not,
// measured the same: docs/benchmarks/kernels_cuda.md, "Registers".)
__device__ __noinline__ void waitForRows(std::uint64_t *word, std::uint64_t epoch) {
  device::signal_wait_until(word, shmem::Cmp::GE, epoch);
}

class SignalledRowsScheduler : public PersistentWith<RowWaits> {
 public:
  using Params = typename PersistentWith<RowWaits>::Params;

  CUTLASS_HOST_DEVICE SignalledRowsScheduler() {}
  CUTLASS_DEVICE explicit SignalledRowsScheduler(Params const &params)
      : PersistentWith<RowWaits>(params), waits_(&params.extra), tiles_m_(params.tiles_m) {
    const RowWaits &waits = params.extra;
    waiter_ = waits.arrivals != nullptr && threadIdx.x < 32;  // the producer's mainloop warp
    if (waiter_) epoch_ = waits.slot0 != nullptr ? detail::call_epoch(waits.slot0) : waits.epoch;
    const int tiles_per_source = waits.rows_per_source > 0 ? static_cast<int>(waits.rows_per_source / kTileM) : tiles_m_;
    shift_ = waits.rows_per_source > 0 && waits.rows_per_source % kTileM == 0 ? waits.first * tiles_per_source : 0;
  }

  template <class ClusterShape>
  CUTLASS_DEVICE WorkTileInfo initial_work_tile_info(ClusterShape cluster) {
    return arrive(rotate(Base::initial_work_tile_info(cluster)));
  }

  CUTLASS_DEVICE auto fetch_next_work(WorkTileInfo work) {
    auto [next, increment] = Base::fetch_next_work(unrotate(work));
    return cute::make_tuple(arrive(rotate(next)), increment);
  }

  template <class Pipeline, class PipelineState>
  CUTLASS_DEVICE auto fetch_next_work(WorkTileInfo work, Pipeline &pipeline, PipelineState state) {
    auto [next, increment] = Base::fetch_next_work(unrotate(work), pipeline, state);
    return cute::make_tuple(arrive(rotate(next)), increment);
  }

  CUTLASS_DEVICE bool is_last_tile(WorkTileInfo &work, uint32_t advance = 1) const {
    WorkTileInfo base = unrotate(work);
    return Base::is_last_tile(base, advance);
  }

 private:
  // Row tiles rotate by whole source blocks, within the real tiles (a tile the grid adds past
  // them stays where it is, so every real tile is still computed once).
  CUTLASS_DEVICE WorkTileInfo rotate(WorkTileInfo work) const {
    if (work.is_valid() && shift_ != 0 && work.M_idx < tiles_m_) work.M_idx = (work.M_idx + shift_) % tiles_m_;
    return work;
  }
  CUTLASS_DEVICE WorkTileInfo unrotate(WorkTileInfo work) const {
    if (work.is_valid() && shift_ != 0 && work.M_idx < tiles_m_) work.M_idx = (work.M_idx + tiles_m_ - shift_) % tiles_m_;
    return work;
  }

  // The producer warp, before the loads of `work`: every chunk its rows touch has arrived.
  CUTLASS_DEVICE WorkTileInfo arrive(WorkTileInfo work) const {
    if (!waiter_ || !work.is_valid() || work.M_idx >= tiles_m_) return work;
    if (cutlass::canonical_lane_idx() == 0) {
      const RowWaits &waits = *waits_;
      const std::int64_t per = waits.rows_per_source > 0 ? waits.rows_per_source
                                                          : static_cast<std::int64_t>(tiles_m_) * kTileM;
      const std::int64_t total = per * waits.sources;
      const std::int64_t r0 = static_cast<std::int64_t>(work.M_idx) * kTileM;
      const std::int64_t r1 = (r0 + kTileM < total ? r0 + kTileM : total) - 1;
      for (std::int64_t r = r0; r <= r1;) {
        const int source = static_cast<int>(r / per);
        const std::int64_t within = r - source * per;
        int chunk = 0;
        while (chunk + 1 < waits.chunks && waits.bounds[chunk + 1] <= within) ++chunk;
        std::uint64_t *word = waits.arrivals + (static_cast<std::ptrdiff_t>(source) * waits.chunks + chunk) *
                                                    waits.arrival_step;
        if (device::detail::tracing() || device::detail::poll<device::detail::Poll::Acquire>(word) < epoch_) {
          waitForRows(word, epoch_);
        }
        const std::int64_t chunk_end =
            source * per + (chunk + 1 < waits.chunks ? waits.bounds[chunk + 1] : per);
        r = chunk_end > r ? chunk_end : r + 1;
      }
    }
    __syncwarp();
    asm volatile("fence.proxy.async.global;" : : : "memory");
    return work;
  }

  // The kernel's parameters (__grid_constant__), read in place: a copy of RowWaits in every
  // thread, its bounds indexed at run time, took a 536-byte stack frame.
  const RowWaits *waits_ = nullptr;
  int tiles_m_ = 0;
  int shift_ = 0;
  bool waiter_ = false;
  std::uint64_t epoch_ = 0;
};

struct NotifiedTiles {};  // the scheduler tag of GEMM + ReduceScatter's side

// The thread layout of CUTLASS's sm90 cooperative kernel (KernelToOwners below asserts it): one
// producer warpgroup (threads 0 .. 127), then two consumer warpgroups whose threads are numbered
// for the MMA and the epilogue as mma_thread_idx = threadIdx.x % kMmaThreads; the epilogue's TMA
// stores are issued, and their bulk groups committed, by the warp of mma_thread_idx 0 .. 31 only
// (sm90_epilogue_tma_warpspecialized.hpp: issue_tma_store = thread_idx / NumThreadsPerWarp == 0),
// which is Consumer1's first warp, threads 256 .. 287.
constexpr int kProducerThreads = 128;
constexpr int kMmaThreads = 256;
__host__ __device__ constexpr bool issuesEpilogueStores(unsigned thread) {
  return thread >= static_cast<unsigned>(kProducerThreads) && (thread % kMmaThreads) / 32 == 0;
}
static_assert(issuesEpilogueStores(256) && issuesEpilogueStores(287) && !issuesEpilogueStores(128) &&
              !issuesEpilogueStores(288) && !issuesEpilogueStores(0));

// CUTLASS's static persistent scheduler with the batches (owners) rotated to start at
// first_owner, and a notification per finished tile from the consumers' TMA-store warp: the
// cooperative kernel's consumers call fetch_next_work(work, ...) right after the epilogue has
// issued the stores of `work`, and the one warp that issued them (issuesEpilogueStores) waits for
// its bulk groups to complete (their writes, not only their reads of shared memory) before lane 0
// sets the owner's flag. A bulk-group wait covers the executing thread's own groups only: any
// other warp's wait would return at once, and its release would publish a tile still in flight.
class NotifiedTilesScheduler : public PersistentWith<TileNotify> {
 public:
  using Params = typename PersistentWith<TileNotify>::Params;

  CUTLASS_HOST_DEVICE NotifiedTilesScheduler() {}
  CUTLASS_DEVICE explicit NotifiedTilesScheduler(Params const &params)
      : PersistentWith<TileNotify>(params), notify_(params.extra), tiles_m_(params.tiles_m), tiles_n_(params.tiles_n) {
    notifier_ = notify_.flags != nullptr && issuesEpilogueStores(threadIdx.x);
    if (notifier_) epoch_ = detail::call_epoch(notify_.slot0);
  }

  template <class ClusterShape>
  CUTLASS_DEVICE WorkTileInfo initial_work_tile_info(ClusterShape cluster) {
    return rotate(Base::initial_work_tile_info(cluster));
  }

  CUTLASS_DEVICE auto fetch_next_work(WorkTileInfo work) {
    auto [next, increment] = Base::fetch_next_work(unrotate(work));
    return cute::make_tuple(rotate(next), increment);
  }

  template <class Pipeline, class PipelineState>
  CUTLASS_DEVICE auto fetch_next_work(WorkTileInfo work, Pipeline &pipeline, PipelineState state) {
    notify(work);
    auto [next, increment] = Base::fetch_next_work(unrotate(work), pipeline, state);
    return cute::make_tuple(rotate(next), increment);
  }

  CUTLASS_DEVICE bool is_last_tile(WorkTileInfo &work, uint32_t advance = 1) const {
    WorkTileInfo base = unrotate(work);
    return Base::is_last_tile(base, advance);
  }

 private:
  CUTLASS_DEVICE WorkTileInfo rotate(WorkTileInfo work) const {
    if (work.is_valid() && notify_.owners > 1)
      work.L_idx = (work.L_idx + notify_.first_owner) % notify_.owners;
    return work;
  }
  CUTLASS_DEVICE WorkTileInfo unrotate(WorkTileInfo work) const {
    if (work.is_valid() && notify_.owners > 1)
      work.L_idx = (work.L_idx + notify_.owners - notify_.first_owner) % notify_.owners;
    return work;
  }

  // After the epilogue of `work`: its stores complete, then the owner's flag of (me, tile).
  CUTLASS_DEVICE void notify(WorkTileInfo work) const {
    if (!notifier_ || !work.is_valid() || work.M_idx >= tiles_m_ || work.N_idx >= tiles_n_) return;
    // Every lane: its bulk groups' writes are complete (whichever lanes issued the copies), and
    // ordered, async proxy to generic, before what follows; then lane 0 releases at system scope
    // (cumulative over the warp's writes after __syncwarp's ordering).
    asm volatile("cp.async.bulk.wait_group 0;" : : : "memory");
    asm volatile("fence.proxy.async.global;" : : : "memory");
    __syncwarp();
    if (cutlass::canonical_lane_idx() == 0) {
      const int tile = work.M_idx * tiles_n_ + work.N_idx;
      const int tiles = tiles_m_ * tiles_n_;
      device::signal_op(notify_.flags + static_cast<std::ptrdiff_t>(notify_.me) * tiles + tile, epoch_,
                        shmem::SignalOp::Set, work.L_idx);
    }
    __syncwarp();
  }

  TileNotify notify_{};
  int tiles_m_ = 0;
  int tiles_n_ = 0;
  bool notifier_ = false;
  std::uint64_t epoch_ = 0;
};

}  // namespace tdist::kernels::cuda::fused

namespace cutlass::gemm::kernel::detail {

template <class ArchTag, class TileShape, class ClusterShape, uint32_t SchedulerPipelineStageCount>
struct TileSchedulerSelector<tdist::kernels::cuda::fused::SignalledRows, ArchTag, TileShape, ClusterShape,
                             SchedulerPipelineStageCount> {
  using Scheduler = tdist::kernels::cuda::fused::SignalledRowsScheduler;
};

template <class ArchTag, class TileShape, class ClusterShape, uint32_t SchedulerPipelineStageCount>
struct TileSchedulerSelector<tdist::kernels::cuda::fused::NotifiedTiles, ArchTag, TileShape, ClusterShape,
                             SchedulerPipelineStageCount> {
  using Scheduler = tdist::kernels::cuda::fused::NotifiedTilesScheduler;
};

}  // namespace cutlass::gemm::kernel::detail

namespace tdist::kernels::cuda::fused {
namespace {

using namespace cute;

using Element = cutlass::bfloat16_t;
using Accumulator = float;
using Layout = cutlass::layout::RowMajor;
constexpr int kAlignment = 128 / cutlass::sizeof_bits<Element>::value;  // 16-byte TMA accesses
using TileShape = Shape<Int<kTileM>, Int<kTileN>, _64>;
using ClusterShape = Shape<_2, _1, _1>;  // two CTAs share each B tile's TMA multicast

using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
    cutlass::epilogue::collective::EpilogueTileAuto, Accumulator, Accumulator, Element, Layout, kAlignment, Element,
    Layout, kAlignment, cutlass::epilogue::TmaWarpSpecializedCooperative>::CollectiveOp;

using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, Element, Layout, kAlignment, Element, Layout, kAlignment,
    Accumulator, TileShape, ClusterShape,
    cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
    cutlass::gemm::KernelTmaWarpSpecializedCooperative>::CollectiveOp;

using Kernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>, Mainloop, Epilogue, SignalledRows>;
using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;

// GEMM + ReduceScatter's side: f32 partials (the library's reduction sums them in f32), no source C.
constexpr int kAlignmentF32 = 128 / cutlass::sizeof_bits<float>::value;
using EpilogueToOwners = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
    cutlass::epilogue::collective::EpilogueTileAuto, Accumulator, Accumulator, void, Layout, kAlignmentF32, float,
    Layout, kAlignmentF32, cutlass::epilogue::TmaWarpSpecializedCooperative>::CollectiveOp;
using MainloopToOwners = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, Element, Layout, kAlignment, Element, Layout, kAlignment,
    Accumulator, TileShape, ClusterShape,
    cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename EpilogueToOwners::SharedStorage))>,
    cutlass::gemm::KernelTmaWarpSpecializedCooperative>::CollectiveOp;
using KernelToOwners =
    cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>, MainloopToOwners, EpilogueToOwners, NotifiedTiles>;
using GemmToOwners = cutlass::gemm::device::GemmUniversalAdapter<KernelToOwners>;
static_assert(KernelToOwners::NumMMAThreads == kMmaThreads &&
                  KernelToOwners::NumLoadWarpGroups * cutlass::NumThreadsPerWarpGroup == kProducerThreads,
              "NotifiedTilesScheduler notifies from the warp that issues the epilogue's TMA stores, found by "
              "the cooperative kernel's thread layout");
static_assert(cute::is_base_of_v<cutlass::gemm::KernelTmaWarpSpecializedCooperative,
                                 typename KernelToOwners::DispatchPolicy::Schedule>);

void check(cutlass::Status status, const char *kernel, const char *what) {
  if (status != cutlass::Status::kSuccess) {
    throw Error(status == cutlass::Status::kErrorInvalidProblem || status == cutlass::Status::kErrorMisalignedOperand
                    ? ErrorCode::InvalidParam
                    : ErrorCode::Internal,
                std::string(kernel) + ": the fused GEMM's " + what + ": " + cutlassGetStatusString(status));
  }
}

int smCount() {
  int device = 0, sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  return sms;
}

// At most max_ctas persistent CTAs (0: one per SM) on the current GPU.
cutlass::KernelHardwareInfo hardware(int max_ctas) {
  cutlass::KernelHardwareInfo hw;
  cudaGetDevice(&hw.device_id);
  const int sms = smCount();
  hw.sm_count = max_ctas > 0 && max_ctas < sms ? max_ctas : sms;
  return hw;
}

// Checks the problem with CUTLASS and launches it on stream.
template <class G>
void launch(const typename G::Arguments &arguments, cudaStream_t stream, const char *kernel) {
  G gemm;
  check(gemm.can_implement(arguments), kernel, "shape (k and n must be multiples of 8)");
  if (G::get_workspace_size(arguments) != 0) {
    throw Error(ErrorCode::Internal, std::string(kernel) + ": the fused GEMM asks for a workspace");
  }
  check(gemm.initialize(arguments, nullptr, stream), kernel, "initialize");
  check(gemm.run(stream), kernel, "launch");
}

}  // namespace

void gemmBf16(const void *a, const void *b, void *c, int m, int n, int k, const RowWaits &waits, int max_ctas,
              cudaStream_t stream, const char *kernel, const Raster &raster) {
  if (waits.chunks < 1 || waits.chunks > kMaxChunks || waits.sources < 1) {
    throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": the fused GEMM takes 1 .. " +
                                             std::to_string(kMaxChunks) + " chunks and at least one source");
  }
  if (raster.swizzle != 1 && raster.swizzle != 2 && raster.swizzle != 4 && raster.swizzle != 8) {
    throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": the fused GEMM's swizzle is 1, 2, 4 or 8, not " +
                                             std::to_string(raster.swizzle));
  }
  using StrideA = typename Gemm::GemmKernel::StrideA;
  using StrideB = typename Gemm::GemmKernel::StrideB;
  using StrideC = typename Gemm::GemmKernel::StrideC;
  using StrideD = typename Gemm::GemmKernel::StrideD;
  const cutlass::KernelHardwareInfo hw = hardware(max_ctas);
  typename SignalledRowsScheduler::Arguments scheduler;
  scheduler.max_swizzle_size = raster.swizzle;
  // Along N by default: consecutive tiles of a wave share their rows, so a wave needs few row chunks.
  scheduler.raster_order = raster.along_m ? SignalledRowsScheduler::RasterOrderOptions::AlongM
                                          : SignalledRowsScheduler::RasterOrderOptions::AlongN;
  scheduler.extra = waits;
  const auto *ea = static_cast<const Element *>(a);
  const auto *eb = static_cast<const Element *>(b);
  auto *ec = static_cast<Element *>(c);
  typename Gemm::Arguments arguments{
      cutlass::gemm::GemmUniversalMode::kGemm,
      {m, n, k, 1},
      {ea, cutlass::make_cute_packed_stride(StrideA{}, make_shape(m, k, 1)), eb,
       cutlass::make_cute_packed_stride(StrideB{}, make_shape(n, k, 1))},
      {{1.0f, 0.0f}, ec, cutlass::make_cute_packed_stride(StrideC{}, make_shape(m, n, 1)), ec,
       cutlass::make_cute_packed_stride(StrideD{}, make_shape(m, n, 1))},
      hw,
      scheduler};
  launch<Gemm>(arguments, stream, kernel);
}

void gemmBf16ToOwners(const void *a, const void *b, float *d, std::int64_t d_owner_stride, int m, int n, int k,
                      const TileNotify &notify, int max_ctas, cudaStream_t stream, const char *kernel) {
  if (notify.owners < 1 || notify.first_owner < 0 || notify.first_owner >= notify.owners) {
    throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": the fused GEMM's owners: " +
                                             std::to_string(notify.owners) + ", first " +
                                             std::to_string(notify.first_owner));
  }
  if (d_owner_stride % kAlignmentF32 != 0) {
    throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": the owners' partials are not 16 bytes apart");
  }
  using StrideA = typename GemmToOwners::GemmKernel::StrideA;
  using StrideB = typename GemmToOwners::GemmKernel::StrideB;
  using StrideD = typename GemmToOwners::GemmKernel::StrideD;
  const cutlass::KernelHardwareInfo hw = hardware(max_ctas);
  typename NotifiedTilesScheduler::Arguments scheduler;
  scheduler.max_swizzle_size = 1;
  scheduler.raster_order = NotifiedTilesScheduler::RasterOrderOptions::AlongN;
  scheduler.extra = notify;
  const int owners = notify.owners;
  StrideA stride_a = cutlass::make_cute_packed_stride(StrideA{}, make_shape(m, k, owners));  // A_l: rows l*m ..
  StrideB stride_b = cutlass::make_cute_packed_stride(StrideB{}, make_shape(n, k, 1));
  cute::get<2>(stride_b) = 0;  // one B for every owner
  StrideD stride_d = cutlass::make_cute_packed_stride(StrideD{}, make_shape(m, n, 1));
  cute::get<2>(stride_d) = d_owner_stride;
  typename GemmToOwners::Arguments arguments{
      cutlass::gemm::GemmUniversalMode::kBatched,
      {m, n, k, owners},
      {static_cast<const Element *>(a), stride_a, static_cast<const Element *>(b), stride_b},
      {{1.0f, 0.0f}, nullptr, stride_d, d, stride_d},
      hw,
      scheduler};
  launch<GemmToOwners>(arguments, stream, kernel);
}

}  // namespace tdist::kernels::cuda::fused
