// test/template_library/ciface.h - calling the template library as compiled IR does: by symbol
// name, through the C signature of its link name, with hand-built memref descriptors.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>

#include "host/template_library/memref.h"
#include "tdist/template_library.h"

namespace tdist::testing {

// MLIR's descriptor of a strided memref of rank N (its C interface), as the library declares it.
template <class T, int N>
using MemRef = host::template_library::StridedMemRef<T, N>;

// The library's function `name`, as a function of type F; a missing name throws (a test failure).
template <class F>
F *entry(std::string_view name) {
  const tdist::template_library::Symbol *symbol = tdist::template_library::find(name);
  if (symbol == nullptr) throw std::runtime_error("no template-library symbol " + std::string(name));
  return reinterpret_cast<F *>(symbol->address);
}

inline std::string ciface(std::string_view link_name) { return "_mlir_ciface_" + std::string(link_name); }

// base[offset], base[offset + stride], ... : `size` elements.
template <class T>
MemRef<T, 1> vectorOf(T *base, std::int64_t offset, std::int64_t size, std::int64_t stride = 1) {
  return MemRef<T, 1>{base, base, offset, {size}, {stride}};
}
template <class T>
MemRef<T, 0> scalarOf(T *element) {
  return MemRef<T, 0>{element, element, 0};
}

// The element types of the library, by their names in link names; 16-bit floats are moved as
// their bits.
template <class T>
struct ElementCase {
  using type = T;
  const char *name;
};
inline constexpr auto kScalarElements = std::tuple{
    ElementCase<float>{"float"},          ElementCase<double>{"double"},
    ElementCase<std::int8_t>{"int8"},     ElementCase<std::int16_t>{"int16"},
    ElementCase<std::int32_t>{"int32"},   ElementCase<std::int64_t>{"int64"},
    ElementCase<std::uint8_t>{"uint8"},   ElementCase<std::uint16_t>{"uint16"},
    ElementCase<std::uint32_t>{"uint32"}, ElementCase<std::uint64_t>{"uint64"},
};
inline constexpr auto kEveryElement = std::tuple_cat(
    std::tuple{ElementCase<std::uint16_t>{"bfloat16"}, ElementCase<std::uint16_t>{"half"}}, kScalarElements);

// fn(ElementCase<T>) for each element type.
template <class Fn>
void forEachElement(Fn &&fn) {
  std::apply([&](auto... element) { (fn(element), ...); }, kEveryElement);
}
template <class Fn>
void forEachScalarElement(Fn &&fn) {
  std::apply([&](auto... element) { (fn(element), ...); }, kScalarElements);
}

}  // namespace tdist::testing
