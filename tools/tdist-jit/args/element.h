// tools/tdist-jit/args/element.h - the elements of a dtype: converting a value of the language
// to one, and reading and writing them in memory.
#pragma once

#include <cstddef>
#include <string>

#include "tools/tdist-jit/args/kernel_args.h"

namespace tdist::jit::detail {

// The value an element of dtype holds for v: integers round toward zero, floats to nearest.
// Throws ArithmeticError when it does not fit.
Value convertTo(DType dtype, Value v);

// Element flat of the dtype-typed array at data. store takes a converted value.
void storeElement(DType dtype, void *data, std::size_t flat, Value converted);
// A ui64 above the int64 range loads as a real, which no integer reference equals.
Value loadElement(DType dtype, const void *data, std::size_t flat);
// Exact for integers; the shortest text that reads back as the same float or double.
std::string formatElement(DType dtype, const void *data, std::size_t flat);

}  // namespace tdist::jit::detail
