// RUN: tdist-opt %s -split-input-file -verify-diagnostics

// Every verifier rule, every type constraint, and the target attribute.

//===----------------------------------------------------------------------===//
// wait
//===----------------------------------------------------------------------===//

// A constant tensor of counts is checked element by element.
func.func @wait_count_not_splat(%ptrs: tensor<4x!llvm.ptr>, %e: i32) -> tensor<4xi32> {
  %n = arith.constant dense<[1, 2, 0, 4]> : tensor<4xi32>
  // expected-error@+1 {{'distributed.wait' op the number of barriers must be positive and at most 65536, got 0}}
  %t = distributed.wait %ptrs, %n, %e scope = gpu semantic = acquire : tensor<4x!llvm.ptr>, tensor<4xi32>, i32 -> tensor<4xi32>
  return %t : tensor<4xi32>
}

// -----

func.func @wait_count_zero(%sig: memref<16xi32>, %e: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  // expected-error@+1 {{'distributed.wait' op the number of barriers must be positive and at most 65536, got 0}}
  %t = distributed.wait %sig, %c0, %e scope = gpu semantic = acquire : memref<16xi32>, i32, i32 -> i32
  return %t : i32
}

// -----

func.func @wait_count_negative(%sig: memref<16xi64>, %e: i64) -> i32 {
  %c = arith.constant -1 : i64
  // expected-error@+1 {{'distributed.wait' op the number of barriers must be positive and at most 65536, got -1}}
  %t = distributed.wait %sig, %c, %e scope = gpu semantic = acquire : memref<16xi64>, i64, i64 -> i32
  return %t : i32
}

// -----

func.func @wait_count_negative_splat(%ptrs: tensor<4x!llvm.ptr>, %e: i32) -> tensor<4xi32> {
  %n = arith.constant dense<-2> : tensor<4xi32>
  // expected-error@+1 {{'distributed.wait' op the number of barriers must be positive and at most 65536, got -2}}
  %t = distributed.wait %ptrs, %n, %e scope = gpu semantic = acquire : tensor<4x!llvm.ptr>, tensor<4xi32>, i32 -> tensor<4xi32>
  return %t : tensor<4xi32>
}

// -----

func.func @wait_value_mismatch(%sig: memref<16xi64>, %e: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  // expected-error@+1 {{'distributed.wait' op wait value type 'i32' must match the signal element type 'i64'}}
  %t = distributed.wait %sig, %c1, %e scope = gpu semantic = acquire : memref<16xi64>, i32, i32 -> i32
  return %t : i32
}

// -----

// Signedness counts: an si32 slot is not waited on with an i32.
func.func @wait_value_signedness(%sig: memref<16xsi32>, %e: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  // expected-error@+1 {{'distributed.wait' op wait value type 'i32' must match the signal element type 'si32'}}
  %t = distributed.wait %sig, %c1, %e scope = gpu semantic = acquire : memref<16xsi32>, i32, i32 -> i32
  return %t : i32
}

// -----

// A float slot is no signal.
func.func @wait_float_signal(%sig: memref<16xf32>, %e: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  // expected-error@+1 {{'distributed.wait' op wait value type 'i32' must match the signal element type 'f32'}}
  %t = distributed.wait %sig, %c1, %e scope = gpu semantic = acquire : memref<16xf32>, i32, i32 -> i32
  return %t : i32
}

// -----

func.func @wait_release(%sig: memref<16xi32>, %e: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  // expected-error@+1 {{'distributed.wait' op semantic must be 'acquire' or 'relaxed', got 'release'}}
  %t = distributed.wait %sig, %c1, %e scope = gpu semantic = release : memref<16xi32>, i32, i32 -> i32
  return %t : i32
}

// -----

func.func @wait_acq_rel(%sig: memref<16xi32>, %e: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  // expected-error@+1 {{'distributed.wait' op semantic must be 'acquire' or 'relaxed', got 'acq_rel'}}
  %t = distributed.wait %sig, %c1, %e scope = sys semantic = acq_rel : memref<16xi32>, i32, i32 -> i32
  return %t : i32
}

// -----

func.func @wait_pointer_of_integers(%sig: tensor<4xi32>, %e: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  // expected-error@+1 {{'distributed.wait' op operand #0 must be pointer or ranked tensor of pointers, but got 'tensor<4xi32>'}}
  %t = distributed.wait %sig, %c1, %e scope = gpu semantic = acquire : tensor<4xi32>, i32, i32 -> i32
  return %t : i32
}

// -----

func.func @wait_float_count(%sig: memref<16xi32>, %n: f32, %e: i32) -> i32 {
  // expected-error@+1 {{'distributed.wait' op operand #1 must be integer or ranked tensor of integers, but got 'f32'}}
  %t = distributed.wait %sig, %n, %e scope = gpu semantic = acquire : memref<16xi32>, f32, i32 -> i32
  return %t : i32
}

// -----

func.func @wait_tensor_value(%sig: memref<16xi32>, %e: tensor<4xi32>) -> i32 {
  %c1 = arith.constant 1 : i32
  %t = "distributed.wait"(%sig, %c1, %e) : (memref<16xi32>, i32, tensor<4xi32>) -> i32
  // expected-error@-1 {{'distributed.wait' op operand #2 must be integer, but got 'tensor<4xi32>'}}
  return %t : i32
}

// -----

func.func @wait_float_token(%sig: memref<16xi32>, %e: i32) -> f32 {
  %c1 = arith.constant 1 : i32
  // expected-error@+1 {{'distributed.wait' op result #0 must be integer or ranked tensor of integers, but got 'f32'}}
  %t = distributed.wait %sig, %c1, %e scope = gpu semantic = acquire : memref<16xi32>, i32, i32 -> f32
  return %t : f32
}

// -----

func.func @wait_scope_out_of_range(%sig: memref<16xi32>, %e: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  // expected-error@+1 {{Invalid attribute `scope` in property conversion: 7 : i32}}
  %t = "distributed.wait"(%sig, %c1, %e) <{scope = 7 : i32}> : (memref<16xi32>, i32, i32) -> i32
  return %t : i32
}

// -----

func.func @wait_semantic_out_of_range(%sig: memref<16xi32>, %e: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  // expected-error@+1 {{Invalid attribute `semantic` in property conversion: 0 : i32}}
  %t = "distributed.wait"(%sig, %c1, %e) <{semantic = 0 : i32}> : (memref<16xi32>, i32, i32) -> i32
  return %t : i32
}

// -----

//===----------------------------------------------------------------------===//
// consume_token
//===----------------------------------------------------------------------===//

func.func @consume_token_other_result(%buf: memref<4xi32>, %t: i32) -> memref<8xi32> {
  // expected-error@+1 {{'distributed.consume_token' op failed to verify that all of {input, result} have same type}}
  %x = "distributed.consume_token"(%buf, %t) : (memref<4xi32>, i32) -> memref<8xi32>
  return %x : memref<8xi32>
}

// -----

func.func @consume_token_float_token(%buf: memref<4xi32>, %t: f32) -> memref<4xi32> {
  // expected-error@+1 {{'distributed.consume_token' op operand #1 must be integer or ranked tensor of integers, but got 'f32'}}
  %x = distributed.consume_token %buf, %t : memref<4xi32>, f32
  return %x : memref<4xi32>
}

// -----

// Elementwise: a tile of tokens has the shape of the tile it orders.
func.func @consume_token_shape_mismatch(%tile: tensor<16x16xf16>, %t: tensor<4xi32>) -> tensor<16x16xf16> {
  // expected-error@+1 {{'distributed.consume_token' op all non-scalar operands/results must have the same shape and base type}}
  %x = distributed.consume_token %tile, %t : tensor<16x16xf16>, tensor<4xi32>
  return %x : tensor<16x16xf16>
}

// -----

//===----------------------------------------------------------------------===//
// get_rank, get_num_ranks
//===----------------------------------------------------------------------===//

func.func @get_rank_axis() -> i32 {
  // expected-error@+1 {{'distributed.get_rank' op axis 1 does not exist: the device mesh has only axis 0}}
  %r = distributed.get_rank axis = 1 : i32
  return %r : i32
}

// -----

func.func @get_num_ranks_negative_axis() -> i32 {
  // expected-error@+1 {{'distributed.get_num_ranks' op axis -1 does not exist: the device mesh has only axis 0}}
  %n = distributed.get_num_ranks axis = -1 : i32
  return %n : i32
}

// -----

func.func @get_rank_i64() -> i64 {
  // expected-error@+1 {{'distributed.get_rank' op result #0 must be 32-bit signless integer, but got 'i64'}}
  %r = distributed.get_rank : i64
  return %r : i64
}

// -----

func.func @get_num_ranks_i64_axis() -> i32 {
  // expected-error@+1 {{'distributed.get_num_ranks' op attribute 'axis' failed to satisfy constraint: 32-bit signless integer attribute}}
  %n = "distributed.get_num_ranks"() <{axis = 0 : i64}> : () -> i32
  return %n : i32
}

// -----

//===----------------------------------------------------------------------===//
// symm_at
//===----------------------------------------------------------------------===//

func.func @symm_at_tensor_of_pointers(%ptrs: tensor<4x!llvm.ptr>, %peer: i32) -> tensor<4x!llvm.ptr> {
  // expected-error@+1 {{'distributed.symm_at' op operand #0 must be pointer (memref or !llvm.ptr), but got 'tensor<4x!llvm.ptr>'}}
  %r = distributed.symm_at %ptrs, %peer : tensor<4x!llvm.ptr>
  return %r : tensor<4x!llvm.ptr>
}

// -----

func.func @symm_at_unranked(%buf: memref<*xi8>, %peer: i32) -> memref<*xi8> {
  // expected-error@+1 {{'distributed.symm_at' op operand #0 must be pointer (memref or !llvm.ptr), but got 'memref<*xi8>'}}
  %r = distributed.symm_at %buf, %peer : memref<*xi8>
  return %r : memref<*xi8>
}

// -----

func.func @symm_at_i64_rank(%buf: memref<4xi8>, %peer: i64) -> memref<4xi8> {
  // expected-error@+1 {{'distributed.symm_at' op operand #1 must be 32-bit signless integer, but got 'i64'}}
  %r = "distributed.symm_at"(%buf, %peer) : (memref<4xi8>, i64) -> memref<4xi8>
  return %r : memref<4xi8>
}

// -----

func.func @symm_at_other_result(%buf: memref<4xi8>, %peer: i32) -> !llvm.ptr {
  // expected-error@+1 {{'distributed.symm_at' op failed to verify that all of {symmAddr, remoteAddr} have same type}}
  %r = "distributed.symm_at"(%buf, %peer) : (memref<4xi8>, i32) -> !llvm.ptr
  return %r : !llvm.ptr
}

// -----

//===----------------------------------------------------------------------===//
// notify
//===----------------------------------------------------------------------===//

func.func @notify_tensor_of_pointers(%ptrs: tensor<4x!llvm.ptr>, %v: i64, %peer: i32) {
  // expected-error@+1 {{'distributed.notify' op operand #0 must be pointer (memref or !llvm.ptr), but got 'tensor<4x!llvm.ptr>'}}
  distributed.notify %ptrs, %v, %peer sig_op = set scope = gpu : tensor<4x!llvm.ptr>
  return
}

// -----

func.func @notify_i32_value(%sig: memref<16xi32>, %v: i32, %peer: i32) {
  // expected-error@+1 {{'distributed.notify' op operand #1 must be 64-bit signless integer, but got 'i32'}}
  "distributed.notify"(%sig, %v, %peer) : (memref<16xi32>, i32, i32) -> ()
  return
}

// -----

func.func @notify_i64_rank(%sig: memref<16xi32>, %v: i64, %peer: i64) {
  // expected-error@+1 {{'distributed.notify' op operand #2 must be 32-bit signless integer, but got 'i64'}}
  "distributed.notify"(%sig, %v, %peer) : (memref<16xi32>, i64, i64) -> ()
  return
}

// -----

func.func @notify_sig_op_out_of_range(%sig: memref<16xi32>, %v: i64, %peer: i32) {
  // expected-error@+1 {{Invalid attribute `sigOp` in property conversion: 3 : i32}}
  "distributed.notify"(%sig, %v, %peer) <{sigOp = 3 : i32}> : (memref<16xi32>, i64, i32) -> ()
  return
}

// -----

func.func @notify_scope_out_of_range(%sig: memref<16xi32>, %v: i64, %peer: i32) {
  // expected-error@+1 {{Invalid attribute `commScope` in property conversion: 0 : i32}}
  "distributed.notify"(%sig, %v, %peer) <{commScope = 0 : i32}> : (memref<16xi32>, i64, i32) -> ()
  return
}

// -----

// Ascend (the default target): i32 with set or add; i64 and ui64 with set.

func.func @notify_ascend_i64_add(%sig: memref<8xi64>, %v: i64, %peer: i32) {
  // expected-error@+1 {{'distributed.notify' op a 64-bit signal allows only sig_op = set on Ascend, got add}}
  distributed.notify %sig, %v, %peer sig_op = add scope = gpu : memref<8xi64>
  return
}

// -----

func.func @notify_ascend_ui64_add(%sig: memref<8xui64>, %v: i64, %peer: i32) {
  // expected-error@+1 {{'distributed.notify' op a 64-bit signal allows only sig_op = set on Ascend, got add}}
  distributed.notify %sig, %v, %peer sig_op = add scope = inter_node : memref<8xui64>
  return
}

// -----

// An opaque pointer's signal is the i64 value, so it cannot be added to.
func.func @notify_ascend_opaque_add(%sig: !llvm.ptr, %v: i64, %peer: i32) {
  // expected-error@+1 {{'distributed.notify' op a 64-bit signal allows only sig_op = set on Ascend, got add}}
  distributed.notify %sig, %v, %peer sig_op = add scope = gpu : !llvm.ptr
  return
}

// -----

func.func @notify_ascend_ui32(%sig: memref<16xui32>, %v: i64, %peer: i32) {
  // expected-error@+1 {{'distributed.notify' op signal type 'ui32' is not allowed on Ascend (i32, i64 or ui64)}}
  distributed.notify %sig, %v, %peer sig_op = set scope = gpu : memref<16xui32>
  return
}

// -----

func.func @notify_ascend_i16(%sig: memref<16xi16>, %v: i64, %peer: i32) {
  // expected-error@+1 {{'distributed.notify' op signal type 'i16' is not allowed on Ascend (i32, i64 or ui64)}}
  distributed.notify %sig, %v, %peer sig_op = set scope = gpu : memref<16xi16>
  return
}

// -----

func.func @notify_ascend_f32(%sig: memref<16xf32>, %v: i64, %peer: i32) {
  // expected-error@+1 {{'distributed.notify' op signal type 'f32' is not allowed on Ascend (i32, i64 or ui64)}}
  distributed.notify %sig, %v, %peer sig_op = set scope = gpu : memref<16xf32>
  return
}

// -----

module attributes {distributed.target = "ascend"} {
  func.func @notify_explicit_ascend_i64_add(%sig: memref<8xi64>, %v: i64, %peer: i32) {
    // expected-error@+1 {{'distributed.notify' op a 64-bit signal allows only sig_op = set on Ascend, got add}}
    distributed.notify %sig, %v, %peer sig_op = add scope = gpu : memref<8xi64>
    return
  }
}

// -----

// Other targets: i64 and ui64, with set or add.

module attributes {distributed.target = "cuda"} {
  func.func @notify_cuda_i32(%sig: memref<16xi32>, %v: i64, %peer: i32) {
    // expected-error@+1 {{'distributed.notify' op signal type 'i32' is not allowed on this target (i64 or ui64)}}
    distributed.notify %sig, %v, %peer sig_op = set scope = gpu : memref<16xi32>
    return
  }
}

// -----

module attributes {distributed.target = "cuda"} {
  func.func @notify_cuda_f64(%sig: memref<8xf64>, %v: i64, %peer: i32) {
    // expected-error@+1 {{'distributed.notify' op signal type 'f64' is not allowed on this target (i64 or ui64)}}
    distributed.notify %sig, %v, %peer sig_op = add scope = gpu : memref<8xf64>
    return
  }
}

// -----

// The cpu target links the same aclshmem library as Ascend, with the same rules.
module attributes {distributed.target = "cpu"} {
  func.func @notify_cpu_i64_add(%sig: memref<16xi64>, %v: i64, %peer: i32) {
    // expected-error@+1 {{'distributed.notify' op a 64-bit signal allows only sig_op = set on the cpu target, got add}}
    distributed.notify %sig, %v, %peer sig_op = add scope = intra_node : memref<16xi64>
    return
  }
}

// -----

module attributes {distributed.target = "cpu"} {
  func.func @notify_cpu_f32(%sig: memref<16xf32>, %v: i64, %peer: i32) {
    // expected-error@+1 {{'distributed.notify' op signal type 'f32' is not allowed on the cpu target (i32, i64 or ui64)}}
    distributed.notify %sig, %v, %peer sig_op = set scope = intra_node : memref<16xf32>
    return
  }
}

// -----

// The innermost module that names a target decides.
module attributes {distributed.target = "ascend"} {
  module attributes {distributed.target = "cuda"} {
    func.func @notify_nested_cuda_i32(%sig: memref<16xi32>, %v: i64, %peer: i32) {
      // expected-error@+1 {{'distributed.notify' op signal type 'i32' is not allowed on this target (i64 or ui64)}}
      distributed.notify %sig, %v, %peer sig_op = set scope = gpu : memref<16xi32>
      return
    }
  }
}

// -----

//===----------------------------------------------------------------------===//
// The target attribute
//===----------------------------------------------------------------------===//

// expected-error@+1 {{'distributed.target' must be a string "ascend", "cuda" or "cpu" on a module}}
module attributes {distributed.target = "rocm"} {
}

// -----

// expected-error@+1 {{'distributed.target' must be a string "ascend", "cuda" or "cpu" on a module}}
module attributes {distributed.target = 1 : i32} {
}

// -----

// expected-error@+1 {{'distributed.target' must be a string "ascend", "cuda" or "cpu" on a module}}
func.func @target_on_a_function() attributes {distributed.target = "cuda"} {
  return
}

// -----

// expected-error@+1 {{unknown distributed attribute}}
module attributes {distributed.targets = "cuda"} {
}

// -----

//===----------------------------------------------------------------------===//
// extern_call
//===----------------------------------------------------------------------===//

func.func @extern_call_empty_symbol() {
  // expected-error@+1 {{'distributed.extern_call' op needs a non-empty symbol}}
  distributed.extern_call ""() : () -> ()
  return
}

// -----

func.func @extern_call_no_symbol() {
  // expected-error@+1 {{'distributed.extern_call' op requires attribute 'symbol'}}
  "distributed.extern_call"() : () -> ()
  return
}

// -----

func.func @extern_call_integer_pure() {
  // expected-error@+1 {{'distributed.extern_call' op attribute 'pure' failed to satisfy constraint: bool attribute}}
  distributed.extern_call "aclshmem_my_pe"() {pure = 1 : i32} : () -> ()
  return
}

// -----

func.func @extern_call_integer_libname() {
  // expected-error@+1 {{'distributed.extern_call' op attribute 'libname' failed to satisfy constraint: string attribute}}
  distributed.extern_call "aclshmem_quiet"() {libname = 3 : i32} : () -> ()
  return
}

// -----

func.func @wait_count_too_large(%sig: memref<16xi32>, %v: i32) -> i32 {
  %huge = arith.constant 4294967296 : i64
  // expected-error@+1 {{'distributed.wait' op the number of barriers must be positive and at most 65536, got 4294967296}}
  %t = distributed.wait %sig, %huge, %v scope = gpu semantic = acquire : memref<16xi32>, i64, i32 -> i32
  return %t : i32
}

// -----

// One past the maximum; 65536 itself is valid (ops.mlir).
func.func @wait_count_above_maximum(%sig: memref<16xi32>, %v: i32) -> i32 {
  %n = arith.constant 65537 : i32
  // expected-error@+1 {{'distributed.wait' op the number of barriers must be positive and at most 65536, got 65537}}
  %t = distributed.wait %sig, %n, %v scope = gpu semantic = acquire : memref<16xi32>, i32, i32 -> i32
  return %t : i32
}

// -----

// An i1 `true` is -1.
func.func @wait_count_i1(%sig: memref<16xi32>, %v: i32) -> i32 {
  %true = arith.constant true
  // expected-error@+1 {{'distributed.wait' op the number of barriers must be positive and at most 65536, got -1}}
  %t = distributed.wait %sig, %true, %v scope = gpu semantic = acquire : memref<16xi32>, i1, i32 -> i32
  return %t : i32
}
