// A wait whose token is never consumed is dead code (distributed.wait only reads memory), so the
// runner warns, names the wait, and runs the kernel without it. A token passed to a
// consume_token whose result is unused is not consumed either: canonicalization removes the
// consume_token, then the wait.
module attributes {distributed.target = "cpu"} {
  func.func @forgets_the_token(%signals: memref<?xi32>) {
    %one = arith.constant 1 : i32
    %token = distributed.wait %signals, %one, %one scope = sys semantic = acquire
        : memref<?xi32>, i32, i32 -> i32
    return
  }

  func.func @drops_the_consumed_data(%signals: memref<?xi32>, %data: memref<?xf32>) {
    %one = arith.constant 1 : i32
    %token = distributed.wait %signals, %one, %one scope = sys semantic = acquire
        : memref<?xi32>, i32, i32 -> i32
    %ready = distributed.consume_token %data, %token : memref<?xf32>, i32
    return
  }
}
