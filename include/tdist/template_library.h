// tdist/template_library.h - the device library's C symbols that compiled IR calls by link name.
//
// Compiled kernels call device functions by link name (docs/COMPILER.md): `_mlir_ciface_` and the
// aclshmem symbol, with `_m<rank>` per memref argument and result. The runtime exports each of
// them; this table lets a JIT bind them by name and check a module's declarations before it
// compiles. docs/RUNTIME.md lists the families.
#pragma once

#include <span>
#include <string_view>

// Everything declared here is exported from libtdist_runtime; the rest of it is hidden.
#pragma GCC visibility push(default)

namespace tdist::template_library {

struct Symbol {
  std::string_view name;
  void *address;
};

// Every symbol of the template library, sorted by name.
std::span<const Symbol> symbols();
// nullptr when the library has no such symbol.
const Symbol *find(std::string_view name);

}  // namespace tdist::template_library

#pragma GCC visibility pop
