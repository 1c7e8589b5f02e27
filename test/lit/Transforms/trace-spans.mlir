// RUN: tdist-opt %s --split-input-file --tdist-trace-spans | FileCheck %s
// RUN: tdist-opt %s --split-input-file --tdist-trace-spans="record=false" | FileCheck %s --check-prefix=CHECKONLY

// A matmul on a tile of C: a compute span named after the op, at the tile's first row and
// column, between a begin call of the template library and an end call.
// CHECK-DAG: func.func private @tdist_trace_begin_span_m1(memref<?xi8, strided<[?], offset: ?>>, i32, i32, i32) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @_mlir_ciface_tdist_trace_end()
// CHECK-DAG: memref.global "private" constant @tdist_span_matmul : memref<6xi8> = dense<[109, 97, 116, 109, 117, 108]>
// CHECK-LABEL: func.func @matmul_tile(
// CHECK-SAME: %[[ROW:[a-z0-9_]+]]: index
// CHECK: %[[TILE:.*]] = memref.subview
// CHECK: %[[BYTES:.*]] = memref.get_global @tdist_span_matmul : memref<6xi8>
// CHECK: %[[NAME:.*]] = memref.cast %[[BYTES]] : memref<6xi8> to memref<?xi8, strided<[?], offset: ?>>
// CHECK: %[[M:.*]] = arith.index_cast %[[ROW]] : index to i32
// CHECK: %[[N:.*]] = arith.constant 0 : i32
// CHECK: %[[COMPUTE:.*]] = arith.constant 2 : i32
// CHECK: call @tdist_trace_begin_span_m1(%[[NAME]], %[[M]], %[[N]], %[[COMPUTE]])
// CHECK-NEXT: linalg.matmul {{.*}} outs(%[[TILE]]
// CHECK-NEXT: call @_mlir_ciface_tdist_trace_end() : () -> ()
// CHECK-NEXT: return
// CHECKONLY-LABEL: func.func @matmul_tile(
// CHECKONLY-NOT: call
// CHECKONLY: linalg.matmul
// CHECKONLY-NOT: call
// CHECKONLY: return
func.func @matmul_tile(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>, %row: index,
                       %rows: index, %cols: index) {
  %tile = memref.subview %c[%row, 0] [%rows, %cols] [1, 1]
      : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>)
                outs(%tile : memref<?x?xf32, strided<[?, 1], offset: ?>>)
  return
}

// -----

// An output that is no subview gives no coordinates (-1); a rank-1 subview, seen through a
// cast, gives m only. Each name has one global.
// CHECK: memref.global "private" constant @tdist_span_fill : memref<4xi8> = dense<[102, 105, 108, 108]>
// CHECK-NOT: memref.global
// CHECK-LABEL: func.func @coordinates(
// CHECK-SAME: %[[AT:[a-z0-9_]+]]: index
// CHECK: %[[FILL:.*]] = memref.get_global @tdist_span_fill : memref<4xi8>
// CHECK: %[[FILL_NAME:.*]] = memref.cast %[[FILL]]
// CHECK: %[[NONE:.*]] = arith.constant -1 : i32
// CHECK: %[[NONE2:.*]] = arith.constant -1 : i32
// CHECK: call @tdist_trace_begin_span_m1(%[[FILL_NAME]], %[[NONE]], %[[NONE2]], %{{.*}})
// CHECK-NEXT: linalg.fill {{.*}} outs(%{{.*}} : memref<8x8xf32>)
// CHECK-NEXT: call @_mlir_ciface_tdist_trace_end()
// CHECK: memref.get_global @tdist_span_fill : memref<4xi8>
// CHECK: %[[M:.*]] = arith.index_cast %[[AT]] : index to i32
// CHECK: %[[N:.*]] = arith.constant -1 : i32
// CHECK: call @tdist_trace_begin_span_m1(%{{.*}}, %[[M]], %[[N]], %{{.*}})
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: call @_mlir_ciface_tdist_trace_end()
func.func @coordinates(%square: memref<8x8xf32>, %line: memref<64xf32>, %at: index) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%square : memref<8x8xf32>)
  %part = memref.subview %line[%at] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: ?>>
  %any = memref.cast %part : memref<8xf32, strided<[1], offset: ?>> to memref<?xf32, strided<[1], offset: ?>>
  linalg.fill ins(%zero : f32) outs(%any : memref<?xf32, strided<[1], offset: ?>>)
  return
}

// -----

// Static offsets are constants.
// CHECK-LABEL: func.func @static_offsets(
// CHECK: %[[M:.*]] = arith.constant 16 : i32
// CHECK: %[[N:.*]] = arith.constant 4 : i32
// CHECK: call @tdist_trace_begin_span_m1(%{{.*}}, %[[M]], %[[N]], %{{.*}})
// CHECK-NEXT: linalg.add
func.func @static_offsets(%a: memref<32x8xf32>) {
  %tile = memref.subview %a[16, 4] [8, 4] [1, 1] : memref<32x8xf32> to memref<8x4xf32, strided<[8, 1], offset: 132>>
  linalg.add ins(%tile, %tile : memref<8x4xf32, strided<[8, 1], offset: 132>>, memref<8x4xf32, strided<[8, 1], offset: 132>>)
             outs(%tile : memref<8x4xf32, strided<[8, 1], offset: 132>>)
  return
}

// -----

// A marked op gets a span of its name and category, without coordinates; a marked linalg op
// keeps its coordinates. Spans nest: the loop's span holds its body's. The marks are removed.
// CHECK-DAG: memref.global "private" constant @tdist_span_push_tiles : memref<10xi8>
// CHECK-DAG: memref.global "private" constant @tdist_span_mma_tile : memref<8xi8>
// CHECK-LABEL: func.func @marked(
// CHECK: memref.get_global @tdist_span_push_tiles
// CHECK: %[[NONE:.*]] = arith.constant -1 : i32
// CHECK: %[[NONE2:.*]] = arith.constant -1 : i32
// CHECK: %[[MOVE:.*]] = arith.constant 3 : i32
// CHECK: call @tdist_trace_begin_span_m1(%{{.*}}, %[[NONE]], %[[NONE2]], %[[MOVE]])
// CHECK-NEXT: scf.for
// CHECK: memref.get_global @tdist_span_mma_tile
// CHECK: %[[M:.*]] = arith.index_cast
// CHECK: %[[N:.*]] = arith.constant 0 : i32
// CHECK: %[[WAIT:.*]] = arith.constant 4 : i32
// CHECK: call @tdist_trace_begin_span_m1(%{{.*}}, %[[M]], %[[N]], %[[WAIT]])
// CHECK-NEXT: linalg.matmul ins
// CHECK-NEXT: call @_mlir_ciface_tdist_trace_end()
// CHECK-NEXT: }
// CHECK-NEXT: call @_mlir_ciface_tdist_trace_end()
// CHECK-NOT: tdist.span
// CHECKONLY-LABEL: func.func @marked(
// CHECKONLY-NOT: tdist.span
// CHECKONLY-NOT: call
// CHECKONLY: return
func.func @marked(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %tile = memref.subview %c[%i, 0] [1, 8] [1, 1] : memref<?x?xf32> to memref<1x8xf32, strided<[?, 1], offset: ?>>
    linalg.matmul {tdist.span = "mma_tile", tdist.span_category = "wait"}
        ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%tile : memref<1x8xf32, strided<[?, 1], offset: ?>>)
  } {tdist.span = "push_tiles", tdist.span_category = "move"}
  return
}

// -----

// A name that is not a symbol name still makes one; a taken symbol is renamed. A declaration
// of the same type is reused.
// CHECK: memref.global "private" constant @tdist_span_gemm_tile_0 : memref<9xi8> = dense<[103, 101, 109, 109, 32, 116, 105, 108, 101]>
// CHECK: func.func private @tdist_trace_begin_span_m1(memref<?xi8, strided<[?], offset: ?>>, i32, i32, i32) attributes {llvm.emit_c_interface}
// CHECK-NOT: func.func private @tdist_trace_begin_span_m1
// CHECK: memref.global "private" constant @tdist_span_gemm_tile : memref<1xi32>
// CHECK-LABEL: func.func @names(
// CHECK: memref.get_global @tdist_span_gemm_tile_0 : memref<9xi8>
// CHECK: %[[USER:.*]] = arith.constant 0 : i32
// CHECK: call @tdist_trace_begin_span_m1(%{{.*}}, %{{.*}}, %{{.*}}, %[[USER]])
// CHECK-NEXT: memref.copy
// CHECK-NEXT: call @_mlir_ciface_tdist_trace_end()
module {
  func.func private @tdist_trace_begin_span_m1(memref<?xi8, strided<[?], offset: ?>>, i32, i32, i32)
      attributes {llvm.emit_c_interface}
  memref.global "private" constant @tdist_span_gemm_tile : memref<1xi32> = dense<0>
  func.func @names(%a: memref<4xf32>, %b: memref<4xf32>) {
    memref.copy %a, %b {tdist.span = "gemm tile"} : memref<4xf32> to memref<4xf32>
    return
  }
}

// -----

// Linalg ops on tensors are no tile of memory: no span, and no declarations without spans.
// CHECK-LABEL: func.func @tensors(
// CHECK-NOT: call
// CHECK: linalg.add
// CHECK-NOT: func.func private @tdist_trace
func.func @tensors(%a: tensor<4xf32>) -> tensor<4xf32> {
  %sum = linalg.add ins(%a, %a : tensor<4xf32>, tensor<4xf32>) outs(%a : tensor<4xf32>) -> tensor<4xf32>
  return %sum : tensor<4xf32>
}

// -----

// A nested module declares what its own functions call.
// CHECK-LABEL: module @inner
// CHECK-DAG: memref.global "private" constant @tdist_span_fill
// CHECK-DAG: func.func private @tdist_trace_begin_span_m1(
// CHECK-DAG: func.func private @_mlir_ciface_tdist_trace_end()
// CHECK: func.func @nested(
// CHECK: call @tdist_trace_begin_span_m1(
// CHECK-NEXT: linalg.fill
module {
  module @inner {
    func.func @nested(%a: memref<4xf32>) {
      %zero = arith.constant 0.0 : f32
      linalg.fill ins(%zero : f32) outs(%a : memref<4xf32>)
      return
    }
  }
}
