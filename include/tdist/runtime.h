// tdist/runtime.h - host API of the symmetric-memory runtime (C++).
//
// A job is n_pes processes (PEs). Each calls init() with its own my_pe and the same ip_port and
// secret; PE 0 serves the bootstrap store on ip_port. After init every PE owns a symmetric heap
// that all PEs have mapped, and the collective allocation calls hand out the same offsets on
// every PE. Errors throw tdist::Error.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tdist/error.h"

// Everything declared here is exported from libtdist_runtime; the rest of it is hidden.
#pragma GCC visibility push(default)

namespace tdist {

// Data-operation engines, as aclshmem's data_op_engine_type bitmask.
enum Engine : unsigned {
  kEngineMte = 1,   // the calling core loads and stores peer memory
  kEngineSdma = 2,  // a copy engine carries non-blocking transfers
  kEngineRoce = 4,
  kEngineUdma = 8,
};

// Transport bits of transportMask(pe), as aclshmem's topology list.
enum Transport : unsigned {
  kTransportMte = 1,
  kTransportRoce = 2,
  kTransportSdma = 4,
  kTransportUdma = 8,
};

struct InitAttr {
  int my_pe = 0;
  int n_pes = 1;
  std::string ip_port;                      // "tcp://host:port" or "tcp6://[host]:port"
  std::uint64_t local_mem_size = 64u << 20; // bytes available to allocate()
  unsigned engines = kEngineMte;
  std::chrono::milliseconds init_timeout{std::chrono::seconds(120)};     // reach the store
  std::chrono::milliseconds create_timeout{std::chrono::seconds(120)};   // create and map heaps
  std::chrono::milliseconds control_timeout{std::chrono::seconds(120)};  // store collectives
  std::chrono::milliseconds wait_timeout{std::chrono::seconds(120)};     // every device wait
  int listen_fd = -1;       // PE 0: serve the store on this listening socket instead of binding
  std::string job_secret;   // every PE presents it to the store; PE 0 refuses other secrets
  // Without a secret, init fails unless this is set (or TDIST_ALLOW_NO_SECRET=1). Insecure: any
  // process that reaches ip_port can then join the job and read or write its store.
  bool allow_no_secret = false;
  std::string backend;      // "cpu", ...; "" = TDIST_BACKEND, else the build's first (cpu)
  // TLS between the PEs and the bootstrap store: "ca=FILE;cert=FILE;key=FILE" (PEM files: the
  // job's CA, this PE's certificate signed by it, its key), the same CA on every PE; "" = off.
  // The job secret is still required (docs/RUNTIME.md, "TLS for the bootstrap store").
  std::string tls_info;
  // This PE's node (TDIST_NODE; torchrun's GROUP_RANK): PEs of one node map each other's heaps,
  // a PE of another node is reached through the network (UCX on the cpu backend).
  int node = 0;
};

// The attributes tdist-run passes: TDIST_PE, TDIST_N_PES, TDIST_IP_PORT, TDIST_JOB_SECRET,
// TDIST_HEAP_SIZE, TDIST_ENGINES, TDIST_WAIT_TIMEOUT (seconds), TDIST_BOOTSTRAP_FD,
// TDIST_BACKEND, TDIST_ALLOW_NO_SECRET, TDIST_TLS_CA / _CERT / _KEY, TDIST_NODE. Without TDIST_PE and TDIST_N_PES, those of torchrun:
// RANK and WORLD_SIZE, and the store on MASTER_ADDR at MASTER_PORT + 1 (unless TDIST_IP_PORT is
// set); the job secret is still TDIST_JOB_SECRET, the same on every PE.
InitAttr attrFromEnvironment();

enum class InitStatus { NotInitialized = 0, ShmCreated = 1, Initialized = 2, Invalid = 3 };

void init(const InitAttr &attr);
void finalize();
InitStatus initStatus();
bool isInitialized();

int myPe();
int nPes();
// After init: the job's nodes, groups of PEs that map each other's heaps (InitAttr::node); 1 on
// one host. Where TDIST_TRANSPORT=ucx routes the PEs of one node through the network too, every
// PE is a node of its own (nPes()).
int nNodes();

// ---- the symmetric heap (every call is collective, same order and arguments on every PE) ----

constexpr std::size_t kDefaultAlignment = 64;

void *allocate(std::size_t bytes, std::size_t alignment = kDefaultAlignment);
void *allocateZeroed(std::size_t count, std::size_t size);
void deallocate(void *ptr);

void *heapBase();
std::size_t heapSize();
// Address of ptr's counterpart on pe, or nullptr when pe cannot be reached by load/store or ptr
// is not symmetric: neither on the symmetric heap nor in the program's static data (its global
// and static variables, symmetric on the cpu backend unless TDIST_STATIC_DATA=0).
void *peerPointer(const void *ptr, int pe);
unsigned transportMask(int pe);

// The backend this PE runs on ("cpu", "cuda"), after init.
const char *backendName();

// For libraries built on the runtime (the kernel library): a collective call's arguments, agreed
// across the world team in the sequence of collective calls (like malloc's). Every PE passes
// its call's three values and its local verdict (0, or an ErrorCode it found in its own
// arguments); returns every PE's (index = PE). Throws Error(CollectiveMismatch) on every PE
// when some PE is in another collective call at this step.
struct CallArgs {
  std::uint64_t value[3] = {0, 0, 0};
  std::int32_t status = 0;
};
std::vector<CallArgs> exchangeCallArgs(const char *call, const CallArgs &mine);

// ---- tensors on the heap --------------------------------------------------------------------

enum class DType { I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64 };

std::size_t dtypeSize(DType dtype);
const char *dtypeName(DType dtype);

struct Tensor {
  void *data = nullptr;
  DType dtype = DType::F32;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;  // in elements

  std::int64_t numel() const;
  std::size_t nbytes() const;
  template <class T>
  T *as() const { return static_cast<T *>(data); }
};

// Collective: a contiguous row-major tensor on the symmetric heap, its bytes zero when `zeroed`
// (and then zero on every PE before any PE returns). A negative extent, or a shape whose size in
// bytes overflows, is Error(InvalidParam).
Tensor createTensor(const std::vector<std::int64_t> &shape, DType dtype, bool zeroed = false);
void freeTensor(Tensor &tensor);

}  // namespace tdist

#pragma GCC visibility pop
