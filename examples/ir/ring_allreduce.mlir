// Ring AllReduce (sum) in the distributed dialect: a reduce-scatter ring, then an all-gather
// ring, tile by tile, each tile synchronized by its own signal.
//
// Seed 000 sketches this kernel; its sketch does not compute an AllReduce. What changed:
//  1. The sketch reduces the tile it sent instead of the tile it received: at step s a rank
//     sends chunk (rank - s) and receives chunk (rank - s - 1).
//  2. It notifies slot 0 with the value `step` but waits on slot `step` for the value 1: here
//     each (step, program) pair has its own slot, and every notify and wait uses the call's
//     epoch, so the signals are monotone across calls and nobody resets them.
//  3. Every program reduced the same tile, so each tile was added once per program: here
//     program p owns the p-th slice of every chunk and is the only one to touch it.
//  4. In the all-gather phase a rank first sends chunk (rank + 1), the one it finished reducing,
//     not chunk (rank).
//  5. The two phases wrote the same staging slots, so a fast sender could overwrite data that
//     its neighbour had not read yet: each of the 2 (n - 1) steps has its own staging slot.
//  The caller separates two calls with a barrier: a call's staging slots are reused by the next.
//
// Arguments: data (n * chunk floats, symmetric, in and out), staging (2 (n - 1) chunks,
// symmetric), signals (2 (n - 1) * programs slots of 16 i32, symmetric, zero before the first
// call), the chunk length (a multiple of the number of programs), and the epoch (1 for the first
// call, then 2, 3, ...). Program p of a grid of P (tdist_program_id, tdist_num_programs) owns
// the p-th slice of every chunk.
//
// Run it on 4 PEs with 2 programs each, and check it against the sum of the inputs:
//   tdist-run -n 4 --entry ring_allreduce --grid 2 examples/ir/ring_allreduce.mlir -- \
//     'f32[npes*256]=random:1' 'f32[2*npes*256]' 'i32[2*npes*2*16]' index=256 i32=1 \
//     --check '0=sum(arg(0))'
module attributes {distributed.target = "ascend"} {
  func.func @ring_allreduce(%data: memref<?xf32>, %staging: memref<?xf32>, %signals: memref<?xi32>,
                            %chunk: index, %epoch: i32) {
    %c0 = arith.constant 0 : index
    %axis = arith.constant 0 : i32
    %pid_i32 = distributed.extern_call "tdist_program_id"(%axis) {pure = true} : (i32) -> i32
    %programs_i32 = distributed.extern_call "tdist_num_programs"(%axis) {pure = true} : (i32) -> i32
    %pid = arith.index_cast %pid_i32 : i32 to index
    %programs = arith.index_cast %programs_i32 : i32 to index
    %c1 = arith.constant 1 : index
    %rank_i32 = distributed.get_rank : i32
    %n_i32 = distributed.get_num_ranks : i32
    %rank = arith.index_cast %rank_i32 : i32 to index
    %n = arith.index_cast %n_i32 : i32 to index
    %next_i = arith.addi %rank, %c1 : index
    %next_idx = arith.remui %next_i, %n : index
    %next = arith.index_cast %next_idx : index to i32
    %steps = arith.subi %n, %c1 : index
    %tile = arith.divui %chunk, %programs : index
    %slice = arith.muli %pid, %tile : index
    %epoch64 = arith.extui %epoch : i32 to i64

    // Phase 1, reduce-scatter: step s sends chunk (rank - s), receives and adds chunk (rank - s - 1).
    scf.for %s = %c0 to %steps step %c1 {
      %send_chunk = func.call @ring_chunk(%rank, %s, %c0, %n) : (index, index, index, index) -> index
      %recv_chunk = func.call @ring_chunk(%rank, %s, %c1, %n) : (index, index, index, index) -> index
      func.call @send_tile(%data, %staging, %signals, %send_chunk, %s, %chunk, %slice, %tile, %pid, %programs, %next, %epoch64)
          : (memref<?xf32>, memref<?xf32>, memref<?xi32>, index, index, index, index, index, index, index, i32, i64) -> ()
      %incoming = func.call @receive_tile(%staging, %signals, %s, %chunk, %slice, %tile, %pid, %programs, %epoch)
          : (memref<?xf32>, memref<?xi32>, index, index, index, index, index, index, i32) -> memref<?xf32, strided<[1], offset: ?>>
      %recv_offset = arith.muli %recv_chunk, %chunk : index
      %recv_at = arith.addi %recv_offset, %slice : index
      %mine = memref.subview %data[%recv_at] [%tile] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
      linalg.add ins(%mine, %incoming : memref<?xf32, strided<[1], offset: ?>>, memref<?xf32, strided<[1], offset: ?>>)
                 outs(%mine : memref<?xf32, strided<[1], offset: ?>>)
    }

    // Phase 2, all-gather: step s sends chunk (rank + 1 - s), receives chunk (rank - s).
    scf.for %s = %c0 to %steps step %c1 {
      %stage = arith.addi %steps, %s : index
      %send_chunk = func.call @ring_chunk(%rank, %s, %c0, %n) : (index, index, index, index) -> index
      %send_plus1 = arith.addi %send_chunk, %c1 : index
      %send_reduced = arith.remui %send_plus1, %n : index
      func.call @send_tile(%data, %staging, %signals, %send_reduced, %stage, %chunk, %slice, %tile, %pid, %programs, %next, %epoch64)
          : (memref<?xf32>, memref<?xf32>, memref<?xi32>, index, index, index, index, index, index, index, i32, i64) -> ()
      %incoming = func.call @receive_tile(%staging, %signals, %stage, %chunk, %slice, %tile, %pid, %programs, %epoch)
          : (memref<?xf32>, memref<?xi32>, index, index, index, index, index, index, i32) -> memref<?xf32, strided<[1], offset: ?>>
      %recv_offset = arith.muli %send_chunk, %chunk : index
      %recv_at = arith.addi %recv_offset, %slice : index
      %mine = memref.subview %data[%recv_at] [%tile] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
      memref.copy %incoming, %mine : memref<?xf32, strided<[1], offset: ?>> to memref<?xf32, strided<[1], offset: ?>>
    }
    return
  }

  // (rank - s - back) mod n, for back in {0, 1}.
  func.func private @ring_chunk(%rank: index, %s: index, %back: index, %n: index) -> index {
    %shifted = arith.addi %rank, %n : index
    %minus_s = arith.subi %shifted, %s : index
    %minus_back = arith.subi %minus_s, %back : index
    %chunk = arith.remui %minus_back, %n : index
    return %chunk : index
  }

  // Copies this program's slice of chunk `chunk_id` into staging slot `stage` of PE `next`, then
  // sets that slot's signal there to the epoch.
  func.func private @send_tile(%data: memref<?xf32>, %staging: memref<?xf32>, %signals: memref<?xi32>,
                               %chunk_id: index, %stage: index, %chunk: index, %slice: index, %tile: index,
                               %pid: index, %programs: index, %next: i32, %epoch: i64) {
    %c16 = arith.constant 16 : index
    %src_offset = arith.muli %chunk_id, %chunk : index
    %src_at = arith.addi %src_offset, %slice : index
    %src = memref.subview %data[%src_at] [%tile] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
    %remote = distributed.symm_at %staging, %next : memref<?xf32>
    %dst_offset = arith.muli %stage, %chunk : index
    %dst_at = arith.addi %dst_offset, %slice : index
    %dst = memref.subview %remote[%dst_at] [%tile] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
    memref.copy %src, %dst : memref<?xf32, strided<[1], offset: ?>> to memref<?xf32, strided<[1], offset: ?>>
    %slot_row = arith.muli %stage, %programs : index
    %slot_index = arith.addi %slot_row, %pid : index
    %slot_at = arith.muli %slot_index, %c16 : index
    %slot = memref.subview %signals[%slot_at] [1] [1] : memref<?xi32> to memref<1xi32, strided<[1], offset: ?>>
    distributed.notify %slot, %epoch, %next sig_op = set scope = inter_node : memref<1xi32, strided<[1], offset: ?>>
    return
  }

  // Waits until staging slot `stage` of this PE holds this program's slice for this epoch, and
  // returns that slice (ordered after the wait).
  func.func private @receive_tile(%staging: memref<?xf32>, %signals: memref<?xi32>, %stage: index,
                                  %chunk: index, %slice: index, %tile: index, %pid: index,
                                  %programs: index, %epoch: i32) -> memref<?xf32, strided<[1], offset: ?>> {
    %c16 = arith.constant 16 : index
    %one = arith.constant 1 : i32
    %slot_row = arith.muli %stage, %programs : index
    %slot_index = arith.addi %slot_row, %pid : index
    %slot_at = arith.muli %slot_index, %c16 : index
    %slot = memref.subview %signals[%slot_at] [1] [1] : memref<?xi32> to memref<1xi32, strided<[1], offset: ?>>
    %token = distributed.wait %slot, %one, %epoch scope = sys semantic = acquire
        : memref<1xi32, strided<[1], offset: ?>>, i32, i32 -> i32
    %ready = distributed.consume_token %staging, %token : memref<?xf32>, i32
    %at_offset = arith.muli %stage, %chunk : index
    %at = arith.addi %at_offset, %slice : index
    %incoming = memref.subview %ready[%at] [%tile] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
    return %incoming : memref<?xf32, strided<[1], offset: ?>>
  }
}
