// One wait over 4 signal slots at the 64-byte stride. Program p of 4 stores 10 (rank + 1) + p
// into data[p] of the next PE and sets signal p there; then every program waits once for all
// 4 signals of its own PE and writes the sum of data into out[p]: 40 (prev + 1) + 6, where prev
// is the previous PE.
module attributes {distributed.target = "cpu"} {
  func.func @wait_all_slots(%data: memref<4xi32>, %signals: memref<64xi32>, %out: memref<4xi32>,
                            %epoch: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %four = arith.constant 4 : i32
    %ten = arith.constant 10 : i32
    %axis = arith.constant 0 : i32
    %epoch64 = arith.extui %epoch : i32 to i64
    %rank_i32 = distributed.get_rank : i32
    %n_i32 = distributed.get_num_ranks : i32
    %pid_i32 = distributed.extern_call "tdist_program_id"(%axis) {pure = true} : (i32) -> i32
    %pid = arith.index_cast %pid_i32 : i32 to index
    %ahead = arith.addi %rank_i32, %one : i32
    %next = arith.remui %ahead, %n_i32 : i32
    %tens = arith.muli %ahead, %ten : i32
    %value = arith.addi %tens, %pid_i32 : i32
    %remote = distributed.symm_at %data, %next : memref<4xi32>
    memref.store %value, %remote[%pid] : memref<4xi32>
    %slot_at = arith.muli %pid, %c16 : index
    %slot = memref.subview %signals[%slot_at] [1] [1] : memref<64xi32> to memref<1xi32, strided<[1], offset: ?>>
    distributed.notify %slot, %epoch64, %next sig_op = set scope = intra_node
        : memref<1xi32, strided<[1], offset: ?>>
    %token = distributed.wait %signals, %four, %epoch scope = sys semantic = acquire
        : memref<64xi32>, i32, i32 -> i32
    %ready = distributed.consume_token %data, %token : memref<4xi32>, i32
    %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (i32) {
      %v = memref.load %ready[%i] : memref<4xi32>
      %more = arith.addi %acc, %v : i32
      scf.yield %more : i32
    }
    memref.store %sum, %out[%pid] : memref<4xi32>
    return
  }
}
