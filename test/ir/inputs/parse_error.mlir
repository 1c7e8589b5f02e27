// Not valid MLIR: the parse error must name this file, line and column.
module {
  func.func @broken(%buffer: memref<?xf32>) {
    %c0 = arith.constant 0 : index
    %x = memref.load %buffer[%c0] : memref<?xf32
    return
  }
}
