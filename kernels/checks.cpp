// kernels/checks.cpp - the checks of every entry point: tensors, config limits, and the
// agreement of every PE on the call (through the runtime's sequence of collective calls).
#include "kernels/checks.h"

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include "kernels/context_state.h"
#include "tdist/shmem.h"
#include "tdist/trace.h"

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

void requireSignals(const char *kernel, const Context &ctx, const char *backend, const SlotNeed &need) {
  if (need.slots <= ctx.maxSignals()) return;
  throw Error(ErrorCode::InvalidParam, std::string(kernel) + ": needs " + need.formula + " = " +
                                           std::to_string(need.slots) + " signals on the " + backend +
                                           " backend, the context has " + std::to_string(ctx.maxSignals()) +
                                           " (ContextOptions::max_signals)");
}

namespace {

// FNV-1a, 64 bits.
std::uint64_t fnv1a(const std::string &text) {
  std::uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
  return hash;
}

// The kernels whose names a handshake row carries as a hash: the ones the library has; another
// name is said as its hash.
constexpr const char *kKernelNames[] = {
    "tdist::kernels::all_gather",   "tdist::kernels::reduce_scatter", "tdist::kernels::all_reduce",
    "tdist::kernels::all_gather_gemm", "tdist::kernels::gemm_reduce_scatter", "tdist::kernels::moe_dispatch",
    "tdist::kernels::moe_combine",  "tdist::kernels::Context",
};

std::uint64_t kernelHash(const char *name) { return fnv1a(name); }

std::string kernelName(std::uint64_t hash) {
  for (const char *name : kKernelNames) {
    if (kernelHash(name) == hash) return name;
  }
  char text[40];
  std::snprintf(text, sizeof text, "a kernel of hash 0x%llx", static_cast<unsigned long long>(hash));
  return text;
}

// What each PE said of its call, for the verdict.
struct Said {
  std::uint64_t kernel = 0;
  std::int64_t status = 0;
  std::uint64_t digest = 0;
};

// Every PE's signature text (index = PE), through the runtime's agreement on the host, 24 bytes
// a step: only when the digests differ, which every PE sees alike, so every PE makes the same steps.
std::vector<std::string> exchangeTexts(const char *kernel, const std::string &mine) {
  CallArgs length;
  length.value[0] = mine.size();
  const std::vector<CallArgs> lengths = exchangeCallArgs(kernel, length);
  std::size_t longest = 0;
  for (const CallArgs &l : lengths) longest = std::max<std::size_t>(longest, l.value[0]);
  std::vector<std::string> texts(lengths.size());
  constexpr std::size_t kStep = sizeof(CallArgs::value);
  for (std::size_t at = 0; at < longest; at += kStep) {
    CallArgs piece;
    if (at < mine.size()) std::memcpy(piece.value, mine.data() + at, std::min(kStep, mine.size() - at));
    const std::vector<CallArgs> pieces = exchangeCallArgs(kernel, piece);
    for (std::size_t pe = 0; pe < pieces.size(); ++pe) {
      const std::size_t size = lengths[pe].value[0];
      if (at < size) texts[pe].append(reinterpret_cast<const char *>(pieces[pe].value), std::min(kStep, size - at));
    }
  }
  return texts;
}

// The fields of a signature text, in order: (name, value).
std::vector<std::pair<std::string, std::string>> fieldsOf(const std::string &text) {
  std::vector<std::pair<std::string, std::string>> fields;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    const std::string field = text.substr(at, end - at);
    const std::size_t equals = field.find('=');
    fields.emplace_back(field.substr(0, equals), equals == std::string::npos ? "" : field.substr(equals + 1));
    at = end + 1;
  }
  return fields;
}

// "<kernel>: the call differs between PEs in <field>: PE 0 passed <v0>, PE 1 passed <v1>, ..."
// (and the other fields that differ), from every PE's signature text.
std::string differences(const char *kernel, const std::vector<std::string> &texts) {
  std::vector<std::vector<std::pair<std::string, std::string>>> all;
  for (const std::string &text : texts) all.push_back(fieldsOf(text));
  std::vector<std::string> differing;
  std::size_t most = 0;
  for (const auto &fields : all) most = std::max(most, fields.size());
  for (std::size_t f = 0; f < most; ++f) {
    for (const auto &fields : all) {
      const bool here = f < fields.size() && f < all[0].size();
      if (!here || fields[f] != all[0][f]) {
        differing.push_back(f < all[0].size() ? all[0][f].first : fields[f].first);
        break;
      }
    }
  }
  if (differing.empty()) differing.push_back("its arguments");
  const std::string &first = differing[0];
  std::string message = std::string(kernel) + ": the call differs between PEs in " + first + ":";
  for (std::size_t pe = 0; pe < all.size(); ++pe) {
    std::string value = "nothing";
    for (const auto &[name, v] : all[pe]) {
      if (name == first) {
        value = v;
        break;
      }
    }
    message += (pe ? ", PE " : " PE ") + std::to_string(pe) + " passed " + value;
  }
  if (differing.size() > 1) {
    message += " (they differ in";
    for (std::size_t i = 1; i < differing.size(); ++i) message += (i > 1 ? ", " : " ") + differing[i];
    message += " too)";
  }
  return message;
}

// The verdict every PE reaches alike from every PE's row (index = PE); throws unless every PE
// found its arguments good and called the same kernel with the same signature.
void verdict(const char *kernel, const CallSignature &mine, int local_code, const std::string &local_error,
             const std::vector<Said> &all) {
  for (std::size_t pe = 0; pe < all.size(); ++pe) {
    if (all[pe].status == 0) continue;
    if (local_code != 0) throw Error(static_cast<ErrorCode>(local_code), local_error);
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
  if (std::all_of(all.begin(), all.end(), [&](const Said &a) { return a.digest == all[0].digest; })) return;
  throw Error(ErrorCode::CollectiveMismatch, differences(kernel, exchangeTexts(kernel, mine.text())));
}

}  // namespace

// Every call builds its signature (a few hundred bytes of text), so it is appended in place, with
// std::to_chars rather than snprintf and temporary strings (which took about a tenth of a small
// call's time on one host in perf).
namespace {

void appendNumber(std::string &out, long long value) {
  char digits[24];
  const auto [end, error] = std::to_chars(digits, digits + sizeof digits, value);
  out.append(digits, end);
}

// "@0x<hex>" of an offset from the heap's base.
void appendOffset(std::string &out, const void *address) {
  char digits[24];
  const auto offset = static_cast<unsigned long long>(static_cast<const std::byte *>(address) -
                                                      static_cast<const std::byte *>(heapBase()));
  const auto [end, error] = std::to_chars(digits, digits + sizeof digits, offset, 16);
  out.append("@0x").append(digits, end);
}

}  // namespace

void CallSignature::field(std::string_view name) {
  if (text_.empty()) {
    text_.reserve(256);
  } else {
    text_ += ' ';
  }
  text_.append(name).append(1, '=');
}

void CallSignature::add(std::string_view name, long long value) {
  field(name);
  appendNumber(text_, value);
}

void CallSignature::add(std::string_view name, std::string_view text) {
  field(name);
  text_.append(text);
}

void CallSignature::tensor(std::string_view name, const Tensor &t, int varying) {
  field(name);
  text_.append(dtypeName(t.dtype)).append(1, '[');
  for (std::size_t d = 0; d < t.shape.size(); ++d) {
    if (d) text_ += ',';
    if (static_cast<int>(d) == varying) {
      text_ += '*';
    } else {
      appendNumber(text_, t.shape[d]);
    }
  }
  text_ += ']';
  if (varying >= 0) {
    // A tensor whose extent differs between PEs is each PE's own (peers never address it), and
    // may be empty on one PE: where it lies is not compared.
  } else if (t.nbytes() == 0) {
    text_ += "@-";
  } else if (peerPointer(t.data, myPe()) == nullptr || heapBase() == nullptr) {
    text_ += "@off-heap";
  } else {
    appendOffset(text_, t.data);
  }
}

void CallSignature::context(const Context &ctx) {
  field("context");
  appendOffset(text_, ctx.slot(0));
}

std::uint64_t CallSignature::digest() const { return fnv1a(text_); }

void agree(const char *kernel, const CallSignature &mine, int local_code, const std::string &local_error) {
  CallArgs args;
  args.value[0] = kernelHash(kernel);
  args.value[1] = mine.digest();
  args.status = local_code;
  const std::vector<CallArgs> exchanged = exchangeCallArgs(kernel, args);
  std::vector<Said> all(exchanged.size());
  for (std::size_t pe = 0; pe < all.size(); ++pe) {
    all[pe].kernel = exchanged[pe].value[0];
    all[pe].status = exchanged[pe].status;
    all[pe].digest = exchanged[pe].value[1];
  }
  verdict(kernel, mine, local_code, local_error, all);
}

void agreeOnHost(Context & /*ctx: the runtime orders every PE's calls*/, const char *kernel,
                 const CallSignature &mine, int local_code, const std::string &local_error,
                 std::span<const std::byte> carried) {
  if (!carried.empty()) {
    throw Error(ErrorCode::Internal, std::string(kernel) + ": an agreement on the host carries no data");
  }
  agree(kernel, mine, local_code, local_error);
}

bool throughNetwork(int pe) { return (transportMask(pe) & kTransportRoce) != 0; }

bool anyPeerThroughNetwork() {
  const int n = nPes(), me = myPe();
  for (int pe = 0; pe < n; ++pe) {
    if (pe != me && throughNetwork(pe)) return true;
  }
  return false;
}

void agreeInBand(Context &ctx, const char *kernel, const CallSignature &mine, int local_code,
                 const std::string &local_error, std::span<const std::byte> carried) {
  auto &state = ContextAccess::state(ctx);
  const int me = myPe(), n = nPes();
  const std::size_t capacity = state.handshake_row_bytes - sizeof(HandshakeRow);
  if (carried.size() > capacity) {
    throw Error(ErrorCode::Internal, std::string(kernel) + ": " + std::to_string(carried.size()) +
                                         " bytes to carry with the handshake, where its rows carry " +
                                         std::to_string(capacity));
  }
  const std::uint64_t h = ++state.handshakes;
  const int parity = static_cast<int>(h & 1);
  HandshakeRow row;
  row.kernel = kernelHash(kernel);
  row.status = local_code;
  row.digest = mine.digest();
  // Everything from `kernel` to the end of `digest` (and of the carried bytes after the row),
  // then `sequence` as the signal (SET h). Blocking: to a peer through the network a row is one
  // message, handed over at once (docs/RUNTIME.md, "A put with a signal as one message"), so the
  // rows cross together.
  constexpr std::size_t kBody = offsetof(HandshakeRow, unused) - offsetof(HandshakeRow, kernel);
  const std::byte *body = reinterpret_cast<const std::byte *>(&row.kernel);
  std::size_t body_bytes = kBody;
  if (!carried.empty()) {
    constexpr std::size_t kToBytes = sizeof(HandshakeRow) - offsetof(HandshakeRow, kernel);
    state.carried_staging.resize(kToBytes + carried.size());
    std::memcpy(state.carried_staging.data(), &row.kernel, kToBytes);
    std::memcpy(state.carried_staging.data() + kToBytes, carried.data(), carried.size());
    body = state.carried_staging.data();
    body_bytes = kToBytes + carried.size();
  }
  HandshakeRow *mine_row = handshakeRow(state.handshake, state.handshake_row_bytes, n, parity, me);
  {
    trace::Span span(trace::Category::Move, "handshake");
    for (int j = 0; j < n; ++j) {
      const int pe = (me + j) % n;
      shmem::putmem_signal<std::uint64_t>(&mine_row->kernel, body, body_bytes, &mine_row->sequence, h,
                                          shmem::SignalOp::Set, pe);
    }
  }
  state.carried_at = carried.empty() ? 0 : h;
  trace::Span wait_span(trace::Category::Wait, "wait_handshake");
  std::vector<Said> all(static_cast<std::size_t>(n));
  for (int q = 0; q < n; ++q) {
    // Row [h & 1][q] carries h (not yet h + 2: q cannot be past handshake h + 1 before this PE
    // wrote its row h + 1).
    HandshakeRow *row_of_q = handshakeRow(state.handshake, state.handshake_row_bytes, n, parity, q);
    shmem::signal_wait_until<std::uint64_t>(&row_of_q->sequence, shmem::Cmp::GE, h);
    HandshakeRow seen;
    shmem::getmem(&seen, row_of_q, sizeof seen, me);
    all[q].kernel = seen.kernel;
    all[q].status = seen.status;
    all[q].digest = seen.digest;
  }
  verdict(kernel, mine, local_code, local_error, all);
}

}  // namespace tdist::kernels::detail
