// node_link.h - one job across hosts: the link between the tdist-runs of its nodes, one per host.
//
//   tdist-run -n 2 --nnodes 2 --node-rank 0 --rdzv 10.0.0.1:29400 -- prog   # on host A
//   tdist-run -n 2 --nnodes 2 --node-rank 1 --rdzv 10.0.0.1:29400 -- prog   # on host B
//
// Node 0's tdist-run listens on the --rdzv address. Every other node's connects to it, retrying
// until the join deadline (--join-timeout), and says who it is: a proof that it holds the job
// secret, its node rank, --nnodes and -n. Node 0 refuses a node whose secret, --nnodes or -n is not its own, or whose
// rank has joined already, and the job then starts on no node: every tdist-run says why and exits
// non-zero. Once every node has joined, node 0 sends each the job's facts, the bootstrap store's
// address (node 0's PE 0 serves it on the --rdzv host) and the job id, and every tdist-run starts
// its PEs.
//
// The links stay open for the job's life, a star around node 0, and end it as one job:
// - a node whose job ends early (a PE failed, its deadline passed, it was asked to stop) says why;
//   node 0 ends its own PEs and passes the word on, and every node ends its PEs naming the node
//   and the reason;
// - a link that closes without a word (a tdist-run killed, a host gone) ends the job on the nodes
//   that are left; TCP keepalive notices a host that stopped answering within about 15 s;
// - a node whose PEs all exited 0 says so (done) and waits for node 0's word that every node's did
//   (finished); then every tdist-run exits 0. A node that finishes first never makes the others
//   fail, and none exits 0 while the job may still fail elsewhere;
// - for the hang check (hang_check.h), the other nodes send node 0 what their PEs wait for, and
//   node 0 decides for the job.
//
// Messages are frames: a 4-byte big-endian length of the rest, a type byte, then the fields in
// order: numbers as 4- or 8-byte big-endian integers, texts as a 4-byte length and the bytes.
//
//   challenge 0 -> node   "tdist-run node link 2", node 0's nonce (16 random bytes), first thing
//   hello     node -> 0   "tdist-run node link 2", the node's nonce, its proof, node rank,
//                         --nnodes, -n
//   refused   0 -> node   exit status, 1 when that node is the reason (else 0), why: the job does
//                         not start
//   start     0 -> node   TDIST_IP_PORT, TDIST_JOB_ID, node 0's proof
//   ended     either way  the node where the job ended, its exit status, why
//   done      node -> 0   every PE of the node exited 0
//   finished  0 -> node   every PE of every node exited 0
//   waits     node -> 0   PEs running, 1 when each is in a published wait (else 0), how many ms
//                         nothing has moved, the count of lines, each PE's wait
//
// The secret never crosses the link (link_proof.h): the node's proof is HMAC-SHA256 keyed by the
// secret over both nonces and what its hello says, node 0's over both nonces and what its start
// says, each compared in constant time. A node takes no start without node 0's proof. Node 0 drops
// a connection whose first frame is no hello without a word: it is not a tdist-run.
#pragma once

#include <optional>
#include <poll.h>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "fd_io.h"
#include "hang_check.h"
#include "options.h"
#include "signal_inbox.h"

namespace tdist::launcher {

// What node 0 tells every node before the PEs start.
struct JobFacts {
  std::string ip_port;  // TDIST_IP_PORT: the bootstrap store, served by node 0's PE 0
  std::string job_id;   // TDIST_JOB_ID
};

// The job did not start: a node did not join in time or was refused, or a stop request came
// first. Nothing was started; main reports the message and exits with the status.
class JobNotStarted : public std::runtime_error {
 public:
  JobNotStarted(int exit_status, const std::string &message) : std::runtime_error(message), exit_status_(exit_status) {}
  int exitStatus() const { return exit_status_; }

 private:
  int exit_status_;
};

// What the link tells the monitor while the job runs.
struct LinkEvent {
  enum class Kind {
    Ended,  // the job ended early on node `node`, with exit_status, for `reason`
    Lost,   // the link to node `node` closed without a word; `reason` says where and how
  };
  Kind kind;
  int node;
  int exit_status = 0;
  std::string reason;
};

class NodeLink {
 public:
  using Clock = std::chrono::steady_clock;

  // Node 0 binds the --rdzv address here, so that a taken port is reported before anything
  // else is done; throws UsageError when it cannot. The join deadline starts now.
  explicit NodeLink(const Options &options);
  ~NodeLink();
  NodeLink(const NodeLink &) = delete;
  NodeLink &operator=(const NodeLink &) = delete;

  // Node 0: waits for every other node to join and sends them facts, which it returns. Another
  // node: joins node 0 and returns the facts it sent. Throws JobNotStarted (node 0 first tells
  // the nodes that joined).
  JobFacts join(const JobFacts &facts, SignalInbox &signals);

  int node() const { return node_; }

  // While the job runs, in the monitor's poll().
  void addPollFds(std::vector<pollfd> &fds) const;
  // Reads and writes what poll() reported ready, and handles every whole message read, those
  // that came with node 0's start included: call it on every turn.
  std::vector<LinkEvent> service(const std::vector<pollfd> &fds, Clock::time_point now);
  // Messages already read and not yet handled: the monitor's poll() must not wait.
  bool hasUnreadFrames() const;

  // This node's job ends early, for reason, as node origin decided (this node, or the node whose
  // word ends it here): node 0 tells every other node but origin; another node tells node 0 when
  // the end is its own.
  void announceEnd(int origin, int exit_status, const std::string &reason);
  // Every PE of this node exited 0.
  void announceDone();
  // Every node's PEs exited 0: node 0 knows it from their word, the others from node 0's.
  bool finished() const { return finished_; }
  // Whom this node's monitor still waits for once its PEs are done: "nodes 1, 2"; "node 0" on
  // the other nodes, whose word stands for every node's.
  std::string awaitedNodes() const;

  // The hang check's views. Another node sends its own when it changes, and every second while
  // its PEs are blocked, so that the lines node 0 prints stay current; node 0 keeps the latest
  // of each node, in node order (a node that has not sent one yet counts as running).
  void sendHangView(const NodeHangView &view, Clock::time_point now);
  std::vector<NodeHangView> hangViews() const;

  // Writes what is still queued and closes the links, after the other ends closed theirs or a
  // short wait: a last word sent just before is not lost to a reset.
  void close();

 private:
  struct Peer;

  JobFacts gather(const JobFacts &facts, SignalInbox &signals);
  JobFacts joinNodeZero(SignalInbox &signals);
  void connectToNodeZero(SignalInbox &signals);
  [[noreturn]] void refuseJob(int exit_status, const std::string &reason, const Peer *culprit);
  void checkHello(Peer &peer, const std::string &body);
  void maybeFinish();
  Peer *peerOf(int fd);
  void send(Peer &peer, const std::string &frame);
  void flush(Peer &peer);
  void flushAll(Clock::time_point deadline);
  std::string joinTimeoutText() const;

  const Options &options_;
  int node_;
  Clock::time_point join_deadline_;
  UniqueFd listener_;        // node 0, until every node has joined
  std::vector<Peer> peers_;  // node 0: the other nodes; elsewhere: node 0
  bool local_done_ = false;
  bool ended_ = false;
  bool finished_ = false;
  // Another node's last view sent, and when.
  std::optional<NodeHangView> sent_view_;
  Clock::time_point sent_at_;
};

}  // namespace tdist::launcher
