// tdist_template_library_scenario NAME: PE programs whose calls into the template library end
// the job on purpose; scenario_test.cpp runs them under tdist-run and checks how.
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <string>

#include "tdist/dl.h"
#include "tdist/launch.h"
#include "tdist/runtime.h"
#include "test/template_library/ciface.h"

namespace {

using tdist::testing::entry;
using tdist::testing::MemRef;
using tdist::testing::vectorOf;

template <class T>
T *allocateZeroed(std::size_t count) {
  return static_cast<T *>(tdist::allocateZeroed(count, sizeof(T)));
}

void badSignalOp() {
  auto *sig = allocateZeroed<std::int32_t>(16);
  entry<void(std::int32_t *, std::int32_t, std::int32_t, std::int32_t)>("_mlir_ciface_aclshmemx_signal_op")(sig, 1, 7, 0);
}

void putBeyondMemRef() {
  auto *data = allocateZeroed<float>(16);
  float source[32] = {};
  MemRef<float, 1> dest = vectorOf(data, 0, 16);
  MemRef<float, 1> from = vectorOf(source, 0, 32);
  entry<void(MemRef<float, 1> *, MemRef<float, 1> *, std::int64_t, std::int32_t)>(
      "_mlir_ciface_aclshmem_float_put_m1_m1")(&dest, &from, 20, 0);
}

void stridedPut() {
  auto *data = allocateZeroed<std::int32_t>(16);
  std::int32_t source[16] = {};
  MemRef<std::int32_t, 1> dest = vectorOf(data, 0, 8, 2);
  MemRef<std::int32_t, 1> from = vectorOf(source, 0, 16);
  entry<void(MemRef<std::int32_t, 1> *, MemRef<std::int32_t, 1> *, std::int64_t, std::int32_t)>(
      "_mlir_ciface_aclshmem_int32_put_nbi_m1_m1")(&dest, &from, 4, 0);
}

void negativeBytes() {
  auto *data = allocateZeroed<char>(16);
  char source[16] = {};
  entry<void(void *, void *, std::int64_t, std::int32_t)>("_mlir_ciface_aclshmem_putmem")(data, source, -1, 0);
}

void ptrOffHeap() {
  float local[4] = {};
  MemRef<float, 1> in = vectorOf(local, 0, 4);
  MemRef<float, 1> out{};
  entry<void(MemRef<float, 1> *, MemRef<float, 1> *, std::int32_t)>("_mlir_ciface_aclshmem_ptr_float_m1_m1")(&out, &in, 0);
}

void ptrBadPe() {
  auto *data = allocateZeroed<float>(4);
  MemRef<float, 1> in = vectorOf(data, 0, 4);
  MemRef<float, 1> out{};
  entry<void(MemRef<float, 1> *, MemRef<float, 1> *, std::int32_t)>("_mlir_ciface_aclshmem_ptr_float_m1_m1")(
      &out, &in, tdist::nPes());
}

// symm_at to the next PE, which TDIST_TRANSPORT=ucx leaves without a pointer.
void ptrNetworkPeer() {
  auto *data = allocateZeroed<float>(4);
  MemRef<float, 1> in = vectorOf(data, 0, 4);
  MemRef<float, 1> out{};
  entry<void(MemRef<float, 1> *, MemRef<float, 1> *, std::int32_t)>("_mlir_ciface_aclshmem_ptr_float_m1_m1")(
      &out, &in, (tdist::myPe() + 1) % tdist::nPes());
}

using SpanByName = void(MemRef<char, 1> *, std::int32_t, std::int32_t, std::int32_t);

void badSpanCategory() {
  char name[] = "tile";
  MemRef<char, 1> memref = vectorOf(name, 0, 4);
  entry<SpanByName>("_mlir_ciface_tdist_trace_begin_span_m1")(&memref, 0, 0, 5);
}

void emptySpanName() {
  char name[] = "";
  MemRef<char, 1> memref = vectorOf(name, 0, 0);
  entry<SpanByName>("_mlir_ciface_tdist_trace_begin_span_m1")(&memref, -1, -1, 0);
}

void stridedSpanName() {
  char name[] = "t_i_l_e";
  MemRef<char, 1> memref = vectorOf(name, 0, 4, 2);
  entry<SpanByName>("_mlir_ciface_tdist_trace_begin_span_m1")(&memref, -1, -1, 0);
}

void badAxis() { entry<std::int32_t(std::int32_t)>("_mlir_ciface_tdist_program_id")(3); }

// Two slots at the signal stride; only the first is ever notified.
void waitNeverSatisfied() {
  auto *sig = allocateZeroed<std::int32_t>(2 * tdist::dl::kSignalSlotStride<std::int32_t>);
  entry<void(std::int32_t *, std::int32_t, std::int32_t, std::int32_t)>("_mlir_ciface_aclshmemx_signal_op")(
      sig, 5, 0, tdist::myPe());
  MemRef<std::int32_t, 1> slots = vectorOf(sig, 0, 1);
  entry<std::int64_t(MemRef<std::int32_t, 1> *, std::int32_t, std::int32_t)>("_mlir_ciface_aclshmem_wait_int32_m1")(
      &slots, 2, 5);
}

// Programs 0 and 1 of a grid of 4 call barrier_all; 2 and 3 never do.
void barrierSomePrograms() {
  tdist::launch(tdist::Grid{4}, [] {
    if (tdist::dl::program_id() < 2) entry<void()>("_mlir_ciface_aclshmem_barrier_all")();
  });
}

}  // namespace

int main(int argc, char **argv) {
  const std::map<std::string, std::function<void()>> scenarios = {
      {"bad-sig-op", badSignalOp},
      {"put-beyond-memref", putBeyondMemRef},
      {"strided-put", stridedPut},
      {"negative-bytes", negativeBytes},
      {"ptr-off-heap", ptrOffHeap},
      {"ptr-bad-pe", ptrBadPe},
      {"ptr-network-peer", ptrNetworkPeer},
      {"bad-axis", badAxis},
      {"bad-span-category", badSpanCategory},
      {"empty-span-name", emptySpanName},
      {"strided-span-name", stridedSpanName},
      {"wait-never-satisfied", waitNeverSatisfied},
      {"barrier-some-programs", barrierSomePrograms},
  };
  if (argc != 2) {
    std::fprintf(stderr, "usage: tdist_template_library_scenario NAME\n");
    return 2;
  }
  if (std::string(argv[1]) == "before-init") {
    entry<std::int32_t()>("_mlir_ciface_aclshmem_my_pe")();
    return 0;
  }
  auto scenario = scenarios.find(argv[1]);
  if (scenario == scenarios.end()) {
    std::fprintf(stderr, "tdist_template_library_scenario: unknown scenario '%s'\n", argv[1]);
    return 2;
  }
  tdist::init(tdist::attrFromEnvironment());
  scenario->second();
  tdist::finalize();
  return 0;
}
