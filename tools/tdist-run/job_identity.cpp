#include "job_identity.h"

#include <cerrno>
#include <cstdint>
#include <dirent.h>
#include <string_view>
#include <sys/mman.h>
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

void removeLeftoverSegments(const std::string &job_id) {
  DIR *shm = ::opendir("/dev/shm");
  if (!shm) return;  // no POSIX shared memory on this host, so nothing can be left over
  const std::string prefix = "tdist-" + job_id + "-";
  std::vector<std::string> leftovers;
  while (const dirent *entry = ::readdir(shm)) {
    if (std::string_view(entry->d_name).starts_with(prefix)) leftovers.emplace_back(entry->d_name);
  }
  ::closedir(shm);
  // Unlinked after the scan: removing entries while readdir walks them may skip some.
  for (const std::string &name : leftovers) ::shm_unlink(("/" + name).c_str());
}

}  // namespace tdist::launcher
