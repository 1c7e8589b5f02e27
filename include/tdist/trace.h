/* tdist/trace.h - user spans in the job's trace (docs/TRACING.md), from C and C++.
 *
 * A job started with `tdist-run --trace FILE` records, on every PE and program, the runtime's
 * events (waits, signals, transfers, barriers, the kernel library's steps) and these spans; the
 * launcher merges them into FILE, a Chrome trace-event file. Without --trace every call below
 * costs one predictable branch on a global flag.
 *
 *   C:    tdist_trace_begin("gemm_tile"); ... tdist_trace_end();
 *         tdist_trace_begin_tile("gemm_tile", m, n); ... tdist_trace_end();
 *   C++:  { tdist::trace::Span span("gemm_tile", m, n); ... }
 *
 * Spans nest per program (each end closes the latest open span of the calling program); a name
 * is kept to its first TDIST_TRACE_NAME_MAX (31) bytes. A category tells tdist-trace summary what the span's time was:
 * computing, moving data or waiting (user spans count as none of them by default). */
#ifndef TDIST_TRACE_H
#define TDIST_TRACE_H

#pragma GCC visibility push(default)

#ifdef __cplusplus
extern "C" {
#endif

/* Nonzero while this PE records a trace. Read it only through the calls below. */
extern int tdist_trace_active;

/* The bytes of a span's name that the trace keeps. */
#define TDIST_TRACE_NAME_MAX 31

enum tdist_trace_category {
  TDIST_TRACE_USER = 0,    /* none of the below */
  TDIST_TRACE_CALL = 1,    /* one call of a library: summary reports per call */
  TDIST_TRACE_COMPUTE = 2,
  TDIST_TRACE_MOVE = 3,    /* moving data */
  TDIST_TRACE_WAIT = 4
};

void tdist_trace_record_begin(const char *name, int m, int n, int category);
void tdist_trace_record_end(void);

static inline void tdist_trace_begin_span(const char *name, int m, int n, int category) {
  if (__builtin_expect(tdist_trace_active != 0, 0)) tdist_trace_record_begin(name, m, n, category);
}
static inline void tdist_trace_begin(const char *name) { tdist_trace_begin_span(name, -1, -1, TDIST_TRACE_USER); }
static inline void tdist_trace_begin_tile(const char *name, int m, int n) {
  tdist_trace_begin_span(name, m, n, TDIST_TRACE_USER);
}
static inline void tdist_trace_end(void) {
  if (__builtin_expect(tdist_trace_active != 0, 0)) tdist_trace_record_end();
}

#ifdef __cplusplus
}  /* extern "C" */

namespace tdist::trace {

enum class Category : int {
  User = TDIST_TRACE_USER,
  Call = TDIST_TRACE_CALL,
  Compute = TDIST_TRACE_COMPUTE,
  Move = TDIST_TRACE_MOVE,
  Wait = TDIST_TRACE_WAIT,
};

inline bool active() { return __builtin_expect(tdist_trace_active != 0, 0); }

// A span from construction to destruction, on the calling program's thread of the trace.
class Span {
 public:
  explicit Span(const char *name, int m = -1, int n = -1) : Span(Category::User, name, m, n) {}
  Span(Category category, const char *name, int m = -1, int n = -1) : open_(active()) {
    if (open_) [[unlikely]] tdist_trace_record_begin(name, m, n, static_cast<int>(category));
  }
  ~Span() {
    if (open_) [[unlikely]] tdist_trace_record_end();
  }
  Span(const Span &) = delete;
  Span &operator=(const Span &) = delete;

 private:
  bool open_;
};

}  // namespace tdist::trace
#endif

#pragma GCC visibility pop

#endif /* TDIST_TRACE_H */
