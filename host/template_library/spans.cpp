// host/template_library/spans.cpp - spans of compiled kernels.
#include "host/template_library/spans.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "host/template_library/entry.h"
#include "tdist/trace.h"

namespace tdist::host::template_library {

namespace {

// A compiled caller cannot catch: a bad argument ends the PE with a message, tracing or not.
void checkCategory(const char *symbol, std::int32_t category) {
  if (category >= TDIST_TRACE_USER && category <= TDIST_TRACE_WAIT) [[likely]] return;
  const std::string message = "category " + std::to_string(category) +
                              " is not a span category: 0 (user), 1 (call), 2 (compute), 3 (move) or 4 (wait)";
  exitFatally(symbol, message.c_str());
}

}  // namespace

void traceBeginSpan(const char *symbol, const char *name, std::int32_t m, std::int32_t n, std::int32_t category) {
  checkCategory(symbol, category);
  if (name == nullptr || *name == '\0') [[unlikely]] exitFatally(symbol, "a span needs a name; this one is empty");
  tdist_trace_begin_span(name, m, n, category);
}

void traceBeginSpan(const char *symbol, StridedMemRef<char, 1> *name, std::int32_t m, std::int32_t n,
                    std::int32_t category) {
  checkCategory(symbol, category);
  const std::int64_t size = name->sizes[0];
  const char *bytes = name->aligned + name->offset;
  if (size < 1 || *bytes == '\0') [[unlikely]] exitFatally(symbol, "a span needs a name; the name memref holds none");
  if (size > 1 && name->strides[0] != 1) [[unlikely]] {
    const std::string message = "the name memref has stride " + std::to_string(name->strides[0]) +
                                "; a span's name is contiguous bytes (stride 1)";
    exitFatally(symbol, message.c_str());
  }
  if (!tdist::trace::active()) return;
  char text[TDIST_TRACE_NAME_MAX + 1] = {};
  const std::size_t kept = std::min<std::int64_t>(size, TDIST_TRACE_NAME_MAX);
  std::memcpy(text, bytes, kept);  // a NUL among them ends the name
  tdist_trace_record_begin(text, m, n, category);
}

void traceEnd(const char *) { tdist_trace_end(); }

}  // namespace tdist::host::template_library
