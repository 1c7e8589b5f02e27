// The hang check's decision across nodes (tools/tdist-run/hang_check.h), with the clock given:
// what node 0 concludes from its own PEs' records and the other nodes' views.
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "tools/tdist-run/hang_check.h"

namespace tdist::launcher {
namespace {

using Clock = HangCheck::Clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

// Node 1 of a job of 2 nodes × 2 PEs, both of its PEs in a wait for `waited`, as its last view
// (up to a second old) said.
NodeHangView nodeOneWaiting(Clock::time_point now, Clock::duration waited) {
  return {.node = 1, .running = 2, .blocked = true, .quiet_since = now - waited,
          .lines = {"PE 2: aclshmem_barrier_all: waiting", "PE 3: aclshmem_barrier_all: waiting"}};
}

// Node 0's PEs computed (in no wait) while node 1's waited for them, then finished and ended:
// their ending is a change, so the job is not stuck for the stall time after it, however long
// node 1's last view says that it has waited (its PEs were released by what just ended). Before,
// node 0 took a node of ended PEs for quiet forever and ended a job that was finishing.
TEST(HangCheckAcrossNodes, PesThatJustEndedAreAChange) {
  WaitBoard board(4);
  HangCheck check(board, 0, 4, 2.0);
  Clock::time_point now = Clock::now();
  const std::vector<NodeHangView> others = {nodeOneWaiting(now, seconds(10))};
  EXPECT_EQ(check.lookAcrossNodes({0, 1}, others, now), std::nullopt) << "node 0's PEs compute";
  now += milliseconds(150);
  EXPECT_EQ(check.lookAcrossNodes({}, others, now), std::nullopt) << "node 0's PEs just ended";
  now += milliseconds(1500);
  EXPECT_EQ(check.lookAcrossNodes({}, others, now), std::nullopt) << "within the stall time of their end";
  // Node 1 still waits, with nothing left to release it: stuck, said after the stall time.
  now += milliseconds(700);
  const std::optional<std::string> stuck = check.lookAcrossNodes({}, others, now);
  ASSERT_NE(stuck, std::nullopt);
  EXPECT_NE(stuck->find("node 0: every PE has ended"), std::string::npos) << *stuck;
  EXPECT_NE(stuck->find("node 1: PE 2: aclshmem_barrier_all: waiting"), std::string::npos) << *stuck;
}

// Every node's PEs in their waits with nothing moving: stuck once the stall time has passed
// since the latest change on any node.
TEST(HangCheckAcrossNodes, StuckWhenNothingMovesOnAnyNode) {
  WaitBoard board(4);
  HangCheck check(board, 0, 4, 2.0);
  Clock::time_point now = Clock::now();
  // Node 0 has no PE of its own left (none running), node 1's have waited a second.
  EXPECT_EQ(check.lookAcrossNodes({}, {nodeOneWaiting(now, seconds(1))}, now), std::nullopt);
  now += milliseconds(1500);
  EXPECT_EQ(check.lookAcrossNodes({}, {nodeOneWaiting(now - milliseconds(1500), seconds(1))}, now), std::nullopt);
  now += milliseconds(1000);
  EXPECT_NE(check.lookAcrossNodes({}, {nodeOneWaiting(now - milliseconds(2500), seconds(1))}, now), std::nullopt);
}

// Another node sends node 0 its view when something changed: its PEs' count or blocked flag, or
// the records of its blocked PEs (a wait ended and another began), and else once a second while
// blocked. Before, only the flags counted: PEs of node 1 passing from wait to wait every 1.5 s
// looked quiet to node 0 for up to a second longer than they were, past the 2 s stall time.
TEST(HangViewSending, ChangesGoAtOnceAndABlockedViewEverySecond) {
  const Clock::time_point t0 = Clock::now();
  const auto at = [&](int ms) { return t0 + milliseconds(ms); };
  const seconds refresh(1);
  NodeHangView view = nodeOneWaiting(t0, seconds(0));
  EXPECT_TRUE(hangViewWorthSending(view, std::nullopt, {}, t0, refresh)) << "the first view";
  std::optional<NodeHangView> sent = view;
  EXPECT_FALSE(hangViewWorthSending(view, sent, t0, at(100), refresh)) << "nothing changed";
  NodeHangView moved = view;
  moved.quiet_since = at(100);  // a wait ended, another began
  EXPECT_TRUE(hangViewWorthSending(moved, sent, t0, at(100), refresh)) << "the blocked PEs' records moved";
  sent = moved;
  EXPECT_FALSE(hangViewWorthSending(moved, sent, at(100), at(900), refresh));
  EXPECT_TRUE(hangViewWorthSending(moved, sent, at(100), at(1100), refresh)) << "a blocked view, a second on";
  NodeHangView running = moved;
  running.blocked = false;
  EXPECT_TRUE(hangViewWorthSending(running, sent, at(1100), at(1200), refresh)) << "no longer blocked";
  sent = running;
  running.quiet_since = at(1300);  // computing PEs: their records are not what node 0 looks at
  EXPECT_FALSE(hangViewWorthSending(running, sent, at(1200), at(1300), refresh));
  EXPECT_FALSE(hangViewWorthSending(running, sent, at(1200), at(5000), refresh));
  running.running = 1;
  EXPECT_TRUE(hangViewWorthSending(running, sent, at(1200), at(5000), refresh)) << "a PE ended";
}

}  // namespace
}  // namespace tdist::launcher
