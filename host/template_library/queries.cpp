// host/template_library/queries.cpp - PE and program coordinates.
#include "host/template_library/queries.h"

#include "host/template_library/entry.h"
#include "tdist/dl.h"
#include "tdist/shmem.h"

namespace tdist::host::template_library {

std::int32_t myPe(const char *symbol) { return runOrExit(symbol, [] { return shmem::my_pe(); }); }
std::int32_t nPes(const char *symbol) { return runOrExit(symbol, [] { return shmem::n_pes(); }); }

std::int32_t programId(const char *symbol, std::int32_t axis) {
  return runOrExit(symbol, [&] { return dl::program_id(axis); });
}

std::int32_t numPrograms(const char *symbol, std::int32_t axis) {
  return runOrExit(symbol, [&] { return dl::num_programs(axis); });
}

}  // namespace tdist::host::template_library
