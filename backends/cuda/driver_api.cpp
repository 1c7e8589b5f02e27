// backends/cuda/driver_api.cpp - the driver's entry points, through the CUDA runtime library.
//
// Each is asked for at the ABI of CUDA 12.0, the oldest this backend is built for: a newer
// driver keeps serving that version of every function, so the types in DriverApi stay right
// whatever the installed driver is.
#include "backends/cuda/driver_api.h"

#include <mutex>

#include "backends/cuda/watchdog.h"

namespace tdist::cuda {
namespace {

constexpr unsigned kDriverAbi = 12000;

// Looks one entry point up; on failure, says why in *why and leaves *fn null.
template <class Fn>
bool lookUp(const char *symbol, Fn *fn, std::string *why) {
  void *address = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  cudaError_t error = cudaGetDriverEntryPointByVersion(symbol, &address, kDriverAbi, cudaEnableDefault, &found);
  if (error != cudaSuccess) {
    *why = cudaMessage("cudaGetDriverEntryPointByVersion", error);
    return false;
  }
  if (found != cudaDriverEntryPointSuccess || address == nullptr) {
    *why = std::string("the CUDA driver has no ") + symbol +
           (found == cudaDriverEntryPointVersionNotSufficent ? " (driver older than CUDA 12.0)" : "");
    return false;
  }
  *fn = reinterpret_cast<Fn>(address);
  return true;
}

struct Loaded {
  DriverApi api{};
  bool ok = false;
  std::string why;
};

const Loaded &loaded() {
  static const Loaded result = [] {
    Loaded l;
    DriverApi &d = l.api;
    std::string *why = &l.why;
    l.ok = lookUp("cuGetErrorString", &d.getErrorString, why) &&
           lookUp("cuDeviceGetAttribute", &d.deviceGetAttribute, why) &&
           lookUp("cuMemGetAllocationGranularity", &d.memGetAllocationGranularity, why) &&
           lookUp("cuMemCreate", &d.memCreate, why) &&
           lookUp("cuMemExportToShareableHandle", &d.memExportToShareableHandle, why) &&
           lookUp("cuMemImportFromShareableHandle", &d.memImportFromShareableHandle, why) &&
           lookUp("cuMemAddressReserve", &d.memAddressReserve, why) &&
           lookUp("cuMemAddressFree", &d.memAddressFree, why) &&
           lookUp("cuMemMap", &d.memMap, why) &&
           lookUp("cuMemUnmap", &d.memUnmap, why) &&
           lookUp("cuMemSetAccess", &d.memSetAccess, why) &&
           lookUp("cuMemRelease", &d.memRelease, why) &&
           lookUp("cuStreamWriteValue32", &d.streamWriteValue32, why) &&
           lookUp("cuStreamWriteValue64", &d.streamWriteValue64, why) &&
           lookUp("cuStreamWaitValue32", &d.streamWaitValue32, why) &&
           lookUp("cuStreamWaitValue64", &d.streamWaitValue64, why) &&
           lookUp("cuModuleGetGlobal", &d.moduleGetGlobal, why) &&
           lookUp("cuMemcpyHtoD", &d.memcpyHtoD, why);
    return l;
  }();
  return result;
}

}  // namespace

const DriverApi *tryDriver(std::string *why) {
  const Loaded &l = loaded();
  if (!l.ok) {
    *why = l.why;
    return nullptr;
  }
  return &l.api;
}

const DriverApi &driver() {
  std::string why;
  const DriverApi *api = tryDriver(&why);
  if (api == nullptr) throw Error(ErrorCode::NotSupported, "cuda backend: " + why);
  return *api;
}

std::string cudaMessage(const char *what, cudaError_t error) {
  return std::string(what) + ": " + cudaGetErrorName(error) + " (" + cudaGetErrorString(error) + ")";
}

std::string driverMessage(const char *what, CUresult result) {
  const char *text = nullptr;
  const Loaded &l = loaded();
  if (l.api.getErrorString == nullptr || l.api.getErrorString(result, &text) != CUDA_SUCCESS || text == nullptr) {
    text = "unknown driver error";
  }
  return std::string(what) + ": CUresult " + std::to_string(static_cast<int>(result)) + " (" + text + ")";
}

void throw_cuda_error(cudaError_t error, const char *what, ErrorCode code) {
  reportRecordedHang();
  throw Error(code, cudaMessage(what, error));
}

void check(CUresult result, const char *what, ErrorCode code) {
  if (result == CUDA_SUCCESS) [[likely]] return;
  reportRecordedHang();
  throw Error(code, driverMessage(what, result));
}

}  // namespace tdist::cuda
