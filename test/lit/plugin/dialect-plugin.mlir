// Upstream mlir-opt, unmodified, reads and transforms distributed IR once it
// loads TdistPlugin.so: the dialect through --load-dialect-plugin, the passes
// through --load-pass-plugin (named with --pass-pipeline, since the plugin is
// loaded after mlir-opt made its per-pass flags).

// The tool is Debian's mlir-opt 22, the MLIR the plugin was built against.
// RUN: mlir-opt --version | FileCheck %s --check-prefix=VERSION
// VERSION: LLVM version 22.

// RUN: mlir-opt %s --load-dialect-plugin=%tdist_libs/TdistPlugin.so | FileCheck %s
// RUN: mlir-opt %s --load-dialect-plugin=%tdist_libs/TdistPlugin.so --mlir-print-op-generic \
// RUN:   | mlir-opt --load-dialect-plugin=%tdist_libs/TdistPlugin.so | FileCheck %s
// RUN: mlir-opt %s --load-dialect-plugin=%tdist_libs/TdistPlugin.so \
// RUN:   --load-pass-plugin=%tdist_libs/TdistPlugin.so \
// RUN:   --pass-pipeline='builtin.module(distributed-inject-barrier-all,canonicalize)' \
// RUN:   | FileCheck %s --check-prefix=BARRIER

// Without the plugin the dialect is unknown.
// RUN: not mlir-opt %s 2>&1 | FileCheck %s --check-prefix=NO-PLUGIN
// NO-PLUGIN: error: Dialect `distributed' not found for custom op 'distributed.get_rank'

// CHECK-LABEL: func.func @ring_step
// CHECK-SAME: (%[[SIG:.*]]: memref<16xi32>, %[[BUF:.*]]: memref<1024xf32>, %[[E:.*]]: i32)
// CHECK: %[[RANK:.*]] = distributed.get_rank : i32
// CHECK: %[[N:.*]] = distributed.get_num_ranks : i32
// CHECK: %[[T:.*]] = distributed.wait %[[SIG]], %{{.*}}, %[[E]] scope = gpu semantic = acquire : memref<16xi32>, i32, i32 -> i32
// CHECK: %[[READY:.*]] = distributed.consume_token %[[BUF]], %[[T]] : memref<1024xf32>, i32
// CHECK: %[[REMOTE:.*]] = distributed.symm_at %[[READY]], %[[PEER:.*]] : memref<1024xf32>
// CHECK: distributed.notify %[[SIG]], %{{.*}}, %[[PEER]] sig_op = add scope = intra_node : memref<16xi32>
// CHECK: distributed.extern_call "aclshmem_putmem"(%[[REMOTE]], %[[READY]]) {libname = "libshmem_device"}
// CHECK: return

// BARRIER-LABEL: func.func @ring_step
// BARRIER: distributed.extern_call "aclshmem_barrier_all"() : () -> ()
// BARRIER-NEXT: distributed.wait
// BARRIER-NEXT: distributed.extern_call "aclshmem_barrier_all"() : () -> ()
// BARRIER-NEXT: distributed.consume_token
// BARRIER-NEXT: distributed.symm_at
// BARRIER-NEXT: distributed.extern_call "aclshmem_barrier_all"() : () -> ()
// BARRIER-NEXT: distributed.notify
// BARRIER-NEXT: distributed.extern_call "aclshmem_barrier_all"() : () -> ()
// BARRIER-NEXT: distributed.extern_call "aclshmem_putmem"
// BARRIER-NEXT: distributed.extern_call "aclshmem_barrier_all"() : () -> ()
// BARRIER-NEXT: return
func.func @ring_step(%sig: memref<16xi32>, %buf: memref<1024xf32>, %epoch: i32) {
  %c1 = arith.constant 1 : i32
  %c1_i64 = arith.constant 1 : i64
  %rank = distributed.get_rank : i32
  %n = distributed.get_num_ranks : i32
  %next = arith.addi %rank, %c1 : i32
  %peer = arith.remsi %next, %n : i32
  %token = distributed.wait %sig, %c1, %epoch scope = gpu semantic = acquire : memref<16xi32>, i32, i32 -> i32
  %ready = distributed.consume_token %buf, %token : memref<1024xf32>, i32
  %remote = distributed.symm_at %ready, %peer : memref<1024xf32>
  distributed.notify %sig, %c1_i64, %peer sig_op = add scope = intra_node : memref<16xi32>
  distributed.extern_call "aclshmem_putmem"(%remote, %ready) {libname = "libshmem_device"}
      : (memref<1024xf32>, memref<1024xf32>) -> ()
  return
}
