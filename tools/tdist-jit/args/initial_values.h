// tools/tdist-jit/args/initial_values.h - an argument's initial contents as values, which
// references read through arg(J).
#pragma once

#include <vector>

#include "tools/tdist-jit/args/kernel_args.h"

namespace tdist::jit::detail {

// Row-major, each already converted to the dtype (so exactly what fillInitial writes); a
// scalar gives its one value.
std::vector<Value> initialValues(const ArgumentSpec &spec, const ResolvedArgument &argument,
                                 Context context);

}  // namespace tdist::jit::detail
