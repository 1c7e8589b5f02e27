// kernels/cpu/gemm.cpp - the cpu bodies of AllGather + GEMM and GEMM + ReduceScatter.
//
// Programs are fibers of tdist::launch; each takes work items i, i + P, i + 2P, ... of one list in
// which every item that signals comes before every item that waits, so no program ever waits on
// an item queued behind itself, whatever P. Tile GEMMs are OpenBLAS sgemm calls, single-threaded
// (the programs are the parallelism). bf16: B is converted to f32 once per call, each tile of A
// rows just before its GEMM, products accumulate in f32 and every element of C is rounded to
// bf16 once (after the PE-order reduction of GEMM + ReduceScatter); transfers move bf16.
//
// Signals are ctx.slot(i), written with this call's epoch (SET) and waited for until >= epoch,
// never reset. Buffer reuse: the next call's entry handshake (kernels/checks.h) is through only
// once every PE has finished this one, so no PE pushes into a peer's gathered rows or scratch,
// or sets its signals, while that peer still reads them. Both kernels only push (blocking puts,
// complete on return), and each PE waits for everything pushed to it before it returns.
#include <cblas.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

#include "kernels/cpu/bodies.h"
#include "kernels/cpu/bfloat16.h"
#include "tdist/dl.h"
#include "tdist/launch.h"
#include "tdist/shmem.h"
#include "tdist/trace.h"

namespace tdist::kernels::cpu {
namespace {

namespace sh = tdist::shmem;

// A half-open range [begin, end) of rows or columns.
struct Span {
  std::int64_t begin = 0;
  std::int64_t end = 0;
  std::int64_t size() const { return end - begin; }
};

// Part `index` of `parts` nearly equal parts of `extent` (the first ones one longer); empty past
// the end when parts > extent.
Span part(std::int64_t extent, int parts, int index) {
  const std::int64_t length = (extent + parts - 1) / parts;
  const std::int64_t begin = std::min(extent, length * index);
  return {begin, std::min(extent, begin + length)};
}

// The tile GEMMs run on the calling program's worker: OpenBLAS's own threads would only compete
// with the other programs for the same cores.
void singleThreadedBlas() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

int programCount(int configured, std::size_t items) {
  int programs = configured > 0 ? configured : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(programs, items)));
}

// Runs items[0..count) on `programs` fibers, program p taking p, p + programs, ...
template <class Item>
void runItems(int programs, std::size_t count, const Item &item) {
  launch(Grid{programs, 1, 1}, [&] {
    for (std::size_t i = static_cast<std::size_t>(dl::program_id(0)); i < count; i += programs) item(i);
  });
}

// dst[h x w, ld] = rows[h x k, lda = k] x b[k x w, ldb] (k may be 0: a zero tile).
void mma_tile(std::int64_t h, std::int64_t w, std::int64_t k, const float *rows, const float *b, std::int64_t ldb,
              float *dst, std::int64_t ld) {
  if (h == 0 || w == 0) return;
  if (k == 0) {
    for (std::int64_t r = 0; r < h; ++r) std::fill_n(dst + r * ld, w, 0.0f);
    return;
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(h), static_cast<int>(w),
              static_cast<int>(k), 1.0f, rows, static_cast<int>(k), b, static_cast<int>(ldb), 0.0f, dst,
              static_cast<int>(ld));
}

// f32 operands of a GEMM from storage of type T: for f32 the storage itself, for bf16 a copy.
template <class T>
const float *asFloats(const T *data, std::size_t count, std::vector<float> &buffer) {
  if constexpr (std::is_same_v<T, float>) {
    return data;
  } else {
    buffer.resize(count);
    for (std::size_t i = 0; i < count; ++i) buffer[i] = load(data[i]);
    return buffer.data();
  }
}

// Rows [h x w] of f32 into C's storage (ld elements apart), rounded once.
template <class T>
void storeRows(std::int64_t h, std::int64_t w, const float *from, std::int64_t from_ld, T *to, std::int64_t ld) {
  for (std::int64_t r = 0; r < h; ++r) {
    for (std::int64_t j = 0; j < w; ++j) to[r * ld + j] = store<T>(from[r * from_ld + j]);
  }
}

template <class F>
void byGemmDtype(DType dtype, F &&body) {
  if (dtype == DType::BF16) return body(BFloat16{});
  body(float{});
}

}  // namespace

// ---- AllGather + GEMM ------------------------------------------------------------------------
//
// Each PE's A is cut into chunks_per_pe row chunks. Signal slot (src * chunks + chunk) on a PE
// says that chunk `chunk` of PE src's rows has landed in its gathered buffer. Items, in order:
//   push_chunk(chunk)          for every own chunk: put it into every PE's gathered rows (own PE
//                              first, then me + 1, me + 2, ...) with its signal;
//   gemm(src, chunk, column)   for src = me, me + 1, ... (each PE starts on its own rows, which
//                              need no transfer), every chunk, every tile_n column tile of C:
//                              wait_chunk, then mma_tile for each tile_m rows of the chunk.
namespace {

template <class T>
void allGatherGemmTyped(Context &ctx, const Tensor &a, const Tensor &b, Tensor &c, Tensor &gathered,
                        const AllGatherGemmConfig &config, std::uint64_t epoch) {
  singleThreadedBlas();
  const int me = sh::my_pe(), n_pes = sh::n_pes();
  const int chunks = config.chunks_per_pe;
  const std::int64_t m_local = a.shape[0], K = a.shape[1], N = b.shape[1];
  const std::int64_t column_tiles = (N + config.tile_n - 1) / config.tile_n;
  const T *a_rows = a.as<const T>();
  std::vector<float> b_buffer;
  const float *b_data = asFloats(b.as<const T>(), static_cast<std::size_t>(K * N), b_buffer);
  T *c_data = c.as<T>();
  T *gathered_rows = gathered.as<T>();
  auto chunk_signal = [&](int src, int chunk) { return ctx.slot(src * chunks + chunk); };

  auto push_chunk = [&](int chunk) {
    tdist::trace::Span span(tdist::trace::Category::Move, "push_chunk", chunk);
    const Span rows = part(m_local, chunks, chunk);
    T *dest = gathered_rows + (me * m_local + rows.begin) * K;
    const std::size_t bytes = static_cast<std::size_t>(rows.size() * K) * sizeof(T);
    for (int step = 0; step < n_pes; ++step) {
      const int peer = (me + step) % n_pes;
      if (bytes == 0) sh::signal_op<std::uint64_t>(chunk_signal(me, chunk), epoch, sh::SignalOp::Set, peer);
      else sh::putmem_signal<std::uint64_t>(dest, a_rows + rows.begin * K, bytes, chunk_signal(me, chunk), epoch,
                                             sh::SignalOp::Set, peer);
    }
  };
  auto wait_chunk = [&](int src, int chunk) {
    tdist::trace::Span span(tdist::trace::Category::Wait, "wait_chunk", src, chunk);
    const std::uint64_t seen = sh::signal_wait_until<std::uint64_t>(chunk_signal(src, chunk), sh::Cmp::GE, epoch);
    return dl::Token{seen};
  };
  // Per program: bf16 rows of A and the f32 tile of C, converted (unused for f32).
  struct Buffers {
    std::vector<float> rows, tile;
  };
  std::vector<Buffers> buffers;
  auto gemm = [&](int src, int chunk, std::int64_t column_tile, Buffers &buffer) {
    const Span rows = part(m_local, chunks, chunk);
    if (rows.size() == 0) return;
    const dl::Token token = wait_chunk(src, chunk);
    const T *chunk_rows = dl::consume_token(gathered_rows + (src * m_local + rows.begin) * K, token);
    const std::int64_t c0 = column_tile * config.tile_n, w = std::min<std::int64_t>(config.tile_n, N - c0);
    for (std::int64_t r = 0; r < rows.size(); r += config.tile_m) {
      const std::int64_t h = std::min<std::int64_t>(config.tile_m, rows.size() - r);
      const std::int64_t c_row = src * m_local + rows.begin + r;
      tdist::trace::Span span(tdist::trace::Category::Compute, "gemm_tile", static_cast<int>(c_row),
                              static_cast<int>(c0));
      const float *tile_rows = asFloats(chunk_rows + r * K, static_cast<std::size_t>(h * K), buffer.rows);
      if constexpr (std::is_same_v<T, float>) {
        mma_tile(h, w, K, tile_rows, b_data + c0, N, c_data + c_row * N + c0, N);
      } else {
        buffer.tile.resize(static_cast<std::size_t>(h * w));
        mma_tile(h, w, K, tile_rows, b_data + c0, N, buffer.tile.data(), w);
        storeRows(h, w, buffer.tile.data(), w, c_data + c_row * N + c0, N);
      }
    }
  };

  const std::size_t gemm_items = static_cast<std::size_t>(n_pes) * chunks * column_tiles;
  const std::size_t items = chunks + gemm_items;
  const int programs = programCount(config.programs, items);
  buffers.resize(static_cast<std::size_t>(programs));
  runItems(programs, items, [&](std::size_t i) {
    if (i < static_cast<std::size_t>(chunks)) return push_chunk(static_cast<int>(i));
    std::size_t g = i - chunks;
    const std::int64_t column_tile = static_cast<std::int64_t>(g % column_tiles);
    g /= column_tiles;
    const int chunk = static_cast<int>(g % chunks);
    const int src = (me + static_cast<int>(g / chunks)) % n_pes;
    gemm(src, chunk, column_tile, buffers[dl::program_id(0)]);
  });
  // gathered is complete only when every chunk has landed (with N = 0 no gemm item waited).
  for (int src = 0; src < n_pes; ++src) {
    for (int chunk = 0; chunk < chunks; ++chunk) wait_chunk(src, chunk);
  }
}

}  // namespace

void allGatherGemm(Context &ctx, const AllGatherGemmCall &call) {
  const auto &[a, b, c, gathered, config] = call;
  const std::uint64_t epoch = nextEpoch(ctx);
  byGemmDtype(a.dtype, [&](auto type) {
    allGatherGemmTyped<decltype(type)>(ctx, a, b, c, gathered, config, epoch);
  });
}

// ---- GEMM + ReduceScatter --------------------------------------------------------------------
//
// Owner q's block of P = a x b is rows q * M/n .. (q + 1) * M/n. It is cut into chunks_per_pe row
// chunks and tile_n column tiles, each (chunk, column) computed tile_m rows at a time. Every PE's
// partial of q's block goes to q's scratch, partial[src], f32, packed tile by tile: the tile at
// rows [t0, t0 + h) and columns [c0, c0 + w) of the block is h * w contiguous floats at t0 * N +
// h * c0 (so a tile is one put). Signal slot ((src * chunks + chunk) * column_tiles + column)
// on q says that src's partial of that (chunk, column) has landed. Items, in order:
//   partial(owner, chunk, column)  for owner = me + 1, me + 2, ..., me: the next PE's block first,
//                                  so that the first tiles any PE finishes are already on their
//                                  way to the PE that needs them, and the own block, which needs
//                                  no transfer, last, so that nothing waits on a put at the end;
//                                  mma_tile each tile_m rows, notify_owner with the last one;
//   reduce(chunk, column)          of the own block: wait_partial src = 0, 1, ..., n - 1 and
//                                  reduce_tile into c in that order (PE order, whatever order the
//                                  partials arrive in: bitwise the same result every time).
namespace {

template <class T>
void gemmReduceScatterTyped(Context &ctx, const Tensor &a, const Tensor &b, Tensor &c,
                            const GemmReduceScatterConfig &config, std::uint64_t epoch) {
  singleThreadedBlas();
  const int me = sh::my_pe(), n_pes = sh::n_pes();
  const int chunks = config.chunks_per_pe;
  const std::int64_t M = a.shape[0], k_local = a.shape[1], N = b.shape[1];
  const std::int64_t m_block = M / n_pes;
  const std::int64_t column_tiles = (N + config.tile_n - 1) / config.tile_n;
  const T *a_data = a.as<const T>();
  std::vector<float> b_buffer;
  const float *b_data = asFloats(b.as<const T>(), static_cast<std::size_t>(k_local * N), b_buffer);
  T *c_data = c.as<T>();
  auto partial_block = [&](int src) { return static_cast<float *>(ctx.scratch()) + src * m_block * N; };
  auto tile_signal = [&](int src, int chunk, std::int64_t column) {
    return ctx.slot(static_cast<int>((static_cast<std::int64_t>(src) * chunks + chunk) * column_tiles + column));
  };
  auto column_span = [&](std::int64_t column) {
    const std::int64_t c0 = column * config.tile_n;
    return Span{c0, std::min<std::int64_t>(N, c0 + config.tile_n)};
  };

  auto notify_owner = [&](int owner, float *dest, const float *tile, std::size_t bytes, std::uint64_t *signal) {
    if (bytes == 0) sh::signal_op<std::uint64_t>(signal, epoch, sh::SignalOp::Set, owner);
    else sh::putmem_signal<std::uint64_t>(dest, tile, bytes, signal, epoch, sh::SignalOp::Set, owner);
  };
  // Per program: the f32 partial tile to push, and bf16 rows of A converted (unused for f32).
  struct Buffers {
    std::vector<float> staging, rows;
  };
  auto partial = [&](int owner, int chunk, std::int64_t column, Buffers &buffer) {
    std::vector<float> &staging = buffer.staging;
    const Span rows = part(m_block, chunks, chunk), cols = column_span(column);
    const std::int64_t w = cols.size();
    float *slot_block = partial_block(me);  // partial[me] of owner's scratch (the same offset here)
    std::uint64_t *signal = tile_signal(me, chunk, column);
    if (rows.size() == 0 || w == 0) return notify_owner(owner, nullptr, nullptr, 0, signal);
    for (std::int64_t t0 = rows.begin; t0 < rows.end; t0 += config.tile_m) {
      const std::int64_t h = std::min<std::int64_t>(config.tile_m, rows.end - t0);
      const bool last = t0 + h == rows.end;
      const float *a_rows =
          asFloats(a_data + (owner * m_block + t0) * k_local, static_cast<std::size_t>(h * k_local), buffer.rows);
      float *dest = slot_block + t0 * N + h * cols.begin;
      const std::size_t bytes = static_cast<std::size_t>(h * w) * sizeof(float);
      if (owner == me) {
        // The own partial goes straight into the own scratch; the signal's release store
        // publishes it to this PE's reducing programs.
        mma_tile(h, w, k_local, a_rows, b_data + cols.begin, N, dest, w);
        if (last) notify_owner(me, nullptr, nullptr, 0, signal);
        continue;
      }
      staging.resize(static_cast<std::size_t>(h * w));
      tdist::trace::Span span(tdist::trace::Category::Compute, "gemm_tile", static_cast<int>(t0),
                              static_cast<int>(cols.begin));
      mma_tile(h, w, k_local, a_rows, b_data + cols.begin, N, staging.data(), w);
      if (!last) {
        sh::putmem(dest, staging.data(), bytes, owner);
      } else {
        sh::fence();  // the earlier tiles' puts land before the signal of the last
        notify_owner(owner, dest, staging.data(), bytes, signal);
      }
    }
  };
  auto wait_partial = [&](int src, int chunk, std::int64_t column) {
    tdist::trace::Span span(tdist::trace::Category::Wait, "wait_partial", src, chunk);
    return dl::Token{sh::signal_wait_until<std::uint64_t>(tile_signal(src, chunk, column), sh::Cmp::GE, epoch)};
  };
  // The sum goes into `sum` (rows of ld elements): C itself for f32, an f32 block for bf16.
  auto reduce_tile = [&](const float *tile, float *sum, std::int64_t ld, std::int64_t h, std::int64_t w, bool first) {
    for (std::int64_t r = 0; r < h; ++r) {
      float *out = sum + r * ld;
      const float *in = tile + r * w;
      if (first) std::memcpy(out, in, static_cast<std::size_t>(w) * sizeof(float));
      else for (std::int64_t j = 0; j < w; ++j) out[j] += in[j];
    }
  };
  auto reduce = [&](int chunk, std::int64_t column, Buffers &buffer) {
    const Span rows = part(m_block, chunks, chunk), cols = column_span(column);
    const std::int64_t w = cols.size();
    float *sum = nullptr;
    std::int64_t ld = N;
    if constexpr (std::is_same_v<T, float>) {
      sum = c_data + rows.begin * N + cols.begin;
    } else {
      buffer.staging.resize(static_cast<std::size_t>(rows.size() * w));
      sum = buffer.staging.data();
      ld = w;
    }
    for (int src = 0; src < n_pes; ++src) {
      const dl::Token token = wait_partial(src, chunk, column);
      const float *block = dl::consume_token(static_cast<const float *>(partial_block(src)), token);
      for (std::int64_t t0 = rows.begin; t0 < rows.end; t0 += config.tile_m) {
        const std::int64_t h = std::min<std::int64_t>(config.tile_m, rows.end - t0);
        reduce_tile(block + t0 * N + h * cols.begin, sum + (t0 - rows.begin) * ld, ld, h, w, src == 0);
      }
    }
    if constexpr (!std::is_same_v<T, float>) {
      storeRows(rows.size(), w, sum, ld, c_data + rows.begin * N + cols.begin, N);
    }
  };

  const std::size_t own_items = static_cast<std::size_t>(chunks) * column_tiles;
  const std::size_t partial_items = static_cast<std::size_t>(n_pes) * own_items;
  const std::size_t items = partial_items + own_items;
  const int programs = programCount(config.programs, items);
  std::vector<Buffers> buffers(programs);
  runItems(programs, items, [&](std::size_t i) {
    const std::size_t local = i % own_items;
    const int chunk = static_cast<int>(local / column_tiles);
    const std::int64_t column = static_cast<std::int64_t>(local % column_tiles);
    Buffers &buffer = buffers[dl::program_id(0)];
    if (i >= partial_items) return reduce(chunk, column, buffer);
    const int owner = (me + 1 + static_cast<int>(i / own_items)) % n_pes;
    partial(owner, chunk, column, buffer);
  });
}

}  // namespace

void gemmReduceScatter(Context &ctx, const GemmReduceScatterCall &call) {
  const auto &[a, b, c, config] = call;
  const std::uint64_t epoch = nextEpoch(ctx);
  byGemmDtype(a.dtype, [&](auto type) { gemmReduceScatterTyped<decltype(type)>(ctx, a, b, c, config, epoch); });
}

}  // namespace tdist::kernels::cpu
