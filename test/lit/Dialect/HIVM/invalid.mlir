// RUN: tdist-opt %s -split-input-file -verify-diagnostics

func.func @empty_name() {
  // expected-error @+1 {{'hivm.hir.custom' op needs a non-empty name}}
  hivm.hir.custom ""
  return
}

// -----

func.func @tensor_result_without_init(%x: memref<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'hivm.hir.custom' op has 0 tensor inits in outs but 1 tensor results}}
  %result = hivm.hir.custom "user.load" ins(%x : memref<4xf32>) -> tensor<4xf32>
  return %result : tensor<4xf32>
}

// -----

func.func @tensor_init_without_result(%x: memref<4xf32>) {
  %empty = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{'hivm.hir.custom' op has 1 tensor inits in outs but 0 tensor results}}
  hivm.hir.custom "user.load" ins(%x : memref<4xf32>) outs(%empty : tensor<4xf32>)
  return
}

// -----

func.func @init_type_mismatch(%x: memref<4xf32>) -> (i32, tensor<4xf32>) {
  %empty = tensor.empty() : tensor<4xf16>
  // expected-error @+1 {{'hivm.hir.custom' op tensor result #0 has type 'tensor<4xf32>' but its init has type 'tensor<4xf16>'}}
  %result:2 = hivm.hir.custom "user.load" ins(%x : memref<4xf32>) outs(%empty : tensor<4xf16>) -> (i32, tensor<4xf32>)
  return %result#0, %result#1 : i32, tensor<4xf32>
}

// -----

func.func @empty_symbol() {
  // expected-error @+1 {{'hivm.hir.custom' op needs a non-empty symbol}}
  hivm.hir.custom {symbol = ""} "dist."
  return
}

// -----

func.func @distributed_without_symbol() {
  // expected-error @+1 {{'hivm.hir.custom' op is distributed but has no symbol}}
  hivm.hir.custom {hivm.is_distributed} "dist.aclshmem_barrier_all"
  return
}

// -----

func.func @distributed_name_mismatch() {
  // expected-error @+1 {{'hivm.hir.custom' op is distributed, so its name must be "dist.aclshmem_barrier_all", got "aclshmem_barrier_all"}}
  hivm.hir.custom {hivm.is_distributed, symbol = "aclshmem_barrier_all"} "aclshmem_barrier_all"
  return
}

// -----

func.func @gm_index_out_of_range(%p: memref<4xi32>) {
  // expected-error @+1 {{'hivm.hir.custom' op gm_addr_args_indices has 1, but there are 1 inputs}}
  hivm.hir.custom {gm_addr_args_indices = array<i32: 1>} "user.f" ins(%p : memref<4xi32>)
  return
}

// -----

func.func @gm_index_negative(%p: memref<4xi32>) {
  // expected-error @+1 {{'hivm.hir.custom' op gm_addr_args_indices has -1, but there are 1 inputs}}
  hivm.hir.custom {gm_addr_args_indices = array<i32: -1>} "user.f" ins(%p : memref<4xi32>)
  return
}

// -----

func.func @gm_indices_not_increasing(%p: memref<4xi32>, %q: !llvm.ptr) {
  // expected-error @+1 {{'hivm.hir.custom' op gm_addr_args_indices must be increasing, got 0 after 1}}
  hivm.hir.custom {gm_addr_args_indices = array<i32: 1, 0>} "user.f" ins(%p, %q : memref<4xi32>, !llvm.ptr)
  return
}

// -----

func.func @gm_index_not_a_pointer(%p: memref<4xi32>, %n: i32) {
  // expected-error @+1 {{'hivm.hir.custom' op gm_addr_args_indices names input #1 of type 'i32', which is not a pointer}}
  hivm.hir.custom {gm_addr_args_indices = array<i32: 0, 1>} "user.f" ins(%p, %n : memref<4xi32>, i32)
  return
}

// -----

func.func @gm_index_tensor_of_pointers(%ptrs: tensor<4x!llvm.ptr>) {
  // expected-error @+1 {{gm_addr_args_indices names input #0 of type 'tensor<4x!llvm.ptr>', which is not a pointer}}
  hivm.hir.custom {gm_addr_args_indices = array<i32: 0>} "user.f" ins(%ptrs : tensor<4x!llvm.ptr>)
  return
}

// -----

func.func @gm_indices_wrong_type(%p: memref<4xi32>) {
  // expected-error @+1 {{attribute 'gm_addr_args_indices' failed to satisfy constraint: i32 dense array attribute}}
  hivm.hir.custom {gm_addr_args_indices = [0]} "user.f" ins(%p : memref<4xi32>)
  return
}

// -----

func.func @no_side_effect_not_unit() {
  // expected-error @+1 {{attribute 'no_side_effect' failed to satisfy constraint: unit attribute}}
  hivm.hir.custom {no_side_effect = true} "user.f"
  return
}

// -----

func.func @pipe_not_an_enum() {
  // expected-error @+1 {{'hivm.pipe' must be a #hivm.pipe, got 1 : i32}}
  hivm.hir.custom {hivm.pipe = 1 : i32} "user.f"
  return
}

// -----

func.func @core_type_not_an_enum() {
  // expected-error @+1 {{'hivm.tcore_type' must be a #hivm.tcore_type, got #hivm.vf_mode<SIMD>}}
  hivm.hir.custom {hivm.tcore_type = #hivm.vf_mode<SIMD>} "user.f"
  return
}

// -----

func.func @vf_mode_not_an_enum() {
  // expected-error @+1 {{'hivm.vf_mode' must be a #hivm.vf_mode, got "SIMD"}}
  hivm.hir.custom {hivm.vf_mode = "SIMD"} "user.f"
  return
}

// -----

// The attributes are checked on any op, not only on hivm.hir.custom.
func.func @is_distributed_not_unit() {
  // expected-error @+1 {{'hivm.is_distributed' must be a unit attribute, got true}}
  %result = arith.constant {hivm.is_distributed = true} 0 : i32
  return
}

// -----

func.func @unknown_pipe() {
  // expected-error @+2 {{expected ::mlir::hivm::PIPE to be one of}}
  // expected-error @+1 {{failed to parse HIVM_PipeAttr parameter 'value'}}
  hivm.hir.custom {hivm.pipe = #hivm.pipe<PIPE_X>} "user.f"
  return
}
