// runtime/c_api_host.cpp - the host half of aclshmem.h: init, heap, teams, status.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>

#include "aclshmem.h"
#include "runtime/backend.h"
#include "runtime/bootstrap_tls.h"
#include "runtime/c_api_support.h"
#include "runtime/environment.h"
#include "runtime/heap.h"
#include "runtime/runtime_state.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"

namespace tdist::capi {
namespace {
thread_local std::string t_last_error;
}

void reportError(ErrorCode code, const char *message) {
  t_last_error = message;
  int pe = runtime::g_state != nullptr ? runtime::g_state->my_pe : -1;
  if (pe >= 0) std::fprintf(stderr, "tdist: PE %d: error: %s\n", pe, message);
  else std::fprintf(stderr, "tdist: error: %s\n", message);
}

const char *lastError() { return t_last_error.c_str(); }

}  // namespace tdist::capi

using tdist::capi::guarded;
using tdist::runtime::CollectiveApi;
using tdist::capi::guardedValue;

namespace {

// What aclshmemx_set_conf_store_tls said, for the inits that follow; unset: the environment's.
std::mutex g_tls_mutex;
std::optional<std::string> g_tls_info;

std::string tlsInfo() {
  std::lock_guard<std::mutex> lock(g_tls_mutex);
  return g_tls_info ? *g_tls_info : tdist::runtime::tlsInfoFromEnvironment();
}

std::chrono::milliseconds secondsOr(std::uint32_t seconds, std::chrono::milliseconds fallback) {
  return seconds == 0 ? fallback : std::chrono::milliseconds(std::uint64_t{seconds} * 1000);
}

tdist::InitAttr toInitAttr(const aclshmemx_init_attr_t &attr) {
  tdist::InitAttr out;
  out.my_pe = attr.my_pe;
  out.n_pes = attr.n_pes;
  if (std::memchr(attr.ip_port, '\0', sizeof attr.ip_port) == nullptr) {
    throw tdist::Error(tdist::ErrorCode::InvalidParam, "init: ip_port is not NUL-terminated within 64 bytes");
  }
  out.ip_port = attr.ip_port;
  out.local_mem_size = attr.local_mem_size;
  const auto &opt = attr.option_attr;
  out.engines = opt.data_op_engine_type == 0 ? tdist::kEngineMte : static_cast<unsigned>(opt.data_op_engine_type);
  out.init_timeout = secondsOr(opt.shm_init_timeout, out.init_timeout);
  out.create_timeout = secondsOr(opt.shm_create_timeout, out.create_timeout);
  out.control_timeout = secondsOr(opt.control_operation_timeout, out.control_timeout);
  // fd 0 is stdin, never a listening socket: a zero-filled struct means "none".
  out.listen_fd = opt.sockFd > 0 ? opt.sockFd : -1;
  if (opt.wait_timeout_ms != 0) {
    out.wait_timeout = std::chrono::milliseconds(opt.wait_timeout_ms);
  } else if (auto timeout = tdist::runtime::waitTimeoutFromEnvironment()) {
    out.wait_timeout = *timeout;
  }
  out.job_secret = tdist::runtime::jobSecretFromEnvironment();
  out.tls_info = tlsInfo();
  return out;
}

}  // namespace

extern "C" {

const char *aclshmemx_last_error(void) { return tdist::capi::lastError(); }

int aclshmemx_set_attributes(int my_pe, int n_pes, uint64_t local_mem_size, const char *ip_port,
                             aclshmemx_init_attr_t *attr) {
  return guarded([&] {
    if (attr == nullptr || ip_port == nullptr) {
      throw tdist::Error(tdist::ErrorCode::InvalidParam, "aclshmemx_set_attributes: NULL argument");
    }
    if (std::strlen(ip_port) >= sizeof attr->ip_port) {
      throw tdist::Error(tdist::ErrorCode::InvalidParam,
                         std::string("aclshmemx_set_attributes: ip_port '") + ip_port + "' is longer than 63 bytes");
    }
    std::memset(attr, 0, sizeof *attr);
    attr->my_pe = my_pe;
    attr->n_pes = n_pes;
    attr->local_mem_size = local_mem_size;
    std::strcpy(attr->ip_port, ip_port);
    attr->option_attr.version = 1;
    attr->option_attr.data_op_engine_type = ACLSHMEM_DATA_OP_MTE;
    attr->option_attr.shm_init_timeout = 120;
    attr->option_attr.shm_create_timeout = 120;
    attr->option_attr.control_operation_timeout = 120;
    attr->option_attr.sockFd = -1;
  });
}

int aclshmemx_init_attr(aclshmemx_bootstrap_t flags, aclshmemx_init_attr_t *attr) {
  return guarded([&] {
    if (attr == nullptr) throw tdist::Error(tdist::ErrorCode::InvalidParam, "aclshmemx_init_attr: attr is NULL");
    if (flags != ACLSHMEMX_INIT_WITH_DEFAULT) {
      throw tdist::Error(tdist::ErrorCode::NotSupported,
                         "aclshmemx_init_attr: only ACLSHMEMX_INIT_WITH_DEFAULT (ip_port bootstrap) is supported");
    }
    tdist::init(toInitAttr(*attr));
  });
}

int aclshmemx_set_conf_store_tls(int enable, const char *tls_info, uint32_t tls_info_len) {
  return guarded([&] {
    std::string info;
    if (enable) {
      if (tls_info == nullptr || tls_info_len == 0) {
        throw tdist::Error(tdist::ErrorCode::InvalidParam,
                           "aclshmemx_set_conf_store_tls: enabling TLS needs tls_info (ca=FILE;cert=FILE;key=FILE)");
      }
      info.assign(tls_info, strnlen(tls_info, tls_info_len));
      tdist::runtime::parseTlsInfo(info);  // says what is wrong with the text now
    }
    std::lock_guard<std::mutex> lock(g_tls_mutex);
    g_tls_info = info;
  });
}

int aclshmem_init(void) {
  return guarded([] {
    tdist::InitAttr attr = tdist::attrFromEnvironment();
    attr.tls_info = tlsInfo();
    tdist::init(attr);
  });
}

int aclshmem_finalize(void) { return guarded([] { tdist::finalize(); }); }

int aclshmemx_init_status(void) { return static_cast<int>(tdist::initStatus()); }

void aclshmem_global_exit(int status) { tdist::shmem::global_exit(status); }

void *aclshmem_malloc(size_t size) {
  return guardedValue<void *>(nullptr, [&] {
    return tdist::runtime::allocateAs(CollectiveApi::AclshmemMalloc, size, tdist::kDefaultAlignment);
  });
}

void *aclshmem_calloc(size_t nmemb, size_t size) {
  return guardedValue<void *>(nullptr, [&] {
    return tdist::runtime::allocateZeroedAs(CollectiveApi::AclshmemCalloc, nmemb, size);
  });
}

void *aclshmem_align(size_t alignment, size_t size) {
  return guardedValue<void *>(nullptr, [&] {
    return tdist::runtime::allocateAs(CollectiveApi::AclshmemAlign, size, alignment);
  });
}

void aclshmem_free(void *ptr) {
  guarded([&] { tdist::runtime::deallocateAs(CollectiveApi::AclshmemFree, ptr); });
}

void *aclshmemx_get_heap_base(void) {
  return guardedValue<void *>(nullptr, [] { return tdist::heapBase(); });
}

void *aclshmem_ptr(const void *ptr, int pe) {
  return guardedValue<void *>(nullptr, [&] { return tdist::peerPointer(ptr, pe); });
}

uint32_t aclshmemx_transport_mask(int pe) {
  return guardedValue<uint32_t>(0, [&] { return tdist::transportMask(pe); });
}

int aclshmemx_cuda_module_attach(void *module, int *attached) {
  if (attached != nullptr) *attached = 0;
  return guarded([&] {
    if (module == nullptr) {
      throw tdist::Error(tdist::ErrorCode::InvalidParam, "aclshmemx_cuda_module_attach: module is NULL");
    }
    for (const tdist::runtime::Backend *backend : tdist::runtime::builtBackends()) {
      if (std::strcmp(backend->name, "cuda") != 0 || backend->attach_module == nullptr) continue;
      const bool found = backend->attach_module(module);
      if (attached != nullptr) *attached = found ? 1 : 0;
      return;
    }
    throw tdist::Error(tdist::ErrorCode::NotSupported,
                       "aclshmemx_cuda_module_attach: this tdist was built without the cuda backend");
  });
}

int aclshmem_team_split_strided(aclshmem_team_t parent, int start, int stride, int size,
                                aclshmem_team_t *new_team) {
  return guarded([&] {
    if (new_team == nullptr) {
      throw tdist::Error(tdist::ErrorCode::InvalidParam, "aclshmem_team_split_strided: new_team is NULL");
    }
    *new_team = ACLSHMEM_TEAM_INVALID;
    *new_team = tdist::shmem::team_split_strided(parent, start, stride, size);
  });
}

int aclshmem_team_translate_pe(aclshmem_team_t src_team, int src_pe, aclshmem_team_t dest_team) {
  return guardedValue(-1, [&] { return tdist::shmem::team_translate_pe(src_team, src_pe, dest_team); });
}

int aclshmem_team_my_pe(aclshmem_team_t team) {
  return guardedValue(-1, [&] { return tdist::shmem::team_my_pe(team); });
}

int aclshmem_team_n_pes(aclshmem_team_t team) {
  return guardedValue(-1, [&] { return tdist::shmem::team_n_pes(team); });
}

void aclshmem_team_destroy(aclshmem_team_t team) {
  guarded([&] { tdist::shmem::team_destroy(team); });
}

void aclshmem_barrier(aclshmem_team_t team) {
  guarded([&] { tdist::shmem::barrier(team); });
}

void aclshmem_team_sync(aclshmem_team_t team) {
  guarded([&] { tdist::shmem::sync(team); });
}

}  // extern "C"
