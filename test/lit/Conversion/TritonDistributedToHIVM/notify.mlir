// RUN: tdist-opt %s --convert-triton-distributed-to-hivm | FileCheck %s

// notify is named after the signal type, the pointee of sigAddr (i64 for an
// opaque pointer). An i32 signal goes through aclshmemx_signal_op, which can
// set or add: its inputs are the address, the signal truncated to i32, the
// operation in aclshmem's numbering (SET = 0, ADD = 1) and the rank. A 64-bit
// signal is a plain remote store, aclshmem_<type>_p(address, value, rank).

// CHECK-LABEL: func.func @notify_i32_set
// CHECK-SAME: (%[[SIGNAL:[^:]*]]: memref<16xi32>, %[[VALUE:[^:]*]]: i64, %[[PEER:[^:]*]]: i32)
func.func @notify_i32_set(%signal: memref<16xi32>, %value: i64, %peer: i32) {
  // CHECK: %[[TRUNC:.*]] = arith.trunci %[[VALUE]] : i64 to i32
  // CHECK: %[[SET:.*]] = arith.constant 0 : i32
  // CHECK: hivm.hir.custom
  // CHECK-SAME: sigOp = 1 : i32, symbol = "aclshmemx_signal_op"} "dist.aclshmemx_signal_op"
  // CHECK-SAME: ins(%[[SIGNAL]], %[[TRUNC]], %[[SET]], %[[PEER]] : memref<16xi32>, i32, i32, i32){{$}}
  distributed.notify %signal, %value, %peer sig_op = set scope = gpu : memref<16xi32>
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @notify_i32_add
// CHECK-SAME: (%[[SIGNAL:[^:]*]]: memref<16xi32>, %[[VALUE:[^:]*]]: i64, %[[PEER:[^:]*]]: i32)
func.func @notify_i32_add(%signal: memref<16xi32>, %value: i64, %peer: i32) {
  // CHECK: %[[TRUNC:.*]] = arith.trunci %[[VALUE]] : i64 to i32
  // CHECK: %[[ADD:.*]] = arith.constant 1 : i32
  // CHECK: hivm.hir.custom
  // CHECK-SAME: sigOp = 2 : i32, symbol = "aclshmemx_signal_op"} "dist.aclshmemx_signal_op"
  // CHECK-SAME: ins(%[[SIGNAL]], %[[TRUNC]], %[[ADD]], %[[PEER]] : memref<16xi32>, i32, i32, i32){{$}}
  distributed.notify %signal, %value, %peer sig_op = add scope = inter_node : memref<16xi32>
  return
}

// CHECK-LABEL: func.func @notify_si32
func.func @notify_si32(%signal: memref<16xsi32>, %value: i64, %peer: i32) {
  // CHECK: "dist.aclshmemx_signal_op" ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : memref<16xsi32>, i32, i32, i32)
  distributed.notify %signal, %value, %peer sig_op = add scope = gpu : memref<16xsi32>
  return
}

// CHECK-LABEL: func.func @notify_i64
// CHECK-SAME: (%[[SIGNAL:[^:]*]]: memref<8xi64>, %[[VALUE:[^:]*]]: i64, %[[PEER:[^:]*]]: i32)
func.func @notify_i64(%signal: memref<8xi64>, %value: i64, %peer: i32) {
  // CHECK-NOT: arith.trunci
  // CHECK: hivm.hir.custom
  // CHECK-SAME: symbol = "aclshmem_int64_p"} "dist.aclshmem_int64_p" ins(%[[SIGNAL]], %[[VALUE]], %[[PEER]] : memref<8xi64>, i64, i32){{$}}
  distributed.notify %signal, %value, %peer sig_op = set scope = gpu : memref<8xi64>
  return
}

// CHECK-LABEL: func.func @notify_ui64
// CHECK-SAME: (%[[SIGNAL:[^:]*]]: memref<8xui64>, %[[VALUE:[^:]*]]: i64, %[[PEER:[^:]*]]: i32)
func.func @notify_ui64(%signal: memref<8xui64>, %value: i64, %peer: i32) {
  // CHECK: hivm.hir.custom
  // CHECK-SAME: symbol = "aclshmem_uint64_p"} "dist.aclshmem_uint64_p" ins(%[[SIGNAL]], %[[VALUE]], %[[PEER]] : memref<8xui64>, i64, i32){{$}}
  distributed.notify %signal, %value, %peer sig_op = set scope = gpu : memref<8xui64>
  return
}

// CHECK-LABEL: func.func @notify_opaque_pointer
// CHECK-SAME: (%[[SIGNAL:[^:]*]]: !llvm.ptr, %[[VALUE:[^:]*]]: i64, %[[PEER:[^:]*]]: i32)
func.func @notify_opaque_pointer(%signal: !llvm.ptr, %value: i64, %peer: i32) {
  // CHECK: hivm.hir.custom
  // CHECK-SAME: "dist.aclshmem_int64_p" ins(%[[SIGNAL]], %[[VALUE]], %[[PEER]] : !llvm.ptr, i64, i32){{$}}
  distributed.notify %signal, %value, %peer sig_op = set scope = gpu : !llvm.ptr
  return
}
