// host/template_library/queries.h - who am I: the PE, and the program of a launch.
#pragma once

#include <cstdint>

namespace tdist::host::template_library {

std::int32_t myPe(const char *symbol);
std::int32_t nPes(const char *symbol);
// axis 0, 1 or 2; 0 and 1 outside a launch.
std::int32_t programId(const char *symbol, std::int32_t axis);
std::int32_t numPrograms(const char *symbol, std::int32_t axis);

}  // namespace tdist::host::template_library
