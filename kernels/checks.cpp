// kernels/checks.cpp - the checks of every entry point: tensors, config limits, and the
// agreement of every PE on the call (through the runtime's sequence of collective calls).
#include "kernels/checks.h"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <vector>

#include "kernels/context_state.h"
#include "tdist/shmem.h"

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

namespace {

// What each PE said of its call, for the verdict.
struct Said {
  std::uint64_t kernel = 0;
  std::int64_t status = 0;
  std::uint64_t value[3] = {0, 0, 0};
};

// The kernels whose names a handshake row carries as a hash (FNV-1a, 64 bits): the ones the
// library has; another name is said as its hash.
constexpr const char *kKernelNames[] = {
    "tdist::kernels::all_gather", "tdist::kernels::reduce_scatter", "tdist::kernels::all_reduce",
    "all_gather_gemm",            "gemm_reduce_scatter",            "tdist::kernels::moe_dispatch",
    "tdist::kernels::moe_combine",
};

std::uint64_t kernelHash(const char *name) {
  std::uint64_t hash = 14695981039346656037ull;
  for (const char *c = name; *c; ++c) hash = (hash ^ static_cast<unsigned char>(*c)) * 1099511628211ull;
  return hash;
}

std::string kernelName(std::uint64_t hash) {
  for (const char *name : kKernelNames) {
    if (kernelHash(name) == hash) return name;
  }
  char text[40];
  std::snprintf(text, sizeof text, "a kernel of hash 0x%llx", static_cast<unsigned long long>(hash));
  return text;
}

// The verdict every PE reaches alike from every PE's row (index = PE); throws unless every PE
// found its arguments good and called the same kernel with the same values.
void verdict(const char *kernel, const CallSignature &mine, int local_code, const std::string &local_error,
             const std::vector<Said> &all) {
  if (local_code != 0) throw Error(static_cast<ErrorCode>(local_code), local_error);
  for (std::size_t pe = 0; pe < all.size(); ++pe) {
    if (all[pe].status == 0) continue;
    const auto code = static_cast<ErrorCode>(all[pe].status);
    throw Error(code, std::string(kernel) + ": failed on PE " + std::to_string(pe) + " (" + toString(code) + ")");
  }
  if (std::any_of(all.begin(), all.end(), [&](const Said &a) { return a.kernel != all[0].kernel; })) {
    std::string message = std::string(kernel) + ": the call differs between PEs: ";
    for (std::size_t pe = 0; pe < all.size(); ++pe) {
      if (pe) message += ", ";
      message += "PE " + std::to_string(pe) + " called " + kernelName(all[pe].kernel);
    }
    throw Error(ErrorCode::CollectiveMismatch, message);
  }
  const auto same = [](const Said &a, const Said &b) { return std::equal(a.value, a.value + 3, b.value); };
  if (std::all_of(all.begin(), all.end(), [&](const Said &a) { return same(a, all[0]); })) return;
  const auto say = [&](const Said &a) {
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

}  // namespace

void agree(const char *kernel, const CallSignature &mine, int local_code, const std::string &local_error) {
  CallArgs args;
  for (int i = 0; i < 3; ++i) args.value[i] = mine.value[i];
  args.status = local_code;
  const std::vector<CallArgs> exchanged = exchangeCallArgs(kernel, args);
  std::vector<Said> all(exchanged.size());
  const std::uint64_t hash = kernelHash(kernel);  // the host exchange does not carry it
  for (std::size_t pe = 0; pe < all.size(); ++pe) {
    all[pe].kernel = hash;
    all[pe].status = exchanged[pe].status;
    std::copy_n(exchanged[pe].value, 3, all[pe].value);
  }
  verdict(kernel, mine, local_code, local_error, all);
}

void agree(Context &ctx, const char *kernel, const CallSignature &mine, int local_code,
           const std::string &local_error) {
  auto &state = ContextAccess::state(ctx);
  if (state.handshake == nullptr) return agree(kernel, mine, local_code, local_error);
  const int me = myPe(), n = nPes();
  const std::uint64_t h = ++state.handshakes;
  HandshakeRow *rows = static_cast<HandshakeRow *>(state.handshake) + (h & 1) * static_cast<std::size_t>(n);
  HandshakeRow row;
  row.kernel = kernelHash(kernel);
  row.status = local_code;
  std::copy_n(mine.value, 3, row.value);
  // Everything from `kernel` to the end of `value`, then `sequence` as the signal (SET h).
  constexpr std::size_t kBody = offsetof(HandshakeRow, unused) - offsetof(HandshakeRow, kernel);
  for (int j = 0; j < n; ++j) {
    shmem::putmem_signal<std::uint64_t>(&rows[me].kernel, &row.kernel, kBody, &rows[me].sequence, h,
                                        shmem::SignalOp::Set, (me + j) % n);
  }
  std::vector<Said> all(static_cast<std::size_t>(n));
  for (int q = 0; q < n; ++q) {
    // Row [h & 1][q] carries h (not yet h + 2: q cannot be past handshake h + 1 before this PE
    // wrote its row h + 1).
    shmem::signal_wait_until<std::uint64_t>(&rows[q].sequence, shmem::Cmp::GE, h);
    HandshakeRow seen;
    shmem::getmem(&seen, &rows[q], sizeof seen, me);
    all[q].kernel = seen.kernel;
    all[q].status = seen.status;
    std::copy_n(seen.value, 3, all[q].value);
  }
  verdict(kernel, mine, local_code, local_error, all);
}

}  // namespace tdist::kernels::detail
