// The verifiers come with the plugin: upstream mlir-opt rejects what
// tdist-opt rejects.
// RUN: mlir-opt %s --load-dialect-plugin=%tdist_libs/TdistPlugin.so -split-input-file -verify-diagnostics

func.func @zero_barriers(%sig: memref<16xi32>, %e: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  // expected-error@+1 {{'distributed.wait' op the number of barriers must be positive and at most 65536, got 0}}
  %t = distributed.wait %sig, %c0, %e scope = gpu semantic = acquire : memref<16xi32>, i32, i32 -> i32
  return %t : i32
}

// -----

func.func @i64_add_on_ascend(%sig: memref<8xi64>, %v: i64, %peer: i32) {
  // expected-error@+1 {{'distributed.notify' op a 64-bit signal allows only sig_op = set on Ascend, got add}}
  distributed.notify %sig, %v, %peer sig_op = add scope = gpu : memref<8xi64>
  return
}

// -----

// expected-error@+1 {{'distributed.target' must be a string "ascend", "cuda" or "cpu" on a module}}
module attributes {distributed.target = "rocm"} {
}
