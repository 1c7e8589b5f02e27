// The one printer of a wait: a host wait, a device wait and a blocking call without a value, in
// the deadline diagnostic and on a line of tdist-run's hang check, as the launcher and the tests
// of every backend read them; and the board's record carries a description whole.
#include <gtest/gtest.h>

#include <string>

#include "common/wait_board.h"
#include "common/wait_format.h"

namespace tdist {
namespace {

WaitDescription waitOf(int pe, int owner_pe, const char *call, std::int32_t cmp, std::int64_t expected,
                       std::int64_t observed) {
  WaitDescription wait;
  wait.pe = pe;
  wait.owner_pe = owner_pe;
  wait.expected = expected;
  wait.observed = observed;
  copyWaitText(wait.call, call);
  copyWaitText(wait.predicate, waitPredicateName(cmp));
  return wait;
}

// A host wait names its word's place itself; this one is the second slot of two.
WaitDescription hostWait() {
  WaitDescription wait = waitOf(1, 0, "aclshmem_signal_wait_until", 3, 5, 3);
  wait.slot = 1;
  wait.slots = 2;
  copyWaitText(wait.where, "symmetric offset 0x240 of PE 0");
  return wait;
}

// A device wait gives the symmetric offset and its place in the grid.
WaitDescription deviceWait() {
  WaitDescription wait = waitOf(0, 1, "tdist::device::signal_wait_until", 0, 1, 0);
  wait.on_device = 1;
  wait.offset = 0x40;
  wait.block[0] = 2;
  wait.thread[0] = 31;
  return wait;
}

std::string deadline(const WaitDescription &wait, double seconds) {
  char text[512];
  wait_format::deadline(wait, seconds, text, sizeof text);
  return text;
}

std::string boardLine(const WaitDescription &wait, double seconds) {
  char text[512];
  wait_format::boardLine(wait, seconds, text, sizeof text);
  return text;
}

TEST(WaitFormat, PredicatesAreNamedAsShmemCmp) {
  const char *names[] = {"EQ", "NE", "GT", "GE", "LT", "LE"};
  for (int cmp = 0; cmp < 6; ++cmp) EXPECT_STREQ(waitPredicateName(cmp), names[cmp]);
  EXPECT_STREQ(waitPredicateName(6), "?");
  EXPECT_STREQ(waitPredicateName(-1), "?");
}

TEST(WaitFormat, AHostWaitPastItsDeadline) {
  EXPECT_EQ(deadline(hostWait(), 1.0),
            "PE 1: aclshmem_signal_wait_until: wait passed its deadline of 1.000 s: value at symmetric offset "
            "0x240 of PE 0 (slot 1 of 2), waiting for GE 5, observed 3");
}

TEST(WaitFormat, ADeviceWaitPastItsDeadlineNamesItsBlockAndThreadLast) {
  EXPECT_EQ(deadline(deviceWait(), 30.0),
            "PE 0: tdist::device::signal_wait_until: wait passed its deadline of 30.000 s: value at symmetric "
            "offset 0x40 of PE 1, waiting for EQ 1, observed 0, block (2,0,0) thread (31,0,0)");
}

TEST(WaitFormat, AValueThatCouldNotBeReadSaysSo) {
  WaitDescription wait = deviceWait();
  wait.on_device = 0;
  wait.observed_unreadable = 1;
  EXPECT_EQ(deadline(wait, 2.0),
            "PE 0: tdist::device::signal_wait_until: wait passed its deadline of 2.000 s: value at symmetric "
            "offset 0x40 of PE 1, waiting for EQ 1, observed (unreadable)");
}

TEST(WaitFormat, HangCheckLinesPlaceTheGridWithTheWord) {
  EXPECT_EQ(boardLine(hostWait(), 2.04),
            "PE 1: aclshmem_signal_wait_until: waiting for GE 5 at symmetric offset 0x240 of PE 0 (slot 1 of 2), "
            "observed 3, for 2.0 s");
  EXPECT_EQ(boardLine(deviceWait(), 2.5),
            "PE 0: tdist::device::signal_wait_until: waiting for EQ 1 at symmetric offset 0x40 of PE 1, "
            "block (2,0,0) thread (31,0,0), observed 0, for 2.5 s");
}

TEST(WaitFormat, ABlockingCallWithoutAValueSaysWhatItWaitsFor) {
  WaitDescription wait;
  wait.pe = 3;
  copyWaitText(wait.call, "finalize");
  copyWaitText(wait.where, "every PE at the bootstrap store's barrier");
  EXPECT_EQ(boardLine(wait, 4.0), "PE 3: finalize: waiting for every PE at the bootstrap store's barrier, for 4.0 s");
}

TEST(WaitFormat, TextLongerThanItsFieldIsCutAndTerminated) {
  WaitDescription wait;
  const std::string longer(200, 'x');
  copyWaitText(wait.call, longer.c_str());
  EXPECT_EQ(std::string(wait.call), std::string(sizeof wait.call - 1, 'x'));
}

TEST(WaitBoard, ARecordCarriesTheDescriptionAndTheLatestObservedValue) {
  wait_board::Record record{};
  wait_board::Snapshot seen;
  ASSERT_TRUE(wait_board::read(record, seen));
  EXPECT_FALSE(seen.waiting);
  wait_board::publish(record, hostWait(), 1234);
  ASSERT_TRUE(wait_board::read(record, seen));
  const std::uint64_t published = seen.sequence;
  EXPECT_TRUE(seen.waiting);
  EXPECT_EQ(seen.since_ns, 1234);
  EXPECT_EQ(boardLine(seen.wait, 1.0), boardLine(hostWait(), 1.0));
  wait_board::refresh(record, 4);
  ASSERT_TRUE(wait_board::read(record, seen));
  EXPECT_EQ(seen.sequence, published);  // the same wait: only the value moved
  EXPECT_EQ(seen.wait.observed, 4);
  wait_board::clear(record);
  ASSERT_TRUE(wait_board::read(record, seen));
  EXPECT_FALSE(seen.waiting);
  EXPECT_NE(seen.sequence, published);
}

}  // namespace
}  // namespace tdist
