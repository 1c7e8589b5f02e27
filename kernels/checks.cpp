// kernels/checks.cpp - the checks of every entry point: tensors, config limits, and the
// agreement of every PE on the call (through the runtime's sequence of collective calls).
#include "kernels/checks.h"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace tdist::kernels::detail {
namespace {

std::string shapeText(const std::vector<std::int64_t> &extents) {
  std::string text = "[";
  for (std::size_t i = 0; i < extents.size(); ++i) {
    if (i) text += ", ";
    text += std::to_string(extents[i]);
  }
  return text + "]";
}

std::string dtypeList(std::initializer_list<DType> dtypes) {
  std::string text;
  std::size_t i = 0;
  for (DType dtype : dtypes) {
    if (i) text += (i + 1 == dtypes.size()) ? " or " : ", ";
    text += dtypeName(dtype);
    ++i;
  }
  return text;
}

[[noreturn]] void invalid(const char *kernel, const char *what, const std::string &problem) {
  throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": " + what + " " + problem);
}

}  // namespace

const char *dtypeText(DType dtype) { return dtypeName(dtype); }

void requireHeapTensor(const char *kernel, const char *what, const Tensor &t, int rank,
                       std::initializer_list<DType> dtypes) {
  if (std::find(dtypes.begin(), dtypes.end(), t.dtype) == dtypes.end()) {
    invalid(kernel, what, std::string("has dtype ") + dtypeName(t.dtype) + "; expected " + dtypeList(dtypes));
  }
  if (rank >= 0 && t.shape.size() != static_cast<std::size_t>(rank)) {
    invalid(kernel, what, "has shape " + shapeText(t.shape) + " of rank " + std::to_string(t.shape.size()) +
                              "; expected rank " + std::to_string(rank));
  }
  for (std::int64_t extent : t.shape) {
    if (extent < 0) invalid(kernel, what, "has a negative extent in its shape " + shapeText(t.shape));
  }
  std::vector<std::int64_t> row_major(t.shape.size(), 1);
  for (std::size_t d = t.shape.size(); d-- > 1;) row_major[d - 1] = row_major[d] * t.shape[d];
  if (t.strides != row_major) {
    invalid(kernel, what, "of shape " + shapeText(t.shape) + " has strides " + shapeText(t.strides) +
                              "; expected contiguous row-major strides " + shapeText(row_major));
  }
  const std::size_t bytes = t.nbytes();
  if (bytes == 0) return;  // an empty tensor touches no memory (createTensor gives it no block)
  const int me = myPe();
  const auto *first = static_cast<const std::byte *>(t.data);
  if (t.data == nullptr || peerPointer(first, me) == nullptr || peerPointer(first + bytes - 1, me) == nullptr) {
    char where[96];
    std::snprintf(where, sizeof where, "(%p, %zu bytes)", t.data, bytes);
    invalid(kernel, what, std::string(where) + " is not on this PE's symmetric heap; expected a tensor of "
                              "tdist::createTensor or memory of tdist::allocate");
  }
}

void requireRange(const char *kernel, const char *field, long long value, long long low, long long high) {
  if (value < low || value > high) {
    throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": config." + field + " = " + std::to_string(value) +
                                             " is outside " + std::to_string(low) + " .. " + std::to_string(high));
  }
}

void agree(const char *kernel, const CallSignature &mine, int local_code, const std::string &local_error) {
  CallArgs args;
  for (int i = 0; i < 3; ++i) args.value[i] = mine.value[i];
  args.status = local_code;
  const std::vector<CallArgs> all = exchangeCallArgs(kernel, args);
  if (local_code != 0) throw Error(static_cast<ErrorCode>(local_code), local_error);
  for (std::size_t pe = 0; pe < all.size(); ++pe) {
    if (all[pe].status == 0) continue;
    const auto code = static_cast<ErrorCode>(all[pe].status);
    throw Error(code, std::string(kernel) + ": failed on PE " + std::to_string(pe) + " (" + toString(code) + ")");
  }
  const auto same = [](const CallArgs &a, const CallArgs &b) {
    return std::equal(a.value, a.value + 3, b.value);
  };
  if (std::all_of(all.begin(), all.end(), [&](const CallArgs &a) { return same(a, all[0]); })) return;
  const auto say = [&](const CallArgs &a) {
    if (mine.describe != nullptr) return mine.describe(a.value);
    char text[96];
    std::snprintf(text, sizeof text, "(%llu, %llu, %llu)", static_cast<unsigned long long>(a.value[0]),
                  static_cast<unsigned long long>(a.value[1]), static_cast<unsigned long long>(a.value[2]));
    return std::string(text);
  };
  std::string message = std::string(kernel) + ": the call differs between PEs: ";
  for (std::size_t pe = 0; pe < all.size(); ++pe) {
    if (pe) message += ", ";
    message += "PE " + std::to_string(pe) + " passed " + say(all[pe]);
  }
  throw Error(ErrorCode::CollectiveMismatch, message);
}

}  // namespace tdist::kernels::detail
