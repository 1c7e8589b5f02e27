// options.h - the command line of tdist-tune (options.cpp reads it with CLI11, as tdist-bench does).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tdist::tune {

// A GEMM shape: the global C [m, n] = A [m, k] x B [k, n], as tdist-bench's --m --n --k.
struct GemmShape {
  long m = 0, n = 0, k = 0;
};

struct Options {
  // all_reduce, all_gather, reduce_scatter, all_gather_gemm, gemm_reduce_scatter, in this order.
  std::vector<std::string> kernels = {"all_reduce"};
  // The collectives' sizes: bytes of each PE's input, min_size * size_factor^i <= max_size.
  std::size_t min_size = 16u << 10;
  std::size_t max_size = 4u << 20;
  unsigned size_factor = 4;
  std::vector<GemmShape> shapes = {{1024, 1024, 512}};
  std::string dtype = "f32";
  // The candidates. Empty algorithms / engines / strategies: the backend's (cpu: every algorithm,
  // the one engine, the one GEMM form; cuda: also sm and ce, decomposed and fused).
  std::vector<std::string> algorithms;
  std::vector<std::size_t> chunks = {16u << 10, 64u << 10, 256u << 10, 1u << 20, 4u << 20};
  std::vector<int> programs = {0};
  std::vector<std::string> engines;
  std::vector<std::string> strategies;
  std::vector<int> chunks_per_pe = {1, 2, 4, 8};
  std::vector<GemmShape> tiles = {{512, 1024, 0}, {256, 512, 0}, {128, 256, 0}};  // tile_m x tile_n (cpu)
  int repeats = 5;
  int min_gain_percent = 3;  // a candidate replaces today's choice only if this much faster, twice
  long iters = 0;    // 0: collectives --kernel-bytes / size (2 .. 1000), GEMMs 2
  long warmup = -1;  // -1: one repeat's worth
  std::size_t kernel_bytes = 32u << 20;
  std::string table;     // "" = tdist::kernels::tuning_table_path()
  bool dry_run = false;  // measure and print, write nothing
  bool compare = false;  // then Auto with the table against Auto without
  bool no_tune = false;  // only the comparison, with the table as it is
  bool show_help = false;
};

// Throws std::invalid_argument naming the bad flag.
Options parseOptions(int argc, char **argv);
std::string usage(const char *program);

// The collectives' sizes of options.
std::vector<std::size_t> collectiveSizes(const Options &options);

}  // namespace tdist::tune
