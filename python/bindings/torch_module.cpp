// python/bindings/torch_module.cpp - tdist._torch_C: torch tensors and torch's current stream read
// in C++ for tdist._C (torch_access.h says why and how), built against the headers of the torch
// that the build finds (python/CMakeLists.txt). tdist/__init__.py hands its `access` capsule to
// tdist._C after importing torch; `stream_of(tensor)` is the raw stream a call on tensor runs on,
// for tdist.kernels' contexts.
#include <torch/csrc/autograd/python_variable.h>
#ifdef TDIST_TORCH_WITH_CUDA
#include <c10/cuda/CUDAStream.h>
#endif

#include <cstdint>

#include "python/bindings/torch_access.h"
#include "tdist/runtime.h"

namespace tdist::python {
namespace {

int dtypeOf(c10::ScalarType type) {
  switch (type) {
    case c10::ScalarType::Char: return static_cast<int>(DType::I8);
    case c10::ScalarType::Short: return static_cast<int>(DType::I16);
    case c10::ScalarType::Int: return static_cast<int>(DType::I32);
    case c10::ScalarType::Long: return static_cast<int>(DType::I64);
    case c10::ScalarType::Byte: return static_cast<int>(DType::U8);
    case c10::ScalarType::UInt16: return static_cast<int>(DType::U16);
    case c10::ScalarType::UInt32: return static_cast<int>(DType::U32);
    case c10::ScalarType::UInt64: return static_cast<int>(DType::U64);
    case c10::ScalarType::Half: return static_cast<int>(DType::F16);
    case c10::ScalarType::BFloat16: return static_cast<int>(DType::BF16);
    case c10::ScalarType::Float: return static_cast<int>(DType::F32);
    case c10::ScalarType::Double: return static_cast<int>(DType::F64);
    default: return -1;
  }
}

// THPVariable_Check raises (throws) where isinstance does.
int isTensor(PyObject *object) {
  try {
    return THPVariable_Check(object) ? 1 : 0;
  } catch (...) {
    PyErr_Clear();
    return 0;
  }
}

int read(PyObject *object, TorchTensorFields *fields) {
  try {
    if (!THPVariable_Check(object)) return kTorchNotTaken;
    const at::Tensor &tensor = THPVariable_Unpack(object);
    if (tensor.requires_grad() || tensor.layout() != c10::kStrided || tensor.dim() > kTorchAccessMaxRank) {
      return kTorchNotTaken;
    }
    const int dtype = dtypeOf(tensor.scalar_type());
    if (dtype < 0) return kTorchNotTaken;
    const c10::Device device = tensor.device();
    if (device.is_cpu()) {
      fields->device = -1;
    } else if (device.is_cuda()) {
      fields->device = device.index();
    } else {
      return kTorchNotTaken;
    }
    fields->data = tensor.data_ptr();
    fields->dtype = dtype;
    fields->rank = static_cast<int>(tensor.dim());
    const auto shape = tensor.sizes();
    const auto strides = tensor.strides();
    for (int d = 0; d < fields->rank; ++d) {
      fields->shape[d] = shape[static_cast<std::size_t>(d)];
      fields->strides[d] = strides[static_cast<std::size_t>(d)];
    }
    return kTorchRead;
  } catch (...) {  // what torch refuses (a tensor without storage, say): the attribute path says why
    PyErr_Clear();
    return kTorchNotTaken;
  }
}

std::uintptr_t currentStream(int device) {
#ifdef TDIST_TORCH_WITH_CUDA
  return reinterpret_cast<std::uintptr_t>(c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(device)).stream());
#else
  static_cast<void>(device);
  return 0;
#endif
}

const TorchAccess kAccess{kTorchAccessVersion, &read, &currentStream};

// stream_of(tensor): 0 for a host tensor; for a CUDA tensor torch's current stream on its device,
// with the legacy default stream (0 to torch) as cudaStreamLegacy (1): in a kernel-library
// context's options, 0 means the PE's own stream.
PyObject *streamOf(PyObject *, PyObject *object) {
  if (isTensor(object) == 0) {
    PyErr_Format(PyExc_TypeError, "tdist._torch_C.stream_of: expected a torch.Tensor, got %s", Py_TYPE(object)->tp_name);
    return nullptr;
  }
  try {
    const c10::Device device = THPVariable_Unpack(object).device();
    if (!device.is_cuda()) return PyLong_FromLong(0);
    const std::uintptr_t stream = currentStream(device.index());
    return PyLong_FromUnsignedLongLong(stream != 0 ? stream : 1);
  } catch (const std::exception &error) {
    PyErr_SetString(PyExc_RuntimeError, error.what());
    return nullptr;
  }
}

PyMethodDef kMethods[] = {
    {"stream_of", &streamOf, METH_O, "The raw stream a tdist call on this torch tensor runs on (0: the host)"},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef kModule = {PyModuleDef_HEAD_INIT, "_torch_C",
                       "torch tensors and streams read in C++ for tdist._C (built against torch's headers)", -1,
                       kMethods, nullptr, nullptr, nullptr, nullptr};

}  // namespace
}  // namespace tdist::python

PyMODINIT_FUNC PyInit__torch_C() {
  PyObject *module = PyModule_Create(&tdist::python::kModule);
  if (module == nullptr) return nullptr;
  PyObject *capsule = PyCapsule_New(const_cast<tdist::python::TorchAccess *>(&tdist::python::kAccess),
                                    tdist::python::kTorchAccessCapsule, nullptr);
  if (capsule == nullptr || PyModule_AddObject(module, "access", capsule) < 0) {
    Py_XDECREF(capsule);
    Py_DECREF(module);
    return nullptr;
  }
  // The torch it was built against: tdist/__init__.py takes the access only from a module built
  // against the torch it imported (a tensor's layout is that torch's).
  if (PyModule_AddStringConstant(module, "torch_version", TDIST_TORCH_VERSION) < 0) {
    Py_DECREF(module);
    return nullptr;
  }
  return module;
}
