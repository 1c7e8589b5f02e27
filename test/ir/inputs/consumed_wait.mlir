// The wait's token is consumed: the data is read through the result of consume_token, so the
// runner warns about nothing. On 2 PEs, PE 0 sets PE 1's signal, and PE 1 waits for it, then
// copies data[0] to data[1] through the consumed buffer.
module attributes {distributed.target = "cpu"} {
  func.func @consumes_the_token(%signals: memref<?xi32>, %data: memref<?xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %one64 = arith.constant 1 : i64
    %rank = distributed.get_rank : i32
    %first = arith.cmpi eq, %rank, %zero : i32
    scf.if %first {
      distributed.notify %signals, %one64, %one sig_op = set scope = intra_node : memref<?xi32>
    } else {
      %token = distributed.wait %signals, %one, %one scope = sys semantic = acquire
          : memref<?xi32>, i32, i32 -> i32
      %ready = distributed.consume_token %data, %token : memref<?xf32>, i32
      %v = memref.load %ready[%c0] : memref<?xf32>
      memref.store %v, %data[%c1] : memref<?xf32>
    }
    return
  }
}
