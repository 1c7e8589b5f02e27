//===- Passes.td - passes on the distributed dialect -------*- tablegen -*-===//

#ifndef TDIST_DISTRIBUTED_PASSES
#define TDIST_DISTRIBUTED_PASSES

include "mlir/Pass/PassBase.td"

def DistributedInjectBarrierAllPass : Pass<"distributed-inject-barrier-all"> {
  let summary = "Surround every communicating distributed operation with "
                "barrier_all (debugging)";
  let description = [{
    A debugging aid, as the seeds' `--enable-hivm-inject-barrier-all-sync`
    switch: a kernel that works with this pass and fails without it has a
    fine-grained synchronization bug (a missing or misplaced wait, notify or
    reset), not an arithmetic or addressing one.

    Inserts `distributed.extern_call "aclshmem_barrier_all"() : () -> ()`
    immediately before and after every distributed operation that has memory
    effects: `wait`, `notify`, `symm_at`, and `extern_call`s that are not
    `pure`. The memory effects decide because they are what makes an
    operation's order against other PEs matter. `get_rank`, `get_num_ranks`
    and pure `extern_call`s only read state that no PE changes during a
    kernel, and `consume_token` emits no code, so a barrier around them
    separates nothing. A barrier that the operation reaches across
    effect-free operations only (arithmetic, `consume_token`, rank queries)
    already separates it from every memory access on that side, and is
    reused: neighbouring operations share the barrier between them, a barrier
    of the input counts, and running the pass twice changes nothing more.

    `barrier_all` is collective: every PE, and every program of the kernel,
    must reach each barrier. Use the pass on kernels in which every PE and
    program runs the communicating operations equally often: around an
    operation under rank- or program-dependent control flow the barriers
    deadlock.

    Example:

    ```mlir
    %token = distributed.wait %signals, %c1, %epoch scope = gpu semantic = acquire
        : memref<16xi32>, i32, i32 -> i32
    distributed.notify %peerSignals, %one, %peer sig_op = set scope = inter_node
        : memref<16xi32>
    ```

    becomes

    ```mlir
    distributed.extern_call "aclshmem_barrier_all"() : () -> ()
    %token = distributed.wait %signals, %c1, %epoch scope = gpu semantic = acquire
        : memref<16xi32>, i32, i32 -> i32
    distributed.extern_call "aclshmem_barrier_all"() : () -> ()
    distributed.notify %peerSignals, %one, %peer sig_op = set scope = inter_node
        : memref<16xi32>
    distributed.extern_call "aclshmem_barrier_all"() : () -> ()
    ```
  }];
  let dependentDialects = ["::mlir::triton::distributed::DistributedDialect"];
}

#endif // TDIST_DISTRIBUTED_PASSES
