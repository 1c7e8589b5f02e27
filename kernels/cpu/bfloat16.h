// kernels/cpu/bfloat16.h - the 16-bit float formats of the kernel library on the host: bf16 and
// f16 stored as their bits, converted to and from f32 with round-to-nearest-even. Reductions
// accumulate in f32 and round once, through these functions, so a host reference that uses
// them gets the kernels' results bit for bit.
#pragma once

#include <cstdint>
#include <cstring>

namespace tdist::kernels {

inline std::uint32_t floatBits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

inline float bitsFloat(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// bf16: the upper half of an f32.
struct BFloat16 {
  std::uint16_t bits = 0;
};

inline float toFloat(BFloat16 value) { return bitsFloat(std::uint32_t{value.bits} << 16); }

inline BFloat16 toBFloat16(float value) {
  std::uint32_t bits = floatBits(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return BFloat16{static_cast<std::uint16_t>((bits >> 16) | 0x40)};  // quiet NaN
  bits += 0x7fffu + ((bits >> 16) & 1u);  // nearest, ties to even
  return BFloat16{static_cast<std::uint16_t>(bits >> 16)};
}

// f16 (IEEE binary16): 1 sign, 5 exponent, 10 mantissa bits.
struct Float16 {
  std::uint16_t bits = 0;
};

inline float toFloat(Float16 value) {
  const std::uint32_t sign = std::uint32_t{value.bits & 0x8000u} << 16;
  const std::uint32_t exponent = (value.bits >> 10) & 0x1fu;
  std::uint32_t mantissa = value.bits & 0x3ffu;
  if (exponent == 0x1f) return bitsFloat(sign | 0x7f800000u | (mantissa << 13));  // inf, NaN
  if (exponent != 0) return bitsFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
  if (mantissa == 0) return bitsFloat(sign);
  // Subnormal: mantissa * 2^-24, exact in f32.
  return bitsFloat(sign) + (sign ? -1.0f : 1.0f) * static_cast<float>(mantissa) * 0x1p-24f;
}

inline Float16 toFloat16(float value) {
  const std::uint32_t bits = floatBits(value);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return Float16{static_cast<std::uint16_t>(sign | 0x7e00u)};  // NaN
  if (magnitude >= 0x477ff000u) return Float16{static_cast<std::uint16_t>(sign | 0x7c00u)};  // rounds to inf
  if (magnitude >= 0x38800000u) {  // normal in f16 (>= 2^-14)
    std::uint32_t rounded = magnitude + 0xfffu + ((magnitude >> 13) & 1u);
    return Float16{static_cast<std::uint16_t>(sign | ((rounded - (112u << 23)) >> 13))};
  }
  if (magnitude < 0x33000000u) return Float16{sign};  // below half the smallest subnormal (2^-25)
  // Subnormal: the mantissa (with its implicit bit) shifted into units of 2^-24, nearest even.
  const std::uint32_t exponent = magnitude >> 23;
  const std::uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
  const std::uint32_t shift = 126 - exponent;  // 14 .. 24 for exponents 102 .. 112
  std::uint32_t half = mantissa >> shift;
  const std::uint32_t rest = mantissa & ((1u << shift) - 1);
  const std::uint32_t midpoint = 1u << (shift - 1);
  if (rest > midpoint || (rest == midpoint && (half & 1u))) ++half;
  return Float16{static_cast<std::uint16_t>(sign | half)};
}

// Load and store of one element of a storage type, through f32.
inline float load(float value) { return value; }
inline float load(BFloat16 value) { return toFloat(value); }
inline float load(Float16 value) { return toFloat(value); }

template <class T>
T store(float value);
template <>
inline float store<float>(float value) { return value; }
template <>
inline BFloat16 store<BFloat16>(float value) { return toBFloat16(value); }
template <>
inline Float16 store<Float16>(float value) { return toFloat16(value); }

}  // namespace tdist::kernels
