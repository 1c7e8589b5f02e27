// The parameters of an IR kernel's GPU launch (tools/tdist-jit/launch_parameters.cpp): MLIR's
// gpu.func takes each memref as the fields of its descriptor, one parameter each, and each scalar
// by value, so the launch gets one pointer per field and per scalar, in parameter order.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "tools/tdist-jit/gpu_kernel.h"

namespace tdist::jit {
namespace {

KernelParameter memref(std::vector<std::int64_t> shape) {
  KernelParameter parameter;
  parameter.kind = KernelParameter::Kind::MemRef;
  parameter.element = "f32";
  parameter.shape = std::move(shape);
  return parameter;
}

KernelParameter scalar(const char *element) {
  KernelParameter parameter;
  parameter.element = element;
  return parameter;
}

TEST(LaunchParameters, MemRefsExpandToTheirDescriptorsFieldsAndScalarsStayWhole) {
  const std::vector<KernelParameter> parameters = {memref({KernelParameter::kDynamicSize, 16}), scalar("i32"),
                                                   memref({4}), scalar("index")};
  // The binding's packed form: a pointer to a pointer to each descriptor, a pointer to each scalar.
  std::vector<std::int64_t> matrix = {1, 1, 0, 8, 16, 16, 1};   // allocated, aligned, offset, sizes, strides
  std::vector<std::int64_t> vector = {2, 2, 0, 4, 1};
  std::int64_t *matrix_address = matrix.data();
  std::int64_t *vector_address = vector.data();
  std::uint64_t epoch = 7;
  std::uint64_t count = 3;
  void *packed[] = {&matrix_address, &epoch, &vector_address, &count};

  const std::vector<void *> expanded = expandParameters(parameters, packed);

  std::vector<void *> expected;
  for (std::int64_t &field : matrix) expected.push_back(&field);
  expected.push_back(&epoch);
  for (std::int64_t &field : vector) expected.push_back(&field);
  expected.push_back(&count);
  EXPECT_EQ(expanded, expected);
}

TEST(LaunchParameters, ARankZeroMemRefIsItsPointersAndOffset) {
  const std::vector<KernelParameter> parameters = {memref({})};
  std::vector<std::int64_t> descriptor = {5, 5, 0};
  std::int64_t *address = descriptor.data();
  void *packed[] = {&address};
  EXPECT_EQ(expandParameters(parameters, packed),
            (std::vector<void *>{&descriptor[0], &descriptor[1], &descriptor[2]}));
}

}  // namespace
}  // namespace tdist::jit
