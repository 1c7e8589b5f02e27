// aclshmemx_cuda_module_attach on modules loaded by someone else, as Triton's launcher loads them:
// a module with the device library's state global gets this PE's state (it stays loaded, as
// Triton's modules do), one without it is left alone, and one whose global has another size is
// refused with the reason. The modules are PTX the driver compiles, loaded through the driver
// API that the runtime reaches as the backend does (no libcuda link).
#include <gtest/gtest.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "aclshmem.h"
#include "tdist/device/state.h"
#include "tdist/shmem.h"

namespace tdist {
namespace {

template <class Fn>
Fn driverEntry(const char *symbol) {
  void *address = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  if (cudaGetDriverEntryPointByVersion(symbol, &address, 12000, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess) {
    return nullptr;
  }
  return reinterpret_cast<Fn>(address);
}

// A module whose only content is a global of `bytes` bytes named `name`.
CUmodule loadModuleWithGlobal(const char *name, std::size_t bytes) {
  using LoadData = CUresult (*)(CUmodule *, const void *);
  static const auto load = driverEntry<LoadData>("cuModuleLoadData");
  if (load == nullptr) return nullptr;
  char ptx[256];
  std::snprintf(ptx, sizeof ptx,
                ".version 8.0\n.target sm_90\n.address_size 64\n.visible .global .align 8 .b8 %s[%zu];\n", name,
                bytes);
  CUmodule module = nullptr;
  return load(&module, ptx) == CUDA_SUCCESS ? module : nullptr;
}

void unload(CUmodule module) {
  using Unload = CUresult (*)(CUmodule);
  static const auto unload_module = driverEntry<Unload>("cuModuleUnload");
  if (module != nullptr && unload_module != nullptr) unload_module(module);
}

device::DeviceState readState(CUmodule module) {
  using GetGlobal = CUresult (*)(CUdeviceptr *, std::size_t *, CUmodule, const char *);
  static const auto get_global = driverEntry<GetGlobal>("cuModuleGetGlobal");
  device::DeviceState state{};
  CUdeviceptr address = 0;
  std::size_t bytes = 0;
  if (get_global == nullptr || get_global(&address, &bytes, module, "tdist_device_state") != CUDA_SUCCESS) {
    ADD_FAILURE() << "no tdist_device_state in the module";
    return state;
  }
  EXPECT_EQ(cudaMemcpy(&state, reinterpret_cast<void *>(address), sizeof state, cudaMemcpyDeviceToHost),
            cudaSuccess);
  return state;
}

TEST(CudaModuleAttach, AModuleWithTheStateGlobalGetsThisPesState) {
  CUmodule module = loadModuleWithGlobal("tdist_device_state", sizeof(device::DeviceState));
  ASSERT_NE(module, nullptr) << "the driver did not load the PTX module";
  int attached = -1;
  ASSERT_EQ(aclshmemx_cuda_module_attach(module, &attached), 0) << aclshmemx_last_error();
  EXPECT_EQ(attached, 1);
  const device::DeviceState state = readState(module);
  EXPECT_EQ(state.my_pe, shmem::my_pe());
  EXPECT_EQ(state.n_pes, shmem::n_pes());
  EXPECT_NE(state.generation, 0u);
  EXPECT_NE(state.heap_base, nullptr);
  // Twice is the same attachment, not a second one.
  EXPECT_EQ(aclshmemx_cuda_module_attach(module, &attached), 0) << aclshmemx_last_error();
  EXPECT_EQ(attached, 1);
  EXPECT_EQ(readState(module).generation, state.generation);
}

TEST(CudaModuleAttach, AModuleWithoutItIsLeftAlone) {
  CUmodule module = loadModuleWithGlobal("some_other_global", 64);
  ASSERT_NE(module, nullptr) << "the driver did not load the PTX module";
  int attached = -1;
  EXPECT_EQ(aclshmemx_cuda_module_attach(module, &attached), 0) << aclshmemx_last_error();
  EXPECT_EQ(attached, 0);
  unload(module);
}

TEST(CudaModuleAttach, AStateOfAnotherSizeIsRefusedWithTheReason) {
  CUmodule module = loadModuleWithGlobal("tdist_device_state", sizeof(device::DeviceState) + 8);
  ASSERT_NE(module, nullptr) << "the driver did not load the PTX module";
  int attached = -1;
  EXPECT_EQ(aclshmemx_cuda_module_attach(module, &attached), ACLSHMEM_INVALID_PARAM);
  EXPECT_EQ(attached, 0);
  EXPECT_NE(std::strstr(aclshmemx_last_error(), "different builds"), nullptr) << aclshmemx_last_error();
  unload(module);
}

}  // namespace
}  // namespace tdist
