// runtime/heap.cpp - collective allocation on the symmetric heap, and tensors.
//
// Every PE checks its own arguments, then the PEs exchange what they were asked (call, sizes,
// local verdict) and all decide alike: either every PE gets the same block, or every PE gets
// the same error, naming the call and what each PE asked. The heap is never touched on error.
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <vector>

#include "runtime/collective.h"
#include "runtime/heap.h"
#include "runtime/symmetric_heap.h"
#include "runtime/runtime_state.h"
#include "tdist/shmem.h"

namespace tdist::runtime {
namespace {

// Agrees with every PE on this call; returns every PE's record (by world PE) only when all PEs
// asked the same and none found a local error.
MemberRecords agree(RuntimeState &state, const CollectiveRecord &mine,
                    const std::string &local_error) {
  const char *call = apiName(mine.api);
  auto &world = state.teams.teams[shmem::kTeamWorld];
  auto all = agreeOnStep(state, world, mine, call);
  // This PE's own error says most; the others learn that the call failed and why it differs.
  if (mine.status != 0) {
    throw Error(static_cast<ErrorCode>(mine.status), std::string(call) + ": " + local_error);
  }
  bool same = true;
  for (const CollectiveRecord &r : all) {
    same = same && r.arg0 == all[0].arg0 && r.arg1 == all[0].arg1;
  }
  if (!same) {
    throw Error(ErrorCode::CollectiveMismatch,
                callsDiffer(state, world, all, call) + "; the heap is unchanged");
  }
  for (int pe = 0; pe < state.n_pes; ++pe) {
    if (all[pe].status == 0) continue;
    auto code = static_cast<ErrorCode>(all[pe].status);
    throw Error(code, std::string(call) + ": failed on PE " + std::to_string(pe) + " (" +
                          toString(code) + "); the heap is unchanged");
  }
  return all;
}

std::string hex(std::uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%" PRIx64, value);
  return text;
}

// A block aligned to `alignment` takes the offsets whose address is aligned on this PE (its
// heap's base may be aligned to less: HeapAllocator::phaseOf). Every PE must take the same offset,
// so every PE's phase must be the same: else every PE fails alike, naming each one's.
void requireSamePhase(const RuntimeState &state, const MemberRecords &all, const char *call,
                      std::size_t alignment) {
  bool same = true;
  for (const CollectiveRecord &r : all) same = same && r.arg2 == all[0].arg2;
  if (same) return;
  std::string text = std::string(call) + ": alignment " + std::to_string(alignment) +
                     " cannot give every PE an aligned block at one symmetric offset: the heaps' base "
                     "addresses differ modulo it (the offset each PE needs modulo the alignment:";
  for (int pe = 0; pe < state.n_pes; ++pe) {
    text += (pe ? ", PE " : " PE ") + std::to_string(pe) + " " + hex(all[pe].arg2);
  }
  throw Error(ErrorCode::InvalidParam, text + "); the heap is unchanged");
}

void *allocateAgreed(RuntimeState &state, const CollectiveRecord &call, std::size_t bytes,
                     std::size_t alignment, std::string error) {
  CollectiveRecord mine = call;
  if (error.empty() && (alignment == 0 || (alignment & (alignment - 1)) != 0)) {
    error = "alignment " + std::to_string(alignment) + " is not a power of two";
  } else if (error.empty() && alignment > state.heap.size()) {
    error = "alignment " + std::to_string(alignment) + " is larger than the symmetric heap (" +
            std::to_string(state.heap.size()) + " bytes)";
  }
  if (!error.empty()) {
    mine.status = static_cast<std::int32_t>(ErrorCode::InvalidParam);
  } else {
    mine.arg2 = HeapAllocator::phaseOf(reinterpret_cast<std::uintptr_t>(state.heap.base()), alignment);
  }
  const MemberRecords all = agree(state, mine, error);
  requireSamePhase(state, all, apiName(mine.api), alignment);
  if (bytes == 0) return nullptr;
  // Every PE holds the same allocator state and phase, so every PE gets the same offset or none.
  auto offset = state.allocator.allocate(bytes, alignment, mine.arg2);
  if (!offset) {
    const std::string aligned =
        alignment > kDefaultAlignment ? " aligned to " + std::to_string(alignment) : std::string();
    throw Error(ErrorCode::HeapExhausted,
                std::string(apiName(mine.api)) + ": cannot allocate " + std::to_string(bytes) + " bytes" + aligned +
                    ": the symmetric heap has " + std::to_string(state.allocator.bytesFree()) +
                    " bytes free, the largest free block is " +
                    std::to_string(state.allocator.largestFree()) +
                    " bytes (local_mem_size " + std::to_string(state.attr.local_mem_size) +
                    "; a larger heap: tdist-run --heap, TDIST_HEAP_SIZE or the init attributes' local_mem_size)");
  }
  return state.heap.base() + *offset;
}

}  // namespace

void *allocateAs(CollectiveApi api, std::size_t bytes, std::size_t alignment) {
  auto &state = requireState(apiName(api));
  requireHostThread(state, apiName(api));
  CollectiveRecord mine{};
  mine.op = CollectiveOp::Allocate;
  mine.api = api;
  mine.arg0 = bytes;
  mine.arg1 = alignment;
  return allocateAgreed(state, mine, bytes, alignment, "");
}

void *allocateZeroedAs(CollectiveApi api, std::size_t count, std::size_t size) {
  auto &state = requireState(apiName(api));
  requireHostThread(state, apiName(api));
  CollectiveRecord mine{};
  mine.op = CollectiveOp::Calloc;
  mine.api = api;
  mine.arg0 = count;
  mine.arg1 = size;
  std::size_t bytes = 0;
  std::string error;
  if (__builtin_mul_overflow(count, size, &bytes)) {
    error = std::to_string(count) + " x " + std::to_string(size) + " bytes overflows size_t";
    bytes = 0;
  }
  void *ptr = allocateAgreed(state, mine, bytes, kDefaultAlignment, error);
  if (ptr != nullptr) {
    state.backend->zero(state, ptr, bytes);
    // No peer may write into the block before this PE has zeroed it.
    teamSync(state, state.teams.teams[shmem::kTeamWorld], CollectiveOp::Sync, api, apiName(api));
  }
  return ptr;
}

void deallocateAs(CollectiveApi api, void *ptr) {
  auto &state = requireState(apiName(api));
  requireHostThread(state, apiName(api));
  CollectiveRecord mine{};
  mine.op = CollectiveOp::Free;
  mine.api = api;
  std::string error;
  if (ptr == nullptr) {
    mine.arg1 = 1;
  } else if (!state.heap.contains(ptr)) {
    mine.status = static_cast<std::int32_t>(ErrorCode::InvalidParam);
    char text[96];
    std::snprintf(text, sizeof text, "%p is not on the symmetric heap", ptr);
    error = text;
    mine.arg1 = 2;
  } else {
    mine.arg0 = state.heap.offsetOf(ptr);
    error = state.allocator.checkFree(mine.arg0);
    if (!error.empty()) mine.status = static_cast<std::int32_t>(ErrorCode::InvalidParam);
  }
  agree(state, mine, error);
  if (ptr != nullptr) state.allocator.free(mine.arg0);
}

}  // namespace tdist::runtime

namespace tdist {

using runtime::CollectiveApi;

void *allocate(std::size_t bytes, std::size_t alignment) {
  return runtime::allocateAs(CollectiveApi::Allocate, bytes, alignment);
}
void *allocateZeroed(std::size_t count, std::size_t size) {
  return runtime::allocateZeroedAs(CollectiveApi::AllocateZeroed, count, size);
}
void deallocate(void *ptr) { runtime::deallocateAs(CollectiveApi::Deallocate, ptr); }

// ---- tensors ---------------------------------------------------------------------------------

std::size_t dtypeSize(DType dtype) {
  switch (dtype) {
    case DType::I8: case DType::U8: return 1;
    case DType::I16: case DType::U16: case DType::F16: case DType::BF16: return 2;
    case DType::I32: case DType::U32: case DType::F32: return 4;
    case DType::I64: case DType::U64: case DType::F64: return 8;
  }
  return 0;
}

const char *dtypeName(DType dtype) {
  switch (dtype) {
    case DType::I8: return "i8";
    case DType::I16: return "i16";
    case DType::I32: return "i32";
    case DType::I64: return "i64";
    case DType::U8: return "u8";
    case DType::U16: return "u16";
    case DType::U32: return "u32";
    case DType::U64: return "u64";
    case DType::F16: return "f16";
    case DType::BF16: return "bf16";
    case DType::F32: return "f32";
    case DType::F64: return "f64";
  }
  return "?";
}

std::int64_t Tensor::numel() const {
  return std::accumulate(shape.begin(), shape.end(), std::int64_t{1}, std::multiplies<>());
}

std::size_t Tensor::nbytes() const { return static_cast<std::size_t>(numel()) * dtypeSize(dtype); }

Tensor createTensor(const std::vector<std::int64_t> &shape, DType dtype, bool zeroed) {
  std::int64_t elements = 1;
  for (std::int64_t extent : shape) {
    if (extent < 0) {
      throw Error(ErrorCode::InvalidParam,
                  "create_tensor: negative extent " + std::to_string(extent) + " in the shape");
    }
    if (__builtin_mul_overflow(elements, extent, &elements)) elements = -1;
    if (elements < 0) break;
  }
  std::size_t bytes = 0;
  if (elements < 0 || __builtin_mul_overflow(static_cast<std::size_t>(elements), dtypeSize(dtype), &bytes)) {
    throw Error(ErrorCode::InvalidParam, "create_tensor: the shape's size in bytes overflows 64 bits");
  }
  Tensor tensor;
  tensor.dtype = dtype;
  tensor.shape = shape;
  tensor.strides.assign(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;) tensor.strides[d - 1] = tensor.strides[d] * shape[d];
  tensor.data = zeroed ? runtime::allocateZeroedAs(CollectiveApi::CreateTensor, bytes, 1)
                       : runtime::allocateAs(CollectiveApi::CreateTensor, bytes, kDefaultAlignment);
  return tensor;
}

void freeTensor(Tensor &tensor) {
  runtime::deallocateAs(CollectiveApi::FreeTensor, tensor.data);
  tensor.data = nullptr;
}

}  // namespace tdist
