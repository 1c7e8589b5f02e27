// Kernels the runner must refuse, one per entry, each with its own message.
module attributes {distributed.target = "cpu"} {
  // A static memref: the description's sizes must match.
  func.func @fixed(%tile: memref<4x8xf32>) {
    return
  }

  // A kernel returns nothing; results go to buffer arguments.
  func.func @returns_value(%x: i32) -> i32 {
    return %x : i32
  }

  func.func private @helper(%x: i32) {
    return
  }
}
