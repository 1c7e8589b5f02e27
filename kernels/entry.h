// kernels/entry.h - the skeleton of every entry point of the library (kernels/collectives.cpp,
// gemm.cpp, moe.cpp): check, agree, run the context's backend's body (kernels/backend.h).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include "kernels/backend.h"
#include "kernels/checks.h"
#include "kernels/context_state.h"
#include "tdist/error.h"
#include "tdist/runtime.h"
#include "tdist/trace.h"

namespace tdist::kernels::detail {

// Runs check() (this PE's checks of its tensors and config, which throw Error), then checks that
// the context has the slots the body takes for the call; agrees with every PE on the call (every
// PE throws the same error when one PE found one, or when the calls differ); then runs the body.
// `call` only binds the arguments: the body's slots are counted only once check() passed.
template <class Call, class Check>
typename Call::Result runEntry(Context &ctx, const char *kernel, KernelBody<Call> KernelBackend::*kernel_of,
                               const CallSignature &signature, Check &&check, const Call &call) {
  const KernelBackend &backend = *ContextAccess::state(ctx).backend;
  const KernelBody<Call> &body = backend.*kernel_of;
  int code = 0;
  std::string error;
  std::span<const std::byte> carried;  // what the body sends every peer with the agreement
  try {
    check();
    requireSignals(kernel, ctx, backend.name, body.slots(call, nPes()));
    if (body.carried != nullptr) carried = body.carried(ctx, call);
  } catch (const Error &e) {
    code = static_cast<int>(e.code());
    error = e.what();
    carried = {};
  }
  std::optional<trace::Span> span;
  if (body.trace_call != nullptr) span.emplace(trace::Category::Call, body.trace_call);
  backend.agree(ctx, kernel, signature, code, error, carried);
  return body.run(ctx, call);
}

}  // namespace tdist::kernels::detail
