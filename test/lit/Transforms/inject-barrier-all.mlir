// RUN: tdist-opt %s --allow-unregistered-dialect --distributed-inject-barrier-all --split-input-file \
// RUN:   | FileCheck %s
// Idempotent: the barriers it inserted are reused by a second run.
// RUN: tdist-opt %s --allow-unregistered-dialect --distributed-inject-barrier-all --split-input-file \
// RUN:   | tdist-opt --allow-unregistered-dialect --distributed-inject-barrier-all --split-input-file \
// RUN:   | FileCheck %s

// Each communicating op gets a barrier on both sides; neighbours share one.

// CHECK-LABEL: func.func @adjacent
// CHECK-SAME: (%[[SIG:.*]]: memref<16xi32>, %[[BUF:.*]]: memref<1024xf32>, %[[PEER:.*]]: i32, %[[V:.*]]: i64)
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: distributed.extern_call "aclshmem_barrier_all"() : () -> ()
// CHECK-NEXT: %[[TOKEN:.*]] = distributed.wait %[[SIG]], %[[C1]], %[[C1]]
// CHECK-NEXT: distributed.extern_call "aclshmem_barrier_all"() : () -> ()
// CHECK-NEXT: %[[REMOTE:.*]] = distributed.symm_at %[[BUF]], %[[PEER]]
// CHECK-NEXT: distributed.extern_call "aclshmem_barrier_all"() : () -> ()
// CHECK-NEXT: distributed.notify %[[SIG]], %[[V]], %[[PEER]]
// CHECK-NEXT: distributed.extern_call "aclshmem_barrier_all"() : () -> ()
// CHECK-NEXT: distributed.extern_call "aclshmem_putmem"(%[[REMOTE]], %[[BUF]])
// CHECK-NEXT: distributed.extern_call "aclshmem_barrier_all"() : () -> ()
// CHECK-NEXT: return %[[TOKEN]]
func.func @adjacent(%sig: memref<16xi32>, %buf: memref<1024xf32>, %peer: i32, %v: i64) -> i32 {
  %c1 = arith.constant 1 : i32
  %token = distributed.wait %sig, %c1, %c1 scope = gpu semantic = acquire : memref<16xi32>, i32, i32 -> i32
  %remote = distributed.symm_at %buf, %peer : memref<1024xf32>
  distributed.notify %sig, %v, %peer sig_op = set scope = inter_node : memref<16xi32>
  distributed.extern_call "aclshmem_putmem"(%remote, %buf) : (memref<1024xf32>, memref<1024xf32>) -> ()
  return %token : i32
}

// -----

// Ops without memory effects get no barrier: get_rank, get_num_ranks and pure
// extern_calls read state no PE changes while the kernel runs, consume_token
// emits no code. Nor do they keep two communicating ops apart: the barrier
// after the wait also stands before the notify.

// CHECK-LABEL: func.func @effect_free
// CHECK-NEXT: %[[RANK:.*]] = distributed.get_rank : i32
// CHECK-NEXT: %[[N:.*]] = distributed.get_num_ranks : i32
// CHECK-NEXT: %[[PE:.*]] = distributed.extern_call "aclshmem_my_pe"() {pure = true}
// CHECK-NEXT: arith.constant
// CHECK-NEXT: distributed.extern_call "aclshmem_barrier_all"() : () -> ()
// CHECK-NEXT: %[[TOKEN:.*]] = distributed.wait
// CHECK-NEXT: distributed.extern_call "aclshmem_barrier_all"() : () -> ()
// CHECK-NEXT: %[[READY:.*]] = distributed.consume_token %{{.*}}, %[[TOKEN]]
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[RANK]], %[[PE]]
// CHECK-NEXT: %[[PEER:.*]] = arith.remsi %[[NEXT]], %[[N]]
// CHECK-NEXT: distributed.notify %{{.*}}, %{{.*}}, %[[PEER]]
// CHECK-NEXT: distributed.extern_call "aclshmem_barrier_all"() : () -> ()
// CHECK-NEXT: return %[[READY]]
func.func @effect_free(%sig: memref<16xi64>, %v: i64) -> memref<16xi64> {
  %rank = distributed.get_rank : i32
  %n = distributed.get_num_ranks : i32
  %pe = distributed.extern_call "aclshmem_my_pe"() {pure = true} : () -> i32
  %c1 = arith.constant 1 : i32
  %token = distributed.wait %sig, %c1, %v scope = gpu semantic = acquire : memref<16xi64>, i32, i64 -> i32
  %ready = distributed.consume_token %sig, %token : memref<16xi64>, i32
  %next = arith.addi %rank, %pe : i32
  %peer = arith.remsi %next, %n : i32
  distributed.notify %sig, %v, %peer sig_op = set scope = inter_node : memref<16xi64>
  return %ready : memref<16xi64>
}

// -----

// A memory access between two communicating ops keeps their barriers apart:
// the load must see the data the wait guards, before the notify tells a peer
// it may overwrite it.

// CHECK-LABEL: func.func @access_between
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: distributed.extern_call "aclshmem_barrier_all"() : () -> ()
// CHECK-NEXT: %[[TOKEN:.*]] = distributed.wait
// CHECK-NEXT: distributed.extern_call "aclshmem_barrier_all"() : () -> ()
// CHECK-NEXT: %[[READY:.*]] = distributed.consume_token
// CHECK-NEXT: %[[X:.*]] = memref.load %[[READY]]
// CHECK-NEXT: distributed.extern_call "aclshmem_barrier_all"() : () -> ()
// CHECK-NEXT: distributed.notify
// CHECK-NEXT: distributed.extern_call "aclshmem_barrier_all"() : () -> ()
// CHECK-NEXT: return %[[X]]
func.func @access_between(%sig: memref<16xi32>, %buf: memref<1024xf32>, %v: i64, %peer: i32, %i: index) -> f32 {
  %c1 = arith.constant 1 : i32
  %token = distributed.wait %sig, %c1, %c1 scope = gpu semantic = acquire : memref<16xi32>, i32, i32 -> i32
  %ready = distributed.consume_token %buf, %token : memref<1024xf32>, i32
  %x = memref.load %ready[%i] : memref<1024xf32>
  distributed.notify %sig, %v, %peer sig_op = set scope = inter_node : memref<16xi32>
  return %x : f32
}

// -----

// A barrier_all of the input counts, also across effect-free ops: it is
// neither doubled nor wrapped.

// CHECK-LABEL: func.func @existing_barriers
// CHECK-NEXT: distributed.extern_call "aclshmem_barrier_all"() : () -> ()
// CHECK-NEXT: distributed.get_rank
// CHECK-NEXT: distributed.notify
// CHECK-NEXT: distributed.extern_call "aclshmem_barrier_all"() : () -> ()
// CHECK-NEXT: distributed.extern_call "aclshmem_quiet"() : () -> ()
// CHECK-NEXT: distributed.extern_call "aclshmem_barrier_all"() : () -> ()
// CHECK-NEXT: return
func.func @existing_barriers(%sig: memref<16xi32>, %v: i64, %peer: i32) {
  distributed.extern_call "aclshmem_barrier_all"() : () -> ()
  %rank = distributed.get_rank : i32
  distributed.notify %sig, %v, %peer sig_op = add scope = gpu : memref<16xi32>
  distributed.extern_call "aclshmem_quiet"() : () -> ()
  return
}

// -----

// Ops in nested regions get their barriers in the same block: the loop body
// synchronizes once per iteration.

// CHECK-LABEL: func.func @loop
// CHECK: scf.for
// CHECK-NEXT: distributed.extern_call "aclshmem_barrier_all"() : () -> ()
// CHECK-NEXT: distributed.notify
// CHECK-NEXT: distributed.extern_call "aclshmem_barrier_all"() : () -> ()
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @loop(%sig: memref<16xi32>, %v: i64, %peer: i32, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    distributed.notify %sig, %v, %peer sig_op = set scope = gpu : memref<16xi32>
  }
  return
}

// -----

// An opaque pointer and a tensor of pointers are handled alike.

// CHECK-LABEL: func.func @pointer_kinds
// CHECK-NEXT: arith.constant
// CHECK-NEXT: distributed.extern_call "aclshmem_barrier_all"() : () -> ()
// CHECK-NEXT: distributed.wait %{{.*}} : tensor<4x!llvm.ptr>
// CHECK-NEXT: distributed.extern_call "aclshmem_barrier_all"() : () -> ()
// CHECK-NEXT: distributed.symm_at %{{.*}} : !llvm.ptr<1>
// CHECK-NEXT: distributed.extern_call "aclshmem_barrier_all"() : () -> ()
// CHECK-NEXT: return
func.func @pointer_kinds(%ptrs: tensor<4x!llvm.ptr>, %p: !llvm.ptr<1>, %peer: i32) -> (i32, !llvm.ptr<1>) {
  %c1 = arith.constant 1 : i32
  %token = distributed.wait %ptrs, %c1, %c1 scope = gpu semantic = acquire : tensor<4x!llvm.ptr>, i32, i32 -> i32
  %remote = distributed.symm_at %p, %peer : !llvm.ptr<1>
  return %token, %remote : i32, !llvm.ptr<1>
}

// -----

// Triton input keeps its own ops unregistered: they have no known effects,
// so they count as memory accesses.

// CHECK-LABEL: "tt.func"()
// CHECK: %[[X:.*]] = "tt.load"
// CHECK-NEXT: distributed.extern_call "aclshmem_barrier_all"() : () -> ()
// CHECK-NEXT: distributed.notify
// CHECK-NEXT: distributed.extern_call "aclshmem_barrier_all"() : () -> ()
// CHECK-NEXT: "tt.return"()
"tt.func"() ({
^bb0(%sig: memref<16xi32>, %v: i64, %peer: i32):
  %x = "tt.load"(%sig) : (memref<16xi32>) -> i32
  distributed.notify %sig, %v, %peer sig_op = set scope = gpu : memref<16xi32>
  "tt.return"() : () -> ()
}) {sym_name = "triton_kernel"} : () -> ()

// -----

// Nothing to do without distributed operations.

// CHECK-LABEL: func.func @none
// CHECK-NOT: aclshmem_barrier_all
// CHECK: return
func.func @none(%x: i32) -> i32 {
  return %x : i32
}
