// tdist/kernels/tuning.h - the tuning table that the kernels' Auto choices read, and the configs
// they resolve to.
//
// A table (docs/TUNING.md) is a text file written by tdist-tune for one backend and one device:
// a line per kernel, PE count and size with the config that measured fastest there. A Context
// reads it once, when it is created (ContextOptions::tuning_table, else TDIST_TUNE_TABLE, else
// tuning_table_path()'s default). Every field of a call's config left at Auto (an Auto enum,
// chunk_bytes / chunks_per_pe / tile_m / tile_n / programs / tile_swizzle of 0) then takes the
// value of the table's entry for the call: the same kernel, PE count and node count (GEMMs: the
// same dtype, k and n) whose size (collectives: bytes of each PE's input; GEMMs: m, a's rows) is the largest at
// or below the call's. With no table, no such entry, or a table of another backend or device,
// Auto is the library's own choice, as without tuning.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tdist/kernels/collectives.h"
#include "tdist/kernels/gemm.h"

#pragma GCC visibility push(default)

namespace tdist::kernels {

// One line of a table: a kernel at a PE count and a size, and the config fields it sets.
struct TuningEntry {
  std::string kernel;                // all_reduce, all_gather, reduce_scatter, all_gather_gemm, gemm_reduce_scatter
  int pes = 0;                       // the PE count it was measured at
  int nodes = 1;                     // and the nodes they were on (tdist::nNodes(); 1: one host)
  std::int64_t bytes = 0;            // collectives: bytes of each PE's input
  std::string dtype;                 // GEMMs: f32 or bf16 (empty for the collectives)
  std::int64_t m = 0, n = 0, k = 0;  // GEMMs: a is [m, k], b is [k, n] on each PE
  std::vector<std::pair<std::string, std::string>> fields;  // config field, value (as in the file)
  std::string note;  // the line's trailing comment, without "#" (tdist-tune: the times)
};

struct TuningTable {
  std::string backend;  // "cpu", "cuda"
  std::string device;   // tuning_device() of the machine it was measured on
  std::vector<TuningEntry> entries;

  // Throws Error(InvalidParam) "<source>:<line>: <what is wrong>" for a malformed table.
  static TuningTable parse(const std::string &text, const std::string &source);
  // std::nullopt when `path` does not exist; throws as parse(), or when it cannot be read.
  static std::optional<TuningTable> load(const std::string &path);
  std::string format() const;  // parse(format()) holds the same table
  // Writes format() to path (through a file beside it, renamed), creating its folder.
  void save(const std::string &path) const;
  // Adds `entry`, in place of the one with the same kernel, PEs and size (and dtype, n, k).
  void put(const TuningEntry &entry);
  // The entry of a call (the rule above), or null: `call`'s kernel, pes, nodes and size (bytes, or
  // the GEMMs' m), and the GEMMs' dtype, n and k; its fields are not read.
  const TuningEntry *lookup(const TuningEntry &call) const;
  // The same for a call on one node. dtype, m, n, k only for the GEMMs.
  const TuningEntry *lookup(const std::string &kernel, int pes, std::int64_t bytes, const std::string &dtype = "",
                            std::int64_t m = 0, std::int64_t n = 0, std::int64_t k = 0) const;
};

// Where a Context looks for its table when ContextOptions::tuning_table is empty:
// TDIST_TUNE_TABLE when set ("none": no table), else $XDG_CACHE_HOME/tdist/tune-table.txt, else
// $HOME/.cache/tdist/tune-table.txt ("none" when neither variable is set).
std::string tuning_table_path();
// After init: this PE's device as a table names it: on cpu "<CPU model>, <n> cores", on cuda the
// GPU's name.
std::string tuning_device();

// The config a call with `config` runs with on ctx: every Auto field resolved (from the context's
// table, else the library's own choice). For benchmarks, tools and tests; the kernels resolve the
// same way. Only the tensors' dtypes and shapes are read.
AllReduceConfig resolved_config(const Context &ctx, const Tensor &input, const AllReduceConfig &config);
AllGatherConfig resolved_config(const Context &ctx, const Tensor &input, const AllGatherConfig &config);
ReduceScatterConfig resolved_config(const Context &ctx, const Tensor &input, const ReduceScatterConfig &config);
AllGatherGemmConfig resolved_config(const Context &ctx, const Tensor &a, const Tensor &b,
                                    const AllGatherGemmConfig &config);
GemmReduceScatterConfig resolved_config(const Context &ctx, const Tensor &a, const Tensor &b,
                                        const GemmReduceScatterConfig &config);

}  // namespace tdist::kernels

#pragma GCC visibility pop
