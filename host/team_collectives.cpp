// host/team_collectives.cpp - data collectives on a team: broadcast, collect, alltoall(s)
// and reductions.
//
// Each is two steps of the team. The first agrees on the call (every member entered it, so every
// source is ready; a member whose call or sizes differ fails every member alike, before any data
// moves). Between the steps every member pulls what it needs from its peers' sources into its own
// dest, through the runtime's gets (or, where the host loads the heap, reads the peers' mappings);
// the second step keeps every source unchanged until every member has read it. A reduction keeps
// its result aside until the second step, so dest may be source.
//
// A small call (at most kCarriedBytes carried by each member: broadcast, fcollect, alltoall, the
// reductions, where the host loads the heap) is ONE step: each member's bytes travel beside its
// record in the control block, in the records' double buffer, so no source is read after the
// step and there is nothing left to protect. Not on the active sets' index (oneStep).
//
// Across nodes a pull is a round trip through the network, and a step a one-way message. So
// what a member of another node needs travels with a step instead. Where every member is alone
// on its node, a call of up to kInboxBytes a member is ONE step: each member's bytes go to the
// others' inboxes with the agreement (HostChannel::takeInbox says why they are not overwritten
// too soon); a larger broadcast or fcollect goes an inbox a step, the first part with the
// agreement to the inboxes, the later ones straight into the receivers' dest, each step sent
// before the last one is read (stepsIntoDests); a larger reduction as a reduce-scatter then an
// all-gather in such steps (reduceScatterGather), or, where members share a node, an inbox of
// every source a step, with a last step. Where
// members share a node: broadcast, collect, fcollect and alltoall deliver up to kDeliveredBytes a
// member into its dest with the last step; a reduction of up to kInboxBytes sends every source to
// the other nodes' members' inboxes with a step of its own, then a last step keeps the sources for
// the members of each node.
#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "host/calls.h"
#include "host/host_access.h"
#include "runtime/collective.h"
#include "runtime/runtime_state.h"
#include "runtime/teams.h"

namespace tdist::host {

using runtime::CollectiveOp;
using runtime::CollectiveRecord;
using runtime::ReduceOp;
using runtime::RuntimeState;
using runtime::TeamInfo;

namespace {

// Host memory a collective keeps aside (a reduction's result, a peer's copy pulled through the
// network), kept from call to call on the PE's host thread: memory allocated anew at every call
// faulted its pages in each time (a reduction of 256 KiB across nodes spent more in 128 page
// faults than in its transfer). At most kKeptBytes stay between calls.
class Scratch {
 public:
  static constexpr std::size_t kKeptBytes = std::size_t{64} << 20;
  enum Slot { Result, Incoming, kSlots };

  // `bytes` of slot, aligned for any element type; valid until the next take of that slot.
  template <class T>
  static T *take(Slot slot, std::size_t count) {
    auto &buffer = t_buffers[slot];
    const std::size_t words = (count * sizeof(T) + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t);
    if (buffer.size() < words) buffer.resize(words);
    return reinterpret_cast<T *>(buffer.data());
  }
  // After a call: a buffer larger than kKeptBytes is given back.
  static void trim() {
    for (auto &buffer : t_buffers) {
      if (buffer.size() * sizeof(std::max_align_t) > kKeptBytes) std::vector<std::max_align_t>().swap(buffer);
    }
  }

 private:
  static thread_local std::vector<std::max_align_t> t_buffers[kSlots];
};
thread_local std::vector<std::max_align_t> Scratch::t_buffers[Scratch::kSlots];

// Whether [a, a + bytes) and [b, b + bytes) share a byte.
inline bool overlap(const void *a, const void *b, std::size_t bytes) {
  const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  return x < y + bytes && y < x + bytes;
}

// One collective call of this PE on a team, from its arguments' checks to its last step.
class TeamCollective {
 public:
  TeamCollective(int team, const CollectiveCall &call)
      : state_(runtime::requireState(call.call)), call_(call), index_(team) {
    runtime::requireHostThread(state_, call.call);
    team_ = &runtime::requireTeam(state_, team, call.call);
  }

  RuntimeState &state() { return state_; }
  const TeamInfo &team() const { return *team_; }
  int me() const { return team_->my_pe; }
  int size() const { return team_->size; }
  const char *call() const { return call_.call; }

  // A local check before the agreement: the first failure is reported on every member.
  template <class Check>
  void check(Check &&check) {
    if (local_error_) return;
    try {
      check();
    } catch (const Error &error) {
      local_error_ = error;
    }
  }
  void checkSymmetric(const void *address, std::size_t bytes, const char *what) {
    if (bytes == 0) return;
    check([&] { runtime::peerAddress(state_, address, bytes, state_.my_pe, call_.call, what); });
  }

  // The first step: every member's record (index = team PE). `compare_bytes`: arg0 must match.
  // `carried`: this PE's bytes for the others, beside its record (a one-step collective); what
  // toInbox queued goes to the others' inboxes with it.
  runtime::MemberRecords agree(std::uint64_t bytes, std::uint64_t arg1, std::uint64_t arg2, bool compare_bytes,
                                      std::span<const std::byte> carried = {}) {
    CollectiveRecord mine{};
    mine.op = CollectiveOp::Exchange;
    mine.api = call_.api;
    mine.status = local_error_ ? static_cast<std::int32_t>(local_error_->code()) : 0;
    mine.arg0 = bytes;
    mine.arg1 = arg1;
    mine.arg2 = arg2;
    if (local_error_) deliveries_.clear();
    auto all = runtime::agreeOnStep(state_, *team_, mine, local_error_ ? std::span<const std::byte>{} : carried,
                                    deliveries_, call_.call);
    deliveries_.clear();
    for (const CollectiveRecord &r : all) {
      if (r.api != mine.api || r.arg1 != arg1 || r.arg2 != arg2 || (compare_bytes && r.arg0 != bytes)) {
        throw Error(ErrorCode::CollectiveMismatch,
                    runtime::callsDiffer(state_, *team_, all, call_.call) + "; no data was moved");
      }
    }
    if (local_error_) throw *local_error_;
    for (int member = 0; member < size(); ++member) {
      if (all[member].status == 0) continue;
      const auto code = static_cast<ErrorCode>(all[member].status);
      throw Error(code, std::string(call_.call) + ": failed on PE " + std::to_string(team_->worldPe(member)) +
                            " (" + toString(code) + "); no data was moved");
    }
    return all;
  }

  // Whether a call of `bytes` carried by each member goes in one step: small enough, and this PE's
  // host reads its own heap (every member decides alike: the bytes are agreed, the backend is
  // the job's). Then the data travel with the agreement, and nothing is left to protect.
  // Not on the active sets' shared index: a member done with one set's call may start another
  // set's there before a slow member of the first has read what it carried.
  bool oneStep(std::size_t carried_bytes) const {
    return carried_bytes <= runtime::kCarriedBytes && hostViewsHeap(state_) && !local_error_ &&
           index_ != runtime::kActiveSetTeam;
  }
  // The local bytes to carry (source on this PE's heap, read in place through the host's view:
  // a one-step call is made only where there is one).
  std::span<const std::byte> local(const void *source, std::size_t bytes) const {
    if (bytes == 0) return {};
    return {static_cast<const std::byte *>(state_.backend->host_view(state_, source, bytes)), bytes};
  }
  const std::byte *carried(int member) const { return runtime::carriedBy(state_, *team_, member); }

  // Runs the data movement, then the last step (unless `sync` is false: nothing of another PE
  // is read after it), which also ends a movement that failed here and carries what this PE
  // delivers to members of other nodes.
  template <class Move>
  void moveThenSync(Move &&move, bool sync = true) {
    std::optional<Error> failed;
    try {
      move();
    } catch (const Error &error) {
      failed = error;
      deliveries_.clear();
    }
    if (sync) runtime::teamSync(state_, *team_, CollectiveOp::Sync, call_.api, deliveries_, call_.call);
    if (failed) throw *failed;
  }

  // Whether `bytes` from member to this PE, or from this PE to member, travel with the last step
  // (deliver) rather than by this PE's pull: where member is on another node, so that a pull is a
  // round trip through the network and the step a one-way message anyway. Both ends decide
  // alike, from agreed sizes. Up to kDeliveredBytes a member: past it, the message's copies
  // cost more than the round trip (2 nodes over TCP, side by side: 0.6x the pull's time at 8 KiB,
  // 0.85x at 64 KiB, the same at 256 KiB, 1.5-1.9x at 1 MiB).
  static constexpr std::size_t kDeliveredBytes = std::size_t{64} << 10;
  bool delivered(int member, std::size_t bytes) const {
    return bytes <= kDeliveredBytes && state_.channel.mirrored(team_->worldPe(member));
  }
  // Whether a call of `bytes` from each member reaches the members of other nodes through their
  // inboxes (runtime::kInboxBytes): one step of its own, no pull through the network. Alike on
  // every member (agreed bytes; nodes are symmetric).
  bool throughInboxes(std::size_t bytes) const {
    if (bytes == 0 || bytes > runtime::kInboxBytes || !state_.channel.anyMirrored()) return false;
    for (int member = 0; member < size(); ++member) {
      if (state_.channel.mirrored(team_->worldPe(member))) return true;
    }
    return false;
  }
  // Whether two members share a node, so that one reads the other's memory in place: the same
  // answer on every member (a member that alone decided to end without a last step would meet
  // the others' in its next call).
  bool sharesANode() const {
    std::vector<int> nodes;
    for (int member = 0; member < size(); ++member) nodes.push_back(state_.node_of[team_->worldPe(member)]);
    std::sort(nodes.begin(), nodes.end());
    return std::adjacent_find(nodes.begin(), nodes.end()) != nodes.end();
  }
  // One step that puts this PE's bytes at source into the inbox of it of every member of
  // another node; returns, per member, what it delivered here (null: a member of this node).
  std::vector<const std::byte *> deliverToInboxes(const void *source, std::size_t bytes) {
    for (int member = 0; member < size(); ++member) {
      if (mirrored(member)) toInbox(member, source, bytes);
    }
    runtime::awaitSync(state_, *team_, postQueued(), CollectiveOp::Sync, call_.call);
    std::vector<const std::byte *> inboxes(size(), nullptr);
    for (int member = 0; member < size(); ++member) {
      if (mirrored(member)) inboxes[member] = takeInbox(member);
    }
    return inboxes;
  }

  // Whether an alltoall in which each member sends `bytes` to another goes in ONE step through the
  // inboxes: more than a one-step call carries, at most an inbox, and every member alone on its
  // node, so that no member reads another's memory in place and nothing is left to protect
  // after the step. Alike on every member for the same call (agreed sizes, the job's nodes).
  // `each`: what a member sends another; `total`: what one carries in all (alltoall: each block).
  // Not on whether this PE failed a local check: it takes the others' deliveries all the same.
  bool oneStepThroughInboxes(std::size_t each, std::size_t total) const {
    return total > runtime::kCarriedBytes && each > 0 && each <= runtime::kInboxBytes && size() > 1 &&
           hostViewsHeap(state_) && state_.channel.anyMirrored() && !sharesANode();
  }
  // Whether a call of `bytes` a member, more than a one-step call carries (a reduction, a
  // broadcast, an fcollect), goes in steps of an inbox each (inboxSteps, stepsIntoDests,
  // reduceScatterGather; one step up to an inbox): the first step is the agreement, each later
  // one a step of its own, sent before this PE reads what the one before brought (a sender
  // writes an inbox's part again only three steps later: HostChannel::takeInbox). Where every
  // member is alone on its node; with `shared_nodes`, also where members share a node: they read each other's sources in place (partOf), and a last step keeps the
  // sources until all have (measured for reductions only: a broadcast or an fcollect among
  // members that share nodes still pulls). Alike on every member (agreed bytes, the job's nodes).
  bool byInboxSteps(std::size_t bytes, bool shared_nodes = false) const {
    if (bytes <= runtime::kCarriedBytes || size() < 2 || !hostViewsHeap(state_) || !state_.channel.anyMirrored()) {
      return false;
    }
    if (!sharesANode()) return true;
    if (!shared_nodes) return false;
    for (int member = 0; member < size(); ++member) {
      if (mirrored(member)) return true;
    }
    return false;
  }
  bool mirrored(int member) const { return state_.channel.mirrored(team_->worldPe(member)); }
  // A call of `bytes` a member in parts of an inbox: how many, and part k's length.
  static std::size_t inboxParts(std::size_t bytes) { return (bytes + runtime::kInboxBytes - 1) / runtime::kInboxBytes; }
  static std::size_t partBytes(std::size_t bytes, std::size_t k) {
    return std::min(runtime::kInboxBytes, bytes - k * runtime::kInboxBytes);
  }
  // Such a call: `mine` (this PE's `bytes`, in its memory; null where it sends nothing or a local
  // check failed) goes to every member of another node an inbox a step, the first step agreeing on
  // (bytes, arg1, arg2); take(offset, length) reads each step's part (partOf) while the next step
  // travels: posted before, awaited after (takeInbox says why the inbox's parts allow it); then,
  // where members share a node, the last step.
  template <class Take>
  void inboxSteps(const std::byte *mine, std::size_t bytes, std::uint64_t arg1, std::uint64_t arg2, Take &&take) {
    sendAheadSteps(inboxParts(bytes), bytes, arg1, arg2, [&](std::size_t k) {
      for (int member = 0; mine != nullptr && member < size(); ++member) {
        if (mirrored(member)) toInbox(member, mine + k * runtime::kInboxBytes, partBytes(bytes, k));
      }
    }, [&](std::size_t k) { take(k * runtime::kInboxBytes, partBytes(bytes, k)); });
    if (sharesANode()) runtime::teamSync(state_, *team_, CollectiveOp::Sync, call_.api, call_.call);
  }
  // Such a call where every member is alone on its node and what it sends lands in the others'
  // dest (a broadcast, an fcollect): `mine` (this PE's `bytes`; null where it sends nothing or
  // a local check failed) goes to every other member an inbox a step, the first with the
  // agreement into its inbox (a member may not have entered the call yet, and its dest is not
  // the call's until it has), the later ones straight into its dest at `at` (every member is
  // in the call by then: a step follows every member's previous one), so that the receiver
  // copies only the first part. readFirst(length) takes the first part from the inboxes.
  template <class ReadFirst>
  void stepsIntoDests(const std::byte *mine, std::size_t bytes, std::uint64_t arg1, std::uint64_t arg2, void *dest,
                      std::size_t at, ReadFirst &&readFirst) {
    sendAheadSteps(inboxParts(bytes), bytes, arg1, arg2, [&](std::size_t k) {
      for (int member = 0; mine != nullptr && member < size(); ++member) {
        if (!mirrored(member)) continue;
        if (k == 0) toInbox(member, mine, partBytes(bytes, 0));
        else deliver(member, dest, at + k * runtime::kInboxBytes, mine + k * runtime::kInboxBytes, partBytes(bytes, k));
      }
    }, [&](std::size_t k) {
      if (k == 0) readFirst(partBytes(bytes, 0));
    });
  }
  // Whether a reduction of `bytes` a member goes as a reduce-scatter then an all-gather through
  // the inboxes (reduceScatterGather): more than an inbox, three members or more, every member
  // alone on its node (so that nothing is read in place), and dest the source or apart from it.
  // Each member then sends (n - 1)/n of its bytes twice instead of all of them to every other
  // member, and combines 1/n of the result. At two members the bytes sent are the same, and it
  // measured no faster (docs/RUNTIME.md, "A large reduction as a reduce-scatter and an
  // all-gather"). Alike on every member (agreed bytes, the job's nodes; dest and source are
  // symmetric).
  bool scatterGather(std::size_t bytes, const void *dest, const void *source) const {
    return size() > 2 && bytes > runtime::kInboxBytes && (dest == source || !overlap(dest, source, bytes)) &&
           byInboxSteps(bytes) && !sharesANode();
  }
  // `steps` steps through the inboxes, the first agreeing on (bytes, arg1, arg2): send(k) queues
  // what step k delivers (toInbox, deliver; nothing where a local check failed); read(k) takes
  // what step k brought, while step k + 1 travels: posted before, awaited after (takeInbox says
  // why the inbox's parts allow it). So what read(k) makes can go with step k + 2 at the
  // earliest. Where members share a node, the caller's last step keeps their sources.
  template <class Send, class Read>
  void sendAheadSteps(std::size_t steps, std::size_t bytes, std::uint64_t arg1, std::uint64_t arg2, Send &&send,
                      Read &&read) {
    if (!failedHere()) send(0);
    agree(bytes, arg1, arg2, true);
    for (std::size_t k = 1; k < steps; ++k) {
      if (!failedHere()) send(k);
      reading_ = team_->sequence;  // step k - 1's
      const std::uint64_t sequence = postQueued();
      std::optional<Error> failed;
      try {
        read(k - 1);
      } catch (const Error &error) {
        failed = error;
      }
      runtime::awaitSync(state_, *team_, sequence, CollectiveOp::Sync, call_.call);
      if (failed) throw *failed;
    }
    reading_ = team_->sequence;
    read(steps - 1);
  }
  // bytes at source (this PE's memory, unchanged until the step) for member's inbox of this PE,
  // with the next step.
  void toInbox(int member, const void *source, std::size_t bytes) {
    deliveries_.push_back({team_->worldPe(member), nullptr, source, bytes});
  }
  // In such a call, reading the step that carried [first, first + n): member's part of source
  // (`mine`: this PE's, in its memory), from its inbox here for a member of another node, in place
  // for a member of this node.
  const std::byte *partOf(int member, const void *source, std::size_t bytes, std::size_t first,
                          const std::byte *mine) const {
    if (member == me()) return mine + first;
    if (mirrored(member)) return takeInbox(member, reading_);
    const std::byte *copy = runtime::peerAddress(state_, source, bytes, team_->worldPe(member), call_.call, "source");
    return static_cast<const std::byte *>(state_.backend->host_view(state_, copy, bytes)) + first;
  }
  // A later step's first half: published with what was queued (toInbox, deliver); returns its
  // sequence, for awaitSync.
  std::uint64_t postQueued() {
    std::uint64_t sequence = 0;
    try {
      sequence = runtime::postSync(state_, *team_, CollectiveOp::Sync, call_.api, deliveries_);
    } catch (...) {
      deliveries_.clear();
      throw;
    }
    deliveries_.clear();
    return sequence;
  }
  bool failedHere() const { return local_error_.has_value(); }
  // What member delivered here with this PE's last step on the team.
  const std::byte *takeInbox(int member) const { return takeInbox(member, team_->sequence); }
  // What member delivered here with the step that read() of sendAheadSteps reads.
  const std::byte *takeRead(int member) const { return takeInbox(member, reading_); }
  // What member delivered here with its step `sequence` on the team.
  const std::byte *takeInbox(int member, std::uint64_t sequence) const {
    const std::byte *inbox = state_.channel.takeInbox(team_->worldPe(member), index_, sequence);
    if (inbox == nullptr) {
      throw Error(ErrorCode::Internal, std::string(call_.call) + ": PE " + std::to_string(team_->worldPe(member)) +
                                           "'s delivery of collective step #" + std::to_string(sequence) +
                                           " is not in its inbox");
    }
    return inbox;
  }
  // After a one-step call through the inboxes that agreed (so every other member delivered):
  // what each delivered here; this PE's own entry is its source, in place.
  std::vector<const std::byte *> takeDelivered(const void *source, std::size_t bytes) const {
    std::vector<const std::byte *> inboxes(size());
    for (int member = 0; member < size(); ++member) {
      inboxes[member] = member == me() ? local(source, bytes).data() : takeInbox(member);
    }
    return inboxes;
  }

  // bytes of this PE's source into member's copy of dest at offset, with the last step.
  void deliver(int member, void *dest, std::size_t offset, const void *source, std::size_t bytes) {
    if (bytes == 0) return;
    const int pe = team_->worldPe(member);
    void *to = runtime::peerAddress(state_, static_cast<std::byte *>(dest) + offset, bytes, pe, call_.call, "dest");
    deliveries_.push_back({pe, to, source, bytes});
  }

  // bytes of member's copy of source, at source + offset, into local memory at dest.
  void pull(void *dest, const void *source, std::size_t offset, std::size_t bytes, int member) {
    if (bytes == 0) return;
    get(dest, static_cast<const std::byte *>(source) + offset, bytes, team_->worldPe(member), true, call_.call);
  }

 private:
  RuntimeState &state_;
  CollectiveCall call_;
  TeamInfo *team_ = nullptr;
  int index_ = 0;
  std::optional<Error> local_error_;
  std::vector<runtime::HostChannel::Delivery> deliveries_;
  std::uint64_t reading_ = 0;  // the step whose deliveries partOf reads
};

void checkRoot(TeamCollective &collective, int root) {
  collective.check([&] {
    if (root < 0 || root >= collective.size()) {
      throw Error(ErrorCode::InvalidParam, std::string(collective.call()) + ": PE_root " + std::to_string(root) +
                                               " is not a PE of the team (0.." +
                                               std::to_string(collective.size() - 1) + ")");
    }
  });
}

std::size_t stridedExtent(std::size_t count, std::ptrdiff_t stride, std::size_t elem_bytes) {
  return count == 0 ? 0 : ((count - 1) * static_cast<std::size_t>(stride) + 1) * elem_bytes;
}

template <class T>
struct IsComplex : std::false_type {};
template <class T>
struct IsComplex<std::complex<T>> : std::true_type {};

// a op b, wrapping for signed integers as for unsigned ones.
template <class T>
T combine(ReduceOp op, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    switch (op) {
      case ReduceOp::And: return static_cast<T>(a & b);
      case ReduceOp::Or: return static_cast<T>(a | b);
      case ReduceOp::Xor: return static_cast<T>(a ^ b);
      case ReduceOp::Sum: return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
      case ReduceOp::Prod: return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
      default: break;
    }
  } else {
    if (op == ReduceOp::Sum) return a + b;
    if (op == ReduceOp::Prod) return a * b;
  }
  if constexpr (!IsComplex<T>::value) {
    if (op == ReduceOp::Max) return a < b ? b : a;
    if (op == ReduceOp::Min) return b < a ? b : a;
  }
  return a;  // not reached: reduce() refuses an operation its type does not have
}

// result[k] = combine(Op, a[k], b[k]) for k < n (result may be a, element for element): the
// operation a constant, so that the loop is a SIMD loop (host/CMakeLists.txt: -fopenmp-simd)
// rather than a switch per element.
template <ReduceOp Op, class T>
void combineEach(T *result, const T *a, const T *b, std::size_t n) {
#pragma omp simd
  for (std::size_t k = 0; k < n; ++k) result[k] = combine(Op, a[k], b[k]);
}

template <class T>
void combineInto(ReduceOp op, T *result, const T *a, const T *b, std::size_t n) {
  switch (op) {
    case ReduceOp::And: return combineEach<ReduceOp::And>(result, a, b, n);
    case ReduceOp::Or: return combineEach<ReduceOp::Or>(result, a, b, n);
    case ReduceOp::Xor: return combineEach<ReduceOp::Xor>(result, a, b, n);
    case ReduceOp::Sum: return combineEach<ReduceOp::Sum>(result, a, b, n);
    case ReduceOp::Prod: return combineEach<ReduceOp::Prod>(result, a, b, n);
    case ReduceOp::Max: return combineEach<ReduceOp::Max>(result, a, b, n);
    case ReduceOp::Min: return combineEach<ReduceOp::Min>(result, a, b, n);
  }
}

// result[k] = combine(op, result[k], values[k]) for k < n.
template <class T>
void combineInto(ReduceOp op, T *result, const T *values, std::size_t n) {
  combineInto(op, result, result, values, n);
}

// Where a reduction may combine its result straight into dest: the host's view of dest, where it
// has one and dest is apart from the source (OpenSHMEM allows the same array or apart). Nobody
// else reads this PE's dest (a broadcast's and an fcollect's steps write theirs alike); an
// in-place reduction (null) combines into scratch, then puts the whole, since this PE's own
// part, and on its node the others' reads of it, come before its result may land there.
template <class T>
T *resultInPlace(RuntimeState &state, T *dest, const T *source, std::size_t bytes) {
  if (bytes == 0 || overlap(dest, source, bytes)) return nullptr;
  return static_cast<T *>(state.backend->host_view(state, dest, bytes));
}

template <class T>
bool hasOperation(ReduceOp op) {
  switch (op) {
    case ReduceOp::And:
    case ReduceOp::Or:
    case ReduceOp::Xor: return std::is_integral_v<T>;
    case ReduceOp::Max:
    case ReduceOp::Min: return !IsComplex<T>::value;
    case ReduceOp::Sum:
    case ReduceOp::Prod: return true;
  }
  return false;
}

}  // namespace

void broadcast(int team, void *dest, const void *source, std::size_t bytes, int root, bool skip_root,
               const CollectiveCall &call) {
  TeamCollective collective(team, call);
  checkRoot(collective, root);
  collective.checkSymmetric(dest, bytes, "dest");
  collective.checkSymmetric(source, bytes, "source");
  if (collective.oneStep(bytes)) {
    const bool carrier = collective.me() == root;
    collective.agree(bytes, static_cast<std::uint64_t>(root), 0, true,
                     carrier ? collective.local(source, bytes) : std::span<const std::byte>{});
    if (bytes != 0 && !(carrier && (skip_root || dest == source))) std::memcpy(dest, collective.carried(root), bytes);
    return;
  }
  if (collective.byInboxSteps(bytes)) {  // the root's bytes a step a part, the first with the agreement
    const bool carrier = collective.me() == root;
    const std::byte *from_root = carrier && !collective.failedHere() ? collective.local(source, bytes).data() : nullptr;
    collective.stepsIntoDests(from_root, bytes, static_cast<std::uint64_t>(root), 0, dest, 0, [&](std::size_t n) {
      if (!carrier) std::memcpy(dest, collective.takeRead(root), n);
    });
    if (carrier && !skip_root && dest != source) std::memcpy(dest, source, bytes);
    return;
  }
  collective.agree(bytes, static_cast<std::uint64_t>(root), 0, true);
  collective.moveThenSync([&] {
    if (collective.me() == root) {
      for (int member = 0; member < collective.size(); ++member) {
        if (member != root && collective.delivered(member, bytes)) collective.deliver(member, dest, 0, source, bytes);
      }
      if (skip_root || dest == source) return;
    } else if (collective.delivered(root, bytes)) {
      return;  // the root's last step brings it
    }
    collective.pull(dest, source, 0, bytes, root);
  });
}

void collect(int team, void *dest, const void *source, std::size_t bytes, bool fixed, const CollectiveCall &call) {
  TeamCollective collective(team, call);
  collective.checkSymmetric(source, bytes, "source");
  if (fixed) collective.checkSymmetric(dest, bytes * collective.size(), "dest");
  if (fixed && collective.oneStep(bytes)) {  // fcollect: every member's block is `bytes`
    collective.agree(bytes, 0, 0, true, collective.local(source, bytes));
    for (int member = 0; bytes != 0 && member < collective.size(); ++member)
      std::memcpy(static_cast<std::byte *>(dest) + member * bytes, collective.carried(member), bytes);
    return;
  }
  if (fixed && collective.byInboxSteps(bytes)) {  // every member's block a step a part
    const std::byte *mine = collective.failedHere() ? nullptr : collective.local(source, bytes).data();
    const std::size_t at = collective.me() * bytes;
    collective.stepsIntoDests(mine, bytes, 0, 0, dest, at, [&](std::size_t n) {
      for (int member = 0; member < collective.size(); ++member) {
        if (member != collective.me()) std::memcpy(static_cast<std::byte *>(dest) + member * bytes, collective.takeRead(member), n);
      }
      std::memcpy(static_cast<std::byte *>(dest) + at, mine, bytes);
    });
    return;
  }
  auto all = collective.agree(bytes, 0, 0, fixed);
  collective.moveThenSync([&] {
    std::size_t total = 0;
    for (const CollectiveRecord &r : all) total += r.arg0;
    if (!fixed && total != 0) {
      runtime::peerAddress(collective.state(), dest, total, collective.state().my_pe, call.call, "dest");
    }
    std::size_t offset = 0, mine = 0;
    for (int member = 0; member < collective.size(); ++member) {
      if (member == collective.me()) mine = offset;
      if (member == collective.me() || !collective.delivered(member, all[member].arg0)) {
        collective.pull(static_cast<std::byte *>(dest) + offset, source, 0, all[member].arg0, member);
      }
      offset += all[member].arg0;
    }
    for (int member = 0; member < collective.size(); ++member) {
      if (member != collective.me() && collective.delivered(member, bytes)) {
        collective.deliver(member, dest, mine, source, bytes);
      }
    }
  });
}

void alltoall(int team, void *dest, const void *source, std::size_t bytes, const CollectiveCall &call) {
  TeamCollective collective(team, call);
  collective.checkSymmetric(dest, bytes * collective.size(), "dest");
  collective.checkSymmetric(source, bytes * collective.size(), "source");
  if (collective.oneStep(bytes * collective.size())) {  // each member carries its whole source
    collective.agree(bytes, 0, 0, true, collective.local(source, bytes * collective.size()));
    for (int member = 0; bytes != 0 && member < collective.size(); ++member)
      std::memcpy(static_cast<std::byte *>(dest) + member * bytes, collective.carried(member) + collective.me() * bytes,
                  bytes);
    return;
  }
  if (collective.oneStepThroughInboxes(bytes, bytes * collective.size())) {  // block m to member m's inbox
    const int me = collective.me();
    for (int member = 0; !collective.failedHere() && member < collective.size(); ++member) {
      if (member != me) {
        collective.toInbox(member, collective.local(source, bytes * collective.size()).data() + member * bytes,
                                        bytes);
      }
    }
    collective.agree(bytes, 0, 0, true);
    const std::vector<const std::byte *> from =
        collective.takeDelivered(static_cast<const std::byte *>(source) + me * bytes, bytes);
    for (int member = 0; member < collective.size(); ++member)
      std::memcpy(static_cast<std::byte *>(dest) + member * bytes, from[member], bytes);
    return;
  }
  collective.agree(bytes, 0, 0, true);
  collective.moveThenSync([&] {
    const int me = collective.me();
    for (int member = 0; member < collective.size(); ++member) {
      if (member != me && collective.delivered(member, bytes)) {
        collective.deliver(member, dest, me * bytes, static_cast<const std::byte *>(source) + member * bytes, bytes);
      } else {
        collective.pull(static_cast<std::byte *>(dest) + member * bytes, source, me * bytes, bytes, member);
      }
    }
  });
}

void alltoalls(int team, void *dest, const void *source, std::ptrdiff_t dst, std::ptrdiff_t sst, std::size_t nelems,
               std::size_t elem_bytes, const CollectiveCall &call) {
  TeamCollective collective(team, call);
  collective.check([&] {
    if (dst < 1 || sst < 1) {
      throw Error(ErrorCode::InvalidParam, std::string(call.call) + ": strides dst " + std::to_string(dst) +
                                               " and sst " + std::to_string(sst) + " must be at least 1");
    }
  });
  const std::size_t count = nelems * collective.size();
  if (dst >= 1 && sst >= 1) {
    collective.checkSymmetric(dest, stridedExtent(count, dst, elem_bytes), "dest");
    collective.checkSymmetric(source, stridedExtent(count, sst, elem_bytes), "source");
  }
  collective.agree(nelems * elem_bytes, static_cast<std::uint64_t>(dst), static_cast<std::uint64_t>(sst), true);
  collective.moveThenSync([&] {
    for (int member = 0; member < collective.size(); ++member) {
      for (std::size_t k = 0; k < nelems; ++k) {
        const std::size_t to = (member * nelems + k) * dst * elem_bytes;
        const std::size_t from = (collective.me() * nelems + k) * sst * elem_bytes;
        collective.pull(static_cast<std::byte *>(dest) + to, source, from, elem_bytes, member);
      }
    }
  });
}

// A reduction as a reduce-scatter then an all-gather (TeamCollective::scatterGather says where):
// member b owns block b of the elements. Step k carries, to each other member, part k of that
// member's block of this PE's source (to its inbox, an inbox a part), and part k - 2 of this
// PE's block of the result (straight into its dest); while step k + 1 travels, this PE combines
// part k of its block from every member's, in PE order as every path, into dest. After the last step
// every member's block has landed in dest. In place (dest == source) too: a member reads of its
// source only what it sends and its own block, and the others' results land in a block only
// after it sent that part (their step k + 1 follows its step k).
template <class T>
void reduceScatterGather(TeamCollective &collective, T *dest, const T *source, std::size_t nreduce, ReduceOp op) {
  static_assert(runtime::kInboxBytes % sizeof(T) == 0, "a part holds whole elements");
  const int n = collective.size(), me = collective.me();
  const std::size_t bytes = nreduce * sizeof(T), per_part = runtime::kInboxBytes / sizeof(T);
  // Block b: elements [start(b), start(b + 1)); the first nreduce % n blocks one element longer.
  const auto start = [&](int b) {
    return nreduce / n * b + std::min<std::size_t>(static_cast<std::size_t>(b), nreduce % n);
  };
  struct Part {
    std::size_t first, count;
  };
  const auto part = [&](int b, std::size_t k) {
    const std::size_t first = std::min(start(b) + k * per_part, start(b + 1));
    return Part{first, std::min(per_part, start(b + 1) - first)};
  };
  const std::size_t parts = (start(1) - start(0) + per_part - 1) / per_part;  // the first block is the longest
  RuntimeState &state = collective.state();
  const T *mine = collective.failedHere()
                      ? nullptr
                      : reinterpret_cast<const T *>(collective.local(source, bytes).data());
  T *out = collective.failedHere() ? nullptr : static_cast<T *>(state.backend->host_view(state, dest, bytes));
  collective.sendAheadSteps(parts + 2, bytes, static_cast<std::uint64_t>(op), sizeof(T), [&](std::size_t k) {
    for (int member = 0; member < n; ++member) {
      if (member == me) continue;
      if (k < parts) {
        const Part p = part(member, k);
        if (p.count != 0) collective.toInbox(member, mine + p.first, p.count * sizeof(T));
      }
      if (k >= 2) {
        const Part p = part(me, k - 2);
        if (p.count != 0) collective.deliver(member, dest, p.first * sizeof(T), out + p.first, p.count * sizeof(T));
      }
    }
  }, [&](std::size_t k) {
    const Part p = part(me, k);
    if (k >= parts || p.count == 0) return;
    const T *own = mine + p.first;
    if (out == mine && me >= 2) {  // in place: the first members' sum lands on this PE's part before it is read
      T *copy = Scratch::take<T>(Scratch::Incoming, p.count);
      std::memcpy(copy, own, p.count * sizeof(T));
      own = copy;
    }
    const auto from = [&](int member) {
      return member == me ? own : reinterpret_cast<const T *>(collective.takeRead(member));
    };
    combineInto(op, out + p.first, from(0), from(1), p.count);
    for (int member = 2; member < n; ++member) combineInto(op, out + p.first, from(member), p.count);
  });
  Scratch::trim();
}

template <class T>
void reduce(int team, T *dest, const T *source, std::size_t nreduce, ReduceOp op, const CollectiveCall &call) {
  TeamCollective collective(team, call);
  const std::size_t bytes = nreduce * sizeof(T);
  collective.check([&] {
    if (!hasOperation<T>(op)) {
      throw Error(ErrorCode::InvalidParam, std::string(call.call) + ": the " + runtime::reduceOpName(static_cast<int>(op)) +
                                               " reduction is not defined on its type");
    }
  });
  collective.checkSymmetric(dest, bytes, "dest");
  collective.checkSymmetric(source, bytes, "source");
  if (collective.oneStep(bytes)) {  // every member carries its source; each combines them in PE order
    collective.agree(bytes, static_cast<std::uint64_t>(op), sizeof(T), true, collective.local(source, bytes));
    if (nreduce == 0) return;
    std::vector<T> result(nreduce), values(nreduce);
    std::memcpy(result.data(), collective.carried(0), bytes);
    for (int member = 1; member < collective.size(); ++member) {
      std::memcpy(values.data(), collective.carried(member), bytes);
      combineInto(op, result.data(), values.data(), nreduce);
    }
    std::memcpy(dest, result.data(), bytes);
    return;
  }
  if (collective.scatterGather(bytes, dest, source)) {
    reduceScatterGather(collective, dest, source, nreduce, op);
    return;
  }
  if (collective.byInboxSteps(bytes, true)) {  // an inbox of every source a step, the first with the agreement
    static_assert(runtime::kInboxBytes % sizeof(T) == 0, "a step holds whole elements");
    // This PE's source, read in place (none where a local check failed: the agreement then fails
    // on every member, before anything is read or sent); so are those of this node's members.
    const std::byte *mine = collective.failedHere() ? nullptr : collective.local(source, bytes).data();
    // Each step's part straight into dest where it can go there (resultInPlace).
    T *view = resultInPlace(collective.state(), dest, source, bytes);
    T *result = view != nullptr ? view : Scratch::take<T>(Scratch::Result, nreduce);
    collective.inboxSteps(mine, bytes, static_cast<std::uint64_t>(op), sizeof(T), [&](std::size_t first, std::size_t n) {
      auto part = [&](int member) {
        return reinterpret_cast<const T *>(collective.partOf(member, source, bytes, first, mine));
      };
      T *into = result + first / sizeof(T);
      combineInto(op, into, part(0), part(1), n / sizeof(T));  // in PE order, as every path
      for (int member = 2; member < collective.size(); ++member) combineInto(op, into, part(member), n / sizeof(T));
    });
    if (view == nullptr) {
      put(dest, result, bytes, collective.state().my_pe, true, call.call);
      Scratch::trim();
    }
    return;
  }
  collective.agree(bytes, static_cast<std::uint64_t>(op), sizeof(T), true);
  // The result straight into dest where it can go there (resultInPlace); else into scratch, then put.
  T *view = resultInPlace(collective.state(), dest, source, bytes);
  T *result = view != nullptr ? view : Scratch::take<T>(Scratch::Result, nreduce);
  // Across nodes, a call that fits the inboxes sends every member's source to the members of
  // other nodes with a step of its own (a one-way message) instead of their pulls (a round trip
  // each); a last step then only keeps this PE's source for the members of its node.
  const bool inboxes = collective.throughInboxes(bytes);
  std::vector<const std::byte *> from;
  if (inboxes) from = collective.deliverToInboxes(source, bytes);
  collective.moveThenSync([&] {
    if (nreduce == 0) return;
    RuntimeState &state = collective.state();
    for (int member = 0; member < collective.size(); ++member) {
      // The peer's copy: delivered to its inbox here, read in place where the host has a view of
      // it, else pulled here first.
      const T *values = nullptr;
      if (inboxes && from[member] != nullptr) {
        values = reinterpret_cast<const T *>(from[member]);
      } else {
        const std::byte *remote =
            runtime::peerAddress(state, source, bytes, collective.team().worldPe(member), call.call, "source");
        values = static_cast<const T *>(state.backend->host_view(state, remote, bytes));
      }
      if (values == nullptr) {
        T *incoming = Scratch::take<T>(Scratch::Incoming, nreduce);
        collective.pull(incoming, source, 0, bytes, member);
        values = incoming;
      }
      if (member == 0) {
        std::memcpy(result, values, bytes);
        continue;
      }
      combineInto(op, result, values, nreduce);
    }
  }, !inboxes || collective.sharesANode());
  if (nreduce != 0 && view == nullptr) put(dest, result, bytes, collective.state().my_pe, true, call.call);
  Scratch::trim();
}

#define TDIST_INSTANTIATE_REDUCE(T) \
  template void reduce<T>(int, T *, const T *, std::size_t, ReduceOp, const CollectiveCall &);
TDIST_INSTANTIATE_REDUCE(char)
TDIST_INSTANTIATE_REDUCE(signed char)
TDIST_INSTANTIATE_REDUCE(unsigned char)
TDIST_INSTANTIATE_REDUCE(short)
TDIST_INSTANTIATE_REDUCE(unsigned short)
TDIST_INSTANTIATE_REDUCE(int)
TDIST_INSTANTIATE_REDUCE(unsigned int)
TDIST_INSTANTIATE_REDUCE(long)
TDIST_INSTANTIATE_REDUCE(unsigned long)
TDIST_INSTANTIATE_REDUCE(long long)
TDIST_INSTANTIATE_REDUCE(unsigned long long)
TDIST_INSTANTIATE_REDUCE(float)
TDIST_INSTANTIATE_REDUCE(double)
TDIST_INSTANTIATE_REDUCE(long double)
TDIST_INSTANTIATE_REDUCE(std::complex<float>)
TDIST_INSTANTIATE_REDUCE(std::complex<double>)
#undef TDIST_INSTANTIATE_REDUCE

}  // namespace tdist::host

namespace tdist::shmem {

static_assert(static_cast<int>(ReduceOp::And) == static_cast<int>(runtime::ReduceOp::And) &&
                  static_cast<int>(ReduceOp::Or) == static_cast<int>(runtime::ReduceOp::Or) &&
                  static_cast<int>(ReduceOp::Xor) == static_cast<int>(runtime::ReduceOp::Xor) &&
                  static_cast<int>(ReduceOp::Max) == static_cast<int>(runtime::ReduceOp::Max) &&
                  static_cast<int>(ReduceOp::Min) == static_cast<int>(runtime::ReduceOp::Min) &&
                  static_cast<int>(ReduceOp::Sum) == static_cast<int>(runtime::ReduceOp::Sum) &&
                  static_cast<int>(ReduceOp::Prod) == static_cast<int>(runtime::ReduceOp::Prod),
              "tdist::shmem::ReduceOp names the runtime's operations");

template <class T>
void reduce(Team team, T *dest, const T *source, std::size_t nreduce, ReduceOp op) {
  constexpr const char *kCall = "tdist::shmem::reduce";
  if (static_cast<int>(op) < static_cast<int>(ReduceOp::And) || static_cast<int>(op) > static_cast<int>(ReduceOp::Prod)) {
    throw Error(ErrorCode::InvalidParam, std::string(kCall) + ": operation " + std::to_string(static_cast<int>(op)) +
                                             " is none of ReduceOp's");
  }
  host::reduce(team, dest, source, nreduce, static_cast<runtime::ReduceOp>(op),
               host::CollectiveCall{kCall, runtime::CollectiveApi::Reduce});
}

#define TDIST_INSTANTIATE_SHMEM_REDUCE(T) \
  template TDIST_EXPORT void reduce<T>(Team, T *, const T *, std::size_t, ReduceOp);
TDIST_INSTANTIATE_SHMEM_REDUCE(std::int32_t)
TDIST_INSTANTIATE_SHMEM_REDUCE(std::int64_t)
TDIST_INSTANTIATE_SHMEM_REDUCE(std::uint32_t)
TDIST_INSTANTIATE_SHMEM_REDUCE(std::uint64_t)
TDIST_INSTANTIATE_SHMEM_REDUCE(float)
TDIST_INSTANTIATE_SHMEM_REDUCE(double)
#undef TDIST_INSTANTIATE_SHMEM_REDUCE

void fcollectmem(Team team, void *dest, const void *source, std::size_t nbytes) {
  host::collect(team, dest, source, nbytes, true,
                host::CollectiveCall{"tdist::shmem::fcollectmem", runtime::CollectiveApi::Fcollectmem});
}

}  // namespace tdist::shmem
