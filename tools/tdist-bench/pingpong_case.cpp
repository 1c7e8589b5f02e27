#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "cases.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"

namespace tdist::bench {
namespace {

namespace shmem = tdist::shmem;

// The flag one PE sets on its partner; monotone (the i-th exchange writes i), so nobody resets it
// and a wait for >= i cannot miss a value.
class PingFlag {
 public:
  explicit PingFlag(PingOp op) : op_(op) {
    counter_ = static_cast<std::int64_t *>(tdist::allocateZeroed(1, 64));
    signal_ = static_cast<std::uint64_t *>(tdist::allocateZeroed(1, 64));
    payload_ = static_cast<std::int64_t *>(tdist::allocateZeroed(1, 64));
  }
  ~PingFlag() {
    tdist::deallocate(payload_);
    tdist::deallocate(signal_);
    tdist::deallocate(counter_);
  }
  PingFlag(const PingFlag &) = delete;
  PingFlag &operator=(const PingFlag &) = delete;

  void send(std::int64_t value, int pe) {
    switch (op_) {
      case PingOp::P: return shmem::p<std::int64_t>(counter_, value, pe);
      case PingOp::Signal: return shmem::signal_op<std::uint64_t>(signal_, value, shmem::SignalOp::Set, pe);
      case PingOp::PutSignal:
        // The payload is the sequence number too: the receiver checks that it landed before the signal.
        return shmem::putmem_signal<std::uint64_t>(payload_, &value, sizeof value, signal_, static_cast<std::uint64_t>(value),
                                                   shmem::SignalOp::Set, pe);
    }
  }
  void await(std::int64_t value) {
    if (op_ == PingOp::P) return shmem::wait_until<std::int64_t>(counter_, shmem::Cmp::GE, value);
    shmem::signal_wait_until<std::uint64_t>(signal_, shmem::Cmp::GE, value);
    if (op_ == PingOp::PutSignal && *payload_ != value) {
      throw std::runtime_error("pingpong put-signal: signal " + std::to_string(value) + " arrived with payload " +
                               std::to_string(*payload_) + ": the data did not land before the signal");
    }
  }

 private:
  PingOp op_;
  std::int64_t *counter_ = nullptr;
  std::uint64_t *signal_ = nullptr;
  std::int64_t *payload_ = nullptr;
};

// count hand-overs of a monotone sequence number: the first PE sends, then waits for it back;
// every other PE waits for it, then passes it on to `to`. Ping-pong and ring differ only in who
// is first and where the number goes.
void relay(PingFlag &flag, std::int64_t &sequence, long count, bool first, int to) {
  for (long i = 0; i < count; ++i) {
    ++sequence;
    if (first) {
      flag.send(sequence, to);
      flag.await(sequence);
    } else {
      flag.await(sequence);
      flag.send(sequence, to);
    }
  }
}

}  // namespace

void runPingPong(const Options &options, Reporter &reporter) {
  const int me = shmem::my_pe(), n = shmem::n_pes();
  if (n < 2) throw std::invalid_argument("pingpong needs at least 2 PEs");
  const int partner = me ^ 1;
  const bool paired = partner < n;
  const bool initiator = paired && me % 2 == 0;
  const long iters = latencyIterations(options);
  const long warmup = warmupIterations(options, iters);
  const int repeats = options.repeats;

  PingFlag flag(options.ping_op);
  auto *gathered = static_cast<double *>(tdist::allocateZeroed(n * repeats, sizeof(double)));
  std::int64_t sequence = 0;
  auto exchange = [&](long count) { relay(flag, sequence, count, initiator, partner); };

  shmem::barrier_all();
  if (paired) exchange(warmup);
  std::vector<double> half_round_trips(repeats);
  long vcsw = 0, ivcsw = 0;
  for (int r = 0; r < repeats; ++r) {
    shmem::barrier_all();
    if (!paired) continue;
    Stopwatch watch;
    watch.start();
    exchange(iters);
    watch.stop();
    half_round_trips[r] = watch.seconds() * 1e6 / static_cast<double>(iters) / 2;
    vcsw += watch.voluntarySwitches();
    ivcsw += watch.involuntarySwitches();
  }

  // Every initiator's samples go to PE 0, which pools them.
  shmem::barrier_all();
  if (initiator && me != 0) {
    shmem::putmem(gathered + me * repeats, half_round_trips.data(), repeats * sizeof(double), 0);
    shmem::quiet();
  }
  shmem::barrier_all();
  if (me == 0) {
    std::vector<double> samples(half_round_trips);
    for (int pe = 2; pe + 1 < n; pe += 2)
      samples.insert(samples.end(), gathered + pe * repeats, gathered + (pe + 1) * repeats);
    double total_iters = static_cast<double>(iters) * repeats;
    reporter.add(Result{.case_name = "pingpong",
                        .variant = std::string("op=") + pingOpName(options.ping_op),
                        .pes = n, .size = 8, .iters = iters, .repeats = repeats,
                        .unit = Unit::Microseconds, .summary = summarize(samples),
                        .vcsw_per_iter = vcsw / total_iters, .ivcsw_per_iter = ivcsw / total_iters});
  }
  tdist::deallocate(gathered);
}

void runRing(const Options &options, Reporter &reporter) {
  const int me = shmem::my_pe(), n = shmem::n_pes();
  if (n < 2) throw std::invalid_argument("ring needs at least 2 PEs");
  const int next = (me + 1) % n;
  const long iters = latencyIterations(options);
  const long warmup = warmupIterations(options, iters);

  PingFlag flag(options.ping_op);
  std::int64_t sequence = 0;
  // Lap i: PE 0 hands i to PE 1, every other PE waits for i and hands it on, PE 0 waits for it
  // to come back around.
  auto laps = [&](long count) { relay(flag, sequence, count, me == 0, next); };

  shmem::barrier_all();
  laps(warmup);
  std::vector<double> hops;
  long vcsw = 0, ivcsw = 0;
  for (int r = 0; r < options.repeats; ++r) {
    shmem::barrier_all();
    Stopwatch watch;
    watch.start();
    laps(iters);
    watch.stop();
    hops.push_back(watch.seconds() * 1e6 / static_cast<double>(iters) / n);
    vcsw += watch.voluntarySwitches();
    ivcsw += watch.involuntarySwitches();
  }
  shmem::barrier_all();
  if (me == 0) {
    double total_iters = static_cast<double>(iters) * options.repeats;
    reporter.add(Result{.case_name = "ring",
                        .variant = std::string("op=") + pingOpName(options.ping_op),
                        .pes = n, .size = 8, .iters = iters, .repeats = options.repeats,
                        .unit = Unit::Microseconds, .summary = summarize(hops),
                        .vcsw_per_iter = vcsw / total_iters, .ivcsw_per_iter = ivcsw / total_iters});
  }
}

}  // namespace tdist::bench
