//===- Passes.td - tdist's passes on upstream dialects -----*- tablegen -*-===//

#ifndef TDIST_TRANSFORMS_PASSES
#define TDIST_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def InterchangeReductionsPass : Pass<"tdist-interchange-reductions"> {
  let summary = "Move the reduction loops of linalg ops outside the output's contiguous loop";
  let description = [{
    `convert-linalg-to-loops` nests loops in the order of an op's iterators,
    and a contraction lists its reductions last: `linalg.matmul` becomes
    `for i, for j, for k: C[i, j] += A[i, k] * B[k, j]`. The innermost loop
    then walks B down a column and reads and writes the same C element every
    iteration, which LLVM can neither vectorize nor keep in a register, since
    it cannot tell C from A and B.

    This pass generalizes every linalg op whose innermost iterator is a
    reduction and whose output's last index is a parallel iterator, and
    interchanges its iterators so that this parallel iterator is innermost
    with the reductions just outside it: `for i, for k, for j`. The innermost
    loop then runs along the output's and the operands' contiguous rows, which
    LLVM's loop vectorizer handles (with run-time alias checks). The result is
    the same: only the order of the additions into each element, which is
    unchanged per element, and of independent elements changes.

    ```mlir
    linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>)
                  outs(%c : memref<?x?xf32>)
    ```

    becomes a `linalg.generic` with `iterator_types = ["parallel",
    "reduction", "parallel"]` and the indexing maps permuted to match.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

#endif // TDIST_TRANSFORMS_PASSES
