// A parameter type the runner cannot bind (f16).
module attributes {distributed.target = "cpu"} {
  func.func @half_kernel(%buffer: memref<?xf16>) {
    return
  }
}
