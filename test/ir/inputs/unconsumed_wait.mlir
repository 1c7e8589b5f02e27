// A wait whose token is never consumed is dead code (distributed.wait only reads memory), so the
// runner warns, names the wait, and runs the kernel without it.
module attributes {distributed.target = "cpu"} {
  func.func @forgets_the_token(%signals: memref<?xi32>) {
    %one = arith.constant 1 : i32
    %token = distributed.wait %signals, %one, %one scope = sys semantic = acquire
        : memref<?xi32>, i32, i32 -> i32
    return
  }
}
