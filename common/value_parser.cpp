#include "common/value_parser.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <system_error>

namespace tdist::values {
namespace {

template <class T>
Parsed<T> failure(std::string message) {
  return {.value = std::nullopt, .error = std::move(message)};
}

std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

// from_chars over all of text: no sign for unsigned types, no spaces, no trailing bytes.
template <class Number>
bool parseWhole(std::string_view text, Number &value, std::errc &error) {
  const char *end = text.data() + text.size();
  auto result = std::from_chars(text.data(), end, value);
  error = result.ec;
  return !text.empty() && result.ec == std::errc() && result.ptr == end;
}

// " from 1 to 4096", " of at least 1", " of at most 9", or "" when the range is the whole type.
template <class Number>
std::string describeRange(Number min, Number max) {
  constexpr Number lowest = std::numeric_limits<Number>::min();
  constexpr Number highest = std::numeric_limits<Number>::max();
  if (min == lowest && max == highest) return "";
  if (max == highest) return " of at least " + std::to_string(min);
  if (min == lowest) return " of at most " + std::to_string(max);
  return " from " + std::to_string(min) + " to " + std::to_string(max);
}

// log2 of the multiple a size suffix stands for, or nullopt when suffix is not one.
std::optional<unsigned> sizeShift(std::string_view suffix) {
  if (suffix.empty() || suffix == "B") return 0;
  unsigned shift = 0;
  switch (suffix.front()) {
    case 'K': case 'k': shift = 10; break;
    case 'M': case 'm': shift = 20; break;
    case 'G': case 'g': shift = 30; break;
    case 'T': case 't': shift = 40; break;
    default: return std::nullopt;
  }
  suffix.remove_prefix(1);
  if (suffix.empty() || suffix == "iB" || suffix == "B") return shift;
  return std::nullopt;
}

// Seconds per unit of a duration suffix, or nullopt when suffix is not one.
std::optional<double> secondsPerUnit(std::string_view unit) {
  if (unit.empty() || unit == "s") return 1.0;
  if (unit == "ms") return 1e-3;
  if (unit == "m") return 60.0;
  if (unit == "h") return 3600.0;
  return std::nullopt;
}

struct NamedEngine {
  std::string_view name;
  Engine engine;
};
constexpr NamedEngine kEngines[] = {
    {"mte", Engine::Mte}, {"sdma", Engine::Sdma}, {"roce", Engine::Roce}, {"udma", Engine::Udma}};
constexpr const char *kKnownEngines = "(known: mte, sdma, roce, udma)";

}  // namespace

Parsed<long long> parseInteger(std::string_view text, IntegerRange range) {
  long long value = 0;
  std::errc error{};
  if (!parseWhole(text, value, error) || value < range.min || value > range.max)
    return failure<long long>("expected an integer" + describeRange(range.min, range.max) +
                              ", got " + quoted(text));
  return {.value = value, .error = {}};
}

Parsed<std::uint64_t> parseSize(std::string_view text, SizeRange range) {
  const std::size_t digits_end = std::min(text.find_first_not_of("0123456789"), text.size());
  const std::string_view digits = text.substr(0, digits_end);
  const std::optional<unsigned> shift = sizeShift(text.substr(digits_end));
  std::uint64_t value = 0;
  std::errc error{};
  const bool whole = !digits.empty() && shift && parseWhole(digits, value, error);
  if (!whole && error != std::errc::result_out_of_range)
    return failure<std::uint64_t>("expected a size in bytes such as 4096, 64K, 256M or 2G, got " +
                                  quoted(text));
  if (!whole || value > (std::numeric_limits<std::uint64_t>::max() >> *shift))
    return failure<std::uint64_t>("size " + quoted(text) + " is more than 2^64 - 1 bytes");
  const std::uint64_t bytes = value << *shift;
  if (bytes < range.min || bytes > range.max) {
    const bool one_byte = range.min == 1 && range.max == SizeRange{}.max;
    return failure<std::uint64_t>("expected a size" + describeRange(range.min, range.max) +
                                  (one_byte ? " byte" : " bytes") + ", got " + quoted(text));
  }
  return {.value = bytes, .error = {}};
}

Parsed<double> parseSeconds(std::string_view text, ZeroSeconds zero) {
  // The unit is the trailing letters: "500ms" -> "ms"; "2e-3" has none.
  std::size_t unit_begin = text.size();
  while (unit_begin > 0 && std::isalpha(static_cast<unsigned char>(text[unit_begin - 1])))
    --unit_begin;
  const std::optional<double> scale = secondsPerUnit(text.substr(unit_begin));
  double number = 0;
  std::errc error{};
  const bool whole = scale && parseWhole(text.substr(0, unit_begin), number, error) &&
                     std::isfinite(number);
  const double seconds = whole ? number * *scale : 0;
  const bool zero_allowed = zero == ZeroSeconds::Allowed;
  if (!whole || seconds < 0 || (seconds == 0 && !zero_allowed)) {
    return failure<double>(std::string("expected a number of seconds") +
                           (zero_allowed ? ", 0 or more" : " greater than 0") +
                           " (or with a unit: 500ms, 2m, 1h), got " + quoted(text));
  }
  if (seconds > kMaxSeconds)
    return failure<double>("duration " + quoted(text) + " is more than " +
                           formatSeconds(kMaxSeconds) + " seconds");
  return {.value = seconds, .error = {}};
}

Parsed<std::vector<Engine>> parseEngines(std::string_view text) {
  if (text.empty())
    return failure<std::vector<Engine>>(
        "expected a list of engines such as mte or mte,sdma, got ''");
  std::vector<Engine> engines;
  std::string_view rest = text;
  while (true) {
    const std::string_view name = rest.substr(0, rest.find(','));
    const NamedEngine *known = nullptr;
    for (const NamedEngine &candidate : kEngines)
      if (candidate.name == name) known = &candidate;
    if (known == nullptr) {
      const std::string what =
          name.empty() ? "empty engine name" : "unknown engine " + quoted(name);
      return failure<std::vector<Engine>>(what + " in " + quoted(text) + " " + kKnownEngines);
    }
    if (std::find(engines.begin(), engines.end(), known->engine) == engines.end())
      engines.push_back(known->engine);
    if (name.size() == rest.size()) break;
    rest.remove_prefix(name.size() + 1);
  }
  return {.value = std::move(engines), .error = {}};
}

std::string_view engineName(Engine engine) {
  for (const NamedEngine &candidate : kEngines)
    if (candidate.engine == engine) return candidate.name;
  return "?";
}

std::string formatEngines(const std::vector<Engine> &engines) {
  std::string text;
  for (Engine engine : engines) {
    if (!text.empty()) text += ',';
    text += engineName(engine);
  }
  return text;
}

std::string formatSeconds(double seconds) {
  char text[32];
  auto result = std::to_chars(text, text + sizeof text, seconds);
  return std::string(text, result.ptr);
}

}  // namespace tdist::values
