// common/value_parser.h - the one reader of the values a user types: sizes, durations, integers
// and engine lists, whether they come from tdist-run's or tdist-bench's command line or from the
// environment the runtime reads. One grammar everywhere, so that a value tdist-run accepts is one
// the runtime accepts, and every overflow is an error instead of a wrapped number.
//
// Nothing here throws: a result holds either the value or a message that says what was expected
// and quotes what was given ("expected a size in bytes such as 4096, 64K, 256M or 2G, got '12Q'").
// Callers prefix it with the name of their option or variable.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tdist::values {

template <class T>
struct Parsed {
  std::optional<T> value;
  std::string error;  // empty when value holds

  explicit operator bool() const { return value.has_value(); }
};

struct IntegerRange {
  long long min = std::numeric_limits<long long>::min();
  long long max = std::numeric_limits<long long>::max();
};

// A decimal integer, optionally negative, within range: "4", "-1".
Parsed<long long> parseInteger(std::string_view text, IntegerRange range = {});

struct SizeRange {
  std::uint64_t min = 0;
  std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
};

// Bytes: digits with an optional K, M, G or T (either case; powers of 1024, as memory is sized in
// pages), which may be followed by "iB" or "B": "4096", "64K", "64KiB", "256M", "2G", "4096B".
Parsed<std::uint64_t> parseSize(std::string_view text, SizeRange range = {});

// Durations stay far below what a steady_clock time point (nanoseconds in 64 bits) can add.
constexpr double kMaxSeconds = 1e9;  // about 31 years

enum class ZeroSeconds { Rejected, Allowed };

// Seconds, as a decimal number ("30", "1.5", "2e-3") or with a unit: ms, s, m (minutes), h
// ("500ms", "2m"). Finite, at most kMaxSeconds, greater than 0 unless zero is allowed.
Parsed<double> parseSeconds(std::string_view text, ZeroSeconds zero = ZeroSeconds::Rejected);

// The data-operation engines of runtime.h's InitAttr::engines, by the names users write.
enum class Engine { Mte, Sdma, Roce, Udma };

// "mte,sdma": a comma-separated list of engine names, in the order given, duplicates dropped.
Parsed<std::vector<Engine>> parseEngines(std::string_view text);

std::string_view engineName(Engine engine);
// The list in parseEngines' form: "mte,sdma".
std::string formatEngines(const std::vector<Engine> &engines);

// The shortest decimal text that parseSeconds reads back as the same number: "30", "1.5".
std::string formatSeconds(double seconds);

}  // namespace tdist::values
