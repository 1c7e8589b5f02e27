// runtime/published_wait.h - this PE's record on the job's wait board (common/wait_board.h):
// the wait it is blocked in, for tdist-run's hang check.
//
// tdist-run hands every PE the board, a shared segment numbered by TDIST_WAIT_BOARD_FD, and the
// PE writes record TDIST_PE of it; without the variable (a program started another way, or
// --hang-check 0) nothing is published. One wait at a time publishes, the first of this process
// to claim the record; waits of other threads and of the programs of a launch do not.
#pragma once

#include <cstdint>

#include "common/wait_board.h"

namespace tdist::runtime {

// This PE's record, mapped on first use; null when there is no board.
wait_board::Record *waitBoardRecord();

// Claims the record for one wait; false when there is no board or another wait holds it.
bool claimWaitBoard();
// Ends the claimed wait: clears `waiting` and gives the record back.
void releaseWaitBoard(wait_board::Record &record);

// Publishes, for its lifetime, a blocking call that is not a WaitLoop (finalize's barrier over
// the bootstrap store): `what` is what it waits for, as the diagnosis prints it.
class PublishedBlock {
 public:
  PublishedBlock(const char *call, const char *what);
  ~PublishedBlock();
  PublishedBlock(const PublishedBlock &) = delete;
  PublishedBlock &operator=(const PublishedBlock &) = delete;

 private:
  wait_board::Record *record_ = nullptr;
};

}  // namespace tdist::runtime
