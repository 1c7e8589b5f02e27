// runtime/bootstrap_store_wire.h - what the bootstrap store's client and server share: the message
// format and the socket plumbing.
//
// A message is a 4-byte length, then that many bytes: a type byte and the type's fields. Integers
// are little-endian; strings and byte blobs are a 4-byte length and the bytes.
//
//   PE -> store                                 store -> PE
//   Hello{magic, version, pe, n_pes, secret}    Welcome{} | Refused{reason} | Retry{reason}
//   Set{key, value}                             (no reply: later requests on the connection see it)
//   Get{key}                                    Value{key, value}, once the key exists
//   Collective{kind, seq, contribution}         CollectiveDone{kind, seq, n x contribution}
//   Goodbye{}                                   GoodbyeAck{}
//   any request may instead be answered        Failed{error code, reason}
#pragma once

#include <netdb.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "runtime/bootstrap_store.h"

namespace tdist::runtime::bootstrap {

inline constexpr std::uint32_t kMagic = 0x53424454;  // "TDBS" on the wire
inline constexpr std::uint16_t kVersion = 1;
inline constexpr std::size_t kLengthBytes = 4;
// Until its hello is accepted a peer is a stranger, so it may not make the server buffer much.
inline constexpr std::size_t kMaxHelloBytes = 64 * 1024;
inline constexpr std::size_t kMaxMessageBytes = std::size_t{1} << 30;

enum class MsgType : std::uint8_t {
  Hello = 1,
  Set = 2,
  Get = 3,
  Collective = 4,
  Goodbye = 5,
  Welcome = 20,
  Refused = 21,  // final: the peer is not part of this job
  Retry = 22,    // transient: this is a previous session's server, still draining
  Value = 23,
  CollectiveDone = 24,
  Failed = 25,
  GoodbyeAck = 26,
};

enum class CollectiveKind : std::uint8_t { Barrier = 1, Allgather = 2 };
const char *toString(CollectiveKind kind);

// A message that is short, too long or of the wrong shape.
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class MessageWriter {
 public:
  explicit MessageWriter(MsgType type);
  MessageWriter &u8(std::uint8_t value) { return putLe(value, 1); }
  MessageWriter &u16(std::uint16_t value) { return putLe(value, 2); }
  MessageWriter &u32(std::uint32_t value) { return putLe(value, 4); }
  MessageWriter &u64(std::uint64_t value) { return putLe(value, 8); }
  MessageWriter &i32(std::int32_t value) { return u32(static_cast<std::uint32_t>(value)); }
  MessageWriter &blob(std::span<const std::byte> bytes);
  MessageWriter &str(std::string_view text);
  // The message with its length prefix, ready to send; the writer is spent.
  Bytes finish();

 private:
  MessageWriter &putLe(std::uint64_t value, int n_bytes);
  Bytes out_;
};

// Reads one message; body is what follows the length prefix. Throws ProtocolError when a field
// runs past the end.
class MessageReader {
 public:
  explicit MessageReader(std::span<const std::byte> body);
  MsgType type() const { return type_; }
  std::uint8_t u8() { return static_cast<std::uint8_t>(getLe(1)); }
  std::uint16_t u16() { return static_cast<std::uint16_t>(getLe(2)); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(getLe(4)); }
  std::uint64_t u64() { return getLe(8); }
  std::int32_t i32() { return static_cast<std::int32_t>(u32()); }
  Bytes blob();
  std::string str();
  void expectEnd() const;

 private:
  std::uint64_t getLe(int n_bytes);
  std::span<const std::byte> take(std::size_t n_bytes);
  std::span<const std::byte> rest_;
  MsgType type_;
};

std::uint32_t readLength(const std::byte *prefix);

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd &&other) noexcept : fd_(other.release()) {}
  UniqueFd &operator=(UniqueFd &&other) noexcept;
  UniqueFd(const UniqueFd &) = delete;
  UniqueFd &operator=(const UniqueFd &) = delete;
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() noexcept;
  void reset() noexcept;

 private:
  int fd_ = -1;
};

struct AddrInfoDeleter {
  void operator()(addrinfo *list) const { freeaddrinfo(list); }
};
using AddrInfoList = std::unique_ptr<addrinfo, AddrInfoDeleter>;

// The addresses of endpoint (IPv4 for tcp://, IPv6 for tcp6://); null with *error set on failure.
AddrInfoList resolve(const Endpoint &endpoint, bool passive, std::string *error);

// A socket listening on endpoint (SO_REUSEADDR, so that a new job can serve on the port of one
// that just ended). Throws Error(Bootstrap) when no address of endpoint can be bound.
UniqueFd listenOn(const Endpoint &endpoint);

// A duplicate of a listening socket that the caller keeps; throws Error(InvalidParam) when fd
// is not a listening socket.
UniqueFd adoptListeningSocket(int fd);

void logLine(const std::string &line);  // to stderr, as "tdist: line"
std::string formatEndpoint(const Endpoint &endpoint);  // as parseIpPort reads it
std::string errnoText(int err);
std::string peerName(int fd);  // "127.0.0.1:5555" or "[::1]:5555"
void setNoDelay(int fd);
// Compares in time that does not depend on where the texts differ, so that a stranger cannot
// learn the secret a byte at a time.
bool secretsEqual(std::string_view presented, std::string_view expected);

}  // namespace tdist::runtime::bootstrap
