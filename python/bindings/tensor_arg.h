// python/bindings/tensor_arg.h - a tensor argument of a binding: a tdist.Tensor taken as it is,
// anything else that exports DLPack (a numpy array, a torch or cupy tensor) as a tdist::Tensor over
// the same memory. The callee checks the rest (on the heap, contiguous, dtype, shape).
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <optional>
#include <string>

#include "python/bindings/heap_tensor.h"
#include "tdist/error.h"
#include "tdist/runtime.h"

namespace tdist::python {

namespace nb = nanobind;

using AnyArray = nb::ndarray<nb::ro>;  // any device, any dtype, any layout: the callee checks

inline DType dtypeOf(const nb::dlpack::dtype &type, const char *what) {
  using Code = nb::dlpack::dtype_code;
  const auto code = static_cast<Code>(type.code);
  if (type.lanes == 1) {
    switch (code) {
      case Code::Int:
        if (type.bits == 8) return DType::I8;
        if (type.bits == 16) return DType::I16;
        if (type.bits == 32) return DType::I32;
        if (type.bits == 64) return DType::I64;
        break;
      case Code::UInt:
        if (type.bits == 8) return DType::U8;
        if (type.bits == 16) return DType::U16;
        if (type.bits == 32) return DType::U32;
        if (type.bits == 64) return DType::U64;
        break;
      case Code::Float:
        if (type.bits == 16) return DType::F16;
        if (type.bits == 32) return DType::F32;
        if (type.bits == 64) return DType::F64;
        break;
      case Code::Bfloat:
        if (type.bits == 16) return DType::BF16;
        break;
      default: break;
    }
  }
  throw Error(ErrorCode::InvalidParam, std::string(what) + " has an element type (DLPack code " +
                                           std::to_string(type.code) + ", " + std::to_string(type.bits) +
                                           " bits) that tdist does not take");
}

// The DLPack element type of a DType (dtypeOf's inverse), for the tensors tdist exports.
inline nb::dlpack::dtype dlpackType(DType dtype) {
  using Code = nb::dlpack::dtype_code;
  const auto bits = static_cast<std::uint8_t>(dtypeSize(dtype) * 8);
  switch (dtype) {
    case DType::I8: case DType::I16: case DType::I32: case DType::I64:
      return {static_cast<std::uint8_t>(Code::Int), bits, 1};
    case DType::U8: case DType::U16: case DType::U32: case DType::U64:
      return {static_cast<std::uint8_t>(Code::UInt), bits, 1};
    case DType::BF16:
      return {static_cast<std::uint8_t>(Code::Bfloat), bits, 1};
    case DType::F16: case DType::F32: case DType::F64:
      return {static_cast<std::uint8_t>(Code::Float), bits, 1};
  }
  throw Error(ErrorCode::InvalidParam, "tdist: unknown dtype");
}

// The C++ view of an array: the same memory, shape and strides (in elements).
inline Tensor view(const AnyArray &array, const char *what) {
  Tensor t;
  t.data = const_cast<void *>(array.data());
  t.dtype = dtypeOf(array.dtype(), what);
  for (std::size_t d = 0; d < array.ndim(); ++d) {
    t.shape.push_back(static_cast<std::int64_t>(array.shape(d)));
    t.strides.push_back(array.stride(d));
  }
  return t;
}

// torch.utils.dlpack.to_dlpack where object is a torch tensor, else null. A torch tensor's
// __dlpack__ is Python code (~4 us a call, and on cuda it orders the stream it is given after the
// current one); to_dlpack makes the same capsule in ~0.3 us. The calls that take it run on torch's
// current stream themselves. Looked up once torch has been imported (by the program).
inline PyObject *torchToDlpack(nb::handle object) {
  static PyObject *tensor_type = nullptr, *to_dlpack = nullptr;
  if (tensor_type == nullptr) {
    if (PyDict_GetItemString(PyImport_GetModuleDict(), "torch") == nullptr) return nullptr;
    try {
      nb::object function = nb::module_::import_("torch.utils.dlpack").attr("to_dlpack");
      nb::object type = nb::module_::import_("torch").attr("Tensor");
      to_dlpack = function.release().ptr();  // both kept for the process's life
      tensor_type = type.release().ptr();
    } catch (const nb::python_error &) {
      return nullptr;  // a torch without them: the DLPack protocol serves
    }
  }
  return PyObject_TypeCheck(object.ptr(), reinterpret_cast<PyTypeObject *>(tensor_type)) ? to_dlpack : nullptr;
}

// A tensor argument, converted with the GIL held: a tdist.Tensor directly, anything else through
// DLPack (kept alive here, with the memory it exports, until the call is done).
class TensorArg {
 public:
  TensorArg(nb::handle object, const char *what) {
    if (nb::isinstance<HeapTensor>(object)) {
      tensor_ = nb::cast<const HeapTensor &>(object).tensor(what);
      return;
    }
    if (PyObject *to_dlpack = torchToDlpack(object)) {
      nb::object capsule = nb::steal(PyObject_CallOneArg(to_dlpack, object.ptr()));
      if (!capsule.is_valid()) {  // e.g. a tensor that requires grad: torch says why
        const std::string reason = nb::python_error().what();
        throw Error(ErrorCode::InvalidParam, std::string(what) + " cannot be taken: " +
                                                 reason.substr(0, reason.find('\n')));
      }
      array_ = nb::cast<AnyArray>(capsule);
      tensor_ = view(*array_, what);
      return;
    }
    try {
      array_ = nb::cast<AnyArray>(object);
    } catch (const nb::cast_error &) {
      throw Error(ErrorCode::InvalidParam, std::string(what) + " is a " +
                                               nb::type_name(object.type()).c_str() +
                                               ", which exports no DLPack tensor");
    }
    tensor_ = view(*array_, what);
  }
  Tensor &get() { return tensor_; }

 private:
  std::optional<AnyArray> array_;
  Tensor tensor_;
};

}  // namespace tdist::python
