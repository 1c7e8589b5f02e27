// The host channel's pushes to PEs of another node, through a link that records them: a push that
// fails half way leaves none of its writes to go with the next push; and through a link that
// writes into the other PE's segment: what three steps in a row deliver to an inbox is all there.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "runtime/host_channel.h"
#include "tdist/error.h"

namespace tdist::runtime {
namespace {

// Keeps what a push writes to each PE until its store, as the network's link does, and records
// each message that a store ends.
class RecordingLink final : public ChannelLink {
 public:
  explicit RecordingLink(int n_pes) : building_(n_pes) {}

  void put(int pe, std::size_t offset, const void *, std::size_t bytes) override {
    building_[pe].push_back("put " + std::to_string(offset) + " " + std::to_string(bytes));
  }
  void putMemory(int pe, void *, const void *, std::size_t bytes) override {
    if (refuse_memory) throw Error(ErrorCode::Internal, "the link refused " + std::to_string(bytes) + " bytes");
    building_[pe].push_back("memory " + std::to_string(bytes));
  }
  void store(int pe, std::size_t offset, std::int64_t) override {
    building_[pe].push_back("store " + std::to_string(offset));
    messages.push_back(building_[pe]);
    building_[pe].clear();
  }
  void settle() override {}
  bool flush(long) override { return true; }
  void discard() override {
    for (auto &writes : building_) writes.clear();
  }

  bool refuse_memory = false;
  std::vector<std::vector<std::string>> messages;

 private:
  std::vector<std::vector<std::string>> building_;
};

TEST(HostChannel, APushThatFailsLeavesNothingToTheNextPush) {
  // PE 0 of 2, PE 1 on another node (no descriptor: its mirror here).
  HostChannel channel;
  std::vector<UniqueFd> fds(2);
  fds[0] = channel.create(2, 0);
  channel.map(fds);
  ASSERT_TRUE(channel.mirrored(1));
  RecordingLink link(2);
  channel.link(&link);

  const int to[] = {1};
  std::byte data[64] = {};
  // A step whose clean push is the record and the line only: its message's length.
  channel.pushStep(to, 0, 1, 0);
  ASSERT_EQ(link.messages.size(), 1u);
  const std::vector<std::string> clean = link.messages.back();

  // The next step delivers into PE 1's inbox (two puts), then into its memory, which fails.
  link.refuse_memory = true;
  const HostChannel::Delivery deliveries[] = {{1, nullptr, data, sizeof data}, {1, data, data, sizeof data}};
  EXPECT_THROW(channel.pushStep(to, 0, 2, 0, deliveries), Error);
  EXPECT_EQ(link.messages.size(), 1u);  // nothing went

  // The step after it carries its own writes only, not the failed step's inbox puts.
  link.refuse_memory = false;
  channel.pushStep(to, 0, 3, 0);
  ASSERT_EQ(link.messages.size(), 2u);
  EXPECT_EQ(link.messages.back().size(), clean.size());
  channel.link(nullptr);
}

// Writes straight into the segment of the one other PE, as the network's link lands there.
class SegmentLink final : public ChannelLink {
 public:
  explicit SegmentLink(std::span<std::byte> segment) : segment_(segment) {}
  void put(int, std::size_t offset, const void *source, std::size_t bytes) override {
    ASSERT_LE(offset + bytes, segment_.size());
    std::memcpy(segment_.data() + offset, source, bytes);
  }
  void putMemory(int, void *, const void *, std::size_t) override { FAIL() << "no memory deliveries here"; }
  void store(int, std::size_t offset, std::int64_t value) override { put(0, offset, &value, sizeof value); }
  void settle() override {}
  bool flush(long) override { return true; }
  void discard() override {}

 private:
  std::span<std::byte> segment_;
};

// A call of several inbox steps posts step s + 1 before it reads what step s brought, so a peer
// may deliver with s + 1 and s + 2 before this PE is done with s (HostChannel::takeInbox): all
// three deliveries must be there at once, each under its own step.
TEST(HostChannel, ThreeStepsDeliveriesAreInTheInboxAtOnce) {
  // Two PEs, each alone on its node: PE 0's pushes land in PE 1's segment.
  HostChannel sender, receiver;
  std::vector<UniqueFd> fds0(2), fds1(2);
  fds0[0] = sender.create(2, 0);
  fds1[1] = receiver.create(2, 1);
  sender.map(fds0);
  receiver.map(fds1);
  ASSERT_TRUE(sender.mirrored(1));
  ASSERT_TRUE(receiver.mirrored(0));
  SegmentLink link(receiver.segment());
  sender.link(&link);

  const int to[] = {1}, team = 0;
  std::vector<std::vector<int>> parts;
  for (std::uint64_t step = 1; step <= 3; ++step) {
    parts.emplace_back(kInboxBytes / sizeof(int));
    for (std::size_t i = 0; i < parts.back().size(); ++i) parts.back()[i] = static_cast<int>(step * 1000000 + i);
    const HostChannel::Delivery delivery[] = {{1, nullptr, parts.back().data(), kInboxBytes}};
    sender.pushStep(to, team, step, 0, delivery);
  }
  for (std::uint64_t step = 1; step <= 3; ++step) {
    const std::byte *inbox = receiver.takeInbox(0, team, step);
    ASSERT_NE(inbox, nullptr) << "step " << step << "'s delivery is gone";
    EXPECT_EQ(std::memcmp(inbox, parts[step - 1].data(), kInboxBytes), 0) << "step " << step;
  }
  EXPECT_EQ(receiver.takeInbox(0, team, 4), nullptr);
  EXPECT_EQ(receiver.takeInbox(0, team + 1, 1), nullptr);
  sender.link(nullptr);
}

}  // namespace
}  // namespace tdist::runtime
