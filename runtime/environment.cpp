// runtime/environment.cpp - the attributes tdist-run passes through the environment.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "runtime/environment.h"
#include "runtime/runtime_state.h"
#include "tdist/runtime.h"

namespace tdist {
namespace {

const char *lookup(const char *name) {
  const char *value = std::getenv(name);
  return (value != nullptr && *value != '\0') ? value : nullptr;
}

long long parseInteger(const char *name, const char *text, long long low, long long high) {
  char *end = nullptr;
  errno = 0;
  long long value = std::strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < low || value > high) {
    throw Error(ErrorCode::InvalidParam, std::string("environment: ") + name + "='" + text +
                                             "' is not an integer in " + std::to_string(low) +
                                             ".." + std::to_string(high));
  }
  return value;
}

// Sizes accept a K, M or G suffix (powers of 1024).
std::uint64_t parseSize(const char *name, const char *text) {
  char *end = nullptr;
  errno = 0;
  unsigned long long value = std::strtoull(text, &end, 10);
  unsigned long long scale = 1;
  if (end != nullptr && *end != '\0' && end[1] == '\0') {
    switch (*end) {
      case 'k': case 'K': scale = 1ull << 10; ++end; break;
      case 'm': case 'M': scale = 1ull << 20; ++end; break;
      case 'g': case 'G': scale = 1ull << 30; ++end; break;
      default: break;
    }
  }
  if (errno != 0 || end == text || *end != '\0' || value == 0 || text[0] == '-') {
    throw Error(ErrorCode::InvalidParam, std::string("environment: ") + name + "='" + text +
                                             "' is not a positive size (bytes, or with K/M/G)");
  }
  return value * scale;
}

std::chrono::milliseconds parseSeconds(const char *name, const char *text) {
  char *end = nullptr;
  errno = 0;
  double seconds = std::strtod(text, &end);
  if (errno != 0 || end == text || *end != '\0' || !(seconds > 0) || !std::isfinite(seconds)) {
    throw Error(ErrorCode::InvalidParam, std::string("environment: ") + name + "='" + text +
                                             "' is not a positive number of seconds");
  }
  return std::chrono::milliseconds(static_cast<long long>(std::ceil(seconds * 1000)));
}

unsigned parseEngines(const char *text) {
  unsigned engines = 0;
  std::string list = text;
  std::size_t begin = 0;
  while (begin <= list.size()) {
    std::size_t end = list.find(',', begin);
    if (end == std::string::npos) end = list.size();
    std::string name = list.substr(begin, end - begin);
    if (name == "mte") engines |= kEngineMte;
    else if (name == "sdma") engines |= kEngineSdma;
    else if (name == "roce") engines |= kEngineRoce;
    else if (name == "udma") engines |= kEngineUdma;
    else {
      throw Error(ErrorCode::InvalidParam, "environment: TDIST_ENGINES='" + list +
                                               "': unknown engine '" + name +
                                               "' (expected mte, sdma, roce, udma)");
    }
    begin = end + 1;
  }
  return engines;
}

}  // namespace

InitAttr attrFromEnvironment() {
  InitAttr attr;
  const char *pe = lookup("TDIST_PE");
  const char *n_pes = lookup("TDIST_N_PES");
  if (pe == nullptr || n_pes == nullptr) {
    throw Error(ErrorCode::InvalidParam,
                "environment: TDIST_PE and TDIST_N_PES are not set (start the program with "
                "tdist-run -n N -- program, or initialize from attributes)");
  }
  attr.n_pes = static_cast<int>(parseInteger("TDIST_N_PES", n_pes, 1, 16384));
  attr.my_pe = static_cast<int>(parseInteger("TDIST_PE", pe, 0, attr.n_pes - 1));
  if (const char *ip_port = lookup("TDIST_IP_PORT")) attr.ip_port = ip_port;
  attr.job_secret = runtime::jobSecretFromEnvironment();
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

}  // namespace tdist::runtime
