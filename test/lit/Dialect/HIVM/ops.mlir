// RUN: tdist-opt %s | tdist-opt | FileCheck %s
// RUN: tdist-opt %s --mlir-print-op-generic | tdist-opt | FileCheck %s

// hivm.hir.custom round-trips in the textual form of AscendNPU-IR:
//   hivm.hir.custom attr-dict "name" (ins(...))? (outs(...))? (-> types)?

// CHECK-LABEL: func.func @distributed_call
// CHECK-SAME: (%[[SIGNAL:[^:]*]]: memref<1xi64, strided<[1]>>, %[[COUNT:[^:]*]]: i32, %[[VALUE:[^:]*]]: i64)
func.func @distributed_call(%signal: memref<1xi64, strided<[1]>>, %count: i32, %value: i64) -> i32 {
  // CHECK: %[[TOKEN:.*]] = hivm.hir.custom {hivm.is_distributed, hivm.pipe = #hivm.pipe<PIPE_S>, hivm.tcore_type = #hivm.tcore_type<CUBE_AND_VECTOR>, hivm.vf_mode = #hivm.vf_mode<SIMD>, no_side_effect, scope = 1 : i32, semantic = 2 : i32, symbol = "aclshmem_wait_int64"} "dist.aclshmem_wait_int64" ins(%[[SIGNAL]], %[[COUNT]], %[[VALUE]] : memref<1xi64, strided<[1]>>, i32, i64) -> i32
  %token = hivm.hir.custom {hivm.is_distributed, no_side_effect, hivm.pipe = #hivm.pipe<PIPE_S>, hivm.tcore_type = #hivm.tcore_type<CUBE_AND_VECTOR>, hivm.vf_mode = #hivm.vf_mode<SIMD>, scope = 1 : i32, semantic = 2 : i32, symbol = "aclshmem_wait_int64"} "dist.aclshmem_wait_int64" ins(%signal, %count, %value : memref<1xi64, strided<[1]>>, i32, i64) -> i32
  // CHECK: return %[[TOKEN]]
  return %token : i32
}

// CHECK-LABEL: func.func @memref_outs_without_results
// CHECK-SAME: (%[[IN:[^:]*]]: memref<?xf32>, %[[OUT:[^:]*]]: memref<4xi32>)
func.func @memref_outs_without_results(%in: memref<?xf32>, %out: memref<4xi32>) {
  // CHECK: %[[BINS:.*]] = arith.constant 4 : i64
  %bins = arith.constant 4 : i64
  // CHECK: hivm.hir.custom {gm_addr_args_indices = array<i32: 0>} "__builtin_histogram" ins(%[[IN]], %[[BINS]] : memref<?xf32>, i64) outs(%[[OUT]] : memref<4xi32>){{$}}
  hivm.hir.custom {gm_addr_args_indices = array<i32: 0>} "__builtin_histogram" ins(%in, %bins : memref<?xf32>, i64) outs(%out : memref<4xi32>)
  return
}

// CHECK-LABEL: func.func @tensor_init
// CHECK-SAME: (%[[IN:[^:]*]]: memref<1xf32>)
func.func @tensor_init(%in: memref<1xf32>) -> tensor<1xf32> {
  // CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<1xf32>
  %empty = tensor.empty() : tensor<1xf32>
  // CHECK: %[[RESULT:.*]] = hivm.hir.custom {hivm.pipe = #hivm.pipe<PIPE_V>, hivm.tcore_type = #hivm.tcore_type<VECTOR>, hivm.vf_mode = #hivm.vf_mode<SIMT>} "user.no_vf" ins(%[[IN]] : memref<1xf32>) outs(%[[EMPTY]] : tensor<1xf32>) -> tensor<1xf32>
  %result = hivm.hir.custom {hivm.tcore_type = #hivm.tcore_type<VECTOR>, hivm.pipe = #hivm.pipe<PIPE_V>, hivm.vf_mode = #hivm.vf_mode<SIMT>} "user.no_vf" ins(%in : memref<1xf32>) outs(%empty : tensor<1xf32>) -> tensor<1xf32>
  // CHECK: return %[[RESULT]]
  return %result : tensor<1xf32>
}

// Several results are parenthesised; scalar results need no init.
// CHECK-LABEL: func.func @several_results
func.func @several_results(%x: tensor<4xf16>) -> (i32, tensor<4xf16>) {
  %empty = tensor.empty() : tensor<4xf16>
  // CHECK: %[[RESULTS:.*]]:2 = hivm.hir.custom "user.split" ins(%{{.*}} : tensor<4xf16>) outs(%{{.*}} : tensor<4xf16>) -> (i32, tensor<4xf16>)
  %results:2 = hivm.hir.custom "user.split" ins(%x : tensor<4xf16>) outs(%empty : tensor<4xf16>) -> (i32, tensor<4xf16>)
  // CHECK: return %[[RESULTS]]#0, %[[RESULTS]]#1
  return %results#0, %results#1 : i32, tensor<4xf16>
}

// CHECK-LABEL: func.func @bare
func.func @bare() {
  // CHECK: hivm.hir.custom "user.fence"{{$}}
  hivm.hir.custom "user.fence"
  return
}

// Every enumerant of the three enum attributes parses and prints.
// CHECK-LABEL: func.func @enum_attributes
func.func @enum_attributes() attributes {
    // CHECK: core_types = [#hivm.tcore_type<CUBE>, #hivm.tcore_type<VECTOR>, #hivm.tcore_type<CUBE_OR_VECTOR>, #hivm.tcore_type<CUBE_AND_VECTOR>]
    core_types = [#hivm.tcore_type<CUBE>, #hivm.tcore_type<VECTOR>, #hivm.tcore_type<CUBE_OR_VECTOR>,
                  #hivm.tcore_type<CUBE_AND_VECTOR>],
    // CHECK-SAME: pipes = [#hivm.pipe<PIPE_S>, #hivm.pipe<PIPE_V>, #hivm.pipe<PIPE_M>, #hivm.pipe<PIPE_MTE1>, #hivm.pipe<PIPE_MTE2>, #hivm.pipe<PIPE_MTE3>, #hivm.pipe<PIPE_ALL>, #hivm.pipe<PIPE_MTE4>, #hivm.pipe<PIPE_MTE5>, #hivm.pipe<PIPE_V2>, #hivm.pipe<PIPE_FIX>, #hivm.pipe<VIRTUAL_PIPE_MTE2_L1A>, #hivm.pipe<VIRTUAL_PIPE_MTE2_L1B>, #hivm.pipe<PIPE_NUM>, #hivm.pipe<PIPE_UNASSIGNED>]
    pipes = [#hivm.pipe<PIPE_S>, #hivm.pipe<PIPE_V>, #hivm.pipe<PIPE_M>, #hivm.pipe<PIPE_MTE1>,
             #hivm.pipe<PIPE_MTE2>, #hivm.pipe<PIPE_MTE3>, #hivm.pipe<PIPE_ALL>, #hivm.pipe<PIPE_MTE4>,
             #hivm.pipe<PIPE_MTE5>, #hivm.pipe<PIPE_V2>, #hivm.pipe<PIPE_FIX>,
             #hivm.pipe<VIRTUAL_PIPE_MTE2_L1A>, #hivm.pipe<VIRTUAL_PIPE_MTE2_L1B>,
             #hivm.pipe<PIPE_NUM>, #hivm.pipe<PIPE_UNASSIGNED>],
    // CHECK-SAME: vf_modes = [#hivm.vf_mode<SIMD>, #hivm.vf_mode<SIMT>, #hivm.vf_mode<MIX>]
    vf_modes = [#hivm.vf_mode<SIMD>, #hivm.vf_mode<SIMT>, #hivm.vf_mode<MIX>]} {
  return
}
