// link_proof.h - how the launchers of a job across hosts show each other that they hold the job
// secret without sending it: HMAC-SHA256 (RFC 2104, FIPS 180-4) keyed by the secret over the
// other side's fresh nonce. Node 0 sends a nonce when a node connects; the node answers with its
// hello, its own nonce and a proof over both; node 0 starts the job with a proof of its own over
// the node's nonce. Someone who reads the link learns neither the secret nor a proof that a later
// connection can replay.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tdist::launcher {

using Sha256Digest = std::array<std::uint8_t, 32>;

Sha256Digest sha256(std::string_view data);
Sha256Digest hmacSha256(std::string_view key, std::string_view message);

// The bytes of a digest (a frame carries them as text).
std::string digestBytes(const Sha256Digest &digest);

// Equal byte strings, in a time that depends on their lengths alone.
bool sameBytes(std::string_view a, std::string_view b);

// bytes from the kernel's random source. Throws std::system_error when it has none to give.
std::string randomBytes(std::size_t bytes);
// A fresh nonce: 16 random bytes.
inline std::string freshNonce() { return randomBytes(16); }

}  // namespace tdist::launcher
