// RUN: tdist-opt %s --canonicalize --split-input-file | FileCheck %s --check-prefix=CANON
// RUN: tdist-opt %s --cse --split-input-file | FileCheck %s --check-prefix=CSE
// RUN: tdist-opt %s --loop-invariant-code-motion --split-input-file | FileCheck %s --check-prefix=LICM

// The memory effects of seed 001 §2.4, seen through upstream passes:
//   get_rank, get_num_ranks    Pure
//   consume_token              no effects, not speculatable
//   wait, symm_at              read
//   notify                     read + write
//   extern_call                none when pure (and speculatable), else read + write

// Ops without effects and unused are dead.

// CANON-LABEL: func.func @unused_effect_free_ops
// CANON-NEXT: return
func.func @unused_effect_free_ops(%buf: memref<16xi32>, %t: i32) {
  %r = distributed.get_rank : i32
  %n = distributed.get_num_ranks : i32
  %pe = distributed.extern_call "aclshmem_my_pe"() {pure = true} : () -> i32
  %x = distributed.consume_token %buf, %t : memref<16xi32>, i32
  return
}

// -----

// An op that only reads is dead once its result is unused. For a wait, this
// is why its token has to reach a consume_token (or another use): a wait
// whose token nobody uses orders nothing, and the optimizer drops it.

// CANON-LABEL: func.func @unused_reads
// CANON-NEXT: return
func.func @unused_reads(%sig: memref<16xi32>, %buf: memref<1024xf32>, %peer: i32, %e: i32) {
  %c1 = arith.constant 1 : i32
  %t = distributed.wait %sig, %c1, %e scope = gpu semantic = acquire : memref<16xi32>, i32, i32 -> i32
  %remote = distributed.symm_at %buf, %peer : memref<1024xf32>
  return
}

// -----

// A wait whose token orders a later access stays, and so does the access.

// CANON-LABEL: func.func @consumed_wait
// CANON-SAME: (%[[SIG:.*]]: memref<16xi32>, %[[BUF:.*]]: memref<1024xf32>, %[[E:.*]]: i32, %[[I:.*]]: index)
// CANON: %[[T:.*]] = distributed.wait %[[SIG]]
// CANON-NEXT: %[[READY:.*]] = distributed.consume_token %[[BUF]], %[[T]]
// CANON-NEXT: %[[V:.*]] = memref.load %[[READY]][%[[I]]]
// CANON-NEXT: return %[[V]]
func.func @consumed_wait(%sig: memref<16xi32>, %buf: memref<1024xf32>, %e: i32, %i: index) -> f32 {
  %c1 = arith.constant 1 : i32
  %t = distributed.wait %sig, %c1, %e scope = gpu semantic = acquire : memref<16xi32>, i32, i32 -> i32
  %ready = distributed.consume_token %buf, %t : memref<1024xf32>, i32
  %v = memref.load %ready[%i] : memref<1024xf32>
  return %v : f32
}

// -----

// Writes stay, used or not.

// CANON-LABEL: func.func @writes
// CANON-NEXT: distributed.notify
// CANON-NEXT: distributed.extern_call "aclshmem_quiet"()
// CANON-NEXT: %{{.*}} = distributed.extern_call "aclshmem_int32_atomic_fetch_add"
// CANON-NEXT: return
func.func @writes(%sig: memref<16xi32>, %v: i64, %peer: i32, %one: i32) {
  distributed.notify %sig, %v, %peer sig_op = add scope = gpu : memref<16xi32>
  distributed.extern_call "aclshmem_quiet"() : () -> ()
  %old = distributed.extern_call "aclshmem_int32_atomic_fetch_add"(%sig, %one, %peer)
      : (memref<16xi32>, i32, i32) -> i32
  return
}

// -----

// CSE merges what has no effects, and reads with no write between them.

// CSE-LABEL: func.func @cse_effect_free
// CSE-NEXT: %[[R:.*]] = distributed.get_rank : i32
// CSE-NEXT: %[[N:.*]] = distributed.get_num_ranks : i32
// CSE-NEXT: %[[PE:.*]] = distributed.extern_call "aclshmem_my_pe"() {pure = true}
// CSE-NEXT: return %[[R]], %[[R]], %[[N]], %[[N]], %[[PE]], %[[PE]]
func.func @cse_effect_free() -> (i32, i32, i32, i32, i32, i32) {
  %r0 = distributed.get_rank : i32
  %r1 = distributed.get_rank : i32
  %n0 = distributed.get_num_ranks : i32
  %n1 = distributed.get_num_ranks : i32
  %pe0 = distributed.extern_call "aclshmem_my_pe"() {pure = true} : () -> i32
  %pe1 = distributed.extern_call "aclshmem_my_pe"() {pure = true} : () -> i32
  return %r0, %r1, %n0, %n1, %pe0, %pe1 : i32, i32, i32, i32, i32, i32
}

// -----

// A second identical wait with no write between is the first: no PE can be
// told to change the slot without a write of this one.

// CSE-LABEL: func.func @cse_reads
// CSE: %[[T:.*]] = distributed.wait
// CSE-NEXT: %[[REMOTE:.*]] = distributed.symm_at
// CSE-NEXT: return %[[T]], %[[T]], %[[REMOTE]], %[[REMOTE]]
func.func @cse_reads(%sig: memref<16xi32>, %buf: memref<1024xf32>, %peer: i32, %e: i32)
    -> (i32, i32, memref<1024xf32>, memref<1024xf32>) {
  %c1 = arith.constant 1 : i32
  %t0 = distributed.wait %sig, %c1, %e scope = gpu semantic = acquire : memref<16xi32>, i32, i32 -> i32
  %t1 = distributed.wait %sig, %c1, %e scope = gpu semantic = acquire : memref<16xi32>, i32, i32 -> i32
  %a = distributed.symm_at %buf, %peer : memref<1024xf32>
  %b = distributed.symm_at %buf, %peer : memref<1024xf32>
  return %t0, %t1, %a, %b : i32, i32, memref<1024xf32>, memref<1024xf32>
}

// -----

// A notify or a non-pure call between two waits may make a peer reset and
// set the slot again: both waits stay. Non-pure calls are never merged.

// CSE-LABEL: func.func @cse_across_writes
// CSE: %[[T0:.*]] = distributed.wait
// CSE-NEXT: distributed.notify
// CSE-NEXT: %[[T1:.*]] = distributed.wait
// CSE-NEXT: distributed.extern_call "aclshmem_quiet"()
// CSE-NEXT: %[[T2:.*]] = distributed.wait
// CSE-NEXT: %[[A:.*]] = distributed.extern_call "aclshmem_int32_g"
// CSE-NEXT: %[[B:.*]] = distributed.extern_call "aclshmem_int32_g"
// CSE-NEXT: return %[[T0]], %[[T1]], %[[T2]], %[[A]], %[[B]]
func.func @cse_across_writes(%sig: memref<16xi32>, %v: i64, %peer: i32, %e: i32) -> (i32, i32, i32, i32, i32) {
  %c1 = arith.constant 1 : i32
  %t0 = distributed.wait %sig, %c1, %e scope = gpu semantic = acquire : memref<16xi32>, i32, i32 -> i32
  distributed.notify %sig, %v, %peer sig_op = set scope = gpu : memref<16xi32>
  %t1 = distributed.wait %sig, %c1, %e scope = gpu semantic = acquire : memref<16xi32>, i32, i32 -> i32
  distributed.extern_call "aclshmem_quiet"() : () -> ()
  %t2 = distributed.wait %sig, %c1, %e scope = gpu semantic = acquire : memref<16xi32>, i32, i32 -> i32
  %a = distributed.extern_call "aclshmem_int32_g"(%sig, %peer) : (memref<16xi32>, i32) -> i32
  %b = distributed.extern_call "aclshmem_int32_g"(%sig, %peer) : (memref<16xi32>, i32) -> i32
  return %t0, %t1, %t2, %a, %b : i32, i32, i32, i32, i32
}

// -----

// A wait only reads, so it orders nothing by itself: a load of the guarded
// data that does not go through consume_token is merged with a load from
// before the wait. Through consume_token it is a load of another value, and
// stays after the wait.

// CSE-LABEL: func.func @acquire_needs_consume_token
// CSE-SAME: (%[[SIG:.*]]: memref<16xi32>, %[[BUF:.*]]: memref<16xf32>, %{{.*}}: i32)
// CSE: %[[EARLY:.*]] = memref.load %[[BUF]]
// CSE-NEXT: %[[T:.*]] = distributed.wait %[[SIG]]
// CSE-NEXT: %[[READY:.*]] = distributed.consume_token %[[BUF]], %[[T]]
// CSE-NEXT: %[[LATE:.*]] = memref.load %[[READY]]
// CSE-NEXT: return %[[EARLY]], %[[EARLY]], %[[LATE]]
func.func @acquire_needs_consume_token(%sig: memref<16xi32>, %buf: memref<16xf32>, %e: i32) -> (f32, f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : i32
  %early = memref.load %buf[%c0] : memref<16xf32>
  %t = distributed.wait %sig, %c1, %e scope = gpu semantic = acquire : memref<16xi32>, i32, i32 -> i32
  %unordered = memref.load %buf[%c0] : memref<16xf32>
  %ready = distributed.consume_token %buf, %t : memref<16xf32>, i32
  %late = memref.load %ready[%c0] : memref<16xf32>
  return %early, %unordered, %late : f32, f32, f32
}

// -----

// LICM hoists only what has no effects and may be speculated: the rank
// queries and pure calls. Waits, notifies, symm_at and non-pure calls stay
// in the loop; so does consume_token, which is not declared speculatable,
// even when its operands are defined outside.

func.func private @use(memref<1024xf32>, memref<1024xf32>, i32)

// LICM-LABEL: func.func @loop_invariant
// LICM-SAME: (%{{.*}}, %[[BUF:.*]]: memref<1024xf32>, %{{.*}}: i64, %{{.*}}: i32, %[[T:.*]]: i32, %{{.*}}: index)
// LICM-NEXT: arith.constant
// LICM-NEXT: arith.constant
// LICM-NEXT: arith.constant
// LICM-NEXT: %[[R:.*]] = distributed.get_rank
// LICM-NEXT: %[[N:.*]] = distributed.get_num_ranks
// LICM-NEXT: %[[PE:.*]] = distributed.extern_call "aclshmem_my_pe"() {pure = true}
// LICM-NEXT: scf.for
// LICM-NEXT: distributed.wait
// LICM-NEXT: distributed.consume_token
// LICM-NEXT: distributed.symm_at
// LICM-NEXT: distributed.consume_token %[[BUF]], %[[T]]
// LICM-NEXT: distributed.notify
// LICM-NEXT: distributed.extern_call "aclshmem_quiet"()
// LICM-NEXT: func.call @use
// LICM-NEXT: }
func.func @loop_invariant(%sig: memref<16xi32>, %buf: memref<1024xf32>, %v: i64, %e: i32, %token: i32,
                          %steps: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  scf.for %i = %c0 to %steps step %c1 {
    %r = distributed.get_rank : i32
    %n = distributed.get_num_ranks : i32
    %pe = distributed.extern_call "aclshmem_my_pe"() {pure = true} : () -> i32
    %t = distributed.wait %sig, %one, %e scope = gpu semantic = acquire : memref<16xi32>, i32, i32 -> i32
    %ready = distributed.consume_token %buf, %t : memref<1024xf32>, i32
    %remote = distributed.symm_at %ready, %r : memref<1024xf32>
    %invariant = distributed.consume_token %buf, %token : memref<1024xf32>, i32
    distributed.notify %sig, %v, %n sig_op = set scope = gpu : memref<16xi32>
    distributed.extern_call "aclshmem_quiet"() : () -> ()
    func.call @use(%remote, %invariant, %pe) : (memref<1024xf32>, memref<1024xf32>, i32) -> ()
  }
  return
}
