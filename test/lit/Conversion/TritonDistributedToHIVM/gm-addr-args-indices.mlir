// RUN: tdist-opt %s -allow-unregistered-dialect --convert-triton-distributed-to-hivm \
// RUN:   | FileCheck %s

// gm_addr_args_indices lists the inputs of the hivm.hir.custom that are
// pointers (memref or !llvm.ptr, not tensors of pointers) and arguments of the
// enclosing function's entry block: plain global-memory addresses.

// CHECK-LABEL: func.func @arguments_and_computed_pointers
func.func @arguments_and_computed_pointers(%buffer: memref<64xf32>, %peer: i32, %opaque: !llvm.ptr)
    -> (memref<64xf32>, memref<64xf32>, memref<8xf32, strided<[1], offset: 8>>, i32) {
  // An argument: index 0.
  // CHECK: %[[REMOTE:.*]] = hivm.hir.custom {gm_addr_args_indices = array<i32: 0>,{{.*}}"dist.aclshmem_ptr_float"
  %remote = distributed.symm_at %buffer, %peer : memref<64xf32>
  // The result of another op is computed, not an argument.
  // CHECK: hivm.hir.custom {gm_addr_args_indices = array<i32>,{{.*}}"dist.aclshmem_ptr_float" ins(%[[REMOTE]],
  %twice = distributed.symm_at %remote, %peer : memref<64xf32>
  // CHECK: %[[VIEW:.*]] = memref.subview
  %view = memref.subview %buffer[8] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: 8>>
  // CHECK: hivm.hir.custom {gm_addr_args_indices = array<i32>,{{.*}}"dist.aclshmem_ptr_float" ins(%[[VIEW]],
  %remote_view = distributed.symm_at %view, %peer : memref<8xf32, strided<[1], offset: 8>>
  // An opaque pointer argument counts; the i64 value and the rank do not.
  // CHECK: hivm.hir.custom {gm_addr_args_indices = array<i32: 0>,{{.*}}"dist.aclshmem_wait_int64"
  %c1 = arith.constant 1 : i32
  %zero = arith.constant 0 : i64
  %token = distributed.wait %opaque, %c1, %zero scope = gpu semantic = acquire : !llvm.ptr, i32, i64 -> i32
  return %remote, %twice, %remote_view, %token : memref<64xf32>, memref<64xf32>, memref<8xf32, strided<[1], offset: 8>>, i32
}

// Indices are positions among the custom op's inputs, which for an i32 notify
// are (sigAddr, signal, sig_op, rank).
// CHECK-LABEL: func.func @several_pointer_arguments
func.func @several_pointer_arguments(%bytes: i64, %dst: memref<64xf16>, %peer: i32, %src: memref<64xf16>,
                                     %signal: memref<16xi32>, %value: i64) {
  // CHECK: hivm.hir.custom {gm_addr_args_indices = array<i32: 1, 3>,{{.*}}"dist.aclshmem_putmem"
  distributed.extern_call "aclshmem_putmem"(%bytes, %dst, %peer, %src) : (i64, memref<64xf16>, i32, memref<64xf16>) -> ()
  // CHECK: hivm.hir.custom {commScope = {{.*}}, gm_addr_args_indices = array<i32: 0>,{{.*}}"dist.aclshmemx_signal_op"
  distributed.notify %signal, %value, %peer sig_op = set scope = gpu : memref<16xi32>
  return
}

// A tensor of pointers is not a plain address, even as an argument.
// CHECK-LABEL: func.func @tensor_of_pointers
func.func @tensor_of_pointers(%signals: tensor<4x!llvm.ptr>, %epoch: i32) -> tensor<4xi32> {
  %c1 = arith.constant 1 : i32
  // CHECK: hivm.hir.custom {gm_addr_args_indices = array<i32>,{{.*}}"dist.aclshmem_wait_int32"
  %tokens = distributed.wait %signals, %c1, %epoch scope = gpu semantic = acquire
      : tensor<4x!llvm.ptr>, i32, i32 -> tensor<4xi32>
  return %tokens : tensor<4xi32>
}

// Block arguments of nested blocks (loop-carried pointers) are not kernel
// arguments.
// CHECK-LABEL: func.func @loop_carried_pointer
func.func @loop_carried_pointer(%buffer: memref<64xf32>, %peer: i32) -> memref<64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %last = scf.for %i = %c0 to %c4 step %c1 iter_args(%current = %buffer) -> (memref<64xf32>) {
    // CHECK: hivm.hir.custom {gm_addr_args_indices = array<i32>,{{.*}}"dist.aclshmem_ptr_float"
    %next = distributed.symm_at %current, %peer : memref<64xf32>
    scf.yield %next : memref<64xf32>
  }
  return %last : memref<64xf32>
}

// Any FunctionOpInterface encloses a kernel, llvm.func as well as func.func.
// CHECK-LABEL: llvm.func @llvm_kernel
llvm.func @llvm_kernel(%signal: !llvm.ptr, %value: i64, %peer: i32) {
  // CHECK: hivm.hir.custom {commScope = {{.*}}, gm_addr_args_indices = array<i32: 0>,{{.*}}"dist.aclshmem_int64_p"
  distributed.notify %signal, %value, %peer sig_op = set scope = gpu : !llvm.ptr
  llvm.return
}

// Outside any function there are no kernel arguments.
// CHECK-LABEL: "test.kernel"
"test.kernel"() ({
^bb0(%buffer: memref<64xf32>, %peer: i32):
  // CHECK: hivm.hir.custom {gm_addr_args_indices = array<i32>,{{.*}}"dist.aclshmem_ptr_float"
  %remote = distributed.symm_at %buffer, %peer : memref<64xf32>
  "test.use"(%remote) : (memref<64xf32>) -> ()
}) : () -> ()
