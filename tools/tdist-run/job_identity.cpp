#include "job_identity.h"

#include "link_proof.h"

namespace tdist::launcher {
namespace {

std::string randomHex(std::size_t bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (char c : randomBytes(bytes)) {
    const auto byte = static_cast<unsigned char>(c);
    hex += kDigits[byte >> 4];
    hex += kDigits[byte & 0xf];
  }
  return hex;
}

}  // namespace

JobIdentity JobIdentity::generate() { return {.id = randomHex(6), .secret = randomHex(16)}; }

}  // namespace tdist::launcher
