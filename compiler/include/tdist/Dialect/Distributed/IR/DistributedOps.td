//===- DistributedOps.td - the seven distributed operations ---------------===//
//
// Operands, results and traits as seed 001 §2.2. Memory effects are written in
// C++ (seed 001 §2.4), and every op has a verifier.
//
//===----------------------------------------------------------------------===//

#ifndef TDIST_DISTRIBUTED_OPS
#define TDIST_DISTRIBUTED_OPS

include "tdist/Dialect/Distributed/IR/DistributedBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Dialect/LLVMIR/LLVMTypes.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

// A pointer to symmetric memory: a memref or an LLVM pointer.
def Distributed_Ptr : AnyTypeOf<[AnyMemRef, LLVM_AnyPointer], "pointer (memref or !llvm.ptr)">;
def Distributed_PtrLike : AnyTypeOf<[Distributed_Ptr, RankedTensorOf<[LLVM_AnyPointer]>],
    "pointer or ranked tensor of pointers">;
def Distributed_IntLike : AnyTypeOf<[AnyInteger, RankedTensorOf<[AnyInteger]>],
    "integer or ranked tensor of integers">;

//===----------------------------------------------------------------------===//
// Base class
//===----------------------------------------------------------------------===//

class Distributed_Op<string mnemonic, list<Trait> traits = []>
    : Op<Distributed_Dialect, mnemonic, traits> {
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Operations
//===----------------------------------------------------------------------===//

def Distributed_WaitOp : Distributed_Op<"wait",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "wait until signal slots reach a value";
  let description = [{
    Waits until each of `numBarriers` signal slots, starting at `barrierPtr`
    and one 64-byte line apart (`64 / sizeof(element)` elements), holds
    `waitValue`. The wait only reads: several waiters may wait on one slot,
    and whoever resets a slot is named by the kernel. The result is a token
    that `consume_token` ties later memory accesses to.

    `numBarriers` is any integer value, at most 65536 (`kMaxWaitSlots`): a
    constant one is checked here, a dynamic one when the wait runs.
    `waitValue` has the element type of the pointee. `semantic` is `acquire`
    or `relaxed`.

    As seed 001 §2.4 specifies, a wait only reads memory. Passes therefore
    treat a wait whose token is never used as dead and may remove it: always
    pass the token to `consume_token` for the accesses the wait guards.

    ```mlir
    %token = distributed.wait %signals, %c4, %epoch scope = sys semantic = acquire
        : memref<64xi32>, i32, i32 -> i32
    ```
  }];
  let arguments = (ins Distributed_PtrLike:$barrierPtr, Distributed_IntLike:$numBarriers,
                       AnyInteger:$waitValue,
                       DefaultValuedAttr<Distributed_MemScope, "::mlir::triton::distributed::MemScope::GPU">:$scope,
                       DefaultValuedAttr<Distributed_MemSemantic, "::mlir::triton::distributed::MemSemantic::ACQUIRE">:$semantic);
  let results = (outs Distributed_IntLike:$token);
  let assemblyFormat = [{
    $barrierPtr `,` $numBarriers `,` $waitValue `scope` `=` $scope `semantic` `=` $semantic
    attr-dict `:` type($barrierPtr) `,` type($numBarriers) `,` type($waitValue) `->` type($token)
  }];
}

def Distributed_ConsumeTokenOp : Distributed_Op<"consume_token",
    [Elementwise, AllTypesMatch<["input", "result"]>,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "order accesses through a value after a wait";
  let description = [{
    Returns `input` unchanged. Accesses through the result depend on the wait
    that produced `token`, so no transformation can hoist them above it. It
    has no memory effects: it is an IR dependency anchor, with no runtime
    cost.

    ```mlir
    %data = distributed.consume_token %buffer, %token : memref<1024xf32>, i32
    ```
  }];
  let arguments = (ins AnyType:$input, Distributed_IntLike:$token);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$input `,` $token attr-dict `:` type($input) `,` type($token)";
}

class Distributed_RankQueryOp<string mnemonic, string what> : Distributed_Op<mnemonic, [Pure]> {
  let summary = "the " # what;
  let arguments = (ins DefaultValuedAttr<I32Attr, "0">:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "(`axis` `=` $axis^)? attr-dict `:` type($result)";
}

def Distributed_GetRankOp : Distributed_RankQueryOp<"get_rank", "rank of the calling PE"> {
  let description = [{
    The rank of the PE that runs the kernel, along `axis` of the device mesh
    (only axis 0, the world, exists today).

    ```mlir
    %rank = distributed.get_rank : i32
    ```
  }];
}

def Distributed_GetNumRanksOp : Distributed_RankQueryOp<"get_num_ranks", "number of PEs"> {
  let description = [{
    The number of PEs along `axis` of the device mesh (only axis 0 exists).

    ```mlir
    %n = distributed.get_num_ranks : i32
    ```
  }];
}

def Distributed_SymmAtOp : Distributed_Op<"symm_at",
    [AllTypesMatch<["symmAddr", "remoteAddr"]>,
     DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "address of a symmetric object on another PE";
  let description = [{
    Translates `symmAddr`, an address on this PE's symmetric heap, to the
    address of the same object on PE `rank`: the peer's heap base plus the
    symmetric offset. The pointer must be scalar (not a tensor of pointers).

    ```mlir
    %remote = distributed.symm_at %buffer, %peer : memref<1024xf32>
    ```
  }];
  let arguments = (ins Distributed_Ptr:$symmAddr, I32:$rank);
  let results = (outs Distributed_Ptr:$remoteAddr);
  let assemblyFormat = "$symmAddr `,` $rank attr-dict `:` type($symmAddr)";
}

def Distributed_NotifyOp : Distributed_Op<"notify",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "set or add a signal on another PE";
  let description = [{
    Updates the signal at `sigAddr` on PE `rank`: `set` stores `signalVal`
    with release order, `add` adds it atomically. The signal's type is the
    pointee's element type, and the target decides which are allowed: on
    Ascend i32 with `set` or `add`, i64 and ui64 with `set` only; on other
    targets i64 and ui64.

    ```mlir
    distributed.notify %signal, %value, %peer sig_op = add scope = inter_node : memref<16xi32>
    ```
  }];
  let arguments = (ins Distributed_Ptr:$sigAddr, I64:$signalVal, I32:$rank,
                       DefaultValuedAttr<Distributed_SignalOp, "::mlir::triton::distributed::SignalOp::SET">:$sigOp,
                       DefaultValuedAttr<Distributed_CommScope, "::mlir::triton::distributed::CommScope::INTER_NODE">:$commScope);
  let assemblyFormat = [{
    $sigAddr `,` $signalVal `,` $rank `sig_op` `=` $sigOp `scope` `=` $commScope
    attr-dict `:` type($sigAddr)
  }];
}

def Distributed_ExternCallOp : Distributed_Op<"extern_call",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
     DeclareOpInterfaceMethods<ConditionallySpeculatable>]> {
  let summary = "call a function of the communication library";
  let description = [{
    Calls `symbol` of library `libname` (found at `libpath`) with `srcs`. A
    `pure` call has no memory effects and may be speculated; any other call
    reads and writes memory.

    ```mlir
    distributed.extern_call "aclshmem_barrier_all"() : () -> ()
    %n = distributed.extern_call "aclshmem_n_pes"() {pure = true} : () -> i32
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$srcs,
                       StrAttr:$symbol,
                       DefaultValuedStrAttr<StrAttr, "">:$libname,
                       DefaultValuedStrAttr<StrAttr, "">:$libpath,
                       DefaultValuedAttr<BoolAttr, "false">:$pure);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = "$symbol `(` $srcs `)` attr-dict `:` functional-type($srcs, $results)";
}

#endif // TDIST_DISTRIBUTED_OPS
