// The dtypes of the language and their elements in memory.
#include "tools/tdist-jit/args/element.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "tools/tdist-jit/args/expression.h"

namespace tdist::jit {
namespace {

struct DTypeInfo {
  DType dtype;
  std::string_view name;
  std::size_t size;
  bool is_float;
};

constexpr DTypeInfo kDTypes[] = {
    {.dtype = DType::I8, .name = "i8", .size = 1, .is_float = false},
    {.dtype = DType::I16, .name = "i16", .size = 2, .is_float = false},
    {.dtype = DType::I32, .name = "i32", .size = 4, .is_float = false},
    {.dtype = DType::I64, .name = "i64", .size = 8, .is_float = false},
    {.dtype = DType::U8, .name = "ui8", .size = 1, .is_float = false},
    {.dtype = DType::U16, .name = "ui16", .size = 2, .is_float = false},
    {.dtype = DType::U32, .name = "ui32", .size = 4, .is_float = false},
    {.dtype = DType::U64, .name = "ui64", .size = 8, .is_float = false},
    {.dtype = DType::Index, .name = "index", .size = 8, .is_float = false},
    {.dtype = DType::F32, .name = "f32", .size = 4, .is_float = true},
    {.dtype = DType::F64, .name = "f64", .size = 8, .is_float = true},
};

constexpr bool tableFollowsEnum() {
  for (std::size_t k = 0; k < std::size(kDTypes); ++k)
    if (static_cast<std::size_t>(kDTypes[k].dtype) != k) return false;
  return true;
}
static_assert(tableFollowsEnum(), "kDTypes is indexed by DType");

const DTypeInfo &info(DType dtype) { return kDTypes[static_cast<int>(dtype)]; }

// Calls fn(std::type_identity<T>{}) with the C++ type of dtype's elements.
template <class Fn>
decltype(auto) withType(DType dtype, Fn &&fn) {
  switch (dtype) {
    case DType::I8: return fn(std::type_identity<std::int8_t>{});
    case DType::I16: return fn(std::type_identity<std::int16_t>{});
    case DType::I32: return fn(std::type_identity<std::int32_t>{});
    case DType::I64: return fn(std::type_identity<std::int64_t>{});
    case DType::U8: return fn(std::type_identity<std::uint8_t>{});
    case DType::U16: return fn(std::type_identity<std::uint16_t>{});
    case DType::U32: return fn(std::type_identity<std::uint32_t>{});
    case DType::U64: return fn(std::type_identity<std::uint64_t>{});
    case DType::Index: return fn(std::type_identity<std::int64_t>{});
    case DType::F32: return fn(std::type_identity<float>{});
    case DType::F64: return fn(std::type_identity<double>{});
  }
  return fn(std::type_identity<std::int32_t>{});
}

}  // namespace

std::string_view dtypeName(DType dtype) { return info(dtype).name; }
std::size_t dtypeSize(DType dtype) { return info(dtype).size; }
bool isFloat(DType dtype) { return info(dtype).is_float; }

std::optional<DType> dtypeFromName(std::string_view name) {
  for (const DTypeInfo &entry : kDTypes)
    if (entry.name == name) return entry.dtype;
  return std::nullopt;
}

namespace detail {

Value convertTo(DType dtype, Value v) {
  auto doesNotFit = [&](std::string range) {
    return ArithmeticError(v.toString() + " does not fit " + std::string(dtypeName(dtype)) + range);
  };
  return withType(dtype, [&]<class T>(std::type_identity<T>) -> Value {
    if constexpr (std::is_floating_point_v<T>) {
      // Straight from int64, not through double, so an integer rounds once.
      T converted = v.isInteger() ? static_cast<T>(v.integer()) : static_cast<T>(v.real());
      if (!std::isfinite(converted)) throw doesNotFit("");
      return Value::ofReal(converted);
    } else {
      // ui64 elements hold what the language's integers can: 0 .. 2^63-1.
      constexpr std::int64_t lo = static_cast<std::int64_t>(std::numeric_limits<T>::min());
      constexpr std::int64_t hi = std::is_same_v<T, std::uint64_t>
                                      ? std::numeric_limits<std::int64_t>::max()
                                      : static_cast<std::int64_t>(std::numeric_limits<T>::max());
      auto range = [] { return " (" + std::to_string(lo) + ".." + std::to_string(hi) + ")"; };
      std::int64_t integer = v.integer();
      if (!v.isInteger()) {
        double truncated = std::trunc(v.real());
        // (double)hi + 1 is exact but for int64, where it rounds to 2^63, still the bound.
        if (!(truncated >= static_cast<double>(lo) && truncated < static_cast<double>(hi) + 1.0))
          throw doesNotFit(range());
        integer = static_cast<std::int64_t>(truncated);
      }
      if (integer < lo || integer > hi) throw doesNotFit(range());
      return Value::ofInteger(integer);
    }
  });
}

void storeElement(DType dtype, void *data, std::size_t flat, Value converted) {
  withType(dtype, [&]<class T>(std::type_identity<T>) {
    T element;
    if constexpr (std::is_floating_point_v<T>) element = static_cast<T>(converted.real());
    else element = static_cast<T>(converted.integer());
    std::memcpy(static_cast<char *>(data) + flat * sizeof(T), &element, sizeof(T));
  });
}

Value loadElement(DType dtype, const void *data, std::size_t flat) {
  return withType(dtype, [&]<class T>(std::type_identity<T>) -> Value {
    T element;
    std::memcpy(&element, static_cast<const char *>(data) + flat * sizeof(T), sizeof(T));
    if constexpr (std::is_floating_point_v<T>) {
      return Value::ofReal(element);
    } else if constexpr (std::is_same_v<T, std::uint64_t>) {
      if (element > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return Value::ofReal(static_cast<double>(element));
      return Value::ofInteger(static_cast<std::int64_t>(element));
    } else {
      return Value::ofInteger(element);
    }
  });
}

std::string formatElement(DType dtype, const void *data, std::size_t flat) {
  return withType(dtype, [&]<class T>(std::type_identity<T>) {
    T element;
    std::memcpy(&element, static_cast<const char *>(data) + flat * sizeof(T), sizeof(T));
    char text[40];
    auto [end, error] = std::to_chars(text, text + sizeof text, element);
    return std::string(text, end);
  });
}

}  // namespace detail
}  // namespace tdist::jit
