// host_data.h - host values into and out of the kernel cases' tensors on the symmetric heap, as
// f32 or bf16. Through the runtime's putmem / getmem, as the library's tests do: on cuda the host
// cannot load the heap, on cpu these are memcpy.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "tdist/runtime.h"
#include "tdist/shmem.h"

namespace tdist::bench {

// bf16 of an f32, rounded to nearest even (NaN stays NaN).
inline std::uint16_t toBf16(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu) != 0) return static_cast<std::uint16_t>(bits >> 16 | 0x40);
  bits += 0x7fffu + (bits >> 16 & 1u);
  return static_cast<std::uint16_t>(bits >> 16);
}

inline float fromBf16(std::uint16_t half) {
  const std::uint32_t bits = std::uint32_t{half} << 16;
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// The value a tensor of `dtype` holds for `value`: what a reference must expect.
inline float storedAs(DType dtype, float value) { return dtype == DType::BF16 ? fromBf16(toBf16(value)) : value; }

inline DType dtypeNamed(const std::string &name) {
  if (name == "f32") return DType::F32;
  if (name == "bf16") return DType::BF16;
  throw std::invalid_argument("no dtype '" + name + "' (f32 or bf16)");
}

// host -> t (converted to t's dtype).
inline void upload(const Tensor &t, const std::vector<float> &host) {
  if (t.dtype == DType::BF16) {
    std::vector<std::uint16_t> converted(host.size());
    for (std::size_t i = 0; i < host.size(); ++i) converted[i] = toBf16(host[i]);
    shmem::putmem(t.data, converted.data(), converted.size() * sizeof(std::uint16_t), shmem::my_pe());
  } else {
    shmem::putmem(t.data, host.data(), host.size() * sizeof(float), shmem::my_pe());
  }
  shmem::quiet();
}

// t -> host, as f32.
inline std::vector<float> download(const Tensor &t) {
  std::vector<float> host(static_cast<std::size_t>(t.numel()));
  if (t.dtype == DType::BF16) {
    std::vector<std::uint16_t> raw(host.size());
    shmem::getmem(raw.data(), t.data, raw.size() * sizeof(std::uint16_t), shmem::my_pe());
    for (std::size_t i = 0; i < host.size(); ++i) host[i] = fromBf16(raw[i]);
  } else {
    shmem::getmem(host.data(), t.data, host.size() * sizeof(float), shmem::my_pe());
  }
  return host;
}

}  // namespace tdist::bench
