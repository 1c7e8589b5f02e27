// The library functions a span calls have one type; a module that has them otherwise is an error
// when spans are recorded, and the module is left as it was.
// RUN: tdist-opt %s --split-input-file --tdist-trace-spans --verify-diagnostics
// RUN: tdist-opt %s --split-input-file --tdist-trace-spans="record=false" | FileCheck %s

// CHECK-LABEL: func.func @end_with_another_type(
// CHECK-NOT: call
// expected-note @+1 {{declared here}}
func.func private @_mlir_ciface_tdist_trace_end(i32)
func.func @end_with_another_type(%a: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{a trace span calls '_mlir_ciface_tdist_trace_end' with type '() -> ()', but the module declares it as '(i32) -> ()'}}
  linalg.fill ins(%zero : f32) outs(%a : memref<4xf32>)
  return
}

// -----

// expected-note @+1 {{declared here}}
func.func private @tdist_trace_begin_span_m1(memref<?xi8>, i32, i32, i32)
func.func @begin_with_another_layout(%a: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{a trace span calls 'tdist_trace_begin_span_m1' with type '(memref<?xi8, strided<[?], offset: ?>>, i32, i32, i32) -> ()', but the module declares it as '(memref<?xi8>, i32, i32, i32) -> ()'}}
  linalg.fill ins(%zero : f32) outs(%a : memref<4xf32>)
  return
}

// -----

memref.global "private" @_mlir_ciface_tdist_trace_end : memref<1xi8>
func.func @end_is_a_global(%a: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{a trace span calls '_mlir_ciface_tdist_trace_end', which the module defines as 'memref.global'}}
  linalg.fill ins(%zero : f32) outs(%a : memref<4xf32>)
  return
}
