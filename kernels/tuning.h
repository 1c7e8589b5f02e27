// kernels/tuning.h - the kernel library's side of the tuning table (include/tdist/kernels/tuning.h):
// the table a Context reads when it is created, and the resolution of a call's Auto fields that
// the entry points (kernels/collectives.cpp, gemm.cpp) make before the body runs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "tdist/kernels/tuning.h"

namespace tdist::kernels::detail {

// The cpu backend's device string: "<CPU model>, <online cores> cores" (kernels/tuning_table.cpp).
std::string cpuDevice();

// The table a Context created with tuning_table = `option` reads ("" = tuning_table_path(),
// "none" = none): null when there is none, or when it was measured on another backend or device
// (then PE 0 says so once per process on stderr). `path` is set to the table's path when one is
// used. Throws Error(InvalidParam) naming the file and line of a malformed table.
std::shared_ptr<const TuningTable> loadTuningTable(const std::string &option, const std::string &backend,
                                                   std::string &path);

// What the PEs compare when a Context is created: a digest of the table's text ("none" without
// one), so that every PE resolves every call alike.
std::string tuningDigest(const TuningTable *table);

}  // namespace tdist::kernels::detail
