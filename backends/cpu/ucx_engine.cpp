// backends/cpu/ucx_engine.cpp - the cpu backend's network engine on UCX (ucx_engine.h).
#include "backends/cpu/ucx_engine.h"

#include <poll.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <deque>
#include <limits>
#include <list>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "runtime/bootstrap_store.h"
#include "runtime/environment.h"
#include "runtime/runtime_state.h"
#include "tdist/error.h"

#ifdef TDIST_WITH_UCX
#include <ucp/api/ucp.h>
#endif

namespace tdist::cpu {

bool transportForcedToUcx() {
  const char *value = std::getenv("TDIST_TRANSPORT");
  if (value == nullptr || *value == '\0' || std::strcmp(value, "auto") == 0) return false;
  if (std::strcmp(value, "ucx") == 0) return true;
  throw Error(ErrorCode::InvalidParam,
              std::string("TDIST_TRANSPORT='") + value + "': expected auto (peers of this host are mapped) or ucx "
                                                        "(every peer through UCX, the network path)");
}

#ifdef TDIST_WITH_UCX

namespace {

[[noreturn]] void fail(const std::string &what, ucs_status_t status) {
  throw Error(ErrorCode::Internal, "UCX: " + what + ": " + ucs_status_string(status));
}

void check(ucs_status_t status, const std::string &what) {
  if (status != UCS_OK) fail(what, status);
}

template <class T>
void append(runtime::Bytes &out, const T &value) {
  const auto *bytes = reinterpret_cast<const std::byte *>(&value);
  out.insert(out.end(), bytes, bytes + sizeof value);
}

template <class T>
T take(const runtime::Bytes &in, std::size_t *at) {
  if (*at + sizeof(T) > in.size()) throw Error(ErrorCode::Internal, "UCX: a peer's card is cut short");
  T value;
  std::memcpy(&value, in.data() + *at, sizeof value);
  *at += sizeof value;
  return value;
}

}  // namespace

// The host channel's writes (runtime/host_channel.h): what a push puts and stores into one peer's
// segment travels as one active message, which the peer's worker applies in order (the bytes,
// then each store with release order): the record and the carried bytes land before the line
// with no fence, and a step waits for no reply of its own, only for its peers' pushes. A message
// is kept until UCX has sent it; settle waits for that, flush for delivery too.
namespace channel_message {

constexpr unsigned kId = 1;  // the active message's id
// Quiet's confirmation (Impl::confirmMessages): a request and its reply, each an Impl::SyncWord.
constexpr unsigned kSyncRequestId = 2, kSyncReplyId = 3;
// A segment of a message: its header, then `bytes` bytes (kCopy) or the word's value in 8 bytes
// (kStore, kAdd: a word of 4 or 8 bytes, with release order).
struct Segment {
  std::uint64_t offset;  // in the receiving PE's channel segment, or in its region r
  std::uint32_t bytes;
  std::uint32_t kind;  // the operation, | (r + 1) << kRegionShift for region r
};
constexpr std::uint32_t kCopy = 0, kStore = 1, kAdd = 2, kOperation = 0xff;
constexpr unsigned kRegionShift = 8;
constexpr std::uint32_t inRegion(std::uint32_t operation, int region) {
  return operation | static_cast<std::uint32_t>(region + 1) << kRegionShift;
}

// A word's operation as the receiver applies it, with release order: after the bytes before it.
inline void applyWord(std::uint32_t operation, std::byte *word, unsigned bytes, std::uint64_t value) {
  if (bytes == 4) {
    auto *w = reinterpret_cast<std::uint32_t *>(word);
    if (operation == kAdd) __atomic_fetch_add(w, static_cast<std::uint32_t>(value), __ATOMIC_RELEASE);
    else __atomic_store_n(w, static_cast<std::uint32_t>(value), __ATOMIC_RELEASE);
  } else {
    auto *w = reinterpret_cast<std::uint64_t *>(word);
    if (operation == kAdd) __atomic_fetch_add(w, value, __ATOMIC_RELEASE);
    else __atomic_store_n(w, value, __ATOMIC_RELEASE);
  }
}

// Appends a segment: its header, then `bytes` bytes from source.
inline void append(runtime::Bytes &message, const Segment &header, const void *source, std::size_t bytes) {
  const auto *h = reinterpret_cast<const std::byte *>(&header);
  message.insert(message.end(), h, h + sizeof header);
  const auto *b = static_cast<const std::byte *>(source);
  message.insert(message.end(), b, b + bytes);
}

// A host channel message under construction (UcxChannelLink): its segments' headers and small
// bytes in one buffer, and the bytes of a large put where they are, the caller's (unchanged
// until the push settles, which waits until UCX has sent the message); sent as an I/O vector of
// both, so that a step's data are not copied into the message first (a reduction of 1 MiB across
// 2 nodes spent a tenth of its samples there).
class Message {
 public:
  // From here, a put's bytes are referenced: a step's parts (up to an inbox, 128 KiB). Smaller
  // ones (a put with a signal of up to 64 KiB, a delivery into dest) are copied in, as before:
  // referenced from 4 KiB, they measured no faster between simulated hosts.
  static constexpr std::size_t kReferencedBytes = (std::size_t{64} << 10) + 1;
  void append(const Segment &header, const void *source, std::size_t bytes) {
    if (bytes < kReferencedBytes) {
      channel_message::append(inline_, header, source, bytes);
      return;
    }
    channel_message::append(inline_, header, nullptr, 0);
    pieces_.push_back({nullptr, inline_.size()});  // the inline bytes up to here
    pieces_.push_back({static_cast<const std::byte *>(source), bytes});
  }
  void clear() {
    inline_.clear();
    pieces_.clear();
  }
  // The message as UCX's I/O vector (valid while this message is unchanged); none where the
  // message is all inline (send inlineBytes() from inlineData()).
  void vector(std::vector<ucp_dt_iov_t> &iov) {
    iov.clear();
    if (pieces_.empty()) return;
    std::size_t from = 0;
    for (const Piece &piece : pieces_) {
      if (piece.source == nullptr) {
        if (piece.bytes > from) iov.push_back({inline_.data() + from, piece.bytes - from});
        from = piece.bytes;
      } else {
        iov.push_back({const_cast<std::byte *>(piece.source), piece.bytes});
      }
    }
    if (inline_.size() > from) iov.push_back({inline_.data() + from, inline_.size() - from});
  }
  std::size_t capacity() const { return inline_.capacity(); }
  std::size_t inlineBytes() const { return inline_.size(); }
  const std::byte *inlineData() const { return inline_.data(); }

 private:
  struct Piece {
    const std::byte *source;  // null: the inline bytes up to offset `bytes`
    std::size_t bytes;
  };
  runtime::Bytes inline_;
  std::vector<Piece> pieces_;
};

// Sends a message as active message `id`: a message all inline (the small ones) as plain bytes,
// UCX's cheaper path, with no vector to build; else its I/O vector `iov` (Message::vector), which
// UCX reads until the send completes.
inline ucs_status_ptr_t send(ucp_ep_h endpoint, unsigned id, const Message &message,
                                    const std::vector<ucp_dt_iov_t> &iov, ucp_request_param_t param) {
  if (iov.empty()) return ucp_am_send_nbx(endpoint, id, nullptr, 0, message.inlineData(), message.inlineBytes(), &param);
  param.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
  param.datatype = ucp_dt_make_iov();
  return ucp_am_send_nbx(endpoint, id, nullptr, 0, iov.data(), iov.size(), &param);
}

}  // namespace channel_message

struct UcxEngine::Impl {
  // A region peers reach: this PE's copy registered; each routed peer's base and key.
  struct Region {
    UcxRegion shape;
    ucp_mem_h memory = nullptr;
    std::vector<std::uint64_t> remote_base;  // each routed peer's copy in its own process
    std::vector<ucp_rkey_h> keys;
  };

  int me = 0;
  std::vector<Region> regions;
  std::vector<bool> routed;
  std::chrono::nanoseconds deadline{};
  bool yield_when_idle = false;  // runtime::oversubscribed()
  ucp_context_h context = nullptr;
  ucp_worker_h worker = nullptr;
  std::vector<ucp_ep_h> endpoints;
  std::span<std::byte> channel_segment;  // this PE's host channel, where its messages land
  std::unique_ptr<runtime::ChannelLink> channel_link;  // made on first use
  int wake_fd = -1;
  std::atomic<bool> stopping{false};
  std::thread progress;
  // The worker is serialized by this lock, not by UCX's own (a spin lock): where the PE's threads
  // and its progress thread share few cores, a thread that spun on a lock whose holder had been
  // preempted lost its whole time slice (a half round trip between two hosts of one core each
  // took 100 µs and more). The PE's polling progress only tries it: the holder progresses anyway.
  std::mutex lock;
  // When a PE thread last progressed the worker itself (steady clock, ns): while one does, what
  // arrives is handled there, and the progress thread stays asleep instead of taking the core
  // and the lock from it for every message (on a host of few cores, two switches a message).
  std::atomic<std::int64_t> polled_ns{0};
  static constexpr std::chrono::microseconds kPollingWindow{200};

  static std::int64_t nowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  void notePolled() { polled_ns.store(nowNs(), std::memory_order_relaxed); }

  // Non-blocking puts' requests, left to quiet (OpenSHMEM: a put_nbi's source may change, and its
  // delivery is known, only after quiet). Each keeps its atomic's operand and reply here: a deque
  // never moves its elements, so UCX may write a reply whenever the request completes. Under lock.
  struct Outstanding {
    ucs_status_ptr_t request = nullptr;
    const char *call = "";
    const char *what = "";
    int pe = -1;
    std::uint64_t operand = 0, reply = 0;
    std::uint32_t narrow_operand = 0, narrow_reply = 0;
    runtime::Bytes message;  // a message's bytes (sendMessage), until sent
  };
  std::deque<Outstanding> outstanding;
  // Where non-blocking puts run far ahead of quiet, all are waited for (the list's bounds: its
  // requests, and the bytes of the messages it keeps until UCX has sent them).
  static constexpr std::size_t kMostOutstanding = 4096;
  static constexpr std::size_t kMostOutstandingMessageBytes = std::size_t{64} << 20;
  std::size_t outstanding_message_bytes = 0;
  bool overOutstandingBounds() const {
    return outstanding.size() > kMostOutstanding || outstanding_message_bytes > kMostOutstandingMessageBytes;
  }

  // Puts with signals and point puts that travel as one message (sendMessage) are applied by the
  // peer's worker, where UCX's flush does not reach: quiet asks each peer sent one since the last
  // quiet to confirm that it applied everything before the request (a message each way, in the
  // order the peer applies messages). Under lock: UCX runs the handlers under it.
  struct SyncWord {
    std::uint64_t token;
    std::int32_t pe;  // the asking PE in a request, the confirming one in a reply
    std::int32_t unused;
  };
  std::vector<char> sent_messages;           // per PE: a message since the last quiet
  std::vector<SyncWord> sync_requests;       // per PE: what this PE asked it (kept until sent)
  std::vector<SyncWord> sync_replies;        // per PE: what this PE answered it (kept until sent)
  std::vector<std::uint64_t> confirmed;      // per PE: the latest token it confirmed
  std::uint64_t sync_token = 0;
  static ucs_status_t onSyncRequest(void *arg, const void *, std::size_t, void *data, std::size_t length,
                                    const ucp_am_recv_param_t *);
  static ucs_status_t onSyncReply(void *arg, const void *, std::size_t, void *data, std::size_t length,
                                  const ucp_am_recv_param_t *);
  // Sends a message (channel_message segments) to pe, which its worker applies in order; blocking:
  // returns once UCX has sent it, else keeps it for quiet. Delivered by quiet (confirmMessages).
  void sendMessage(int pe, runtime::Bytes message, bool blocking, const char *call);
  // only: one PE, or -1 for every PE.
  void confirmMessages(const char *call, int only = -1);

  // Posts one operation on the worker under the lock; returns its request.
  template <class Post>
  ucs_status_ptr_t post(Post &&operation) {
    std::lock_guard<std::mutex> held(lock);
    return operation();
  }
  void fence(const std::string &what) {
    std::lock_guard<std::mutex> held(lock);
    check(ucp_worker_fence(worker), what + ": ucp_worker_fence");
  }

  // Progresses the worker until done() (called under the lock) says so; once `limit` has passed,
  // calls expired() (under no lock), which throws.
  template <class Done, class Expired>
  void progressUntil(Done &&done, std::chrono::nanoseconds limit, Expired &&expired) {
    const auto until = std::chrono::steady_clock::now() + limit;
    unsigned idle = 0;
    for (;;) {
      unsigned progressed = 0;
      {
        std::lock_guard<std::mutex> held(lock);
        if (done()) return;
        progressed = ucp_worker_progress(worker);
      }
      notePolled();
      if (progressed != 0) {
        idle = 0;
        continue;
      }
      // What this waits for comes from a peer, whose threads may need this CPU where PEs
      // outnumber the cores: there a caller that found nothing to do a while lets them run
      // (4 PEs of 2 nodes on 2 cores: a barrier took 13 ms, 0.3 ms so).
      if (yield_when_idle && ++idle % 64 == 0) sched_yield();
      if (std::chrono::steady_clock::now() > until) expired();
    }
  }

  // Progresses until request completes; an error or the deadline (the job's wait deadline unless
  // given) is an Error naming what.
  // pe: the peer the request goes to, which an error names (-1: none in particular).
  void wait(ucs_status_ptr_t request, const char *call, const char *what, int pe = -1) {
    wait(request, call, what, deadline, pe);
  }
  void wait(ucs_status_ptr_t request, const char *call, const char *what, std::chrono::nanoseconds limit,
            int pe = -1) {
    if (request == nullptr) return;
    const auto named = [&] { return std::string(call) + ": " + what + (pe >= 0 ? " with PE " + std::to_string(pe) : ""); };
    if (UCS_PTR_IS_ERR(request)) fail(named(), UCS_PTR_STATUS(request));
    ucs_status_t status = UCS_INPROGRESS;
    progressUntil([&] { return (status = ucp_request_check_status(request)) != UCS_INPROGRESS; }, limit, [&] {
      std::lock_guard<std::mutex> held(lock);
      ucp_request_cancel(worker, request);
      ucp_request_free(request);
      throw Error(ErrorCode::Internal, named() + " through UCX did not complete within " +
                                           std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                                              limit).count()) + " ms");
    });
    {
      std::lock_guard<std::mutex> held(lock);
      ucp_request_free(request);
    }
    if (status != UCS_OK) fail(named(), status);
  }

  // Requests posted back to back and waited for in order (each wait progresses the worker for all
  // of them); where one fails or passes the deadline, the rest are cancelled and released before
  // the error leaves, so that none completes into the caller's stack later.
  class Requests {
   public:
    Requests(Impl &e, const char *call, int pe) : e_(e), call_(call), pe_(pe) {}
    ~Requests() {
      std::lock_guard<std::mutex> held(e_.lock);
      for (std::size_t i = next_; i < count_; ++i) {
        ucp_request_cancel(e_.worker, pending_[i].request);
        ucp_request_free(pending_[i].request);
      }
    }
    Requests(const Requests &) = delete;
    Requests &operator=(const Requests &) = delete;
    void add(ucs_status_ptr_t request, const char *what) {
      if (request == nullptr) return;
      if (UCS_PTR_IS_ERR(request)) fail(std::string(call_) + ": " + what + " with PE " + std::to_string(pe_),
                                        UCS_PTR_STATUS(request));
      pending_[count_++] = {request, what};
    }
    void waitAll() {
      while (next_ < count_) {
        const Pending p = pending_[next_++];
        e_.wait(p.request, call_, p.what, pe_);
      }
    }

   private:
    struct Pending {
      ucs_status_ptr_t request;
      const char *what;
    };
    Impl &e_;
    const char *call_;
    int pe_;
    Pending pending_[2];  // the data and its atomic, or the data and the flush
    std::size_t count_ = 0, next_ = 0;
  };

  // Under lock: keeps a posted request for quiet (none where it completed at once).
  void keep(ucs_status_ptr_t request, const char *call, const char *what, int pe) {
    if (request == nullptr) return;
    if (UCS_PTR_IS_ERR(request)) fail(std::string(call) + ": " + what + " with PE " + std::to_string(pe), UCS_PTR_STATUS(request));
    Outstanding &o = outstanding.emplace_back();
    o.request = request, o.call = call, o.what = what, o.pe = pe;
  }
  // Under lock: releases the requests at the front that completed well (a failed one stays for
  // quiet to report).
  void reapCompleted() {
    while (!outstanding.empty() && ucp_request_check_status(outstanding.front().request) == UCS_OK) {
      ucp_request_free(outstanding.front().request);
      outstanding_message_bytes -= outstanding.front().message.size();
      outstanding.pop_front();
    }
  }
  // Waits for every outstanding request; an error or the deadline ends it with wait()'s error,
  // the rest cancelled and released first.
  void drain() {
    std::deque<Outstanding> mine;  // taken whole: its elements (the replies) stay where they are
    {
      std::lock_guard<std::mutex> held(lock);
      mine.swap(outstanding);
      outstanding_message_bytes = 0;
    }
    std::size_t done = 0;
    try {
      for (; done < mine.size(); ++done) {
        if (mine[done].request != nullptr) wait(mine[done].request, mine[done].call, mine[done].what, mine[done].pe);
      }
    } catch (...) {
      std::lock_guard<std::mutex> held(lock);
      for (std::size_t i = done + 1; i < mine.size(); ++i) {  // wait() released the one that failed
        if (mine[i].request == nullptr) continue;
        ucp_request_cancel(worker, mine[i].request);
        ucp_request_free(mine[i].request);
      }
      throw;
    }
  }

  void progressLoop() {
    int event_fd = -1;
    if (ucp_worker_get_efd(worker, &event_fd) != UCS_OK) return;
    while (!stopping.load(std::memory_order_acquire)) {
      // A PE thread that polls the worker handles what arrives; take over once it stopped.
      for (std::int64_t quiet; (quiet = nowNs() - polled_ns.load(std::memory_order_relaxed)) <
                               std::chrono::nanoseconds(kPollingWindow).count();) {
        std::this_thread::sleep_for(std::chrono::nanoseconds(std::chrono::nanoseconds(kPollingWindow).count() - quiet));
        if (stopping.load(std::memory_order_acquire)) return;
      }
      ucs_status_t armed;
      {
        std::lock_guard<std::mutex> held(lock);
        ucp_worker_progress(worker);
        armed = ucp_worker_arm(worker);
      }
      if (armed == UCS_ERR_BUSY) continue;  // more events already: progress again
      pollfd fds[2] = {{event_fd, POLLIN, 0}, {wake_fd, POLLIN, 0}};
      ::poll(fds, 2, -1);
    }
  }

  ucp_rkey_h key(const Remote &remote) const { return regions[remote.region].keys[remote.pe]; }

  // The routed PE's copy that holds [address, address + bytes), or pe -1 when none does.
  Remote locate(const void *address, std::size_t bytes) const {
    const auto *p = static_cast<const std::byte *>(address);
    for (std::size_t r = 0; r < regions.size(); ++r) {
      const Region &region = regions[r];
      for (std::size_t pe = 0; pe < region.shape.views.size(); ++pe) {
        const std::byte *base = region.shape.views[pe];
        if (!routed[pe] || base == nullptr || p < base) continue;
        const auto at = static_cast<std::size_t>(p - base);
        if (at < region.shape.bytes && bytes <= region.shape.bytes - at) {
          return {static_cast<int>(pe), static_cast<int>(r), region.remote_base[pe] + at};
        }
      }
    }
    return {};
  }
};

namespace channel_message {

// The header of `operation` on `bytes` at `at`, a routed PE's copy of one of the engine's regions.
inline Segment segmentAt(const UcxEngine::Impl &e, const UcxEngine::Remote &at, std::size_t bytes,
                         std::uint32_t operation) {
  return {at.address - e.regions[at.region].remote_base[at.pe], static_cast<std::uint32_t>(bytes),
          inRegion(operation, at.region)};
}

}  // namespace channel_message

class UcxChannelLink final : public runtime::ChannelLink {
 public:
  explicit UcxChannelLink(UcxEngine::Impl &engine) : e_(engine), building_(engine.endpoints.size()) {}
  ~UcxChannelLink() override {
    std::lock_guard<std::mutex> held(e_.lock);
    for (const Pending &message : pending_) ucp_request_free(message.request);  // released once complete
  }

  void put(int pe, std::size_t offset, const void *source, std::size_t bytes) override {
    building_[pe].append({offset, static_cast<std::uint32_t>(bytes), channel_message::kCopy}, source, bytes);
  }
  void putMemory(int pe, void *dest, const void *source, std::size_t bytes) override {
    const UcxEngine::Remote to = e_.locate(dest, bytes);
    if (to.pe != pe || bytes > std::numeric_limits<std::uint32_t>::max()) {
      throw Error(ErrorCode::Internal, "the host channel: " + std::to_string(bytes) + " bytes for PE " +
                                           std::to_string(pe) + " that are not in its memory reached through UCX");
    }
    building_[pe].append(channel_message::segmentAt(e_, to, bytes, channel_message::kCopy), source, bytes);
  }
  void store(int pe, std::size_t offset, std::int64_t value) override {
    building_[pe].append({offset, sizeof value, channel_message::kStore}, &value, sizeof value);
    // The store ends what this push writes to pe: the message goes.
    Pending &message = pending_.emplace_back(Pending{nullptr, std::move(building_[pe]), {}, pe});
    building_[pe] = spare();
    message.bytes.vector(message.iov);
    ucp_request_param_t param{};
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    param.flags = UCP_AM_SEND_FLAG_EAGER;
    ucs_status_ptr_t request = e_.post([&] {
      return channel_message::send(e_.endpoints[pe], channel_message::kId, message.bytes, message.iov, param);
    });
    if (request == nullptr || UCS_PTR_IS_ERR(request)) release(pending_.back()), pending_.pop_back();
    if (UCS_PTR_IS_ERR(request)) fail("the host channel: a message", UCS_PTR_STATUS(request));
    if (request != nullptr) message.request = request;
  }
  void settle() override { settleWithin(e_.deadline); }
  void discard() override {
    for (channel_message::Message &message : building_) message.clear();
  }
  bool flush(long deadline_ms) override {
    const std::chrono::milliseconds limit(deadline_ms);
    try {
      settleWithin(limit);
      ucp_request_param_t param{};
      e_.wait(e_.post([&] { return ucp_worker_flush_nbx(e_.worker, &param); }), "the host channel", "flush", limit);
      return true;
    } catch (const Error &) {
      return false;
    }
  }

  // The receiving side, run by whichever thread progresses the worker: applies a message to this
  // PE's channel segment and, for what a step delivers, its regions.
  static ucs_status_t apply(void *arg, const void *, std::size_t, void *data, std::size_t length,
                            const ucp_am_recv_param_t *) {
    const auto &e = *static_cast<const UcxEngine::Impl *>(arg);
    const auto *at = static_cast<const std::byte *>(data);
    const std::byte *end = at + length;
    while (end - at >= static_cast<std::ptrdiff_t>(sizeof(channel_message::Segment))) {
      channel_message::Segment header;
      std::memcpy(&header, at, sizeof header);
      at += sizeof header;
      std::span<std::byte> segment = e.channel_segment;
      if (const std::uint32_t target = header.kind >> channel_message::kRegionShift; target != 0) {
        if (target > e.regions.size()) break;  // not a message of this job's layout: dropped
        segment = {e.regions[target - 1].shape.local, e.regions[target - 1].shape.bytes};
      }
      const std::uint32_t operation = header.kind & channel_message::kOperation;
      const std::size_t carried = operation == channel_message::kCopy ? header.bytes : sizeof(std::uint64_t);
      if (static_cast<std::size_t>(end - at) < carried || header.offset > segment.size() ||
          segment.size() - header.offset < header.bytes) {
        break;  // not a message of this job's layout: dropped
      }
      std::byte *dest = segment.data() + header.offset;
      if (operation == channel_message::kCopy) {
        std::memcpy(dest, at, header.bytes);
      } else if ((header.bytes == 4 || header.bytes == 8) && header.offset % header.bytes == 0) {
        std::uint64_t value;
        std::memcpy(&value, at, sizeof value);
        channel_message::applyWord(operation, dest, header.bytes, value);
      }
      at += carried;
    }
    return UCS_OK;
  }

 private:
  struct Pending {
    ucs_status_ptr_t request;
    channel_message::Message bytes;  // the message, until UCX has sent it
    std::vector<ucp_dt_iov_t> iov;   // its I/O vector, which UCX reads until then
    int pe;
  };

  void settleWithin(std::chrono::nanoseconds limit) {
    while (!pending_.empty()) {
      const Pending &message = pending_.front();
      try {
        e_.wait(message.request, "the host channel", "a message", limit, message.pe);  // frees it
      } catch (...) {
        pending_.pop_front();  // freed by the wait; the others stay, freed at the end
        throw;
      }
      release(pending_.front());
      pending_.pop_front();
    }
  }

  // Messages' buffers are kept for the next ones: a buffer allocated anew for each faulted its
  // pages in every time.
  channel_message::Message spare() {
    if (spare_.empty()) return {};
    channel_message::Message buffer = std::move(spare_.back());
    spare_.pop_back();
    return buffer;
  }
  void release(Pending &message) {
    if (spare_.size() >= building_.size() || message.bytes.capacity() > kKeptCapacity) return;
    message.bytes.clear();
    spare_.push_back(std::move(message.bytes));
  }
  static constexpr std::size_t kKeptCapacity = std::size_t{4} << 20;

  UcxEngine::Impl &e_;
  std::vector<channel_message::Message> building_;  // per PE: the message of the push under way
  std::list<Pending> pending_;                      // messages not yet known to have been sent
  std::vector<channel_message::Message> spare_;     // buffers of sent messages, emptied, for the next ones
};

namespace {

ucp_request_param_t eagerMessage() {
  ucp_request_param_t param{};
  param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
  param.flags = UCP_AM_SEND_FLAG_EAGER;
  return param;
}

}  // namespace

// A peer asks: everything it sent before has been applied here (this handler runs after them, in
// its messages' order), so the reply goes at once. Its request, where UCX returns one, is released
// by its callback; the word stays in sync_replies until sent.
ucs_status_t UcxEngine::Impl::onSyncRequest(void *arg, const void *, std::size_t, void *data, std::size_t length,
                                            const ucp_am_recv_param_t *) {
  Impl &e = *static_cast<Impl *>(arg);
  SyncWord asked;
  if (length != sizeof asked) return UCS_OK;  // not a message of this job's layout: dropped
  std::memcpy(&asked, data, sizeof asked);
  if (asked.pe < 0 || static_cast<std::size_t>(asked.pe) >= e.endpoints.size() || e.endpoints[asked.pe] == nullptr)
    return UCS_OK;
  SyncWord &reply = e.sync_replies[asked.pe];
  reply = {asked.token, e.me, 0};
  ucp_request_param_t param = eagerMessage();
  param.op_attr_mask |= UCP_OP_ATTR_FIELD_CALLBACK;
  param.cb.send = [](void *request, ucs_status_t, void *) { ucp_request_free(request); };
  // An error leaves the asking PE's quiet to its deadline, which names this PE.
  (void)ucp_am_send_nbx(e.endpoints[asked.pe], channel_message::kSyncReplyId, nullptr, 0, &reply, sizeof reply, &param);
  return UCS_OK;
}

ucs_status_t UcxEngine::Impl::onSyncReply(void *arg, const void *, std::size_t, void *data, std::size_t length,
                                          const ucp_am_recv_param_t *) {
  Impl &e = *static_cast<Impl *>(arg);
  SyncWord answered;
  if (length != sizeof answered) return UCS_OK;
  std::memcpy(&answered, data, sizeof answered);
  if (answered.pe < 0 || static_cast<std::size_t>(answered.pe) >= e.confirmed.size()) return UCS_OK;
  e.confirmed[answered.pe] = std::max(e.confirmed[answered.pe], answered.token);
  return UCS_OK;
}

void UcxEngine::Impl::confirmMessages(const char *call, int only) {
  std::vector<int> asked;
  std::uint64_t token = 0;
  {
    std::lock_guard<std::mutex> held(lock);
    for (std::size_t pe = 0; pe < sent_messages.size(); ++pe) {
      if (only >= 0 && static_cast<int>(pe) != only) continue;
      if (sent_messages[pe] != 0) asked.push_back(static_cast<int>(pe));
      sent_messages[pe] = 0;
    }
    if (asked.empty()) return;
    token = ++sync_token;
  }
  for (int pe : asked) {
    const ucp_request_param_t param = eagerMessage();
    wait(post([&] {
           sync_requests[pe] = {token, me, 0};
           return ucp_am_send_nbx(endpoints[pe], channel_message::kSyncRequestId, nullptr, 0, &sync_requests[pe],
                                  sizeof(SyncWord), &param);
         }),
         call, "a confirmation's request", pe);
  }
  int waiting = -1;
  progressUntil(
      [&] {
        waiting = -1;
        for (int pe : asked)
          if (confirmed[pe] < token) waiting = pe;
        return waiting < 0;
      },
      deadline,
      [&] {
        throw Error(ErrorCode::Internal,
                    std::string(call) + ": PE " + std::to_string(waiting) + " did not confirm through UCX, within " +
                        std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(deadline).count()) +
                        " ms, that it applied the puts with signals sent to it");
      });
}

void UcxEngine::Impl::sendMessage(int pe, runtime::Bytes message, bool blocking, const char *call) {
  const ucp_request_param_t param = eagerMessage();
  ucs_status_ptr_t request;
  bool over = false;
  {
    std::lock_guard<std::mutex> held(lock);
    sent_messages[pe] = 1;
    request = ucp_am_send_nbx(endpoints[pe], channel_message::kId, nullptr, 0, message.data(), message.size(), &param);
    if (!blocking && request != nullptr && !UCS_PTR_IS_ERR(request)) {  // kept, with its bytes, for quiet
      reapCompleted();
      Outstanding &o = outstanding.emplace_back();
      o.request = request, o.call = call, o.what = "a message", o.pe = pe, o.message = std::move(message);
      outstanding_message_bytes += o.message.size();
      request = nullptr;
      over = overOutstandingBounds();
    }
  }
  wait(request, call, "a message", pe);
  if (over) drain();
}

UcxEngine::UcxEngine(runtime::RuntimeState &state, std::vector<UcxRegion> regions, std::vector<bool> routed,
                     std::span<std::byte> channel)
    : impl_(new Impl) {
  Impl &e = *impl_;
  e.me = state.my_pe;
  for (UcxRegion &region : regions) {
    e.regions.emplace_back();
    e.regions.back().shape = std::move(region);
  }
  e.routed = std::move(routed);
  e.deadline = state.wait_timeout;
  e.yield_when_idle = runtime::oversubscribed();
  const int n = state.n_pes;
  try {
    // TCP's segments and socket buffers sized for the heap's transfers, unless the user set them:
    // with UCX's 8 KiB segments a 256 KiB get or put is 32 segments, each handled by the target's
    // worker in turn; with these the collectives of 256 KiB across nodes took 2.3-3.3x less time
    // (docs/RUNTIME.md, "Peers through the network"). In the environment, not the config: UCX
    // 1.13's ucp_config_modify does not reach the transports' settings; setenv before any thread
    // of the PE reads UCX's variables.
    for (const auto &[name, value] : {std::pair<const char *, const char *>{"UCX_TCP_TX_SEG_SIZE", "256k"},
                                      {"UCX_TCP_RX_SEG_SIZE", "256k"},
                                      {"UCX_TCP_SNDBUF", "4m"},
                                      {"UCX_TCP_RCVBUF", "4m"}}) {
      ::setenv(name, value, 0);
    }
    ucp_config_t *config = nullptr;
    check(ucp_config_read(nullptr, nullptr, &config), "ucp_config_read");
    // Unless the user chose UCX's transports: TCP, the path between hosts, whatever this host has.
    if (std::getenv("UCX_TLS") == nullptr) ucp_config_modify(config, "TLS", "tcp");
    ucp_params_t params{};
    params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED;
    params.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
    params.mt_workers_shared = 1;
    const ucs_status_t initialized = ucp_init(&params, config, &e.context);
    ucp_config_release(config);
    check(initialized, "ucp_init");
    ucp_worker_params_t worker_params{};
    worker_params.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    worker_params.thread_mode = UCS_THREAD_MODE_SERIALIZED;  // by Impl::lock
    check(ucp_worker_create(e.context, &worker_params, &e.worker), "ucp_worker_create");
    // The host channel's messages from other nodes' PEs land in this PE's channel segment.
    e.channel_segment = channel;
    ucp_am_handler_param_t handler{};
    handler.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG;
    handler.id = channel_message::kId;
    handler.cb = &UcxChannelLink::apply;
    handler.arg = &e;
    check(ucp_worker_set_am_recv_handler(e.worker, &handler), "ucp_worker_set_am_recv_handler");
    handler.id = channel_message::kSyncRequestId;
    handler.cb = &Impl::onSyncRequest;
    check(ucp_worker_set_am_recv_handler(e.worker, &handler), "ucp_worker_set_am_recv_handler");
    handler.id = channel_message::kSyncReplyId;
    handler.cb = &Impl::onSyncReply;
    check(ucp_worker_set_am_recv_handler(e.worker, &handler), "ucp_worker_set_am_recv_handler");
    e.sent_messages.assign(n, 0);
    e.sync_requests.assign(n, {});
    e.sync_replies.assign(n, {});
    e.confirmed.assign(n, 0);

    for (Impl::Region &region : e.regions) {
      ucp_mem_map_params_t map{};
      map.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
      map.address = region.shape.local;
      map.length = region.shape.bytes;
      check(ucp_mem_map(e.context, &map, &region.memory), std::string("ucp_mem_map of ") + region.shape.what);
    }

    // This PE's card: its worker's address, its region count, then each region's packed key and
    // base here.
    ucp_address_t *address = nullptr;
    std::size_t address_bytes = 0;
    check(ucp_worker_get_address(e.worker, &address, &address_bytes), "ucp_worker_get_address");
    runtime::Bytes card;
    append(card, static_cast<std::uint64_t>(address_bytes));
    card.insert(card.end(), reinterpret_cast<std::byte *>(address), reinterpret_cast<std::byte *>(address) + address_bytes);
    ucp_worker_release_address(e.worker, address);
    append(card, static_cast<std::uint64_t>(e.regions.size()));
    const auto addKey = [&](ucp_mem_h memory, const void *base, const char *what) {
      void *key = nullptr;
      std::size_t key_bytes = 0;
      check(ucp_rkey_pack(e.context, memory, &key, &key_bytes), std::string("ucp_rkey_pack of ") + what);
      append(card, static_cast<std::uint64_t>(key_bytes));
      card.insert(card.end(), static_cast<std::byte *>(key), static_cast<std::byte *>(key) + key_bytes);
      append(card, reinterpret_cast<std::uint64_t>(base));
      ucp_rkey_buffer_release(key);
    };
    for (const Impl::Region &region : e.regions) addKey(region.memory, region.shape.local, region.shape.what);
    const std::vector<runtime::Bytes> cards = state.store->allgather(card);

    e.endpoints.assign(n, nullptr);
    for (Impl::Region &region : e.regions) {
      region.keys.assign(n, nullptr);
      region.remote_base.assign(n, 0);
    }
    for (int pe = 0; pe < n; ++pe) {
      if (!e.routed[pe]) continue;
      const runtime::Bytes &theirs = cards[pe];
      std::size_t at = 0;
      const auto their_address_bytes = take<std::uint64_t>(theirs, &at);
      const std::byte *their_address = theirs.data() + at;
      at += their_address_bytes;
      ucp_ep_params_t ep{};
      ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
      ep.address = reinterpret_cast<const ucp_address_t *>(their_address);
      check(ucp_ep_create(e.worker, &ep, &e.endpoints[pe]), "ucp_ep_create to PE " + std::to_string(pe));
      if (take<std::uint64_t>(theirs, &at) != e.regions.size()) {
        throw Error(ErrorCode::Internal, "UCX: PE " + std::to_string(pe) + " registered another number of regions");
      }
      const auto unpackKey = [&](ucp_rkey_h *key, std::uint64_t *base, const char *what) {
        const auto key_bytes = take<std::uint64_t>(theirs, &at);
        if (at + key_bytes > theirs.size()) throw Error(ErrorCode::Internal, "UCX: a peer's card is cut short");
        check(ucp_ep_rkey_unpack(e.endpoints[pe], theirs.data() + at, key),
              "ucp_ep_rkey_unpack of PE " + std::to_string(pe) + "'s " + std::string(what));
        at += key_bytes;
        *base = take<std::uint64_t>(theirs, &at);
      };
      for (Impl::Region &region : e.regions) unpackKey(&region.keys[pe], &region.remote_base[pe], region.shape.what);
    }
    e.wake_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    e.progress = std::thread([&e] { e.progressLoop(); });
  } catch (...) {
    delete impl_;
    impl_ = nullptr;
    throw;
  }
}

UcxEngine::~UcxEngine() {
  if (impl_ == nullptr) return;
  Impl &e = *impl_;
  if (e.progress.joinable()) {
    e.stopping.store(true, std::memory_order_release);
    const std::uint64_t one = 1;
    [[maybe_unused]] auto ignored = ::write(e.wake_fd, &one, sizeof one);
    e.progress.join();
  }
  if (e.wake_fd >= 0) ::close(e.wake_fd);
  e.channel_link.reset();  // its stores still in flight are released while the worker lives
  for (const Impl::Outstanding &o : e.outstanding) {  // non-blocking puts never quieted
    if (o.request == nullptr) continue;
    ucp_request_cancel(e.worker, o.request);
    ucp_request_free(o.request);
  }
  for (Impl::Region &region : e.regions) {
    for (ucp_rkey_h key : region.keys)
      if (key != nullptr) ucp_rkey_destroy(key);
  }
  for (ucp_ep_h ep : e.endpoints) {
    if (ep == nullptr) continue;
    ucp_request_param_t param{};
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    param.flags = UCP_EP_CLOSE_FLAG_FORCE;  // the job is over: peers may be gone already
    ucs_status_ptr_t request = ucp_ep_close_nbx(ep, &param);
    if (UCS_PTR_IS_PTR(request)) {
      while (ucp_request_check_status(request) == UCS_INPROGRESS) ucp_worker_progress(e.worker);
      ucp_request_free(request);
    }
  }
  for (Impl::Region &region : e.regions)
    if (region.memory != nullptr) ucp_mem_unmap(e.context, region.memory);
  if (e.worker != nullptr) ucp_worker_destroy(e.worker);
  if (e.context != nullptr) ucp_cleanup(e.context);
  delete impl_;
}

UcxEngine::Remote UcxEngine::locate(const void *address, std::size_t bytes) const {
  return impl_->locate(address, bytes);
}

namespace {

ucp_request_param_t plainParam() {
  ucp_request_param_t param{};
  return param;
}

ucp_request_param_t wordParam(unsigned bytes, void *reply) {
  ucp_request_param_t param{};
  param.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | (reply != nullptr ? UCP_OP_ATTR_FIELD_REPLY_BUFFER : 0);
  param.datatype = ucp_dt_make_contig(bytes);
  param.reply_buffer = reply;
  return param;
}

}  // namespace

// The largest put with a signal sent as one message (kernels/cpu/collectives.cpp's
// kOneMessageBytes is the same); a larger one goes by UCX's put, fence and atomic. Messages of
// up to 4 MiB, their bytes sent from where they are, were tried: on two
// nodes of this 2-core host the kernel library's all_reduce of 256 KiB and 1 MiB took 0.70-0.90x
// the time, but between simulated hosts of one core each, 256 KiB took 1.2-1.5x (the receiver
// copies a message out of UCX's buffer, where UCX's put lands in place; docs/RUNTIME.md, "A put
// with a signal of any size as one message").
constexpr std::size_t kSignalledMessageMost = std::size_t{64} << 10;

void UcxEngine::put(const Remote &to, const runtime::Transfer &transfer, bool blocking, const char *call) {
  Impl &e = *impl_;
  const int pe = to.pe;
  Remote signal;
  if (transfer.signal != nullptr) {
    signal = locate(transfer.signal, transfer.signal_bytes);
    if (signal.pe != pe) throw Error(ErrorCode::Internal, std::string(call) + ": the signal is not on the put's PE");
  }
  // The data before the signal (seed 001 §6.1: put, fence, then the atomic): a SET is a swap (UCX
  // has no atomic store), an ADD a fetching add, the operand and the reply (discarded) in the
  // word's width.
  const ucp_atomic_op_t opcode = transfer.signal_op == shmem::SignalOp::Add ? UCP_ATOMIC_OP_ADD : UCP_ATOMIC_OP_SWAP;
  const bool narrow = transfer.signal_bytes == 4;
  const auto postAtomic = [&](void *operand, void *reply) {
    e.fence(call);
    ucp_request_param_t param = wordParam(transfer.signal_bytes, reply);
    return e.post([&] { return ucp_atomic_op_nbx(e.endpoints[pe], opcode, operand, 1, signal.address, e.key(signal), &param); });
  };
  const auto postData = [&] {
    ucp_request_param_t param = plainParam();
    return e.post([&] { return ucp_put_nbx(e.endpoints[pe], transfer.source, transfer.bytes, to.address, e.key(to), &param); });
  };

  // A small put with a signal is one message, which the peer's worker applies in order (the bytes,
  // then the signal, with release order): no atomic, no reply (docs/RUNTIME.md, "A put with a
  // signal as one message"). It returns once UCX has sent it (at once where UCX copied it) and is
  // known to be applied after quiet, which asks the peer (confirmMessages).
  if (transfer.signal != nullptr && transfer.bytes <= kSignalledMessageMost) {
    runtime::Bytes message;
    message.reserve(2 * sizeof(channel_message::Segment) + transfer.bytes + sizeof(std::uint64_t));
    if (transfer.bytes != 0) {
      channel_message::append(message, channel_message::segmentAt(e, to, transfer.bytes, channel_message::kCopy),
                              transfer.source, transfer.bytes);
    }
    const std::uint64_t value = transfer.signal_value;
    const std::uint32_t operation =
        transfer.signal_op == shmem::SignalOp::Add ? channel_message::kAdd : channel_message::kStore;
    channel_message::append(message, channel_message::segmentAt(e, signal, transfer.signal_bytes, operation), &value,
                            sizeof value);
    e.sendMessage(pe, std::move(message), blocking, call);
    return;
  }

  if (!blocking) {
    // Posted and left to quiet, which waits for every such request (Impl::outstanding); the
    // atomic's operand and reply live in its entry there. All under the lock, so that no quiet
    // of another thread takes the entries between their posting and their requests.
    bool over = false;
    {
      std::lock_guard<std::mutex> held(e.lock);
      e.reapCompleted();
      if (transfer.bytes != 0) {
        ucp_request_param_t param = plainParam();
        e.keep(ucp_put_nbx(e.endpoints[pe], transfer.source, transfer.bytes, to.address, e.key(to), &param), call,
               "put", pe);
      }
      if (transfer.signal != nullptr) {
        check(ucp_worker_fence(e.worker), std::string(call) + ": ucp_worker_fence");
        Impl::Outstanding &o = e.outstanding.emplace_back();
        o.operand = transfer.signal_value, o.narrow_operand = static_cast<std::uint32_t>(transfer.signal_value);
        ucp_request_param_t param =
            wordParam(transfer.signal_bytes, narrow ? static_cast<void *>(&o.narrow_reply) : &o.reply);
        const ucs_status_ptr_t request =
            ucp_atomic_op_nbx(e.endpoints[pe], opcode, narrow ? static_cast<void *>(&o.narrow_operand) : &o.operand, 1,
                              signal.address, e.key(signal), &param);
        // Kept where it is (UCX writes its reply there), unless it completed at once or failed.
        o.request = request, o.call = call, o.what = "atomic", o.pe = pe;
        if (request == nullptr || UCS_PTR_IS_ERR(request)) e.outstanding.pop_back();
        if (UCS_PTR_IS_ERR(request)) {
          fail(std::string(call) + ": atomic with PE " + std::to_string(pe), UCS_PTR_STATUS(request));
        }
      }
      over = e.overOutstandingBounds();
    }
    if (over) e.drain();
    return;
  }

  // Blocking: the data and the signal's atomic posted back to back and waited for together, one
  // round trip (docs/RUNTIME.md, "A put with a signal in one round trip"): the atomic fetches, and
  // the fence orders it after the data, so its reply says that both landed, with no flush; a put
  // without a signal is delivered by the endpoint's flush.
  Impl::Requests requests(e, call, pe);
  if (transfer.bytes != 0) requests.add(postData(), "put");
  if (transfer.signal == nullptr) {
    ucp_request_param_t param = plainParam();
    requests.add(e.post([&] { return ucp_ep_flush_nbx(e.endpoints[pe], &param); }), "flush");
    return requests.waitAll();
  }
  std::uint64_t value = transfer.signal_value, reply = 0;
  std::uint32_t value32 = static_cast<std::uint32_t>(transfer.signal_value), reply32 = 0;
  requests.add(narrow ? postAtomic(&value32, &reply32) : postAtomic(&value, &reply), "atomic");
  requests.waitAll();
}

void UcxEngine::get(void *dest, const Remote &from, std::size_t bytes, const char *call) {
  Impl &e = *impl_;
  if (bytes == 0) return;
  e.confirmMessages(call, from.pe);  // what this PE sent there as messages lands first
  ucp_request_param_t param = plainParam();
  e.wait(e.post([&] { return ucp_get_nbx(e.endpoints[from.pe], dest, bytes, from.address, e.key(from), &param); }),
         call, "get", from.pe);
}

std::uint64_t UcxEngine::wordOp(const Remote &at, runtime::WordOp op, unsigned bytes, std::uint64_t operand,
                                std::uint64_t compare, const char *call) {
  Impl &e = *impl_;
  const int pe = at.pe;
  // A point put's or a signal's SET or ADD: one message, which the peer's worker applies with a
  // release store or add after what this PE sent it before, delivered by quiet as puts are
  // (docs/RUNTIME.md, "A point put as one message").
  if (op == runtime::WordOp::PutSet || op == runtime::WordOp::PutAdd) {
    runtime::Bytes message;
    channel_message::append(
        message,
        channel_message::segmentAt(e, at, bytes,
                                   op == runtime::WordOp::PutAdd ? channel_message::kAdd : channel_message::kStore),
        &operand, sizeof operand);
    e.sendMessage(pe, std::move(message), true, call);
    return 0;
  }
  // What this PE sent pe as messages lands first: an atomic after a point put sees it.
  e.confirmMessages(call, pe);
  // Operands and replies in the word's width (UCX atomics are 4 or 8 bytes).
  std::uint64_t value = operand, reply = 0;
  std::uint32_t value32 = static_cast<std::uint32_t>(operand), reply32 = 0;
  void *buffer = bytes == 4 ? static_cast<void *>(&value32) : static_cast<void *>(&value);
  void *result = bytes == 4 ? static_cast<void *>(&reply32) : static_cast<void *>(&reply);
  ucp_atomic_op_t opcode = UCP_ATOMIC_OP_ADD;
  bool fetch = true;
  switch (op) {
    case runtime::WordOp::PutSet:
    case runtime::WordOp::PutAdd:
      break;  // messages, above
    case runtime::WordOp::Fetch:
      value = 0, value32 = 0;
      break;
    case runtime::WordOp::Set:
    case runtime::WordOp::Swap:
      opcode = UCP_ATOMIC_OP_SWAP;
      break;
    case runtime::WordOp::CompareSwap:
      // UCX: buffer holds the value compared, the reply buffer the value swapped in (and then
      // the previous value).
      opcode = UCP_ATOMIC_OP_CSWAP;
      value = compare, value32 = static_cast<std::uint32_t>(compare);
      reply = operand, reply32 = static_cast<std::uint32_t>(operand);
      break;
    case runtime::WordOp::Add:
      fetch = false;
      break;
    case runtime::WordOp::FetchAdd:
      break;
  }
  ucp_request_param_t param = wordParam(bytes, fetch ? result : nullptr);
  e.wait(e.post([&] { return ucp_atomic_op_nbx(e.endpoints[pe], opcode, buffer, 1, at.address, e.key(at), &param); }),
         call, "atomic", pe);
  if (!fetch) {
    // Delivered before the call returns, as the host's own atomics are.
    ucp_request_param_t flush = plainParam();
    e.wait(e.post([&] { return ucp_ep_flush_nbx(e.endpoints[pe], &flush); }), call, "flush", pe);
    return 0;
  }
  return bytes == 4 ? reply32 : reply;
}

void UcxEngine::quiet(const char *call) {
  Impl &e = *impl_;
  e.drain();
  e.confirmMessages(call);
  ucp_request_param_t param = plainParam();
  e.wait(e.post([&] { return ucp_worker_flush_nbx(e.worker, &param); }), call, "flush");
}

void UcxEngine::progress() {
  // Where another thread holds the worker, it is progressing it: nothing to add.
  std::unique_lock<std::mutex> held(impl_->lock, std::try_to_lock);
  if (!held.owns_lock()) return;
  ucp_worker_progress(impl_->worker);
  impl_->notePolled();
}

runtime::ChannelLink &UcxEngine::channelLink() {
  if (impl_->channel_link == nullptr) impl_->channel_link = std::make_unique<UcxChannelLink>(*impl_);
  return *impl_->channel_link;
}

#else  // a build without UCX

struct UcxEngine::Impl {};

UcxEngine::UcxEngine(runtime::RuntimeState &, std::vector<UcxRegion>, std::vector<bool>, std::span<std::byte>)
    : impl_(nullptr) {
  throw Error(ErrorCode::NotSupported,
              "TDIST_TRANSPORT=ucx: this tdist was built without UCX (Debian: libucx-dev)");
}
UcxEngine::~UcxEngine() = default;
UcxEngine::Remote UcxEngine::locate(const void *, std::size_t) const { return {}; }
void UcxEngine::put(const Remote &, const runtime::Transfer &, bool, const char *) {}
void UcxEngine::get(void *, const Remote &, std::size_t, const char *) {}
std::uint64_t UcxEngine::wordOp(const Remote &, runtime::WordOp, unsigned, std::uint64_t, std::uint64_t, const char *) {
  return 0;
}
void UcxEngine::quiet(const char *) {}
void UcxEngine::progress() {}
runtime::ChannelLink &UcxEngine::channelLink() { throw Error(ErrorCode::NotSupported, "a build without UCX"); }

#endif

}  // namespace tdist::cpu
