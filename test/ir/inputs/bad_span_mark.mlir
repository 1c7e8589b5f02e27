// A span mark with a category that does not exist: the kernel does not compile, traced or not.
module attributes {distributed.target = "cpu"} {
  func.func @bad_span_mark(%out: memref<?xf32>) {
    %zero = arith.constant 0.0 : f32
    linalg.fill {tdist.span = "zero", tdist.span_category = "io"} ins(%zero : f32) outs(%out : memref<?xf32>)
    return
  }
}
