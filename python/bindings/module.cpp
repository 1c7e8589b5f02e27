// python/bindings/module.cpp - tdist._C, the native module of the Python package: the C++ host
// API (tdist/runtime.h, tdist/shmem.h) bound with nanobind. It reimplements nothing: every call is
// the C++ call, and every tdist::Error becomes a tdist.Error carrying the C++ message and code.
//
// Heap tensors are Tensor objects over tdist::Tensor. They leave as DLPack (__dlpack__,
// __dlpack_device__), so numpy, torch and cupy wrap them without a copy. Freeing is collective and
// explicit (free_tensor); a Tensor that is garbage-collected frees nothing, since one PE alone must
// never free. A freed tensor, and every peer view of it, refuse further use.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "aclshmem.h"
#include "tdist/error.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"
#include "python/bindings/heap_tensor.h"
#include "python/bindings/tensor_arg.h"

#ifdef TDIST_PYTHON_WITH_CUDA
#include "tdist/cuda.h"
#endif

namespace nb = nanobind;

namespace tdist::python {
namespace {

// ---- errors ---------------------------------------------------------------------------------

PyObject *g_error_type = nullptr;  // tdist.Error, a RuntimeError

void translateErrors(const std::exception_ptr &thrown, void *) {
  try {
    std::rethrow_exception(thrown);
  } catch (const Error &error) {
    nb::object exception = nb::borrow(g_error_type)(error.what());
    exception.attr("code") = nb::cast(error.code());
    PyErr_SetObject(g_error_type, exception.ptr());
  }
}

// ---- tensors --------------------------------------------------------------------------------

// Where the heap lives: the host on cpu, the PE's GPU on cuda (DLPack's device type and id).
std::pair<int, int> heapDevice() {
#ifdef TDIST_PYTHON_WITH_CUDA
  if (std::string(backendName()) == "cuda") return {static_cast<int>(nb::device::cuda::value), cuda::device()};
#endif
  return {static_cast<int>(nb::device::cpu::value), 0};
}

using Array = nb::ndarray<nb::array_api>;

// The tensor as a DLPack-exporting array that keeps `self` (the Python Tensor) alive.
Array asArray(nb::handle self, const HeapTensor &heap) {
  const Tensor &t = heap.tensor("tdist.Tensor.__dlpack__");
  const auto [type, id] = heapDevice();
  std::vector<std::size_t> shape(t.shape.begin(), t.shape.end());
  return Array(t.data, shape.size(), shape.data(), self, t.strides.data(), dlpackType(t.dtype), type, id);
}

HeapTensor createHeapTensor(const std::vector<std::int64_t> &shape, DType dtype, bool zeroed) {
  Tensor t = createTensor(shape, dtype, zeroed);
  auto allocation = std::make_shared<Allocation>();
  allocation->data = t.data;
  return HeapTensor(std::move(t), std::move(allocation), myPe());
}

HeapTensor peerView(const HeapTensor &heap, int pe) {
  Tensor t = heap.tensor("tdist.peer");
  if (pe < 0 || pe >= nPes()) {
    throw Error(ErrorCode::InvalidParam,
                "tdist.peer: PE " + std::to_string(pe) + " is out of range 0.." + std::to_string(nPes() - 1));
  }
  void *data = peerPointer(t.data, pe);
  if (data == nullptr) {
    throw Error(ErrorCode::NotSupported, "tdist.peer: PE " + std::to_string(pe) +
                                             "'s copy cannot be reached by loads and stores from PE " +
                                             std::to_string(myPe()));
  }
  t.data = data;
  return HeapTensor(std::move(t), heap.allocation(), pe);
}

std::string describe(const HeapTensor &heap) {
  if (!heap.alive()) return "tdist.Tensor(freed)";
  const Tensor &t = heap.tensor("repr");
  std::string shape;
  for (std::size_t i = 0; i < t.shape.size(); ++i) shape += (i ? ", " : "") + std::to_string(t.shape[i]);
  if (t.shape.size() == 1) shape += ",";
  std::string text = "tdist.Tensor(shape=(" + shape + "), dtype=" + dtypeName(t.dtype);
  if (heap.isPeerView()) text += ", peer=" + std::to_string(heap.pe());
  return text + ", backend=" + backendName() + ")";
}

// ---- init -----------------------------------------------------------------------------------

// A C API status as the Error it reported (aclshmemx_last_error holds the message).
void checkC(int status) {
  if (status != 0) throw Error(static_cast<ErrorCode>(status), aclshmemx_last_error());
}

// The seeds' aclshmem_init (tdist.shmem): the C API's aclshmemx_init_attr, which takes the job
// secret and the wait deadline from the environment, as a C program's init does.
void initFromAclshmemAttributes(int my_pe, int n_pes, std::uint64_t local_mem_size, const std::string &ip_port,
                                int engines, std::uint32_t init_timeout, std::uint32_t create_timeout,
                                std::uint32_t control_timeout) {
  aclshmemx_init_attr_t attr;
  checkC(aclshmemx_set_attributes(my_pe, n_pes, local_mem_size, ip_port.c_str(), &attr));
  attr.option_attr.data_op_engine_type = engines;
  attr.option_attr.shm_init_timeout = init_timeout;
  attr.option_attr.shm_create_timeout = create_timeout;
  attr.option_attr.control_operation_timeout = control_timeout;
  checkC(aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_DEFAULT, &attr));
}

double seconds(std::chrono::milliseconds ms) { return static_cast<double>(ms.count()) / 1000.0; }
std::chrono::milliseconds milliseconds(double s) {
  if (!(s > 0)) throw Error(ErrorCode::InvalidParam, "tdist.InitAttr: a timeout must be positive seconds");
  return std::chrono::milliseconds(static_cast<std::int64_t>(s * 1000.0));
}

}  // namespace

void bindKernels(nb::module_ &parent);  // kernels.cpp
void bindRma(nb::module_ &m);           // rma.cpp

}  // namespace tdist::python

NB_MODULE(_C, m) {
  using namespace tdist;
  using namespace tdist::python;
  m.doc() = "tdist's native module: the C++ host API (tdist/runtime.h, tdist/shmem.h)";
  // Tensors and contexts may outlive the interpreter's teardown on purpose (a collective free is
  // never made behind the program's back): nanobind's report of them at exit would be noise.
  nb::set_leak_warnings(false);

  nb::enum_<ErrorCode>(m, "ErrorCode")
      .value("InvalidParam", ErrorCode::InvalidParam)
      .value("InvalidValue", ErrorCode::InvalidValue)
      .value("NotInitialized", ErrorCode::NotInitialized)
      .value("AlreadyInitialized", ErrorCode::AlreadyInitialized)
      .value("Bootstrap", ErrorCode::Bootstrap)
      .value("SharedMemory", ErrorCode::SharedMemory)
      .value("HeapExhausted", ErrorCode::HeapExhausted)
      .value("CollectiveMismatch", ErrorCode::CollectiveMismatch)
      .value("NotSupported", ErrorCode::NotSupported)
      .value("Internal", ErrorCode::Internal);
  g_error_type = PyErr_NewExceptionWithDoc("tdist.Error",
                                           "An error of the tdist runtime: the C++ message, and its ErrorCode as .code",
                                           PyExc_RuntimeError, nullptr);
  m.attr("Error") = nb::handle(g_error_type);
  nb::register_exception_translator(translateErrors);

  nb::enum_<DType>(m, "DType")
      .value("int8", DType::I8).value("int16", DType::I16).value("int32", DType::I32).value("int64", DType::I64)
      .value("uint8", DType::U8).value("uint16", DType::U16).value("uint32", DType::U32)
      .value("uint64", DType::U64).value("float16", DType::F16).value("bfloat16", DType::BF16)
      .value("float32", DType::F32).value("float64", DType::F64);

  nb::class_<InitAttr>(m, "InitAttr")
      .def(nb::init<>())
      .def_rw("my_pe", &InitAttr::my_pe)
      .def_rw("n_pes", &InitAttr::n_pes)
      .def_rw("ip_port", &InitAttr::ip_port)
      .def_rw("local_mem_size", &InitAttr::local_mem_size)
      .def_rw("engines", &InitAttr::engines)
      .def_rw("job_secret", &InitAttr::job_secret)
      .def_rw("allow_no_secret", &InitAttr::allow_no_secret)
      .def_rw("backend", &InitAttr::backend)
      .def_prop_rw(
          "wait_timeout", [](const InitAttr &a) { return seconds(a.wait_timeout); },
          [](InitAttr &a, double s) { a.wait_timeout = milliseconds(s); }, "seconds")
      .def_prop_rw(
          "init_timeout", [](const InitAttr &a) { return seconds(a.init_timeout); },
          [](InitAttr &a, double s) { a.init_timeout = milliseconds(s); }, "seconds");
  m.def("attr_from_environment", &attrFromEnvironment,
        "The attributes tdist-run passes (TDIST_PE, TDIST_N_PES, TDIST_IP_PORT, ...)");
  m.attr("ENGINE_MTE") = static_cast<unsigned>(kEngineMte);
  m.attr("ENGINE_SDMA") = static_cast<unsigned>(kEngineSdma);
  m.attr("ENGINE_ROCE") = static_cast<unsigned>(kEngineRoce);
  m.attr("ENGINE_UDMA") = static_cast<unsigned>(kEngineUdma);

  // The calls that block (init, barriers, waits) release the GIL: other Python threads go on.
  m.def("init", &init, nb::arg("attr"), nb::call_guard<nb::gil_scoped_release>());
  m.def(
      "set_conf_store_tls",
      [](bool enable, const std::string &tls_info) {
        checkC(aclshmemx_set_conf_store_tls(enable ? 1 : 0, tls_info.c_str(),
                                            static_cast<std::uint32_t>(tls_info.size())));
      },
      nb::arg("enable"), nb::arg("tls_info"));
  m.def("aclshmem_init_attributes", &initFromAclshmemAttributes, nb::arg("my_pe"), nb::arg("n_pes"),
        nb::arg("local_mem_size"), nb::arg("ip_port"), nb::arg("engines"), nb::arg("init_timeout"),
        nb::arg("create_timeout"), nb::arg("control_timeout"), nb::call_guard<nb::gil_scoped_release>());
  m.def("finalize", [] {
    finalize();
    ++jobGeneration();  // the tensors and contexts of this job refuse use from now on
  }, nb::call_guard<nb::gil_scoped_release>());
  m.def("is_initialized", &isInitialized);
  m.def("my_pe", &myPe);
  m.def("n_pes", &nPes);
  m.def("backend", [] { return std::string(backendName()); });
  m.def(
      "_set_torch_access",
      [](nb::handle capsule) {
        if (capsule.is_none()) {  // back to the attribute reads (the tests compare the two)
          TorchTensors::setAccess(nullptr);
          return;
        }
        auto *access = static_cast<const TorchAccess *>(PyCapsule_GetPointer(capsule.ptr(), kTorchAccessCapsule));
        if (access == nullptr) throw nb::python_error();
        if (access->version != kTorchAccessVersion) {
          throw Error(ErrorCode::InvalidParam, "tdist._torch_C has access version " + std::to_string(access->version) +
                                                   ", tdist._C takes " + std::to_string(kTorchAccessVersion) +
                                                   ": the two modules come from different builds");
        }
        TorchTensors::setAccess(access);
      },
      nb::arg("capsule").none(), "Reads torch tensors through tdist._torch_C's access (tdist/__init__.py calls "
                                  "it), or through their attributes with None");
  m.def(
      "_tensor_arg",
      [](nb::handle object) {
        TensorArg arg(object, "tdist._C._tensor_arg: tensor");
        const Tensor &t = arg.get();
        return nb::make_tuple(reinterpret_cast<std::uintptr_t>(t.data), std::string(dtypeName(t.dtype)), t.shape,
                              t.strides);
      },
      nb::arg("tensor"), "What a call takes of a tensor argument: (address, dtype, shape, strides), for tests");
  m.def("heap_size", &heapSize);
  m.def(
      "on_heap",
      [](std::uintptr_t address, std::size_t bytes) {
        const auto base = reinterpret_cast<std::uintptr_t>(heapBase());
        return address >= base && bytes <= heapSize() && address - base <= heapSize() - bytes;
      },
      nb::arg("address"), nb::arg("bytes"),
      "Whether bytes at address (a data pointer, host or device) lie on this PE's symmetric heap");
  m.def(
      "cuda_module_attach",
      [](std::uintptr_t module) {
#ifdef TDIST_PYTHON_WITH_CUDA
        return cuda::attach_module(reinterpret_cast<void *>(module));
#else
        (void)module;
        throw Error(ErrorCode::NotSupported, "tdist.cuda_module_attach: this tdist was built without the cuda backend");
        return false;
#endif
      },
      nb::arg("module"),
      "Has the runtime fill the device state of a loaded CUmodule (a handle) that links the device library; "
      "False when it does not");
  m.def("cuda_device_count", [] {
    int count = 0;
#ifdef TDIST_PYTHON_WITH_CUDA
    if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
#endif
    return count;
  });
  m.def("barrier_all", &shmem::barrier_all, nb::call_guard<nb::gil_scoped_release>());
  m.def("sync_all", &shmem::sync_all, nb::call_guard<nb::gil_scoped_release>());
  m.def("quiet", &shmem::quiet, nb::call_guard<nb::gil_scoped_release>());
  m.def("fence", &shmem::fence);

  m.attr("TEAM_WORLD") = shmem::kTeamWorld;
  m.attr("TEAM_INVALID") = shmem::kTeamInvalid;
  m.def("team_split_strided", &shmem::team_split_strided, nb::arg("parent"), nb::arg("start"), nb::arg("stride"),
        nb::arg("size"), nb::call_guard<nb::gil_scoped_release>());
  m.def("team_my_pe", &shmem::team_my_pe, nb::arg("team"));
  m.def("team_n_pes", &shmem::team_n_pes, nb::arg("team"));
  m.def("team_translate_pe", &shmem::team_translate_pe, nb::arg("src_team"), nb::arg("src_pe"),
        nb::arg("dest_team"));
  m.def("team_barrier", &shmem::barrier, nb::arg("team"), nb::call_guard<nb::gil_scoped_release>());
  m.def("team_destroy", &shmem::team_destroy, nb::arg("team"), nb::call_guard<nb::gil_scoped_release>());

  nb::class_<HeapTensor>(m, "Tensor", "A tensor on the symmetric heap (tdist.empty, tdist.zeros, tdist.peer)")
      .def_prop_ro("shape", [](const HeapTensor &h) { return h.tensor("tdist.Tensor.shape").shape; })
      .def_prop_ro("dtype", [](const HeapTensor &h) { return h.tensor("tdist.Tensor.dtype").dtype; })
      .def_prop_ro("nbytes", [](const HeapTensor &h) { return h.tensor("tdist.Tensor.nbytes").nbytes(); })
      .def_prop_ro("data_ptr", [](const HeapTensor &h) {
        return reinterpret_cast<std::uintptr_t>(h.tensor("tdist.Tensor.data_ptr").data);
      })
      .def_prop_ro("pe", &HeapTensor::pe, "whose copy this is")
      .def_prop_ro("freed", [](const HeapTensor &h) { return !h.alive(); })
      .def("__dlpack__",
           [](nb::handle self, nb::kwargs kwargs) {
             const HeapTensor &heap = nb::cast<const HeapTensor &>(self);
             nb::object export_ = nb::cast(asArray(self, heap)).attr("__dlpack__");
             // `stream` asks the producer to order its pending work before the consumer's stream:
             // the heap's memory has none (allocation synchronises), so it is not passed on.
             nb::dict rest;
             for (auto [key, value] : kwargs) {
               if (nb::str(key).equal(nb::str("stream"))) continue;
               rest[key] = value;
             }
             try {
               return export_(**rest);
             } catch (nb::python_error &error) {
               // A nanobind before the 2023.12 protocol takes no keywords: the classic capsule.
               if (rest.size() == 0 || !error.matches(PyExc_TypeError)) throw;
               return export_();
             }
           })
      .def("__dlpack_device__",
           [](const HeapTensor &heap) {
             heap.tensor("tdist.Tensor.__dlpack_device__");
             return nb::make_tuple(heapDevice().first, heapDevice().second);
           })
      .def("__repr__", &describe);
  m.def("create_tensor", &createHeapTensor, nb::arg("shape"), nb::arg("dtype"), nb::arg("zeroed"),
        nb::call_guard<nb::gil_scoped_release>());
  m.def("free_tensor", [](HeapTensor &heap) { heap.free(); }, nb::arg("tensor"),
        nb::call_guard<nb::gil_scoped_release>());
  m.def("peer", &peerView, nb::arg("tensor"), nb::arg("pe"));

  bindRma(m);
  bindKernels(m);
}
