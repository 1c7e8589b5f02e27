// The tuning table (tdist/kernels/tuning.h, docs/TUNING.md): a Context reads it once, Auto fields
// follow its entries (the largest size at or below the call's), a missing table keeps the
// library's own choices, a malformed one fails the Context on every PE naming the file and line,
// one of another backend or device is ignored with one note, and PEs that read different tables
// cannot create a Context. Every PE runs these tests under tdist-run, each with its own copy of a
// table (the PEs compare what they read, not where).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tdist/kernels/collectives.h"
#include "tdist/kernels/gemm.h"
#include "tdist/kernels/tuning.h"
#include "test/kernels/tensor_io.h"

namespace tdist::kernels::testing {
namespace {

// A folder of this PE's own, removed at the end of the test.
class TableFolder {
 public:
  TableFolder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "tdist-tuning-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + pattern);
    path_ = pattern;
  }
  ~TableFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string &path() const { return path_; }
  // Writes text into the file `name` of the folder; returns its path.
  std::string write(const std::string &name, const std::string &text) const {
    const std::string file = path_ + "/" + name;
    std::ofstream(file) << text;
    return file;
  }

 private:
  std::string path_;
};

std::string header(const std::string &backend, const std::string &device) {
  return "tdist-tune-table 1\nbackend " + backend + "\ndevice " + device + "\n";
}
std::string thisMachine() { return header(backendName(), tuning_device()); }

ContextOptions reading(const std::string &table) {
  ContextOptions options;
  options.scratch_bytes = 1u << 20;
  options.max_signals = 256;
  options.tuning_table = table;
  return options;
}

// Restores an environment variable at the end of a test.
class ScopedEnv {
 public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name)) old_ = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char *name_;
  std::optional<std::string> old_;
};

Tensor shaped(std::vector<std::int64_t> shape, DType dtype = DType::F32) {
  Tensor t;
  t.dtype = dtype;
  t.shape = shape;
  return t;
}

// The library's choices without a table, on this many PEs.
void expectTodaysChoices(const Context &ctx) {
  const AllReduceAlgorithm builtin = nPes() == 1 ? AllReduceAlgorithm::OneShot : AllReduceAlgorithm::TwoShot;
  for (std::size_t bytes : {std::size_t{4096}, std::size_t{1} << 20, std::size_t{64} << 20}) {
    EXPECT_EQ(chooseAllReduce(ctx, bytes), builtin) << bytes;
  }
  const AllReduceConfig all_reduce = resolved_config(ctx, shaped({1 << 14}), AllReduceConfig{});
  EXPECT_EQ(all_reduce.algorithm, builtin);
  EXPECT_EQ(all_reduce.chunk_bytes, 256u << 10);
  EXPECT_EQ(all_reduce.programs, 0);
  const AllGatherConfig all_gather = resolved_config(ctx, shaped({1 << 14}), AllGatherConfig{});
  EXPECT_EQ(all_gather.chunk_bytes, 256u << 10);
  EXPECT_EQ(all_gather.engine, AllGatherConfig::Engine::Auto);
  const GemmReduceScatterConfig gemm =
      resolved_config(ctx, shaped({256, 128}), shaped({128, 512}), GemmReduceScatterConfig{});
  EXPECT_EQ(gemm.chunks_per_pe, 1);
  EXPECT_EQ(gemm.tile_m, 512);
  EXPECT_EQ(gemm.tile_n, 1024);
  EXPECT_EQ(gemm.strategy, GemmStrategy::Auto);
  const AllGatherGemmConfig gather_gemm =
      resolved_config(ctx, shaped({256, 128}, DType::BF16), shaped({128, 512}, DType::BF16), AllGatherGemmConfig{});
  EXPECT_EQ(gather_gemm.tile_raster, GemmRaster::AlongN);
  EXPECT_EQ(gather_gemm.tile_swizzle, 1);
}

// An all_reduce of 1s on ctx: every element must be n_pes.
void expectAllReduceWorks(Context &ctx, std::int64_t count) {
  HeapTensor t({count}, DType::F32);
  writeTensor(*t, std::vector<float>(count, 1.0f));
  all_reduce(ctx, *t, *t);
  EXPECT_EQ(readTensor<float>(ctx, *t), std::vector<float>(count, static_cast<float>(nPes())));
}

// Entries for this PE count (after init).
std::string entries() {
  const std::string pes = "pes=" + std::to_string(nPes());
  return "all_reduce " + pes + " bytes=16384 algorithm=one-shot chunk_bytes=8192 programs=1\n" + "all_reduce " + pes +
         " bytes=1048576 algorithm=ring chunk_bytes=131072  # a note\n" + "all_gather " + pes +
         " bytes=4096 chunk_bytes=4096 programs=2 engine=sm\n" + "gemm_reduce_scatter " + pes +
         " dtype=f32 m=256 n=512 k=128 strategy=decomposed chunks_per_pe=2 tile_m=64 tile_n=128 programs=0\n" +
         "all_gather_gemm " + pes +
         " dtype=bf16 m=256 n=512 k=128 strategy=fused tile_raster=along_m tile_swizzle=4\n" +
         "all_gather_gemm " + pes + " dtype=bf16 m=1024 n=512 k=128 tile_raster=auto tile_swizzle=0\n";
}

TEST(TuningTable, AutoFollowsTheEntryAtOrBelowTheCallsSize) {
  TableFolder folder;
  const std::string path = folder.write("table.txt", "# hand-written\n" + thisMachine() + entries());
  Context ctx(reading(path));
  EXPECT_EQ(ctx.tuning_table(), path);
  // Below the smallest entry: the library's own choice.
  EXPECT_EQ(chooseAllReduce(ctx, 8192), nPes() == 1 ? AllReduceAlgorithm::OneShot : AllReduceAlgorithm::TwoShot);
  EXPECT_EQ(chooseAllReduce(ctx, 16384), AllReduceAlgorithm::OneShot);
  EXPECT_EQ(chooseAllReduce(ctx, 65536), AllReduceAlgorithm::OneShot);  // between: the one below
  EXPECT_EQ(chooseAllReduce(ctx, 1 << 20), AllReduceAlgorithm::Ring);
  EXPECT_EQ(chooseAllReduce(ctx, 64 << 20), AllReduceAlgorithm::Ring);
  const AllReduceConfig small = resolved_config(ctx, shaped({1 << 14}), AllReduceConfig{});  // 64 KiB
  EXPECT_EQ(small.algorithm, AllReduceAlgorithm::OneShot);
  EXPECT_EQ(small.chunk_bytes, 8192u);
  EXPECT_EQ(small.programs, 1);
  const AllReduceConfig large = resolved_config(ctx, shaped({1 << 18}), AllReduceConfig{});  // 1 MiB
  EXPECT_EQ(large.algorithm, AllReduceAlgorithm::Ring);
  EXPECT_EQ(large.chunk_bytes, 131072u);
  EXPECT_EQ(large.programs, 0);
  // What the caller set is never replaced.
  const AllReduceConfig mine =
      resolved_config(ctx, shaped({1 << 14}),
                      AllReduceConfig{.algorithm = AllReduceAlgorithm::TwoShot, .chunk_bytes = 4096, .programs = 3});
  EXPECT_EQ(mine.algorithm, AllReduceAlgorithm::TwoShot);
  EXPECT_EQ(mine.chunk_bytes, 4096u);
  EXPECT_EQ(mine.programs, 3);
  const AllGatherConfig gather = resolved_config(ctx, shaped({1024}), AllGatherConfig{});
  EXPECT_EQ(gather.chunk_bytes, 4096u);
  EXPECT_EQ(gather.programs, 2);
  EXPECT_EQ(gather.engine, AllGatherConfig::Engine::Sm);
  // GEMMs: the same dtype, n and k; the largest m at or below.
  const GemmReduceScatterConfig gemm =
      resolved_config(ctx, shaped({512, 128}), shaped({128, 512}), GemmReduceScatterConfig{});
  EXPECT_EQ(gemm.strategy, GemmStrategy::Decomposed);
  EXPECT_EQ(gemm.chunks_per_pe, 2);
  EXPECT_EQ(gemm.tile_m, 64);
  EXPECT_EQ(gemm.tile_n, 128);
  const GemmReduceScatterConfig other_n =
      resolved_config(ctx, shaped({512, 128}), shaped({128, 256}), GemmReduceScatterConfig{});
  EXPECT_EQ(other_n.chunks_per_pe, 1);
  EXPECT_EQ(other_n.tile_m, 512);
  // The fused GEMM's tile order: the table's, what the caller set, the library's where the entry
  // says auto (or 0) or there is none.
  const auto expectOrder = [&ctx](std::int64_t m, std::int64_t n, const AllGatherGemmConfig &given,
                                  GemmRaster raster, int swizzle, const char *what) {
    const AllGatherGemmConfig r =
        resolved_config(ctx, shaped({m, 128}, DType::BF16), shaped({128, n}, DType::BF16), given);
    EXPECT_EQ(r.strategy, m == 512 && n == 512 ? GemmStrategy::Fused : GemmStrategy::Auto) << what;
    EXPECT_EQ(r.tile_raster, raster) << what;
    EXPECT_EQ(r.tile_swizzle, swizzle) << what;
  };
  expectOrder(512, 512, {}, GemmRaster::AlongM, 4, "the table's");
  expectOrder(512, 512, {.tile_raster = GemmRaster::AlongN, .tile_swizzle = 8}, GemmRaster::AlongN, 8, "set");
  expectOrder(512, 512, {.tile_swizzle = 2}, GemmRaster::AlongM, 2, "the swizzle set, the raster the table's");
  expectOrder(1024, 512, {}, GemmRaster::AlongN, 1, "the entry's auto and 0");
  expectOrder(512, 256, {}, GemmRaster::AlongN, 1, "no entry");
  // The calls run with what the table says, and get the same sums.
  expectAllReduceWorks(ctx, 1 << 14);
  expectAllReduceWorks(ctx, 1 << 18);
  expectAllReduceWorks(ctx, 100);
}

TEST(TuningTable, WithoutATableAutoKeepsTheLibrarysChoices) {
  TableFolder folder;
  {
    Context none(reading("none"));
    EXPECT_EQ(none.tuning_table(), "");
    expectTodaysChoices(none);
  }
  {
    Context missing(reading(folder.path() + "/no-such-table.txt"));
    EXPECT_EQ(missing.tuning_table(), "");
    expectTodaysChoices(missing);
    expectAllReduceWorks(missing, 1 << 14);
  }
  {
    // The default place, in a cache folder with no table.
    ScopedEnv env("TDIST_TUNE_TABLE", nullptr);
    ScopedEnv cache("XDG_CACHE_HOME", folder.path().c_str());
    Context missing(reading(""));
    EXPECT_EQ(missing.tuning_table(), "");
    expectTodaysChoices(missing);
  }
}

TEST(TuningTable, TheEnvironmentThenTheCacheFolderNameTheTable) {
  TableFolder folder;
  const std::string table = thisMachine() + entries();
  const std::string named = folder.write("named.txt", table);
  {
    ScopedEnv env("TDIST_TUNE_TABLE", named.c_str());
    EXPECT_EQ(tuning_table_path(), named);
    Context ctx(reading(""));
    EXPECT_EQ(ctx.tuning_table(), named);
    EXPECT_EQ(chooseAllReduce(ctx, 1 << 20), AllReduceAlgorithm::Ring);
  }
  {
    ScopedEnv env("TDIST_TUNE_TABLE", nullptr);
    ScopedEnv cache("XDG_CACHE_HOME", folder.path().c_str());
    const std::string expected = folder.path() + "/tdist/tune-table.txt";
    EXPECT_EQ(tuning_table_path(), expected);
    TuningTable::parse(table, "text").save(expected);  // creates tdist/
    Context ctx(reading(""));
    EXPECT_EQ(ctx.tuning_table(), expected);
    EXPECT_EQ(chooseAllReduce(ctx, 1 << 20), AllReduceAlgorithm::Ring);
  }
  {
    ScopedEnv env("TDIST_TUNE_TABLE", nullptr);
    ScopedEnv cache("XDG_CACHE_HOME", nullptr);
    ScopedEnv home("HOME", folder.path().c_str());
    EXPECT_EQ(tuning_table_path(), folder.path() + "/.cache/tdist/tune-table.txt");
  }
}

TEST(TuningTable, AMalformedTableFailsTheContextOnEveryPeNamingFileAndLine) {
  TableFolder folder;
  const std::string path =
      folder.write("bad.txt", thisMachine() + "all_reduce pes=2 bytes=4096 algorithm=one-shot chunk=65536\n");
  try {
    Context ctx(reading(path));
    ADD_FAILURE() << "PE " << myPe() << ": a malformed table was read";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidParam) << e.what();
    const std::string message = e.what();
    EXPECT_NE(message.find("tuning table " + path +
                           ":4: unknown field 'chunk' for all_reduce (expected algorithm, "
                           "chunk_bytes, programs)"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("TDIST_TUNE_TABLE=none"), std::string::npos) << message;
  }
  // Nothing was left half made: the next context works.
  Context ctx(reading("none"));
  expectAllReduceWorks(ctx, 1000);
}

TEST(TuningTable, ParseErrorsNameTheLineAndWhatIsWrong) {
  const auto errorOf = [](const std::string &text) -> std::string {
    try {
      TuningTable::parse(text, "t.txt");
    } catch (const Error &e) {
      return e.what();
    }
    return "no error";
  };
  const std::string head = header("cpu", "X, 2 cores");
  EXPECT_NE(errorOf("backend cpu\n").find("t.txt:1: expected the first line 'tdist-tune-table 1'"), std::string::npos);
  EXPECT_NE(errorOf("tdist-tune-table 2\n").find("t.txt:1: version 2 of the table format"), std::string::npos);
  EXPECT_NE(errorOf("tdist-tune-table 1\nbackend cpu\n").find("no 'backend' or no 'device' line"), std::string::npos);
  EXPECT_NE(errorOf(head + "all_scatter pes=2 bytes=1\n").find("t.txt:4: unknown kernel 'all_scatter'"),
            std::string::npos);
  EXPECT_NE(errorOf(head + "all_reduce pes=2 bytes=4096 algorithm=three-shot\n")
                .find("t.txt:4: algorithm=three-shot: expected one of auto, one-shot, two-shot, ring"),
            std::string::npos);
  EXPECT_NE(errorOf(head + "all_reduce pes=2 bytes=4096 chunk_bytes=100\n")
                .find("t.txt:4: chunk_bytes=100: expected an integer in 4096 .. 1073741824"),
            std::string::npos);
  EXPECT_NE(errorOf(head + "all_reduce bytes=4096\n").find("t.txt:4: all_reduce needs pes="), std::string::npos);
  EXPECT_NE(errorOf(head + "all_reduce pes=2 nodes=3 bytes=4096\n").find("t.txt:4: nodes=3: more nodes than pes=2"),
            std::string::npos);
  EXPECT_NE(errorOf(head + "all_reduce pes=2 nodes=0 bytes=4096\n")
                .find("t.txt:4: nodes=0: expected an integer in 1 .. 1048576"),
            std::string::npos);
  EXPECT_NE(errorOf(head + "all_reduce pes=2 bytes=4096\n\nall_reduce pes=2 bytes=4096\n")
                .find("t.txt:6: a second entry for all_reduce pes=2 bytes=4096"),
            std::string::npos);
  EXPECT_NE(errorOf(head + "all_gather_gemm pes=2 dtype=f16 m=1 n=1 k=1\n").find("t.txt:4: dtype=f16"),
            std::string::npos);
  // The tile order: its words, and AllGather + GEMM's only.
  for (const auto &[line, what] : std::vector<std::pair<std::string, std::string>>{
           {"all_gather_gemm pes=2 dtype=bf16 m=1 n=8 k=8 tile_raster=along_k",
            "tile_raster=along_k: expected one of auto, along_n, along_m"},
           {"all_gather_gemm pes=2 dtype=bf16 m=1 n=8 k=8 tile_swizzle=3",
            "tile_swizzle=3: expected one of 0, 1, 2, 4, 8"},
           {"gemm_reduce_scatter pes=2 dtype=bf16 m=1 n=8 k=8 tile_raster=along_m",
            "unknown field 'tile_raster' for gemm_reduce_scatter (expected strategy, chunks_per_pe, tile_m, tile_n, "
            "programs)"}}) {
    const std::string message = errorOf(head + line + "\n");
    EXPECT_NE(message.find("t.txt:4: " + what), std::string::npos) << message;
  }
}

TEST(TuningTable, FormatParsesBackAndPutReplacesTheSameKey) {
  TuningTable table = TuningTable::parse(header("cpu", "X, 2 cores") + entries(), "t.txt");
  ASSERT_EQ(table.entries.size(), 6u);
  EXPECT_EQ(table.entries[1].note, "a note");
  TuningEntry replaced = table.entries[0];
  replaced.fields = {{"algorithm", "ring"}};
  table.put(replaced);
  ASSERT_EQ(table.entries.size(), 6u);
  const TuningTable again = TuningTable::parse(table.format(), "formatted");
  EXPECT_EQ(again.format(), table.format());
  EXPECT_EQ(again.device, "X, 2 cores");
  const TuningEntry *entry = again.lookup("all_reduce", nPes(), 20000);
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->fields, (std::vector<std::pair<std::string, std::string>>{{"algorithm", "ring"}}));
  EXPECT_EQ(again.lookup("all_reduce", nPes() + 1, 20000), nullptr);
  const TuningEntry *ordered = again.lookup("all_gather_gemm", nPes(), 0, "bf16", 256, 512, 128);
  ASSERT_NE(ordered, nullptr);
  EXPECT_EQ(ordered->fields, (std::vector<std::pair<std::string, std::string>>{
                                 {"strategy", "fused"}, {"tile_raster", "along_m"}, {"tile_swizzle", "4"}}));
}

// The node count is part of an entry's key: a table tuned across nodes says nothing of the same PEs
// on one host, nor the other way round. Written only where it is not 1, so tables of one host read
// as before. Run on one node and across two (kernel_tuning_cpu_2nodes).
TEST(TuningTable, EntriesAreForTheirNodeCount) {
  const std::string pes = "pes=" + std::to_string(nPes());
  const int others = nNodes() == 1 ? nPes() : 1;  // a node count this job does not have (where there is one)
  if (others == nNodes()) GTEST_SKIP() << "one PE: one node count only";
  const std::string text = thisMachine() + "all_reduce " + pes + " nodes=" + std::to_string(others) +
                           " bytes=4096 algorithm=ring\n" + "all_reduce " + pes + " nodes=" + std::to_string(nNodes()) +
                           " bytes=16384 algorithm=one-shot\n";
  const TuningTable table = TuningTable::parse(text, "t.txt");
  ASSERT_EQ(table.entries.size(), 2u);
  EXPECT_EQ(TuningTable::parse(table.format(), "formatted").format(), table.format());
  EXPECT_EQ(table.format().find("nodes=1 "), std::string::npos) << "nodes=1 is left out:\n" << table.format();
  TuningEntry call;
  call.kernel = "all_reduce", call.pes = nPes(), call.nodes = others, call.bytes = 1 << 20;
  ASSERT_NE(table.lookup(call), nullptr);
  EXPECT_EQ(table.lookup(call)->fields.front().second, "ring");
  const TuningEntry *one_node = table.lookup("all_reduce", nPes(), 1 << 20);  // the lookup of one host's calls
  ASSERT_NE(one_node, nullptr);
  EXPECT_EQ(one_node->nodes, 1);
  TableFolder folder;
  Context ctx(reading(folder.write("table.txt", text)));
  // The library's own choice at 8 KiB: the one-shot among peers of other nodes (2 PEs: 8 KiB in).
  const AllReduceAlgorithm builtin = nNodes() > 1 ? AllReduceAlgorithm::OneShot : AllReduceAlgorithm::TwoShot;
  EXPECT_EQ(chooseAllReduce(ctx, 8192), builtin) << "the other node count's entry is not this job's";
  EXPECT_EQ(chooseAllReduce(ctx, 16384), AllReduceAlgorithm::OneShot);
  expectAllReduceWorks(ctx, 1 << 12);
}

// all_reduce's Auto without a table: the two-shot on more than one PE, but the one-shot where
// peers are reached through the network and each PE receives at most 48 KiB, (n - 1) x bytes.
// Run on one node and across two (kernel_tuning_cpu_2nodes).
TEST(TuningTable, AutoTakesTheOneShotForSmallCallsThroughTheNetwork) {
  Context ctx(reading("none"));
  const int n = nPes();
  bool network = false;
  for (int pe = 0; pe < n; ++pe) network = network || (pe != myPe() && (transportMask(pe) & kTransportRoce) != 0);
  EXPECT_EQ(network, nNodes() > 1);
  const std::size_t most = (std::size_t{48} << 10) / static_cast<std::size_t>(std::max(n - 1, 1));
  for (std::size_t bytes : {std::size_t{8}, std::size_t{4096}, most, most + 4, std::size_t{1} << 20}) {
    AllReduceAlgorithm expected = AllReduceAlgorithm::TwoShot;
    if (n == 1 || (network && bytes <= most)) expected = AllReduceAlgorithm::OneShot;
    EXPECT_EQ(chooseAllReduce(ctx, bytes), expected) << bytes << " bytes, " << n << " PEs on " << nNodes() << " nodes";
  }
  const AllReduceConfig small = resolved_config(ctx, shaped({1 << 10}), AllReduceConfig{});  // 4 KiB
  EXPECT_EQ(small.algorithm, n == 1 || network ? AllReduceAlgorithm::OneShot : AllReduceAlgorithm::TwoShot);
  expectAllReduceWorks(ctx, 1 << 10);
  expectAllReduceWorks(ctx, 1 << 16);
}

TEST(TuningTable, ATableOfAnotherDeviceOrBackendIsIgnoredWithOneNote) {
  TableFolder folder;
  const std::string other_device =
      folder.write("device.txt", header(backendName(), "Another CPU, 999 cores") + entries());
  const std::string other_backend = folder.write("backend.txt", header("elsewhere", tuning_device()) + entries());
  if (myPe() == 0) ::testing::internal::CaptureStderr();
  {
    Context a(reading(other_device));
    EXPECT_EQ(a.tuning_table(), "");
    expectTodaysChoices(a);
    Context b(reading(other_backend));
    EXPECT_EQ(b.tuning_table(), "");
    expectTodaysChoices(b);
  }
  if (myPe() == 0) {
    const std::string said = ::testing::internal::GetCapturedStderr();
    const auto first = said.find("note: the tuning table " + other_device + " was measured on backend");
    EXPECT_NE(first, std::string::npos) << said;
    EXPECT_NE(said.find("'Another CPU, 999 cores'"), std::string::npos) << said;
    EXPECT_EQ(said.find("note: the tuning table", first + 1), std::string::npos) << "said more than once: " << said;
  }
}

TEST(TuningTable, PesThatReadDifferentTablesCannotCreateAContext) {
  if (nPes() < 2) GTEST_SKIP() << "needs two PEs";
  TableFolder folder;
  const std::string mine = thisMachine() + "all_reduce pes=" + std::to_string(nPes()) +
                           " bytes=4096 chunk_bytes=" + std::to_string(4096 * (1 + myPe())) + "\n";
  const std::string path = folder.write("table.txt", mine);
  try {
    Context ctx(reading(path));
    ADD_FAILURE() << "PE " << myPe() << ": PEs with different tables created a context";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), ErrorCode::CollectiveMismatch) << e.what();
    EXPECT_NE(std::string(e.what()).find("tuning_table"), std::string::npos) << e.what();
  }
}

// The table tdist-tune wrote (TDIST_TUNED_TABLE, set by the test tdist_tune_writes_a_table):
// it parses, is this machine's, and Auto follows it.
TEST(TunerOutput, TheTablePassesAndAutoFollowsIt) {
  const char *path = std::getenv("TDIST_TUNED_TABLE");
  if (path == nullptr) GTEST_SKIP() << "run by tdist_tune_writes_a_table";
  const std::optional<TuningTable> table = TuningTable::load(path);
  ASSERT_TRUE(table.has_value()) << path;
  EXPECT_EQ(table->backend, backendName());
  EXPECT_EQ(table->device, tuning_device());
  for (const char *kernel : {"all_reduce", "all_gather", "reduce_scatter", "all_gather_gemm", "gemm_reduce_scatter"}) {
    bool found = false;
    for (const TuningEntry &e : table->entries) found = found || (e.kernel == kernel && e.pes == nPes());
    EXPECT_TRUE(found) << "no entry for " << kernel;
  }
  // A candidate took today's place only where it was --min-gain faster, in the search and timed
  // again alone against today's choice (whose times the note then gives): "median B us; Auto
  // without a table A us" with A / B at least 1 + gain, or B == A where today's choice was kept.
  if (const char *gain = std::getenv("TDIST_TUNED_MIN_GAIN"); gain != nullptr) {
    const double need = 1.0 + std::atof(gain) / 100.0;
    for (const TuningEntry &e : table->entries) {
      double best = 0, today = 0;
      ASSERT_EQ(std::sscanf(e.note.c_str(), "median %lf us; Auto without a table %lf us", &best, &today), 2) << e.note;
      EXPECT_TRUE(best == today || today >= need * best * (1.0 - 1e-2))
          << e.kernel << ": a candidate at " << today / best << "x of today's choice was taken: " << e.note;
    }
  }
  Context ctx(reading(path));
  EXPECT_EQ(ctx.tuning_table(), path);
  const TuningEntry *entry = table->lookup("all_reduce", nPes(), 16384);
  ASSERT_NE(entry, nullptr);
  const AllReduceConfig resolved = resolved_config(ctx, shaped({4096}), AllReduceConfig{});
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"algorithm", algorithmName(resolved.algorithm)},
      {"chunk_bytes", std::to_string(resolved.chunk_bytes)},
      {"programs", std::to_string(resolved.programs)}};
  EXPECT_EQ(entry->fields, expected);
  expectAllReduceWorks(ctx, 4096);
}

}  // namespace
}  // namespace tdist::kernels::testing
