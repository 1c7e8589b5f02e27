// One distributed.wait over as many signal slots as the kernel is told: the number of barriers
// is the kernel argument %count, which the runner passes as the grid size. Program p stores
// 10 (rank + 1) + p into data[p] of the next PE and sets signal p there; then every program
// waits once for the first %count signals of its own PE and writes the sum of those data into
// out[p]: 10 count (prev + 1) + count (count - 1) / 2, where prev is the previous PE.
module attributes {distributed.target = "cpu"} {
  func.func @wait_count_argument(%data: memref<?xi32>, %signals: memref<?xi32>,
                                 %out: memref<?xi32>, %count: i32, %epoch: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %ten = arith.constant 10 : i32
    %axis = arith.constant 0 : i32
    %epoch64 = arith.extui %epoch : i32 to i64
    %rank = distributed.get_rank : i32
    %npes = distributed.get_num_ranks : i32
    %pid_i32 = distributed.extern_call "tdist_program_id"(%axis) {pure = true} : (i32) -> i32
    %pid = arith.index_cast %pid_i32 : i32 to index
    %ahead = arith.addi %rank, %one : i32
    %next = arith.remui %ahead, %npes : i32
    %tens = arith.muli %ahead, %ten : i32
    %value = arith.addi %tens, %pid_i32 : i32
    %remote = distributed.symm_at %data, %next : memref<?xi32>
    memref.store %value, %remote[%pid] : memref<?xi32>
    %slot_at = arith.muli %pid, %c16 : index
    %slot = memref.subview %signals[%slot_at] [1] [1] : memref<?xi32> to memref<1xi32, strided<[1], offset: ?>>
    distributed.notify %slot, %epoch64, %next sig_op = set scope = intra_node
        : memref<1xi32, strided<[1], offset: ?>>
    %token = distributed.wait %signals, %count, %epoch scope = sys semantic = acquire
        : memref<?xi32>, i32, i32 -> i32
    %ready = distributed.consume_token %data, %token : memref<?xi32>, i32
    %n = arith.index_cast %count : i32 to index
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (i32) {
      %v = memref.load %ready[%i] : memref<?xi32>
      %more = arith.addi %acc, %v : i32
      scf.yield %more : i32
    }
    memref.store %sum, %out[%pid] : memref<?xi32>
    return
  }
}
