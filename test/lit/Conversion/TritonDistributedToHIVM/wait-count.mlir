// RUN: tdist-opt %s --convert-triton-distributed-to-hivm | FileCheck %s

// The number of barriers reaches aclshmem_wait_<type> as the library's int32_t,
// whether it is a constant or a value the kernel computes or is passed.

// An i32 count, constant or dynamic, is passed as it is.
// CHECK-LABEL: func.func @i32_counts
// CHECK-SAME: (%[[SIG:[^:]*]]: memref<64xi32>, %[[N:[^:]*]]: i32, %[[E:[^:]*]]: i32)
func.func @i32_counts(%sig: memref<64xi32>, %n: i32, %e: i32) -> (i32, i32) {
  // CHECK: %[[C4:.*]] = arith.constant 4 : i32
  %c4 = arith.constant 4 : i32
  // CHECK-NEXT: %[[T0:.*]] = hivm.hir.custom {{.*}}symbol = "aclshmem_wait_int32"} "dist.aclshmem_wait_int32" ins(%[[SIG]], %[[N]], %[[E]] : memref<64xi32>, i32, i32) -> i32
  %t0 = distributed.wait %sig, %n, %e scope = sys semantic = acquire : memref<64xi32>, i32, i32 -> i32
  // CHECK-NEXT: %[[T1:.*]] = hivm.hir.custom {{.*}}"dist.aclshmem_wait_int32" ins(%[[SIG]], %[[C4]], %[[E]] : memref<64xi32>, i32, i32) -> i32
  %t1 = distributed.wait %sig, %c4, %e scope = sys semantic = acquire : memref<64xi32>, i32, i32 -> i32
  // CHECK-NEXT: return %[[T0]], %[[T1]]
  return %t0, %t1 : i32, i32
}

// A count computed in the kernel stays where it is computed.
// CHECK-LABEL: func.func @computed_count
// CHECK-SAME: (%[[SIG:[^:]*]]: memref<64xi64>, %[[E:[^:]*]]: i64)
func.func @computed_count(%sig: memref<64xi64>, %e: i64) -> i32 {
  // CHECK: %[[N:.*]] = hivm.hir.custom {{.*}}"dist.aclshmem_n_pes" -> i32
  // CHECK: %[[COUNT:.*]] = arith.subi %[[N]], %{{.*}} : i32
  // CHECK: hivm.hir.custom {{.*}}"dist.aclshmem_wait_int64" ins(%[[SIG]], %[[COUNT]], %[[E]] : memref<64xi64>, i32, i64) -> i32
  %one = arith.constant 1 : i32
  %n = distributed.get_num_ranks : i32
  %others = arith.subi %n, %one : i32
  %t = distributed.wait %sig, %others, %e scope = sys semantic = acquire : memref<64xi64>, i32, i64 -> i32
  return %t : i32
}

// A wider dynamic count is saturated to the i32 range, then truncated: a count
// the library must reject (above 65536, or not positive) does not wrap into range.
// CHECK-LABEL: func.func @i64_count
// CHECK-SAME: (%[[SIG:[^:]*]]: memref<64xi32>, %[[N:[^:]*]]: i64, %[[E:[^:]*]]: i32)
func.func @i64_count(%sig: memref<64xi32>, %n: i64, %e: i32) -> i32 {
  // CHECK-NEXT: %[[MIN:.*]] = arith.constant -2147483648 : i64
  // CHECK-NEXT: %[[MAX:.*]] = arith.constant 2147483647 : i64
  // CHECK-NEXT: %[[LOW:.*]] = arith.maxsi %[[N]], %[[MIN]] : i64
  // CHECK-NEXT: %[[HIGH:.*]] = arith.minsi %[[LOW]], %[[MAX]] : i64
  // CHECK-NEXT: %[[COUNT:.*]] = arith.trunci %[[HIGH]] : i64 to i32
  // CHECK-NEXT: hivm.hir.custom {{.*}}"dist.aclshmem_wait_int32" ins(%[[SIG]], %[[COUNT]], %[[E]] : memref<64xi32>, i32, i32) -> i32
  %t = distributed.wait %sig, %n, %e scope = sys semantic = acquire : memref<64xi32>, i64, i32 -> i32
  return %t : i32
}

// A narrower one is sign-extended, as the verifier reads a constant.
// CHECK-LABEL: func.func @i16_count
// CHECK-SAME: (%[[SIG:[^:]*]]: memref<64xi32>, %[[N:[^:]*]]: i16, %[[E:[^:]*]]: i32)
func.func @i16_count(%sig: memref<64xi32>, %n: i16, %e: i32) -> i32 {
  // CHECK-NEXT: %[[COUNT:.*]] = arith.extsi %[[N]] : i16 to i32
  // CHECK-NEXT: hivm.hir.custom {{.*}}"dist.aclshmem_wait_int32" ins(%[[SIG]], %[[COUNT]], %[[E]] : memref<64xi32>, i32, i32) -> i32
  %t = distributed.wait %sig, %n, %e scope = sys semantic = acquire : memref<64xi32>, i16, i32 -> i32
  return %t : i32
}

// A constant of another width, which the verifier bounded, becomes an i32 constant.
// CHECK-LABEL: func.func @i64_constant_count
// CHECK-SAME: (%[[SIG:[^:]*]]: memref<64xi32>, %[[E:[^:]*]]: i32)
func.func @i64_constant_count(%sig: memref<64xi32>, %e: i32) -> i32 {
  // CHECK-NEXT: %{{.*}} = arith.constant 65536 : i64
  // CHECK-NEXT: %[[COUNT:.*]] = arith.constant 65536 : i32
  // CHECK-NEXT: hivm.hir.custom {{.*}}"dist.aclshmem_wait_int32" ins(%[[SIG]], %[[COUNT]], %[[E]] : memref<64xi32>, i32, i32) -> i32
  %c = arith.constant 65536 : i64
  %t = distributed.wait %sig, %c, %e scope = sys semantic = acquire : memref<64xi32>, i64, i32 -> i32
  return %t : i32
}

// A tile of counts is converted element by element.
// CHECK-LABEL: func.func @tensor_counts
// CHECK-SAME: (%[[PTRS:[^:]*]]: tensor<4x!llvm.ptr>, %[[N:[^:]*]]: tensor<4xi64>, %[[E:[^:]*]]: i32)
func.func @tensor_counts(%ptrs: tensor<4x!llvm.ptr>, %n: tensor<4xi64>, %e: i32) -> (tensor<4xi32>, tensor<4xi32>) {
  // CHECK-NEXT: %{{.*}} = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi8>
  %each = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi8>
  // CHECK-NEXT: %[[MIN:.*]] = arith.constant dense<-2147483648> : tensor<4xi64>
  // CHECK-NEXT: %[[MAX:.*]] = arith.constant dense<2147483647> : tensor<4xi64>
  // CHECK-NEXT: %[[LOW:.*]] = arith.maxsi %[[N]], %[[MIN]] : tensor<4xi64>
  // CHECK-NEXT: %[[HIGH:.*]] = arith.minsi %[[LOW]], %[[MAX]] : tensor<4xi64>
  // CHECK-NEXT: %[[COUNTS:.*]] = arith.trunci %[[HIGH]] : tensor<4xi64> to tensor<4xi32>
  // CHECK-NEXT: %[[INIT0:.*]] = tensor.empty() : tensor<4xi32>
  // CHECK-NEXT: %[[T0:.*]] = hivm.hir.custom {{.*}}"dist.aclshmem_wait_int32" ins(%[[PTRS]], %[[COUNTS]], %[[E]] : tensor<4x!llvm.ptr>, tensor<4xi32>, i32) outs(%[[INIT0]] : tensor<4xi32>) -> tensor<4xi32>
  %t0 = distributed.wait %ptrs, %n, %e scope = sys semantic = acquire : tensor<4x!llvm.ptr>, tensor<4xi64>, i32 -> tensor<4xi32>
  // CHECK-NEXT: %[[EACH:.*]] = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  // CHECK-NEXT: %[[INIT1:.*]] = tensor.empty() : tensor<4xi32>
  // CHECK-NEXT: %[[T1:.*]] = hivm.hir.custom {{.*}}"dist.aclshmem_wait_int32" ins(%[[PTRS]], %[[EACH]], %[[E]] : tensor<4x!llvm.ptr>, tensor<4xi32>, i32) outs(%[[INIT1]] : tensor<4xi32>) -> tensor<4xi32>
  %t1 = distributed.wait %ptrs, %each, %e scope = sys semantic = acquire : tensor<4x!llvm.ptr>, tensor<4xi8>, i32 -> tensor<4xi32>
  // CHECK-NEXT: return %[[T0]], %[[T1]]
  return %t0, %t1 : tensor<4xi32>, tensor<4xi32>
}
