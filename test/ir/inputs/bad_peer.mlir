// symm_at of a PE that does not exist: the device library ends the PE with a runtime error
// (exit 98) that names the symbol and the PE.
module attributes {distributed.target = "cpu"} {
  func.func @bad_peer(%buffer: memref<?xf32>) {
    %c0 = arith.constant 0 : index
    %value = arith.constant 1.0 : f32
    %n = distributed.get_num_ranks : i32
    %remote = distributed.symm_at %buffer, %n : memref<?xf32>
    memref.store %value, %remote[%c0] : memref<?xf32>
    return
  }
}
