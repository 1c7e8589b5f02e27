// python/bindings/tensor_arg.h - a tensor argument of a binding: a tdist.Tensor taken as it is,
// anything else that exports DLPack (a numpy array, a torch or cupy tensor) as a tdist::Tensor over
// the same memory. The callee checks the rest (on the heap, contiguous, dtype, shape).
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "python/bindings/heap_tensor.h"
#include "python/bindings/torch_access.h"
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

// Torch tensors are read through their attributes (data_ptr(), shape, stride(), dtype, the
// Python names torch keeps stable), not through DLPack: a torch tensor's __dlpack__ is Python code
// (~4 us a call, and on cuda it orders the stream it is given after the current one), and even
// torch.utils.dlpack.to_dlpack's capsule, taken and released, costs ~0.8 us a tensor on cuda
// against ~0.3 us for the attributes. The calls that take them run on torch's current stream
// themselves, and the caller's reference keeps the tensor alive for the call. Looked up once torch
// has been imported (by the program); without torch, or a torch without these names, null.
class TorchTensors {
 public:
  static const TorchTensors *get() {
    static const TorchTensors *instance = nullptr;
    static bool tried = false;
    if (instance == nullptr && !tried) {
      if (PyDict_GetItemString(PyImport_GetModuleDict(), "torch") == nullptr) return nullptr;
      tried = true;
      try {
        instance = new TorchTensors();  // kept for the process's life, as the types it holds
      } catch (const nb::python_error &) {
        instance = nullptr;  // a torch without them: the DLPack protocol serves
      }
    }
    return instance;
  }

  // tdist._torch_C's access (torch_access.h), where it was built: the tensors are read in C++.
  static void setAccess(const TorchAccess *access) { access_ = access; }

  bool isTensor(nb::handle object) const {
    return PyObject_TypeCheck(object.ptr(), reinterpret_cast<PyTypeObject *>(tensor_type_.ptr()));
  }

  // The C++ view of a torch tensor; what torch refuses (a sparse tensor's data_ptr) is passed on.
  Tensor view(nb::handle object, const char *what) const {
    if (access_ != nullptr) {
      TorchTensorFields fields;
      if (access_->read(object.ptr(), &fields) == kTorchRead) {
        Tensor t;
        t.data = fields.data;
        t.dtype = static_cast<DType>(fields.dtype);
        t.shape.assign(fields.shape, fields.shape + fields.rank);
        t.strides.assign(fields.strides, fields.strides + fields.rank);
        return t;
      }
    }
    return viewByAttributes(object, what);
  }

 private:
  // The tensor through its Python attributes: without tdist._torch_C, and for what it does not
  // take (the errors are raised here).
  Tensor viewByAttributes(nb::handle object, const char *what) const {
    if (PyObject_IsTrue(nb::steal(attribute(object, requires_grad_, what)).ptr())) {
      throw Error(ErrorCode::InvalidParam, std::string(what) + " cannot be taken: it requires grad (tdist's calls "
                                                               "are not differentiable: pass tensor.detach())");
    }
    Tensor t;
    nb::object dtype = nb::steal(attribute(object, dtype_, what));
    const auto found = dtypes_.find(dtype.ptr());
    if (found == dtypes_.end()) {
      throw Error(ErrorCode::InvalidParam, std::string(what) + " has an element type (" +
                                               nb::str(dtype).c_str() + ") that tdist does not take");
    }
    t.dtype = found->second;
    nb::object pointer = nb::steal(method(object, data_ptr_, what));
    t.data = PyLong_AsVoidPtr(pointer.ptr());
    nb::object shape = nb::steal(attribute(object, shape_, what));
    nb::object strides = nb::steal(method(object, stride_, what));
    if (!PyTuple_Check(shape.ptr()) || !PyTuple_Check(strides.ptr()) ||
        PyTuple_GET_SIZE(shape.ptr()) != PyTuple_GET_SIZE(strides.ptr())) {
      throw Error(ErrorCode::InvalidParam, std::string(what) + " cannot be taken: its shape and strides are not "
                                                               "tuples of one length");
    }
    const Py_ssize_t rank = PyTuple_GET_SIZE(shape.ptr());
    t.shape.resize(static_cast<std::size_t>(rank));
    t.strides.resize(static_cast<std::size_t>(rank));
    for (Py_ssize_t d = 0; d < rank; ++d) {
      t.shape[static_cast<std::size_t>(d)] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape.ptr(), d));
      t.strides[static_cast<std::size_t>(d)] = PyLong_AsLongLong(PyTuple_GET_ITEM(strides.ptr(), d));
    }
    if (PyErr_Occurred()) throw nb::python_error();
    return t;
  }

  TorchTensors() {
    nb::module_ torch = nb::module_::import_("torch");
    tensor_type_ = torch.attr("Tensor");
    data_ptr_ = nb::steal(PyUnicode_InternFromString("data_ptr"));
    shape_ = nb::steal(PyUnicode_InternFromString("shape"));
    stride_ = nb::steal(PyUnicode_InternFromString("stride"));
    dtype_ = nb::steal(PyUnicode_InternFromString("dtype"));
    requires_grad_ = nb::steal(PyUnicode_InternFromString("requires_grad"));
    const std::pair<const char *, DType> names[] = {
        {"int8", DType::I8},     {"int16", DType::I16},   {"int32", DType::I32},     {"int64", DType::I64},
        {"uint8", DType::U8},    {"uint16", DType::U16},  {"uint32", DType::U32},    {"uint64", DType::U64},
        {"float16", DType::F16}, {"float32", DType::F32}, {"float64", DType::F64}, {"bfloat16", DType::BF16}};
    for (const auto &[name, dtype] : names) {
      if (!nb::hasattr(torch, name)) continue;  // uint16..64 came with torch 2.3
      nb::object type = torch.attr(name);
      dtypes_.emplace(type.ptr(), dtype);
      held_.push_back(std::move(type));
    }
  }

  // object.<name> or object.<name>(), torch's refusal as "<what> cannot be taken: <reason>".
  static PyObject *attribute(nb::handle object, const nb::object &name, const char *what) {
    return refusedIfNull(PyObject_GetAttr(object.ptr(), name.ptr()), what);
  }
  static PyObject *method(nb::handle object, const nb::object &name, const char *what) {
    return refusedIfNull(PyObject_CallMethodNoArgs(object.ptr(), name.ptr()), what);
  }
  static PyObject *refusedIfNull(PyObject *result, const char *what) {
    if (result != nullptr) return result;
    const std::string reason = nb::python_error().what();
    throw Error(ErrorCode::InvalidParam, std::string(what) + " cannot be taken: " + reason.substr(0, reason.find('\n')));
  }

  static inline const TorchAccess *access_ = nullptr;
  nb::object tensor_type_, data_ptr_, shape_, stride_, dtype_, requires_grad_;
  std::unordered_map<PyObject *, DType> dtypes_;
  std::vector<nb::object> held_;  // the dtype objects dtypes_ points at
};

// A tensor argument, converted with the GIL held: a tdist.Tensor directly, anything else through
// DLPack (kept alive here, with the memory it exports, until the call is done).
class TensorArg {
 public:
  TensorArg(nb::handle object, const char *what) {
    if (nb::isinstance<HeapTensor>(object)) {
      tensor_ = nb::cast<const HeapTensor &>(object).tensor(what);
      return;
    }
    if (const TorchTensors *torch = TorchTensors::get(); torch != nullptr && torch->isTensor(object)) {
      tensor_ = torch->view(object, what);
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
