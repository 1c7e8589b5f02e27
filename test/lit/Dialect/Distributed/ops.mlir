// RUN: tdist-opt %s | tdist-opt | FileCheck %s
// RUN: tdist-opt %s --mlir-print-op-generic | tdist-opt | FileCheck %s
// RUN: tdist-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Every op, every enum value and every pointer kind, printed in custom form
// after a round trip through the custom and through the generic form. The
// GENERIC prefix pins the enums' numbering (seed 001 §2.3).

// CHECK-LABEL: func.func @rank_queries
// GENERIC-LABEL: sym_name = "rank_queries"
func.func @rank_queries() -> (i32, i32) {
  // CHECK: %[[R:.*]] = distributed.get_rank : i32
  // GENERIC: "distributed.get_rank"() <{axis = 0 : i32}> : () -> i32
  %r = distributed.get_rank : i32
  // The default axis is not printed.
  // CHECK: %[[N:.*]] = distributed.get_num_ranks : i32
  // GENERIC: "distributed.get_num_ranks"() <{axis = 0 : i32}> : () -> i32
  %n = distributed.get_num_ranks axis = 0 : i32
  // CHECK: return %[[R]], %[[N]]
  return %r, %n : i32, i32
}

// CHECK-LABEL: func.func @wait_scopes_and_semantics
// CHECK-SAME: (%[[SIG:.*]]: memref<64xi32>, %[[E:.*]]: i32)
// GENERIC-LABEL: sym_name = "wait_scopes_and_semantics"
func.func @wait_scopes_and_semantics(%sig: memref<64xi32>, %e: i32) -> (i32, i32, i32, i32) {
  // CHECK: %[[C4:.*]] = arith.constant 4 : i32
  %c4 = arith.constant 4 : i32
  // CHECK: %[[T0:.*]] = distributed.wait %[[SIG]], %[[C4]], %[[E]] scope = gpu semantic = acquire : memref<64xi32>, i32, i32 -> i32
  // GENERIC: "distributed.wait"(%{{.*}}, %{{.*}}, %{{.*}}) <{scope = 1 : i32, semantic = 2 : i32}>
  %t0 = distributed.wait %sig, %c4, %e scope = gpu semantic = acquire : memref<64xi32>, i32, i32 -> i32
  // CHECK: %[[T1:.*]] = distributed.wait %[[SIG]], %[[C4]], %[[E]] scope = cta semantic = relaxed : memref<64xi32>, i32, i32 -> i32
  // GENERIC: "distributed.wait"(%{{.*}}, %{{.*}}, %{{.*}}) <{scope = 2 : i32, semantic = 1 : i32}>
  %t1 = distributed.wait %sig, %c4, %e scope = cta semantic = relaxed : memref<64xi32>, i32, i32 -> i32
  // CHECK: %[[T2:.*]] = distributed.wait %[[SIG]], %[[C4]], %[[E]] scope = sys semantic = acquire : memref<64xi32>, i32, i32 -> i32
  // GENERIC: "distributed.wait"(%{{.*}}, %{{.*}}, %{{.*}}) <{scope = 3 : i32, semantic = 2 : i32}>
  %t2 = distributed.wait %sig, %c4, %e scope = sys semantic = acquire : memref<64xi32>, i32, i32 -> i32
  // A discardable attribute survives next to the properties.
  // CHECK: %[[T3:.*]] = distributed.wait %[[SIG]], %[[C4]], %[[E]] scope = gpu semantic = acquire {tile = 3 : i64} : memref<64xi32>, i32, i32 -> i32
  %t3 = distributed.wait %sig, %c4, %e scope = gpu semantic = acquire {tile = 3} : memref<64xi32>, i32, i32 -> i32
  // CHECK: return %[[T0]], %[[T1]], %[[T2]], %[[T3]]
  return %t0, %t1, %t2, %t3 : i32, i32, i32, i32
}

// CHECK-LABEL: func.func @wait_pointer_kinds
// CHECK-SAME: (%[[SIG64:.*]]: memref<?xi64, 1>, %[[E64:.*]]: i64, %[[P:.*]]: !llvm.ptr, %[[P1:.*]]: !llvm.ptr<1>, %[[PTRS:.*]]: tensor<4x!llvm.ptr>, %[[E:.*]]: i32)
func.func @wait_pointer_kinds(%sig64: memref<?xi64, 1>, %e64: i64, %p: !llvm.ptr, %p1: !llvm.ptr<1>,
                              %ptrs: tensor<4x!llvm.ptr>, %e: i32) -> (i64, i32, i32, tensor<4xi32>) {
  // CHECK: %[[ONE:.*]] = arith.constant 1 : i32
  %one = arith.constant 1 : i32
  // CHECK: %[[SPLAT:.*]] = arith.constant dense<2> : tensor<4xi32>
  %splat = arith.constant dense<2> : tensor<4xi32>
  // A 64-bit signal, a 64-bit token.
  // CHECK: %[[T0:.*]] = distributed.wait %[[SIG64]], %[[ONE]], %[[E64]] scope = gpu semantic = acquire : memref<?xi64, 1>, i32, i64 -> i64
  %t0 = distributed.wait %sig64, %one, %e64 scope = gpu semantic = acquire : memref<?xi64, 1>, i32, i64 -> i64
  // An opaque pointer says nothing about the signal type.
  // CHECK: %[[T1:.*]] = distributed.wait %[[P]], %[[ONE]], %[[E]] scope = gpu semantic = acquire : !llvm.ptr, i32, i32 -> i32
  %t1 = distributed.wait %p, %one, %e scope = gpu semantic = acquire : !llvm.ptr, i32, i32 -> i32
  // CHECK: %[[T2:.*]] = distributed.wait %[[P1]], %[[ONE]], %[[E64]] scope = sys semantic = relaxed : !llvm.ptr<1>, i32, i64 -> i32
  %t2 = distributed.wait %p1, %one, %e64 scope = sys semantic = relaxed : !llvm.ptr<1>, i32, i64 -> i32
  // A tile of pointers, with a splat constant count and a tile of tokens.
  // CHECK: %[[T3:.*]] = distributed.wait %[[PTRS]], %[[SPLAT]], %[[E]] scope = cta semantic = acquire : tensor<4x!llvm.ptr>, tensor<4xi32>, i32 -> tensor<4xi32>
  %t3 = distributed.wait %ptrs, %splat, %e scope = cta semantic = acquire : tensor<4x!llvm.ptr>, tensor<4xi32>, i32 -> tensor<4xi32>
  // CHECK: return %[[T0]], %[[T1]], %[[T2]], %[[T3]]
  return %t0, %t1, %t2, %t3 : i64, i32, i32, tensor<4xi32>
}

// The number of barriers is an operand: any integer value, checked when the wait runs, or a
// constant up to the maximum, 65536, checked here; a constant tile of counts need not be a splat.
// CHECK-LABEL: func.func @wait_counts
// CHECK-SAME: (%[[SIG:.*]]: memref<64xi32>, %[[N:.*]]: i32, %[[N64:.*]]: i64, %[[PTRS:.*]]: tensor<4x!llvm.ptr>, %[[NS:.*]]: tensor<4xi32>, %[[E:.*]]: i32)
// GENERIC-LABEL: sym_name = "wait_counts"
func.func @wait_counts(%sig: memref<64xi32>, %n: i32, %n64: i64, %ptrs: tensor<4x!llvm.ptr>,
                       %ns: tensor<4xi32>, %e: i32) -> (i32, i32, i32, tensor<4xi32>, tensor<4xi32>) {
  // CHECK: %[[MAX:.*]] = arith.constant 65536 : i32
  %max = arith.constant 65536 : i32
  // CHECK: %[[EACH:.*]] = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %each = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  // CHECK: %[[T0:.*]] = distributed.wait %[[SIG]], %[[N]], %[[E]] scope = gpu semantic = acquire : memref<64xi32>, i32, i32 -> i32
  // GENERIC: "distributed.wait"(%{{.*}}, %{{.*}}, %{{.*}}) <{scope = 1 : i32, semantic = 2 : i32}> : (memref<64xi32>, i32, i32) -> i32
  %t0 = distributed.wait %sig, %n, %e scope = gpu semantic = acquire : memref<64xi32>, i32, i32 -> i32
  // CHECK: %[[T1:.*]] = distributed.wait %[[SIG]], %[[N64]], %[[E]] scope = sys semantic = acquire : memref<64xi32>, i64, i32 -> i32
  %t1 = distributed.wait %sig, %n64, %e scope = sys semantic = acquire : memref<64xi32>, i64, i32 -> i32
  // CHECK: %[[T2:.*]] = distributed.wait %[[SIG]], %[[MAX]], %[[E]] scope = sys semantic = acquire : memref<64xi32>, i32, i32 -> i32
  %t2 = distributed.wait %sig, %max, %e scope = sys semantic = acquire : memref<64xi32>, i32, i32 -> i32
  // CHECK: %[[T3:.*]] = distributed.wait %[[PTRS]], %[[NS]], %[[E]] scope = cta semantic = acquire : tensor<4x!llvm.ptr>, tensor<4xi32>, i32 -> tensor<4xi32>
  %t3 = distributed.wait %ptrs, %ns, %e scope = cta semantic = acquire : tensor<4x!llvm.ptr>, tensor<4xi32>, i32 -> tensor<4xi32>
  // CHECK: %[[T4:.*]] = distributed.wait %[[PTRS]], %[[EACH]], %[[E]] scope = cta semantic = acquire : tensor<4x!llvm.ptr>, tensor<4xi32>, i32 -> tensor<4xi32>
  %t4 = distributed.wait %ptrs, %each, %e scope = cta semantic = acquire : tensor<4x!llvm.ptr>, tensor<4xi32>, i32 -> tensor<4xi32>
  // CHECK: return %[[T0]], %[[T1]], %[[T2]], %[[T3]], %[[T4]]
  return %t0, %t1, %t2, %t3, %t4 : i32, i32, i32, tensor<4xi32>, tensor<4xi32>
}

// CHECK-LABEL: func.func @consume_token
// CHECK-SAME: (%[[BUF:.*]]: memref<1024xf32>, %[[TILE:.*]]: tensor<16x16xf16>, %[[P:.*]]: !llvm.ptr, %[[T:.*]]: i32, %[[TT:.*]]: tensor<16x16xi64>)
// GENERIC-LABEL: sym_name = "consume_token"
func.func @consume_token(%buf: memref<1024xf32>, %tile: tensor<16x16xf16>, %p: !llvm.ptr, %t: i32,
                         %tt: tensor<16x16xi64>) -> (memref<1024xf32>, tensor<16x16xf16>, !llvm.ptr) {
  // CHECK: %[[A:.*]] = distributed.consume_token %[[BUF]], %[[T]] : memref<1024xf32>, i32
  // GENERIC: "distributed.consume_token"(%{{.*}}, %{{.*}}) : (memref<1024xf32>, i32) -> memref<1024xf32>
  %a = distributed.consume_token %buf, %t : memref<1024xf32>, i32
  // A tile takes a tile of tokens of its shape (Elementwise).
  // CHECK: %[[B:.*]] = distributed.consume_token %[[TILE]], %[[TT]] : tensor<16x16xf16>, tensor<16x16xi64>
  %b = distributed.consume_token %tile, %tt : tensor<16x16xf16>, tensor<16x16xi64>
  // CHECK: %[[C:.*]] = distributed.consume_token %[[P]], %[[T]] : !llvm.ptr, i32
  %c = distributed.consume_token %p, %t : !llvm.ptr, i32
  // CHECK: return %[[A]], %[[B]], %[[C]]
  return %a, %b, %c : memref<1024xf32>, tensor<16x16xf16>, !llvm.ptr
}

// CHECK-LABEL: func.func @symm_at
// CHECK-SAME: (%[[BUF:.*]]: memref<128x?xf16, strided<[?, 1]>>, %[[ANY:.*]]: memref<4xi8, 1>, %[[P:.*]]: !llvm.ptr<1>, %[[PEER:.*]]: i32)
// GENERIC-LABEL: sym_name = "symm_at"
func.func @symm_at(%buf: memref<128x?xf16, strided<[?, 1]>>, %any: memref<4xi8, 1>, %p: !llvm.ptr<1>, %peer: i32)
    -> (memref<128x?xf16, strided<[?, 1]>>, memref<4xi8, 1>, !llvm.ptr<1>) {
  // CHECK: %[[A:.*]] = distributed.symm_at %[[BUF]], %[[PEER]] : memref<128x?xf16, strided<[?, 1]>>
  // GENERIC: "distributed.symm_at"(%{{.*}}, %{{.*}}) : (memref<128x?xf16, strided<[?, 1]>>, i32) -> memref<128x?xf16, strided<[?, 1]>>
  %a = distributed.symm_at %buf, %peer : memref<128x?xf16, strided<[?, 1]>>
  // CHECK: %[[B:.*]] = distributed.symm_at %[[ANY]], %[[PEER]] : memref<4xi8, 1>
  %b = distributed.symm_at %any, %peer : memref<4xi8, 1>
  // CHECK: %[[C:.*]] = distributed.symm_at %[[P]], %[[PEER]] : !llvm.ptr<1>
  %c = distributed.symm_at %p, %peer : !llvm.ptr<1>
  // CHECK: return %[[A]], %[[B]], %[[C]]
  return %a, %b, %c : memref<128x?xf16, strided<[?, 1]>>, memref<4xi8, 1>, !llvm.ptr<1>
}

// The default target is Ascend: i32 signals with set or add, 64-bit signals
// with set.

// CHECK-LABEL: func.func @notify_ascend
// CHECK-SAME: (%[[S32:.*]]: memref<16xi32>, %[[SS32:.*]]: memref<16xsi32>, %[[S64:.*]]: memref<8xi64>, %[[U64:.*]]: memref<8xui64>, %[[P:.*]]: !llvm.ptr, %[[V:.*]]: i64, %[[PEER:.*]]: i32)
// GENERIC-LABEL: sym_name = "notify_ascend"
func.func @notify_ascend(%s32: memref<16xi32>, %ss32: memref<16xsi32>, %s64: memref<8xi64>, %u64: memref<8xui64>,
                         %p: !llvm.ptr, %v: i64, %peer: i32) {
  // CHECK: distributed.notify %[[S32]], %[[V]], %[[PEER]] sig_op = set scope = gpu : memref<16xi32>
  // GENERIC: "distributed.notify"(%{{.*}}, %{{.*}}, %{{.*}}) <{commScope = 1 : i32, sigOp = 1 : i32}>
  distributed.notify %s32, %v, %peer sig_op = set scope = gpu : memref<16xi32>
  // CHECK: distributed.notify %[[S32]], %[[V]], %[[PEER]] sig_op = add scope = intra_node : memref<16xi32>
  // GENERIC: "distributed.notify"(%{{.*}}, %{{.*}}, %{{.*}}) <{commScope = 2 : i32, sigOp = 2 : i32}>
  distributed.notify %s32, %v, %peer sig_op = add scope = intra_node : memref<16xi32>
  // CHECK: distributed.notify %[[SS32]], %[[V]], %[[PEER]] sig_op = add scope = inter_node : memref<16xsi32>
  // GENERIC: "distributed.notify"(%{{.*}}, %{{.*}}, %{{.*}}) <{commScope = 3 : i32, sigOp = 2 : i32}>
  distributed.notify %ss32, %v, %peer sig_op = add scope = inter_node : memref<16xsi32>
  // CHECK: distributed.notify %[[S64]], %[[V]], %[[PEER]] sig_op = set scope = inter_node : memref<8xi64>
  distributed.notify %s64, %v, %peer sig_op = set scope = inter_node : memref<8xi64>
  // CHECK: distributed.notify %[[U64]], %[[V]], %[[PEER]] sig_op = set scope = intra_node : memref<8xui64>
  distributed.notify %u64, %v, %peer sig_op = set scope = intra_node : memref<8xui64>
  // An opaque pointer's signal is the i64 value.
  // CHECK: distributed.notify %[[P]], %[[V]], %[[PEER]] sig_op = set scope = gpu : !llvm.ptr
  distributed.notify %p, %v, %peer sig_op = set scope = gpu : !llvm.ptr
  return
}

// Other targets: 64-bit signals only, with set or add.

// CHECK-LABEL: module attributes {distributed.target = "cuda"}
module attributes {distributed.target = "cuda"} {
  // CHECK-LABEL: func.func @notify_cuda
  // CHECK-SAME: (%[[S64:.*]]: memref<8xi64>, %[[U64:.*]]: memref<8xui64>, %[[P:.*]]: !llvm.ptr<1>, %[[V:.*]]: i64, %[[PEER:.*]]: i32)
  func.func @notify_cuda(%s64: memref<8xi64>, %u64: memref<8xui64>, %p: !llvm.ptr<1>, %v: i64, %peer: i32) {
    // CHECK: distributed.notify %[[S64]], %[[V]], %[[PEER]] sig_op = add scope = gpu : memref<8xi64>
    distributed.notify %s64, %v, %peer sig_op = add scope = gpu : memref<8xi64>
    // CHECK: distributed.notify %[[U64]], %[[V]], %[[PEER]] sig_op = add scope = inter_node : memref<8xui64>
    distributed.notify %u64, %v, %peer sig_op = add scope = inter_node : memref<8xui64>
    // CHECK: distributed.notify %[[P]], %[[V]], %[[PEER]] sig_op = add scope = intra_node : !llvm.ptr<1>
    distributed.notify %p, %v, %peer sig_op = add scope = intra_node : !llvm.ptr<1>
    return
  }
}

// CHECK-LABEL: module attributes {distributed.target = "cpu"}
module attributes {distributed.target = "cpu"} {
  // CHECK-LABEL: func.func @notify_cpu
  func.func @notify_cpu(%s32: memref<16xi32>, %s64: memref<8xi64>, %v: i64, %peer: i32) {
    // CHECK: distributed.notify %{{.*}}, %{{.*}}, %{{.*}} sig_op = add scope = intra_node : memref<16xi32>
    distributed.notify %s32, %v, %peer sig_op = add scope = intra_node : memref<16xi32>
    // CHECK: distributed.notify %{{.*}}, %{{.*}}, %{{.*}} sig_op = set scope = gpu : memref<8xi64>
    distributed.notify %s64, %v, %peer sig_op = set scope = gpu : memref<8xi64>
    return
  }
}

// An explicit Ascend target behaves as the default.

// CHECK-LABEL: module attributes {distributed.target = "ascend"}
module attributes {distributed.target = "ascend"} {
  // CHECK-LABEL: func.func @notify_explicit_ascend
  func.func @notify_explicit_ascend(%s32: memref<16xi32>, %v: i64, %peer: i32) {
    // CHECK: distributed.notify %{{.*}}, %{{.*}}, %{{.*}} sig_op = add scope = gpu : memref<16xi32>
    distributed.notify %s32, %v, %peer sig_op = add scope = gpu : memref<16xi32>
    return
  }
}

// CHECK-LABEL: func.func @extern_call
// CHECK-SAME: (%[[SRC:.*]]: memref<1024xf32>, %[[DST:.*]]: memref<1024xf32>, %[[N:.*]]: i64, %[[PEER:.*]]: i32)
// GENERIC-LABEL: sym_name = "extern_call"
func.func @extern_call(%src: memref<1024xf32>, %dst: memref<1024xf32>, %n: i64, %peer: i32) -> (i32, i32, i64) {
  // Default attributes are not printed.
  // CHECK: distributed.extern_call "aclshmem_barrier_all"() : () -> ()
  // GENERIC: "distributed.extern_call"() <{libname = "", libpath = "", pure = false, symbol = "aclshmem_barrier_all"}> : () -> ()
  distributed.extern_call "aclshmem_barrier_all"() : () -> ()
  // CHECK: distributed.extern_call "aclshmem_quiet"() : () -> ()
  distributed.extern_call "aclshmem_quiet"() {libname = "", libpath = "", pure = false} : () -> ()
  // CHECK: distributed.extern_call "aclshmem_putmem"(%[[DST]], %[[SRC]], %[[N]], %[[PEER]]) {libname = "libshmem_device", libpath = "/opt/shmem/lib/libshmem_device.bc"} : (memref<1024xf32>, memref<1024xf32>, i64, i32) -> ()
  // GENERIC: "distributed.extern_call"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{libname = "libshmem_device", libpath = "/opt/shmem/lib/libshmem_device.bc", pure = false, symbol = "aclshmem_putmem"}>
  distributed.extern_call "aclshmem_putmem"(%dst, %src, %n, %peer) {libname = "libshmem_device", libpath = "/opt/shmem/lib/libshmem_device.bc"}
      : (memref<1024xf32>, memref<1024xf32>, i64, i32) -> ()
  // CHECK: %[[PE:.*]] = distributed.extern_call "aclshmem_my_pe"() {pure = true} : () -> i32
  %pe = distributed.extern_call "aclshmem_my_pe"() {pure = true} : () -> i32
  // Several results.
  // CHECK: %[[PAIR:.*]]:2 = distributed.extern_call "tdist_pair"(%[[PEER]]) : (i32) -> (i32, i64)
  %pair:2 = distributed.extern_call "tdist_pair"(%peer) : (i32) -> (i32, i64)
  // CHECK: return %[[PE]], %[[PAIR]]#0, %[[PAIR]]#1
  return %pe, %pair#0, %pair#1 : i32, i32, i64
}

// The generic form with the default-valued properties left out: the defaults
// are those of the front end (wait: gpu, acquire; notify: set, inter_node).

// CHECK-LABEL: func.func @generic_defaults
// CHECK-SAME: (%[[SIG:.*]]: memref<16xi32>, %[[V:.*]]: i64, %[[PEER:.*]]: i32)
func.func @generic_defaults(%sig: memref<16xi32>, %v: i64, %peer: i32) -> (i32, i32) {
  // CHECK: %[[C1:.*]] = arith.constant 1 : i32
  %c1 = "arith.constant"() <{value = 1 : i32}> : () -> i32
  // CHECK: %[[T:.*]] = distributed.wait %[[SIG]], %[[C1]], %[[C1]] scope = gpu semantic = acquire : memref<16xi32>, i32, i32 -> i32
  %t = "distributed.wait"(%sig, %c1, %c1) : (memref<16xi32>, i32, i32) -> i32
  // CHECK: distributed.notify %[[SIG]], %[[V]], %[[PEER]] sig_op = set scope = inter_node : memref<16xi32>
  "distributed.notify"(%sig, %v, %peer) : (memref<16xi32>, i64, i32) -> ()
  // CHECK: %[[R:.*]] = distributed.get_rank : i32
  %r = "distributed.get_rank"() : () -> i32
  // CHECK: distributed.extern_call "aclshmem_barrier_all"() : () -> ()
  "distributed.extern_call"() <{symbol = "aclshmem_barrier_all"}> : () -> ()
  // CHECK: return %[[T]], %[[R]]
  return %t, %r : i32, i32
}
