// host/template_library/spans.h - a compiled kernel's own steps as spans of the job's
// trace (tdist/trace.h).
//
// The same calls as tdist_trace_begin_span and tdist_trace_end, with the name given as a C string
// or as a memref of bytes. With tracing off they check their arguments and record nothing.
#pragma once

#include <cstdint>

#include "host/template_library/memref.h"

namespace tdist::host::template_library {

// category: a tdist_trace_category, TDIST_TRACE_USER .. TDIST_TRACE_WAIT; m, n: the tile's
// coordinates, -1 for none.
void traceBeginSpan(const char *symbol, const char *name, std::int32_t m, std::int32_t n, std::int32_t category);
// The name is the memref's bytes up to the first NUL, if there is one.
void traceBeginSpan(const char *symbol, StridedMemRef<char, 1> *name, std::int32_t m, std::int32_t n,
                    std::int32_t category);
// Closes the calling program's latest open span.
void traceEnd(const char *symbol);

}  // namespace tdist::host::template_library
