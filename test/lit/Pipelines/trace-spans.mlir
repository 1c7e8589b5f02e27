// Trace spans in the pipelines. The cpu pipeline with trace-spans records the marked ops and
// the linalg ops as spans, through the same library declaration as an explicit extern_call
// of it; without trace-spans only the explicit calls remain. The Ascend pipeline drops the
// marks: a marked kernel has the HIVM form of the unmarked one.
// RUN: tdist-opt %s --tdist-cpu-pipeline="trace-spans=true" | FileCheck %s
// RUN: tdist-opt %s --tdist-cpu-pipeline="trace-spans=true" | grep "llvm.func @_mlir_ciface_tdist_trace_begin_span_m1(" | count 1
// RUN: tdist-opt %s --tdist-cpu-pipeline | FileCheck %s --check-prefix=OFF
// RUN: tdist-opt %s --tdist-ascend-pipeline | FileCheck %s --check-prefix=HIVM
// RUN: tdist-opt %s --tdist-ascend-pipeline > %t.marked
// RUN: sed -e 's/ *{tdist\.span[^}]*}//' %s | tdist-opt --tdist-ascend-pipeline > %t.plain
// RUN: diff %t.marked %t.plain

// CHECK-DAG: llvm.mlir.global private constant @tdist_span_mma_tile(dense<[109, 109, 97, 95, 116, 105, 108, 101]> : tensor<8xi8>)
// CHECK-DAG: llvm.mlir.global private constant @tdist_span_gemm(dense<[103, 101, 109, 109]> : tensor<4xi8>)
// CHECK-DAG: llvm.mlir.global private constant @tdist_span_notify_owner(
// CHECK-DAG: llvm.func @_mlir_ciface_tdist_trace_begin_span_m1(!llvm.ptr, i32, i32, i32) attributes {llvm.emit_c_interface
// CHECK-DAG: llvm.func @_mlir_ciface_tdist_trace_end()
// CHECK-LABEL: llvm.func @kernel(
// The loop's span, then the matmul's inside it, around the matmul's loops.
// CHECK: llvm.mlir.addressof @tdist_span_gemm
// CHECK: llvm.call @tdist_trace_begin_span_m1(
// CHECK: llvm.mlir.addressof @tdist_span_mma_tile
// CHECK: llvm.call @tdist_trace_begin_span_m1(
// CHECK: llvm.fmul
// CHECK: llvm.call @_mlir_ciface_tdist_trace_end()
// CHECK: llvm.call @_mlir_ciface_tdist_trace_end()
// The explicit span, and the notify's inside it.
// CHECK: llvm.mlir.addressof @step_name
// CHECK: llvm.call @tdist_trace_begin_span_m1(
// CHECK: llvm.mlir.addressof @tdist_span_notify_owner
// CHECK: llvm.call @tdist_trace_begin_span_m1(
// CHECK-NOT: llvm.call
// CHECK: llvm.call @aclshmemx_signal_op_m1(
// CHECK-NEXT: llvm.call @_mlir_ciface_tdist_trace_end()
// CHECK-NEXT: llvm.call @_mlir_ciface_tdist_trace_end()
// CHECK-NEXT: llvm.return

// OFF-NOT: tdist_span
// OFF-LABEL: llvm.func @kernel(
// OFF-NOT: tdist_span
// OFF-NOT: tdist_trace
// OFF: llvm.mlir.addressof @step_name
// OFF: llvm.call @tdist_trace_begin_span_m1(
// OFF-NOT: tdist_trace
// OFF: llvm.call @aclshmemx_signal_op_m1(
// OFF-NEXT: llvm.call @_mlir_ciface_tdist_trace_end()
// OFF-NEXT: llvm.return

// HIVM-NOT: tdist.span
// HIVM: symbol = "aclshmemx_signal_op"
// HIVM-NOT: tdist.span
module attributes {distributed.target = "cpu"} {
  memref.global "private" constant @step_name : memref<4xi8> = dense<[115, 116, 101, 112]>
  func.func @kernel(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>, %signal: memref<16xi32>,
                    %rows: index, %tiles: index, %epoch: i64) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %move = arith.constant 3 : i32
    %cols = memref.dim %c, %c1 : memref<?x?xf32>
    %rank = distributed.get_rank : i32
    scf.for %t = %c0 to %tiles step %c1 {
      %row = arith.muli %t, %rows : index
      %tile = memref.subview %c[%row, 0] [%rows, %cols] [1, 1]
          : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
      linalg.matmul {tdist.span = "mma_tile"} ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>)
                    outs(%tile : memref<?x?xf32, strided<[?, 1], offset: ?>>)
    } {tdist.span = "gemm", tdist.span_category = "call"}
    %bytes = memref.get_global @step_name : memref<4xi8>
    %name = memref.cast %bytes : memref<4xi8> to memref<?xi8>
    distributed.extern_call "tdist_trace_begin_span"(%name, %rank, %one, %move) : (memref<?xi8>, i32, i32, i32) -> ()
    distributed.notify %signal, %epoch, %rank sig_op = set scope = intra_node
        {tdist.span = "notify_owner", tdist.span_category = "move"} : memref<16xi32>
    distributed.extern_call "tdist_trace_end"() : () -> ()
    return
  }
}
