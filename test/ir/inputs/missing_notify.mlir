// A ring of notifies with one link missing: every PE sets slot 0 on its successor, except PE 0,
// so PE 1 waits for a signal that never comes. Run with a short --wait-timeout, the job must end
// with PE 1's wait diagnostic (exit 97), not hang.
module attributes {distributed.target = "cpu"} {
  func.func @ring_notify(%signals: memref<?xi64>, %epoch: i64) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %one = arith.constant 1 : i32
    %rank_i32 = distributed.get_rank : i32
    %n_i32 = distributed.get_num_ranks : i32
    %rank = arith.index_cast %rank_i32 : i32 to index
    %n = arith.index_cast %n_i32 : i32 to index
    %ahead = arith.addi %rank, %c1 : index
    %next_index = arith.remui %ahead, %n : index
    %next = arith.index_cast %next_index : index to i32
    %slot = memref.subview %signals[0] [1] [1] : memref<?xi64> to memref<1xi64, strided<[1]>>
    %skip = arith.cmpi eq, %rank, %c0 : index
    scf.if %skip {
    } else {
      distributed.notify %slot, %epoch, %next sig_op = set scope = intra_node : memref<1xi64, strided<[1]>>
    }
    %token = distributed.wait %slot, %one, %epoch scope = sys semantic = acquire
        : memref<1xi64, strided<[1]>>, i32, i64 -> i32
    %ready = distributed.consume_token %signals, %token : memref<?xi64>, i32
    // Record the arrival in the slot's line, after the signal (read through the token).
    memref.store %epoch, %ready[%c8] : memref<?xi64>
    return
  }
}
