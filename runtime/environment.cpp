// runtime/environment.cpp - the attributes tdist-run passes through the environment.
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "common/value_parser.h"
#include "runtime/bootstrap_tls.h"
#include "runtime/environment.h"
#include "runtime/runtime_state.h"
#include "tdist/runtime.h"

namespace tdist {
namespace {

const char *lookup(const char *name) {
  const char *value = std::getenv(name);
  return (value != nullptr && *value != '\0') ? value : nullptr;
}

// The grammar of every value is common/value_parser.h's, the one tdist-run checks its options
// with; a value it rejects is an InvalidParam error that names the variable.
template <class T>
T valueOf(const char *name, values::Parsed<T> parsed) {
  if (!parsed)
    throw Error(ErrorCode::InvalidParam, std::string("environment: ") + name + ": " + parsed.error);
  return *parsed.value;
}

long long parseInteger(const char *name, const char *text, long long low, long long high) {
  return valueOf(name, values::parseInteger(text, {.min = low, .max = high}));
}

std::uint64_t parseSize(const char *name, const char *text) {
  return valueOf(name, values::parseSize(text, {.min = 1}));
}

std::chrono::milliseconds parseSeconds(const char *name, const char *text) {
  const double seconds = valueOf(name, values::parseSeconds(text));
  return std::chrono::milliseconds(static_cast<long long>(std::ceil(seconds * 1000)));
}

unsigned parseEngines(const char *text) {
  unsigned engines = 0;
  for (values::Engine engine : valueOf("TDIST_ENGINES", values::parseEngines(text))) {
    switch (engine) {
      case values::Engine::Mte: engines |= kEngineMte; break;
      case values::Engine::Sdma: engines |= kEngineSdma; break;
      case values::Engine::Roce: engines |= kEngineRoce; break;
      case values::Engine::Udma: engines |= kEngineUdma; break;
    }
  }
  return engines;
}

}  // namespace

InitAttr attrFromEnvironment() {
  InitAttr attr;
  const char *pe = lookup("TDIST_PE");
  const char *n_pes = lookup("TDIST_N_PES");
  // A job that torchrun started (or another launcher with its conventions): RANK and WORLD_SIZE,
  // and the store beside torch's, on MASTER_ADDR at MASTER_PORT + 1.
  const bool torchrun = pe == nullptr && n_pes == nullptr && lookup("RANK") != nullptr &&
                        lookup("WORLD_SIZE") != nullptr;
  if (torchrun) {
    attr.n_pes = static_cast<int>(parseInteger("WORLD_SIZE", lookup("WORLD_SIZE"), 1, 16384));
    attr.my_pe = static_cast<int>(parseInteger("RANK", lookup("RANK"), 0, attr.n_pes - 1));
  } else if (pe == nullptr || n_pes == nullptr) {
    throw Error(ErrorCode::InvalidParam,
                "environment: TDIST_PE and TDIST_N_PES are not set (start the program with "
                "tdist-run -n N -- program, or with torchrun, which sets RANK and WORLD_SIZE; or "
                "initialize from attributes)");
  } else {
    attr.n_pes = static_cast<int>(parseInteger("TDIST_N_PES", n_pes, 1, 16384));
    attr.my_pe = static_cast<int>(parseInteger("TDIST_PE", pe, 0, attr.n_pes - 1));
  }
  if (const char *ip_port = lookup("TDIST_IP_PORT")) {
    attr.ip_port = ip_port;
  } else if (torchrun) {
    const char *address = lookup("MASTER_ADDR");
    const char *port = lookup("MASTER_PORT");
    if (address == nullptr || port == nullptr) {
      throw Error(ErrorCode::InvalidParam,
                  "environment: RANK and WORLD_SIZE are set (a torchrun job) but MASTER_ADDR or MASTER_PORT "
                  "is not: tdist's bootstrap store listens on MASTER_ADDR at MASTER_PORT + 1 (or set "
                  "TDIST_IP_PORT)");
    }
    const long long store_port = parseInteger("MASTER_PORT", port, 1, 65534) + 1;
    const std::string host = address;
    attr.ip_port = host.find(':') != std::string::npos
                       ? "tcp6://[" + host + "]:" + std::to_string(store_port)
                       : "tcp://" + host + ":" + std::to_string(store_port);
  }
  if (const char *node = lookup("TDIST_NODE")) {
    attr.node = static_cast<int>(parseInteger("TDIST_NODE", node, 0, 16383));
  } else if (torchrun && lookup("GROUP_RANK") != nullptr) {
    attr.node = static_cast<int>(parseInteger("GROUP_RANK", lookup("GROUP_RANK"), 0, 16383));
  }
  attr.job_secret = runtime::jobSecretFromEnvironment();
  attr.tls_info = runtime::tlsInfoFromEnvironment();
  if (const char *size = lookup("TDIST_HEAP_SIZE")) attr.local_mem_size = parseSize("TDIST_HEAP_SIZE", size);
  if (const char *engines = lookup("TDIST_ENGINES")) attr.engines = parseEngines(engines);
  if (auto timeout = runtime::waitTimeoutFromEnvironment()) attr.wait_timeout = *timeout;
  if (const char *t = lookup("TDIST_BOOTSTRAP_TIMEOUT")) {
    attr.init_timeout = attr.control_timeout = attr.create_timeout = parseSeconds("TDIST_BOOTSTRAP_TIMEOUT", t);
  }
  if (const char *fd = lookup("TDIST_BOOTSTRAP_FD")) {
    if (attr.my_pe == 0) attr.listen_fd = static_cast<int>(parseInteger("TDIST_BOOTSTRAP_FD", fd, 0, 1 << 20));
  }
  if (attr.ip_port.empty()) {
    throw Error(ErrorCode::InvalidParam, "environment: TDIST_IP_PORT is not set");
  }
  return attr;
}

}  // namespace tdist

namespace tdist::runtime {

std::optional<std::chrono::milliseconds> waitTimeoutFromEnvironment() {
  const char *text = lookup("TDIST_WAIT_TIMEOUT");
  if (text == nullptr) return std::nullopt;
  return parseSeconds("TDIST_WAIT_TIMEOUT", text);
}

std::string jobSecretFromEnvironment() {
  const char *secret = lookup("TDIST_JOB_SECRET");
  return secret != nullptr ? secret : "";
}

std::string backendFromEnvironment() {
  const char *name = lookup("TDIST_BACKEND");
  return name != nullptr ? name : "";
}

bool allowNoSecretFromEnvironment() {
  const char *text = lookup("TDIST_ALLOW_NO_SECRET");
  return text != nullptr && parseInteger("TDIST_ALLOW_NO_SECRET", text, 0, 1) == 1;
}

bool staticDataFromEnvironment() {
  const char *text = lookup("TDIST_STATIC_DATA");
  return text == nullptr || parseInteger("TDIST_STATIC_DATA", text, 0, 1) == 1;
}

long tuningKnob(const char *name, long fallback) {
  const char *text = lookup(name);
  if (text == nullptr) return fallback;
  char *end = nullptr;
  errno = 0;
  long value = std::strtol(text, &end, 10);
  return (errno == 0 && *end == '\0' && value >= 0) ? value : fallback;
}

int localPes() {
  long pes = tuningKnob("TDIST_LOCAL_PES", g_state != nullptr ? g_state->n_pes : 1);
  return pes > 0 ? static_cast<int>(pes) : 1;
}

bool oversubscribed() {
  cpu_set_t set;
  long cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : sysconf(_SC_NPROCESSORS_ONLN);
  return cpus > 0 && localPes() > cpus;
}

}  // namespace tdist::runtime
