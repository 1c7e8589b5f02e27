// test/jit_args/support.h - helpers shared by the tests of the kernel-argument language.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "tools/tdist-jit/args/kernel_args.h"

namespace tdist::jit::testing {

// The message of the ArgumentError that run throws; a failure when it throws none.
template <class Run>
std::string errorOf(Run &&run) {
  try {
    run();
  } catch (const ArgumentError &e) {
    return e.what();
  }
  ADD_FAILURE() << "no ArgumentError";
  return {};
}

inline ResolvedArgument resolveText(const std::string &text, Context context = {}) {
  return resolve(parseArgument(text), context);
}

// The value of a scalar description of an integer dtype.
inline std::int64_t integerOf(const std::string &text, Context context = {}) {
  return resolveText(text, context).int_value;
}

inline double realOf(const std::string &text, Context context = {}) {
  return resolveText(text, context).float_value;
}

// A buffer's initial contents as T, which must be its element type.
template <class T>
std::vector<T> contentsOf(const std::string &text, Context context = {}) {
  ArgumentSpec spec = parseArgument(text);
  ResolvedArgument argument = resolve(spec, context);
  EXPECT_EQ(argument.bytes(), argument.elements() * sizeof(T));
  std::vector<T> data(argument.elements());
  fillInitial(spec, argument, context, data.data());
  return data;
}

}  // namespace tdist::jit::testing
