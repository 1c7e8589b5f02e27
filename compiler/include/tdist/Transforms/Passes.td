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

def TraceSpansPass : Pass<"tdist-trace-spans", "::mlir::ModuleOp"> {
  let summary = "Record each tile's compute, and each op marked tdist.span, as a trace span";
  let description = [{
    For the cpu backend, after `convert-hivm-distributed-to-call`: puts a
    span of the job's trace (`tdist-run --trace`, docs/TRACING.md) around

    - every linalg op on memrefs: a `compute` span named after the op
      (`matmul`, `fill`, `add`, ...), whose tile coordinates `m` and `n` are
      the offsets of the op's first output in its first two dimensions when
      that output is a `memref.subview` (seen through `memref.cast`): the
      tile's first row and column, as the kernel library's `gemm_tile`
      spans have. Other outputs give no coordinates (-1);
    - every operation with a `tdist.span = "NAME"` attribute: a span of
      that name, in the category `tdist.span_category` gives (`"user"`, the
      default, `"call"`, `"compute"`, `"move"` or `"wait"`). On a linalg op
      the two attributes replace the op's name and `compute`; the
      coordinates stay.

    A span is a call of the template library's
    `tdist_trace_begin_span_m1(name, m, n, category)` before the op (the
    name is a constant `memref.global` of its bytes) and of
    `_mlir_ciface_tdist_trace_end()` after it. The attributes are removed.
    With tracing off each call costs one branch.

    With `record=false` the pass only checks and removes the attributes,
    which `tdist-cpu-pipeline` does when it records no spans: a malformed
    attribute is an error either way. The errors: a name that is not a
    non-empty string of at most 31 bytes (what a trace keeps), an unknown
    category, a category without a name on an op that is not a linalg op,
    a span on a terminator, on an op outside a function body or inside a
    linalg op, and a module that declares one of the two functions with
    another type. Nothing changes when there is an error.

    ```mlir
    linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>)
                  outs(%tile : memref<?x?xf32, strided<[?, 1], offset: ?>>)
    // becomes (%tile = memref.subview %c[%row, 0] ...)
    %name = memref.get_global @tdist_span_matmul : memref<6xi8>
    %m = arith.index_cast %row : index to i32
    func.call @tdist_trace_begin_span_m1(%cast, %m, %c0_i32, %c2_i32) : (...) -> ()
    linalg.matmul ...
    func.call @_mlir_ciface_tdist_trace_end() : () -> ()
    ```
  }];
  let options = [
    Option<"record", "record", "bool", /*default=*/"true",
           "Insert the span calls; false: only check and remove the attributes">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
}

def MapProgramsToBlocksPass : Pass<"tdist-map-programs-to-blocks"> {
  let summary = "Run each program of a kernel's grid as a GPU thread block";
  let description = [{
    For the cuda backend, after `convert-hivm-distributed-to-call`: a call
    of `_mlir_ciface_tdist_program_id(axis)` becomes `gpu.block_id` and one
    of `_mlir_ciface_tdist_num_programs(axis)` becomes `gpu.grid_dim`, in
    the dimension x, y or z that the axis 0, 1 or 2 names, cast to the
    call's integer type; the declarations go when nothing calls them. The
    grid of programs is then the launch's grid of blocks, as on the cpu
    backend it is the runner's grid of programs (`tdist-run --grid`).

    A constant axis outside 0..2 is an error; an axis known only at run
    time selects among the three, behind a `cf.assert` that it is in range.

    ```mlir
    %pid = func.call @_mlir_ciface_tdist_program_id(%c0_i32) : (i32) -> i32
    // becomes
    %block = gpu.block_id x
    %pid = arith.index_cast %block : index to i32
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::cf::ControlFlowDialect",
                           "::mlir::gpu::GPUDialect"];
}

def MemRefCopyToLinalgPass : Pass<"tdist-memref-copy-to-linalg"> {
  let summary = "Turn memref.copy into linalg.copy, whose loops a GPU kernel can run";
  let description = [{
    The LLVM lowering of a `memref.copy` between memrefs that are not both
    contiguous is a call of `memrefCopy`, a function of MLIR's host runner
    library that no GPU module has. As a `linalg.copy`, the copy becomes
    loops of loads and stores (`convert-linalg-to-loops`) in the kernel
    itself: `tdist-cuda-pipeline` runs this before that pass.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def PlaceInGPUModulePass : Pass<"tdist-place-in-gpu-module", "::mlir::ModuleOp"> {
  let summary = "Move a module's functions into a gpu.module, its public functions as kernels";
  let description = [{
    For the cuda backend, once the functions are in upstream dialects that
    `convert-gpu-to-nvvm` lowers: everything in the module moves into one
    `gpu.module` (named by `module-name`), and the module becomes a
    `gpu.container_module`. Every public function with a body becomes a
    `gpu.func` kernel with `known_block_size = [1, 1, 1]`: a program of the
    grid is one block of one thread (the cpu backend runs it on one thread
    too), so that each call of the device library is made once per program.
    Private functions stay functions of the device module.

    `convert-gpu-to-nvvm` lowers every `func.func` of a `gpu.module` with
    MLIR's C interface, so that a declaration `@f` is called as
    `_mlir_ciface_f`. The template library's entry points without memrefs
    are declared by their link names, which already carry that prefix
    (`convert-hivm-distributed-to-call`): this pass removes it from those
    declarations, and the lowering puts it back.

    Errors: a kernel with results (a launch has nowhere to put them), a
    kernel that another function calls, a name that the prefix's removal
    would give twice, and a module that already holds a `gpu.module`.
  }];
  let options = [
    Option<"moduleName", "module-name", "std::string", /*default=*/"\"tdist_kernels\"",
           "The name of the gpu.module">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def CheckDeviceLibraryPass : Pass<"tdist-check-device-library", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Check that the device library defines every function a GPU module calls, with its type";
  let description = [{
    For the cuda backend, once a `gpu.module` is in the LLVM dialect
    (`convert-gpu-to-nvvm`): every function it declares without a body must
    be defined by the device library's bitcode (`library`), with the same
    LLVM function type, except LLVM's intrinsics, libdevice's `__nv_`
    functions and what the CUDA driver provides (`vprintf`, `__assertfail`,
    `malloc`, `free`). A missing one is reported at its first call, which
    carries the location of the distributed op it came from, instead of
    ptxas's "Unresolved extern function" after the PTX is written; a type
    that differs (a wait whose token is not the library's `i32`) would be an
    undefined call through a prototype of the caller's type, and is an error
    too. `tdist-cuda-pipeline` runs this before `gpu-module-to-binary`.
  }];
  let options = [
    Option<"library", "library", "std::string", /*default=*/"",
           "The device library's bitcode (or LLVM IR)">,
  ];
}

#endif // TDIST_TRANSFORMS_PASSES
