// RUN: tdist-opt %s --convert-triton-distributed-to-hivm -split-input-file -verify-diagnostics

// An op whose types name no aclshmem symbol is an error, and the pass fails.

func.func @symm_at_i1(%flags: memref<4xi1>, %peer: i32) -> memref<4xi1> {
  // expected-error @+1 {{cannot lower to aclshmem_ptr_<type>: element type 'i1' has no aclshmem instance (bf16, f16, f32, f64, i8-i64, ui8-ui64)}}
  %remote = distributed.symm_at %flags, %peer : memref<4xi1>
  return %remote : memref<4xi1>
}

// -----

func.func @symm_at_f8(%data: memref<4xf8E4M3FN>, %peer: i32) -> memref<4xf8E4M3FN> {
  // expected-error @+1 {{element type 'f8E4M3FN' has no aclshmem instance}}
  %remote = distributed.symm_at %data, %peer : memref<4xf8E4M3FN>
  return %remote : memref<4xf8E4M3FN>
}

// -----

func.func @symm_at_index(%data: memref<4xindex>, %peer: i32) -> memref<4xindex> {
  // expected-error @+1 {{element type 'index' has no aclshmem instance}}
  %remote = distributed.symm_at %data, %peer : memref<4xindex>
  return %remote : memref<4xindex>
}

// -----

// Reported even when unused, and for every op, not only the first.
func.func @symm_at_opaque(%p: !llvm.ptr, %q: !llvm.ptr, %peer: i32) {
  // expected-error @+1 {{cannot lower to aclshmem_ptr_<type>: the element type of an opaque '!llvm.ptr' is unknown; use a memref}}
  %first = distributed.symm_at %p, %peer : !llvm.ptr
  // expected-error @+1 {{the element type of an opaque '!llvm.ptr' is unknown}}
  %second = distributed.symm_at %q, %peer : !llvm.ptr
  return
}

// -----

func.func @consume_token_opaque(%p: !llvm.ptr, %token: i32) -> !llvm.ptr {
  // expected-error @+1 {{cannot lower to aclshmem_consume_token_<type>_ptr_<N>d: the element type of an opaque '!llvm.ptr' is unknown; use a memref}}
  %result = distributed.consume_token %p, %token : !llvm.ptr, i32
  return %result : !llvm.ptr
}

// -----

func.func @consume_token_tensor_of_opaque(%ptrs: tensor<4x!llvm.ptr>, %token: tensor<4xi32>)
    -> tensor<4x!llvm.ptr> {
  // expected-error @+1 {{cannot lower to aclshmem_consume_token_<type>_ptr_<N>d: the element type of an opaque '!llvm.ptr' is unknown}}
  %result = distributed.consume_token %ptrs, %token : tensor<4x!llvm.ptr>, tensor<4xi32>
  return %result : tensor<4x!llvm.ptr>
}

// -----

func.func @consume_token_scalar(%x: f32, %token: i32) -> f32 {
  // expected-error @+1 {{cannot lower to aclshmem_consume_token_<type>_ptr_<N>d: 'f32' is neither a ranked memref nor a ranked tensor}}
  %result = distributed.consume_token %x, %token : f32, i32
  return %result : f32
}

// -----

func.func @consume_token_unranked(%buf: memref<*xf32>, %token: i32) -> memref<*xf32> {
  // expected-error @+1 {{'memref<*xf32>' is neither a ranked memref nor a ranked tensor}}
  %result = distributed.consume_token %buf, %token : memref<*xf32>, i32
  return %result : memref<*xf32>
}

// -----

func.func @consume_token_i1_tile(%tile: tensor<4xi1>, %token: i32) -> tensor<4xi1> {
  // expected-error @+1 {{cannot lower to aclshmem_consume_token_<type>_ptr_<N>d: element type 'i1' has no aclshmem instance}}
  %result = distributed.consume_token %tile, %token : tensor<4xi1>, i32
  return %result : tensor<4xi1>
}

// -----

func.func @wait_i1(%flags: memref<16xi1>, %on: i1) -> i32 {
  %c1 = arith.constant 1 : i32
  // expected-error @+1 {{cannot lower to aclshmem_wait_<type>: element type 'i1' has no aclshmem instance}}
  %token = distributed.wait %flags, %c1, %on scope = gpu semantic = acquire : memref<16xi1>, i32, i1 -> i32
  return %token : i32
}

// -----

func.func @wait_opaque_i1(%flags: !llvm.ptr, %on: i1) -> i32 {
  %c1 = arith.constant 1 : i32
  // expected-error @+1 {{cannot lower to aclshmem_wait_<type>: element type 'i1' has no aclshmem instance}}
  %token = distributed.wait %flags, %c1, %on scope = gpu semantic = acquire : !llvm.ptr, i32, i1 -> i32
  return %token : i32
}

// -----

// The library's count is an int32_t, which arith converts from signless integers only.
func.func @wait_unsigned_count(%signals: memref<64xi32>, %n: ui32, %e: i32) -> i32 {
  // expected-error @+1 {{cannot lower to aclshmem_wait_<type>: the number of barriers is 'ui32'; the library takes an int32_t, converted from a signless integer}}
  %token = distributed.wait %signals, %n, %e scope = gpu semantic = acquire : memref<64xi32>, ui32, i32 -> i32
  return %token : i32
}

// -----

func.func @wait_signed_counts(%ptrs: tensor<4x!llvm.ptr>, %n: tensor<4xsi64>, %e: i32) -> tensor<4xi32> {
  // expected-error @+1 {{cannot lower to aclshmem_wait_<type>: the number of barriers is 'si64'}}
  %token = distributed.wait %ptrs, %n, %e scope = gpu semantic = acquire : tensor<4x!llvm.ptr>, tensor<4xsi64>, i32 -> tensor<4xi32>
  return %token : tensor<4xi32>
}

// -----

// Other targets allow add on a 64-bit signal; aclshmem only stores one.
module attributes {distributed.target = "cuda"} {
  func.func @notify_add_i64(%signal: memref<8xi64>, %value: i64, %peer: i32) {
    // expected-error @+1 {{cannot lower to aclshmem_int64_p: it stores the signal, and aclshmem has no add for a 64-bit signal}}
    distributed.notify %signal, %value, %peer sig_op = add scope = gpu : memref<8xi64>
    return
  }
}

// -----

module attributes {distributed.target = "cuda"} {
  func.func @notify_add_ui64(%signal: memref<8xui64>, %value: i64, %peer: i32) {
    // expected-error @+1 {{cannot lower to aclshmem_uint64_p: it stores the signal}}
    distributed.notify %signal, %value, %peer sig_op = add scope = gpu : memref<8xui64>
    return
  }
}

// -----

func.func @dynamic_tensor_result(%x: memref<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{cannot lower: result #0 of type 'tensor<?xf32>' needs a tensor.empty init, which needs a static shape}}
  %result = distributed.extern_call "user_gather"(%x) : (memref<?xf32>) -> tensor<?xf32>
  return %result : tensor<?xf32>
}

// -----

func.func @unranked_tensor_result(%x: memref<?xf32>) -> (i32, tensor<*xf32>) {
  // expected-error @+1 {{cannot lower: result #1 of type 'tensor<*xf32>' needs a tensor.empty init}}
  %result:2 = distributed.extern_call "user_gather"(%x) : (memref<?xf32>) -> (i32, tensor<*xf32>)
  return %result#0, %result#1 : i32, tensor<*xf32>
}
