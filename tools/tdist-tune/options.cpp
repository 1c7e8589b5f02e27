// options.cpp - tdist-tune's command line: CLI11 through common/command_line.h, every value read by
// common/value_parser.h, as tdist-bench and tdist-run read theirs.
#include "options.h"

#include <algorithm>
#include <climits>
#include <memory>
#include <stdexcept>

#include "common/command_line.h"

namespace tdist::tune {
namespace {

constexpr const char *kKernels[] = {"all_reduce", "all_gather", "reduce_scatter", "all_gather_gemm",
                                    "gemm_reduce_scatter"};

// "a,b,c" -> each item through parse_one; the list's error names the item.
template <class T, class ParseOne>
values::Parsed<std::vector<T>> parseList(std::string_view text, ParseOne parse_one) {
  std::vector<T> items;
  while (true) {
    const auto comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    auto parsed = parse_one(item);
    if (!parsed) return {.value = std::nullopt, .error = "'" + std::string(item) + "': " + parsed.error};
    items.push_back(*parsed.value);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return {.value = items, .error = {}};
}

template <std::size_t N>
auto wordOf(const char *const (&known)[N]) {
  return [&known](std::string_view text) -> values::Parsed<std::string> {
    for (const char *word : known)
      if (text == word) return {.value = std::string(text), .error = {}};
    std::string list;
    for (const char *word : known) list += std::string(list.empty() ? "" : ", ") + word;
    return {.value = std::nullopt, .error = "expected one of " + list};
  };
}

constexpr const char *kAlgorithms[] = {"one-shot", "two-shot", "ring"};
constexpr const char *kEngines[] = {"auto", "sm", "ce"};
constexpr const char *kStrategies[] = {"auto", "decomposed", "fused"};
constexpr const char *kDtypes[] = {"f32", "bf16"};

values::Parsed<std::uint64_t> chunkSize(std::string_view text) {
  return values::parseSize(text, {.min = 4096, .max = std::uint64_t{1} << 30});
}
values::Parsed<std::uint64_t> benchSize(std::string_view text) {
  return values::parseSize(text, {.min = 1, .max = std::uint64_t{1} << 40});
}

template <long long min, long long max>
values::Parsed<long long> inRange(std::string_view text) {
  return values::parseInteger(text, {.min = min, .max = max});
}

template <long long min, long long max>
values::Parsed<int> intIn(std::string_view text) {
  auto parsed = values::parseInteger(text, {.min = min, .max = max});
  if (!parsed) return {.value = std::nullopt, .error = parsed.error};
  return {.value = static_cast<int>(*parsed.value), .error = {}};
}

// "MxN" or "MxNxK" of positive integers.
template <int Parts>
values::Parsed<GemmShape> shapeOf(std::string_view text) {
  long dims[3] = {0, 0, 0};
  int count = 0;
  while (count < Parts) {
    const auto x = text.find('x');
    auto parsed = values::parseInteger(text.substr(0, x), {.min = 1, .max = INT_MAX});
    if (!parsed) break;
    dims[count++] = static_cast<long>(*parsed.value);
    if (x == std::string_view::npos) break;
    text.remove_prefix(x + 1);
  }
  if (count != Parts) {
    return {.value = std::nullopt,
            .error = Parts == 3 ? "expected MxNxK (positive integers)" : "expected MxN (positive integers)"};
  }
  return {.value = GemmShape{dims[0], dims[1], dims[2]}, .error = {}};
}

void describe(CLI::App &app, Options &options, const std::string &program) {
  using command_line::addFlag;
  using command_line::addParsedOption;
  app.set_help_flag();
  app.description(
      "Measures the candidate configs of the kernel library's kernels for the given sizes and shapes on "
      "this machine, checks each once against a host reference, and writes the fastest of each (median "
      "of the repeats, the slowest PE's time per repeat) into the tuning table that Auto reads "
      "(docs/TUNING.md).");
  auto formatter =
      std::make_shared<command_line::UsageFirstFormatter>("usage: tdist-run -n N -- " + program + " [flags]\n");
  formatter->column_width(22);
  app.formatter(formatter);
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  addParsedOption(
      app, "--kernels", "LIST", options.kernels,
      [](std::string_view t) { return parseList<std::string>(t, wordOf(kKernels)); },
      "all_reduce, all_gather, reduce_scatter, all_gather_gemm, gemm_reduce_scatter (all_reduce)");
  addParsedOption(app, "--min-size", "S", options.min_size, benchSize, "collectives: smallest bytes per PE (16K)");
  addParsedOption(app, "--max-size", "S", options.max_size, benchSize, "collectives: largest bytes per PE (4M)");
  addParsedOption(app, "--size-factor", "F", options.size_factor, inRange<2, 1024>,
                  "collectives: ratio of one size to the next (4)");
  addParsedOption(
      app, "--gemm", "LIST", options.shapes, [](std::string_view t) { return parseList<GemmShape>(t, shapeOf<3>); },
      "GEMMs: MxNxK shapes of the global C [M, N] = A [M, K] x B [K, N] (1024x1024x512)");
  addParsedOption(app, "--dtype", "f32|bf16", options.dtype, wordOf(kDtypes), "the tensors' dtype (f32)");
  addParsedOption(
      app, "--algorithms", "LIST", options.algorithms,
      [](std::string_view t) { return parseList<std::string>(t, wordOf(kAlgorithms)); },
      "all_reduce candidates (one-shot,two-shot,ring)");
  addParsedOption(
      app, "--chunks", "LIST", options.chunks,
      [](std::string_view t) { return parseList<std::uint64_t>(t, chunkSize); },
      "collectives: chunk_bytes candidates (16K,64K,256K,1M,4M)");
  addParsedOption(
      app, "--programs", "LIST", options.programs, [](std::string_view t) { return parseList<int>(t, intIn<0, 1024>); },
      "programs candidates, every kernel (0)");
  addParsedOption(
      app, "--engines", "LIST", options.engines,
      [](std::string_view t) { return parseList<std::string>(t, wordOf(kEngines)); },
      "all_gather / reduce_scatter engines (cpu: auto; cuda: sm,ce)");
  addParsedOption(
      app, "--strategies", "LIST", options.strategies,
      [](std::string_view t) { return parseList<std::string>(t, wordOf(kStrategies)); },
      "GEMM strategies (cpu: auto; cuda: decomposed,fused)");
  addParsedOption(
      app, "--chunks-per-pe", "LIST", options.chunks_per_pe,
      [](std::string_view t) { return parseList<int>(t, intIn<1, 64>); }, "GEMM chunks_per_pe candidates (1,2,4,8)");
  addParsedOption(
      app, "--tiles", "LIST", options.tiles, [](std::string_view t) { return parseList<GemmShape>(t, shapeOf<2>); },
      "cpu GEMM tile_m x tile_n candidates (512x1024,256x512,128x256)");
  addParsedOption(app, "--repeats", "R", options.repeats, inRange<1, 1000>, "timed repeats (5)");
  addParsedOption(app, "--min-gain", "PERCENT", options.min_gain_percent, inRange<0, 100>,
                  "how much faster than today's choice a candidate must be, in the search and again timed "
                  "alone against it, to replace it (3)");
  addParsedOption(app, "--iters", "K", options.iters, inRange<1, 1000000>,
                  "calls per repeat (collectives: --kernel-bytes / size, 2..1000; GEMMs: 2)");
  addParsedOption(app, "--warmup", "W", options.warmup, inRange<0, 1000000>,
                  "untimed calls of each candidate first (one repeat's worth)");
  addParsedOption(app, "--kernel-bytes", "B", options.kernel_bytes, benchSize,
                  "collectives: input bytes per repeat when --iters is not given (32M)");
  addParsedOption(
      app, "--table", "PATH", options.table,
      [](std::string_view t) -> values::Parsed<std::string> {
        if (t.empty() || t == "none") return {.value = std::nullopt, .error = "expected a file's path"};
        return {.value = std::string(t), .error = {}};
      },
      "the table to write or merge into (TDIST_TUNE_TABLE, else the user's cache folder)");
  addFlag(app, "--dry-run", options.dry_run, "measure and print; write no table");
  addFlag(app, "--compare", options.compare,
          "then time Auto with the table against Auto without it, alternating, per size");
  addFlag(app, "--no-tune", options.no_tune, "measure nothing new: only --compare, with the table as it is");
  addFlag(app, "-h,--help", options.show_help, "show this help");
}

}  // namespace

Options parseOptions(int argc, char **argv) {
  Options options;
  CLI::App app;
  describe(app, options, argv[0]);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &error) {
    throw std::invalid_argument(error.what());
  }
  if (options.show_help) return options;
  if (options.min_size > options.max_size) throw std::invalid_argument("--min-size must be at most --max-size");
  if (options.no_tune && !options.compare) throw std::invalid_argument("--no-tune needs --compare");
  if (options.no_tune && options.dry_run) throw std::invalid_argument("--no-tune and --dry-run: nothing to do");
  if (options.compare && options.dry_run) {
    throw std::invalid_argument("--compare reads the table that the run writes: drop --dry-run");
  }
  return options;
}

std::string usage(const char *program) {
  Options unused;
  CLI::App app;
  describe(app, unused, program);
  return app.help();
}

std::vector<std::size_t> collectiveSizes(const Options &options) {
  std::vector<std::size_t> sizes;
  for (std::size_t size = options.min_size; size <= options.max_size; size *= options.size_factor)
    sizes.push_back(size);
  return sizes;
}

}  // namespace tdist::tune
