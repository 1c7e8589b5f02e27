// kernels/tuning_table.cpp - the tuning table's text form (docs/TUNING.md): parsing with errors
// that name the file and line, formatting, merging and the lookup of a call's entry; where a
// Context looks for its table, and the device string a table is keyed by.
//
//   # comment
//   tdist-tune-table 1
//   backend cpu
//   device Intel(R) Xeon(R) Processor, 2 cores
//   all_reduce pes=2 bytes=65536 algorithm=one-shot chunk_bytes=16384 programs=0  # note
//   all_gather_gemm pes=2 dtype=f32 m=256 n=512 k=512 chunks_per_pe=4 tile_m=512 tile_n=1024
//
// Every field's value is checked here, against the limits the entry points check (a table can
// never make a call fail), so a Context either reads a whole table or none of it.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "kernels/backend.h"
#include "kernels/tuning.h"
#include "tdist/error.h"
#include "tdist/kernels/tuning.h"
#include "tdist/runtime.h"

namespace tdist::kernels {
namespace {

constexpr const char *kMagic = "tdist-tune-table";
constexpr int kVersion = 1;

struct FieldRule {
  const char *name;
  const char *const *words;  // the names it takes, or null for an integer
  long long low, high;       // an integer's range (0 = Auto where the config has it)
};

constexpr const char *kAlgorithms[] = {"auto", "one-shot", "two-shot", "ring", nullptr};
constexpr const char *kEngines[] = {"auto", "sm", "ce", nullptr};
constexpr const char *kStrategies[] = {"auto", "decomposed", "fused", nullptr};
constexpr const char *kRasters[] = {"auto", "along_n", "along_m", nullptr};
constexpr const char *kSwizzles[] = {"0", "1", "2", "4", "8", nullptr};

constexpr FieldRule kAllReduceFields[] = {
    {"algorithm", kAlgorithms, 0, 0}, {"chunk_bytes", nullptr, 4096, 1ll << 30}, {"programs", nullptr, 0, 1024}};
constexpr FieldRule kCollectiveFields[] = {
    {"chunk_bytes", nullptr, 4096, 1ll << 30}, {"programs", nullptr, 0, 1024}, {"engine", kEngines, 0, 0}};
// The GEMMs' fields: all_gather_gemm's, of which gemm_reduce_scatter has the first five (the tile
// order is the fused AllGather + GEMM's only).
constexpr FieldRule kGemmFields[] = {{"strategy", kStrategies, 0, 0},
                                     {"chunks_per_pe", nullptr, 1, 64},
                                     {"tile_m", nullptr, 1, 4096},
                                     {"tile_n", nullptr, 1, 4096},
                                     {"programs", nullptr, 0, 1024},
                                     {"tile_raster", kRasters, 0, 0},
                                     {"tile_swizzle", kSwizzles, 0, 0}};
constexpr std::size_t kGemmReduceScatterFields = 5;

struct KernelRule {
  const char *name;
  bool gemm;
  const FieldRule *fields;
  std::size_t count;
};

constexpr KernelRule kKernels[] = {
    {"all_reduce", false, kAllReduceFields, std::size(kAllReduceFields)},
    {"all_gather", false, kCollectiveFields, std::size(kCollectiveFields)},
    {"reduce_scatter", false, kCollectiveFields, std::size(kCollectiveFields)},
    {"all_gather_gemm", true, kGemmFields, std::size(kGemmFields)},
    {"gemm_reduce_scatter", true, kGemmFields, kGemmReduceScatterFields},
};

const KernelRule *kernelRule(const std::string &name) {
  for (const KernelRule &rule : kKernels)
    if (name == rule.name) return &rule;
  return nullptr;
}

std::string kernelNames() {
  std::string names;
  for (const KernelRule &rule : kKernels) names += std::string(names.empty() ? "" : ", ") + rule.name;
  return names;
}

std::string fieldNames(const KernelRule &rule) {
  std::string names;
  for (std::size_t i = 0; i < rule.count; ++i) names += std::string(i ? ", " : "") + rule.fields[i].name;
  return names;
}

std::string wordList(const char *const *words) {
  std::string list;
  for (const char *const *w = words; *w != nullptr; ++w) list += std::string(w == words ? "" : ", ") + *w;
  return list;
}

// Parses a whole decimal integer; false when text is not one.
bool parseInteger(const std::string &text, long long &value) {
  if (text.empty() || text.size() > 18) return false;
  for (char c : text)
    if (c < '0' || c > '9') return false;
  value = std::stoll(text);
  return true;
}

std::vector<std::string> words(const std::string &line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string word; in >> word;) out.push_back(word);
  return out;
}

std::string trimmed(const std::string &text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// The key of an entry: which calls it is for, apart from the size.
bool sameKey(const TuningEntry &a, const TuningEntry &b) {
  return a.kernel == b.kernel && a.pes == b.pes && a.nodes == b.nodes && a.dtype == b.dtype && a.n == b.n &&
         a.k == b.k;
}
std::int64_t sizeOf(const TuningEntry &e) { return kernelRule(e.kernel)->gemm ? e.m : e.bytes; }

std::string keyText(const TuningEntry &e) {
  std::string text = e.kernel + " pes=" + std::to_string(e.pes);
  if (e.nodes != 1) text += " nodes=" + std::to_string(e.nodes);
  if (kernelRule(e.kernel)->gemm) {
    text +=
        " dtype=" + e.dtype + " m=" + std::to_string(e.m) + " n=" + std::to_string(e.n) + " k=" + std::to_string(e.k);
  } else {
    text += " bytes=" + std::to_string(e.bytes);
  }
  return text;
}

class LineParser {
 public:
  LineParser(const std::string &source, int line) : source_(source), line_(line) {}
  [[noreturn]] void fail(const std::string &what) const {
    throw Error(ErrorCode::InvalidParam, "tdist::kernels: tuning table " + source_ + ":" + std::to_string(line_) +
                                             ": " + what +
                                             " (docs/TUNING.md; TDIST_TUNE_TABLE=none runs without a table)");
  }

  TuningEntry entry(const std::vector<std::string> &tokens) const {
    TuningEntry e;
    e.kernel = tokens[0];
    const KernelRule *rule = kernelRule(e.kernel);
    if (rule == nullptr) fail("unknown kernel '" + e.kernel + "' (expected " + kernelNames() + ")");
    std::set<std::string> seen;
    for (std::size_t i = 1; i < tokens.size(); ++i) {
      const auto eq = tokens[i].find('=');
      if (eq == std::string::npos || eq == 0) fail("expected field=value, got '" + tokens[i] + "'");
      const std::string name = tokens[i].substr(0, eq), value = tokens[i].substr(eq + 1);
      if (!seen.insert(name).second) fail("field '" + name + "' given twice");
      if (name == "pes") {
        e.pes = static_cast<int>(integer(name, value, 1, 1 << 20));
      } else if (name == "nodes") {
        e.nodes = static_cast<int>(integer(name, value, 1, 1 << 20));
      } else if (name == "bytes" && !rule->gemm) {
        e.bytes = integer(name, value, 1, 1ll << 50);
      } else if (rule->gemm && (name == "m" || name == "n" || name == "k")) {
        (name == "m" ? e.m : name == "n" ? e.n : e.k) = integer(name, value, 1, 1ll << 31);
      } else if (rule->gemm && name == "dtype") {
        if (value != "f32" && value != "bf16") fail("dtype=" + value + ": expected f32 or bf16");
        e.dtype = value;
      } else {
        e.fields.emplace_back(name, configValue(*rule, name, value));
      }
    }
    const std::vector<std::string> keys =
        rule->gemm ? std::vector<std::string>{"pes", "dtype", "m", "n", "k"} : std::vector<std::string>{"pes", "bytes"};
    for (const std::string &key : keys)
      if (!seen.count(key)) fail(e.kernel + " needs " + key + "=");
    if (e.nodes > e.pes) fail("nodes=" + std::to_string(e.nodes) + ": more nodes than pes=" + std::to_string(e.pes));
    return e;
  }

 private:
  long long integer(const std::string &name, const std::string &value, long long low, long long high) const {
    long long v = 0;
    if (!parseInteger(value, v) || v < low || v > high) {
      fail(name + "=" + value + ": expected an integer in " + std::to_string(low) + " .. " + std::to_string(high));
    }
    return v;
  }

  std::string configValue(const KernelRule &rule, const std::string &name, const std::string &value) const {
    for (std::size_t i = 0; i < rule.count; ++i) {
      const FieldRule &field = rule.fields[i];
      if (name != field.name) continue;
      if (field.words != nullptr) {
        for (const char *const *w = field.words; *w != nullptr; ++w)
          if (value == *w) return value;
        fail(name + "=" + value + ": expected one of " + wordList(field.words));
      }
      integer(name, value, field.low, field.high);
      return value;
    }
    fail("unknown field '" + name + "' for " + rule.name + " (expected " + fieldNames(rule) + ")");
  }

  const std::string &source_;
  int line_;
};

std::string cpuModel() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trimmed(line.substr(0, colon));
    if (key == "model name" || key == "Model" || key == "cpu model") return trimmed(line.substr(colon + 1));
  }
  return "unknown CPU";
}

}  // namespace

TuningTable TuningTable::parse(const std::string &text, const std::string &source) {
  TuningTable table;
  std::istringstream in(text);
  int number = 0;
  bool have_magic = false;
  for (std::string raw; std::getline(in, raw);) {
    ++number;
    const LineParser parser(source, number);
    std::string line = raw, note;
    if (const auto hash = line.find('#'); hash != std::string::npos) {
      note = trimmed(line.substr(hash + 1));
      line = line.substr(0, hash);
    }
    const std::vector<std::string> tokens = words(line);
    if (tokens.empty()) continue;
    if (!have_magic) {
      if (tokens.size() != 2 || tokens[0] != kMagic) {
        parser.fail(std::string("expected the first line '") + kMagic + " " + std::to_string(kVersion) + "'");
      }
      if (tokens[1] != std::to_string(kVersion)) {
        parser.fail("version " + tokens[1] + " of the table format; this library reads " + std::to_string(kVersion));
      }
      have_magic = true;
    } else if (tokens[0] == "backend") {
      if (tokens.size() != 2) parser.fail("expected 'backend <name>'");
      if (!table.backend.empty()) parser.fail("a second 'backend' line");
      table.backend = tokens[1];
    } else if (tokens[0] == "device") {
      if (!table.device.empty()) parser.fail("a second 'device' line");
      table.device = trimmed(trimmed(line).substr(6));
      if (table.device.empty()) parser.fail("expected 'device <name>'");
    } else {
      TuningEntry entry = parser.entry(tokens);
      entry.note = note;
      for (const TuningEntry &other : table.entries)
        if (sameKey(other, entry) && sizeOf(other) == sizeOf(entry))
          parser.fail("a second entry for " + keyText(entry));
      table.entries.push_back(std::move(entry));
    }
  }
  if (!have_magic) LineParser(source, number).fail("empty: no '" + std::string(kMagic) + "' line");
  if (table.backend.empty() || table.device.empty()) {
    LineParser(source, number).fail("no 'backend' or no 'device' line: a table names both");
  }
  return table;
}

std::optional<TuningTable> TuningTable::load(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT) return std::nullopt;
    throw Error(ErrorCode::InvalidParam,
                "tdist::kernels: cannot read the tuning table " + path + ": " + std::strerror(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str(), path);
}

std::string TuningTable::format() const {
  std::string text = "# tdist tuning table (docs/TUNING.md); written by tdist-tune\n";
  text += std::string(kMagic) + " " + std::to_string(kVersion) + "\nbackend " + backend + "\ndevice " + device + "\n";
  for (const TuningEntry &e : entries) {
    text += keyText(e);
    for (const auto &[name, value] : e.fields) text += " " + name + "=" + value;
    if (!e.note.empty()) text += "  # " + e.note;
    text += "\n";
  }
  return text;
}

void TuningTable::save(const std::string &path) const {
  const auto slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0) {
    // Each folder of the path in turn (mkdir -p).
    for (auto at = path.find('/', 1); at != std::string::npos && at <= slash; at = path.find('/', at + 1)) {
      const std::string folder = path.substr(0, at);
      if (::mkdir(folder.c_str(), 0755) != 0 && errno != EEXIST) {
        throw Error(ErrorCode::InvalidParam,
                    "tdist::kernels: cannot create " + folder + " for the tuning table: " + std::strerror(errno));
      }
    }
  }
  const std::string temporary = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << format();
    out.close();
    if (!out) {
      throw Error(ErrorCode::InvalidParam,
                  "tdist::kernels: cannot write the tuning table " + temporary + ": " + std::strerror(errno));
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    std::remove(temporary.c_str());
    throw Error(ErrorCode::InvalidParam,
                "tdist::kernels: cannot write the tuning table " + path + ": " + std::strerror(error));
  }
}

void TuningTable::put(const TuningEntry &entry) {
  for (TuningEntry &e : entries) {
    if (sameKey(e, entry) && sizeOf(e) == sizeOf(entry)) {
      e = entry;
      return;
    }
  }
  entries.push_back(entry);
  // Kept in a stable order: by kernel, PEs, dtype, n, k, then size.
  std::stable_sort(entries.begin(), entries.end(), [](const TuningEntry &a, const TuningEntry &b) {
    return std::tie(a.kernel, a.pes, a.dtype, a.n, a.k) < std::tie(b.kernel, b.pes, b.dtype, b.n, b.k) ||
           (sameKey(a, b) && sizeOf(a) < sizeOf(b));
  });
}

const TuningEntry *TuningTable::lookup(const TuningEntry &call) const {
  const KernelRule *rule = kernelRule(call.kernel);
  if (rule == nullptr) return nullptr;
  TuningEntry key;
  key.kernel = call.kernel;
  key.pes = call.pes;
  key.nodes = call.nodes;
  if (rule->gemm) {
    key.dtype = call.dtype;
    key.n = call.n;
    key.k = call.k;
  }
  const std::int64_t size = rule->gemm ? call.m : call.bytes;
  const TuningEntry *best = nullptr;
  for (const TuningEntry &e : entries) {
    if (!sameKey(e, key) || sizeOf(e) > size) continue;
    if (best == nullptr || sizeOf(e) > sizeOf(*best)) best = &e;
  }
  return best;
}

const TuningEntry *TuningTable::lookup(const std::string &kernel, int pes, std::int64_t bytes, const std::string &dtype,
                                       std::int64_t m, std::int64_t n, std::int64_t k) const {
  TuningEntry call;
  call.kernel = kernel;
  call.pes = pes;
  call.bytes = bytes;
  call.dtype = dtype;
  call.m = m, call.n = n, call.k = k;
  return lookup(call);
}

std::string tuning_table_path() {
  if (const char *path = std::getenv("TDIST_TUNE_TABLE"); path != nullptr && *path != '\0') return path;
  if (const char *cache = std::getenv("XDG_CACHE_HOME"); cache != nullptr && *cache != '\0') {
    return std::string(cache) + "/tdist/tune-table.txt";
  }
  if (const char *home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::string(home) + "/.cache/tdist/tune-table.txt";
  }
  return "none";
}

std::string tuning_device() { return kernelBackendFor(backendName()).device(); }

namespace detail {

std::string cpuDevice() {
  const long cores = ::sysconf(_SC_NPROCESSORS_ONLN);
  return cpuModel() + ", " + std::to_string(cores > 0 ? cores : 1) + " cores";
}

}  // namespace detail

}  // namespace tdist::kernels
