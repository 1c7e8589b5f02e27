// RUN: tdist-opt %s -allow-unregistered-dialect -split-input-file \
// RUN:   --convert-triton-distributed-to-hivm | FileCheck %s

// The core type (seed 001 §3.4): the symbol prefix table first, else
// CUBE_AND_VECTOR when the module holds a matrix product, VECTOR otherwise.

// CHECK-LABEL: func.func @pure_vector_kernel
func.func @pure_vector_kernel(%signal: memref<16xi32>, %peer: i32) -> memref<16xi32> {
  // CHECK: hivm.tcore_type = #hivm.tcore_type<VECTOR>{{.*}}"dist.aclshmem_ptr_int32"
  %remote = distributed.symm_at %signal, %peer : memref<16xi32>
  return %remote : memref<16xi32>
}

// -----

// tt.dot anywhere in the module, here in another function, counts.
// CHECK-LABEL: func.func @with_tt_dot
func.func @with_tt_dot(%signal: memref<16xi32>, %peer: i32) -> memref<16xi32> {
  // CHECK: hivm.tcore_type = #hivm.tcore_type<CUBE_AND_VECTOR>{{.*}}"dist.aclshmem_ptr_int32"
  %remote = distributed.symm_at %signal, %peer : memref<16xi32>
  return %remote : memref<16xi32>
}

// CHECK-LABEL: func.func @gemm
func.func @gemm(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // CHECK: "tt.dot"
  %d = "tt.dot"(%a, %b, %c) : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %d : tensor<16x16xf32>
}

// -----

// CHECK-LABEL: func.func @with_tt_dot_scaled
func.func @with_tt_dot_scaled(%a: tensor<16x16xf16>, %c: tensor<16x16xf32>) -> (i32, tensor<16x16xf32>) {
  %d = "tt.dot_scaled"(%a, %a, %c) : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
  // CHECK: hivm.tcore_type = #hivm.tcore_type<CUBE_AND_VECTOR>{{.*}}"dist.aclshmem_my_pe"
  %me = distributed.get_rank : i32
  return %me, %d : i32, tensor<16x16xf32>
}

// -----

// CHECK-LABEL: func.func @with_linalg_matmul
func.func @with_linalg_matmul(%a: memref<16x8xf16>, %b: memref<8x16xf16>, %c: memref<16x16xf32>) -> i32 {
  linalg.matmul ins(%a, %b : memref<16x8xf16>, memref<8x16xf16>) outs(%c : memref<16x16xf32>)
  // CHECK: hivm.tcore_type = #hivm.tcore_type<CUBE_AND_VECTOR>{{.*}}"dist.aclshmem_n_pes"
  %n = distributed.get_num_ranks : i32
  return %n : i32
}

// -----

// CHECK-LABEL: func.func @with_linalg_batch_matmul
func.func @with_linalg_batch_matmul(%a: tensor<2x16x8xf32>, %b: tensor<2x8x16xf32>,
                                    %c: tensor<2x16x16xf32>) -> (i32, tensor<2x16x16xf32>) {
  %d = linalg.batch_matmul ins(%a, %b : tensor<2x16x8xf32>, tensor<2x8x16xf32>)
                           outs(%c : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  // CHECK: hivm.tcore_type = #hivm.tcore_type<CUBE_AND_VECTOR>{{.*}}"dist.aclshmem_my_pe"
  %me = distributed.get_rank : i32
  return %me, %d : i32, tensor<2x16x16xf32>
}

// -----

// A matmul with a transposed operand (what linalg.matmul_transpose_b was).
// CHECK-LABEL: func.func @with_transposed_matmul
func.func @with_transposed_matmul(%a: memref<16x8xf16>, %bt: memref<16x8xf16>, %c: memref<16x16xf32>) -> i32 {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %bt : memref<16x8xf16>, memref<16x8xf16>) outs(%c : memref<16x16xf32>)
  // CHECK: hivm.tcore_type = #hivm.tcore_type<CUBE_AND_VECTOR>{{.*}}"dist.aclshmem_my_pe"
  %me = distributed.get_rank : i32
  return %me : i32
}

// -----

// A matrix product written as linalg.generic is a contraction too.
// CHECK-LABEL: func.func @with_generic_matmul
func.func @with_generic_matmul(%a: memref<16x8xf32>, %b: memref<8x16xf32>, %c: memref<16x16xf32>) -> i32 {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                   affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<16x8xf32>, memref<8x16xf32>) outs(%c : memref<16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %prod = arith.mulf %x, %y : f32
    %sum = arith.addf %acc, %prod : f32
    linalg.yield %sum : f32
  }
  // CHECK: hivm.tcore_type = #hivm.tcore_type<CUBE_AND_VECTOR>{{.*}}"dist.aclshmem_my_pe"
  %me = distributed.get_rank : i32
  return %me : i32
}

// -----

// Contractions without both M and N (dot, matvec) do not use the cube unit.
// CHECK-LABEL: func.func @with_matvec_and_dot
func.func @with_matvec_and_dot(%a: memref<16x8xf32>, %x: memref<8xf32>, %y: memref<16xf32>,
                               %s: memref<f32>) -> i32 {
  linalg.matvec ins(%a, %x : memref<16x8xf32>, memref<8xf32>) outs(%y : memref<16xf32>)
  linalg.dot ins(%x, %x : memref<8xf32>, memref<8xf32>) outs(%s : memref<f32>)
  // CHECK: hivm.tcore_type = #hivm.tcore_type<VECTOR>{{.*}}"dist.aclshmem_my_pe"
  %me = distributed.get_rank : i32
  return %me : i32
}

// -----

// barrier_all exists on both halves of a split kernel, with or without a dot.
// CHECK-LABEL: func.func @barrier_all_without_dot
func.func @barrier_all_without_dot() {
  // CHECK: hivm.tcore_type = #hivm.tcore_type<CUBE_AND_VECTOR>{{.*}}"dist.aclshmem_barrier_all"
  distributed.extern_call "aclshmem_barrier_all"() : () -> ()
  // CHECK: hivm.tcore_type = #hivm.tcore_type<VECTOR>{{.*}}"dist.aclshmem_quiet"
  distributed.extern_call "aclshmem_quiet"() : () -> ()
  return
}

// -----

// The vector-only barrier and the put/get family stay on the vector core even
// in a kernel with a dot; other library calls follow the dot.
// CHECK-LABEL: func.func @vector_calls_with_dot
func.func @vector_calls_with_dot(%dst: memref<64xf16>, %src: memref<64xf16>, %sig: memref<16xi32>,
                                 %bytes: i64, %peer: i32, %a: tensor<16x16xf16>,
                                 %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %d = "tt.dot"(%a, %a, %c) : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
  // CHECK: hivm.tcore_type = #hivm.tcore_type<VECTOR>{{.*}}"dist.aclshmemx_barrier_all_vec"
  distributed.extern_call "aclshmemx_barrier_all_vec"() : () -> ()
  // CHECK: hivm.tcore_type = #hivm.tcore_type<CUBE_AND_VECTOR>{{.*}}"dist.aclshmem_barrier_all"
  distributed.extern_call "aclshmem_barrier_all"() : () -> ()
  // CHECK: hivm.tcore_type = #hivm.tcore_type<VECTOR>{{.*}}"dist.aclshmem_putmem"
  distributed.extern_call "aclshmem_putmem"(%dst, %src, %bytes, %peer) : (memref<64xf16>, memref<64xf16>, i64, i32) -> ()
  // CHECK: hivm.tcore_type = #hivm.tcore_type<VECTOR>{{.*}}"dist.aclshmem_getmem"
  distributed.extern_call "aclshmem_getmem"(%dst, %src, %bytes, %peer) : (memref<64xf16>, memref<64xf16>, i64, i32) -> ()
  // CHECK: hivm.tcore_type = #hivm.tcore_type<VECTOR>{{.*}}"dist.aclshmem_putmem_nbi"
  distributed.extern_call "aclshmem_putmem_nbi"(%dst, %src, %bytes, %peer) : (memref<64xf16>, memref<64xf16>, i64, i32) -> ()
  // CHECK: hivm.tcore_type = #hivm.tcore_type<VECTOR>{{.*}}"dist.aclshmem_getmem_nbi"
  distributed.extern_call "aclshmem_getmem_nbi"(%dst, %src, %bytes, %peer) : (memref<64xf16>, memref<64xf16>, i64, i32) -> ()
  // CHECK: hivm.tcore_type = #hivm.tcore_type<VECTOR>{{.*}}"dist.aclshmem_putmem_signal"
  distributed.extern_call "aclshmem_putmem_signal"(%dst, %src, %bytes, %sig, %peer)
      : (memref<64xf16>, memref<64xf16>, i64, memref<16xi32>, i32) -> ()
  // CHECK: hivm.tcore_type = #hivm.tcore_type<VECTOR>{{.*}}"dist.aclshmem_putmem_signal_nbi"
  distributed.extern_call "aclshmem_putmem_signal_nbi"(%dst, %src, %bytes, %sig, %peer)
      : (memref<64xf16>, memref<64xf16>, i64, memref<16xi32>, i32) -> ()
  // CHECK: hivm.tcore_type = #hivm.tcore_type<CUBE_AND_VECTOR>{{.*}}"dist.aclshmem_quiet"
  distributed.extern_call "aclshmem_quiet"() : () -> ()
  return %d : tensor<16x16xf32>
}
