// backends/cuda/driver_api.h - the CUDA driver functions the backend calls, and how CUDA errors
// become tdist::Error.
//
// libtdist_runtime never links libcuda: CI machines have the toolkit but no driver, and the
// library must load there. The driver's entry points come from the runtime library
// (cudaGetDriverEntryPointByVersion), which loads the driver itself when there is one.
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <string>

#include "tdist/cuda.h"
#include "tdist/error.h"

namespace tdist::cuda {

struct DriverApi {
  CUresult (*getErrorString)(CUresult, const char **);
  CUresult (*deviceGetAttribute)(int *, CUdevice_attribute, CUdevice);
  CUresult (*memGetAllocationGranularity)(std::size_t *, const CUmemAllocationProp *,
                                          CUmemAllocationGranularity_flags);
  CUresult (*memCreate)(CUmemGenericAllocationHandle *, std::size_t, const CUmemAllocationProp *,
                        unsigned long long);
  CUresult (*memExportToShareableHandle)(void *, CUmemGenericAllocationHandle, CUmemAllocationHandleType,
                                         unsigned long long);
  CUresult (*memImportFromShareableHandle)(CUmemGenericAllocationHandle *, void *,
                                           CUmemAllocationHandleType);
  CUresult (*memAddressReserve)(CUdeviceptr *, std::size_t, std::size_t, CUdeviceptr, unsigned long long);
  CUresult (*memAddressFree)(CUdeviceptr, std::size_t);
  CUresult (*memMap)(CUdeviceptr, std::size_t, std::size_t, CUmemGenericAllocationHandle, unsigned long long);
  CUresult (*memUnmap)(CUdeviceptr, std::size_t);
  CUresult (*memSetAccess)(CUdeviceptr, std::size_t, const CUmemAccessDesc *, std::size_t);
  CUresult (*memRelease)(CUmemGenericAllocationHandle);
  CUresult (*streamWriteValue32)(CUstream, CUdeviceptr, cuuint32_t, unsigned);
  CUresult (*streamWriteValue64)(CUstream, CUdeviceptr, cuuint64_t, unsigned);
  CUresult (*streamWaitValue32)(CUstream, CUdeviceptr, cuuint32_t, unsigned);
  CUresult (*streamWaitValue64)(CUstream, CUdeviceptr, cuuint64_t, unsigned);
  CUresult (*moduleGetGlobal)(CUdeviceptr *, std::size_t *, CUmodule, const char *);
  CUresult (*memcpyHtoD)(CUdeviceptr, const void *, std::size_t);
};

// The entry points, looked up once; Error(NotSupported) naming the first one the installed
// driver lacks (or why there is no driver at all).
const DriverApi &driver();
// As driver(), but says why instead of throwing (for can_run).
const DriverApi *tryDriver(std::string *why);

// "<what>: <CUDA's message>" for an error of the runtime or the driver library.
std::string cudaMessage(const char *what, cudaError_t error);
std::string driverMessage(const char *what, CUresult result);

// check(cudaError_t) is tdist/cuda.h's; this is its twin for the driver's results.
void check(CUresult result, const char *what, ErrorCode code = ErrorCode::Internal);

}  // namespace tdist::cuda
