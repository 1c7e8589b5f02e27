// python/bindings/torch_access.h - what tdist._torch_C (built against torch's headers, where torch
// is installed) hands tdist._C: reading a torch tensor and torch's current stream in C++, in place
// of the Python attribute reads (data_ptr(), shape, stride(), dtype, requires_grad: ~1.1 us a
// tensor) and torch.cuda's current-stream lookup. A C struct behind a capsule, so that the two
// modules share no C++ ABI: _C takes it through tdist._C._set_torch_access(capsule) and checks the
// version. The fast path takes only the tensors tdist takes as they are; for anything else (a
// dtype tdist does not take, a tensor that requires grad, more than kTorchAccessMaxRank
// dimensions) it answers kTorchNotTaken and _C reads the tensor through its attributes, which
// gives the error message.
#pragma once

#include <Python.h>

#include <cstdint>

namespace tdist::python {

constexpr std::uint32_t kTorchAccessVersion = 1;
constexpr int kTorchAccessMaxRank = 8;
constexpr const char *kTorchAccessCapsule = "tdist._torch_C.access";

enum TorchRead : int { kTorchRead = 0, kTorchNotTaken = 1 };

struct TorchTensorFields {
  void *data;
  int dtype;   // a tdist::DType's value
  int device;  // the CUDA device's index; -1 on the host
  int rank;
  std::int64_t shape[kTorchAccessMaxRank];
  std::int64_t strides[kTorchAccessMaxRank];  // in elements
};

struct TorchAccess {
  std::uint32_t version;  // kTorchAccessVersion
  // kTorchRead with fields filled, or kTorchNotTaken (see above). Never raises.
  int (*read)(PyObject *object, TorchTensorFields *fields);
  // torch's current stream on CUDA device `device` as a raw cudaStream_t; 0 where torch has no CUDA.
  std::uintptr_t (*current_stream)(int device);
};

}  // namespace tdist::python
