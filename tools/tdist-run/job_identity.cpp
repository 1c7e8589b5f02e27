#include "job_identity.h"

#include <cerrno>
#include <cstdint>
#include <string_view>
#include <sys/random.h>
#include <system_error>
#include <vector>

namespace tdist::launcher {
namespace {

std::string randomHex(std::size_t bytes) {
  std::vector<std::uint8_t> random(bytes);
  std::size_t filled = 0;
  while (filled < bytes) {
    ssize_t got = ::getrandom(random.data() + filled, bytes - filled, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw std::system_error(errno, std::generic_category(), "getrandom");
    filled += static_cast<std::size_t>(got);
  }
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (std::uint8_t byte : random) {
    hex += kDigits[byte >> 4];
    hex += kDigits[byte & 0xf];
  }
  return hex;
}

}  // namespace

JobIdentity JobIdentity::generate() { return {.id = randomHex(6), .secret = randomHex(16)}; }

}  // namespace tdist::launcher
