// tdist-place-in-gpu-module: a module's functions move into one gpu.module; public ones become
// kernels of one thread per block, private ones stay functions, and the declarations that carry
// the C-interface prefix in their link names lose it (convert-gpu-to-nvvm puts it back).
// RUN: tdist-opt %s --split-input-file --tdist-place-in-gpu-module --verify-diagnostics | FileCheck %s
// RUN: tdist-opt %s --split-input-file --tdist-place-in-gpu-module="module-name=kernels" --verify-diagnostics | FileCheck %s --check-prefix=NAMED

// CHECK: module attributes {distributed.target = "cpu", gpu.container_module} {
// CHECK-NEXT: gpu.module @tdist_kernels {
// CHECK-DAG: func.func private @aclshmem_my_pe() -> i32
// CHECK-DAG: func.func private @aclshmem_ptr_float_m1_m1(memref<?xf32, strided<[?], offset: ?>>, i32) -> memref<?xf32, strided<[?], offset: ?>> attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @helper(%{{.*}}: i32) -> i32
// CHECK-LABEL: gpu.func @kernel(
// CHECK-SAME: %[[OUT:.*]]: memref<?xi32>, %[[N:.*]]: index) kernel attributes {known_block_size = array<i32: 1, 1, 1>}
// CHECK: %[[RANK:.*]] = func.call @aclshmem_my_pe() : () -> i32
// CHECK: func.call @helper(%[[RANK]])
// CHECK: gpu.return
// CHECK-NOT: func.func @kernel
// NAMED: gpu.module @kernels {
module attributes {distributed.target = "cpu"} {
  func.func private @_mlir_ciface_aclshmem_my_pe() -> i32
  func.func private @aclshmem_ptr_float_m1_m1(memref<?xf32, strided<[?], offset: ?>>, i32)
      -> memref<?xf32, strided<[?], offset: ?>> attributes {llvm.emit_c_interface}
  func.func private @helper(%x: i32) -> i32 {
    %one = arith.constant 1 : i32
    %y = arith.addi %x, %one : i32
    return %y : i32
  }
  func.func @kernel(%out: memref<?xi32>, %n: index) {
    %c0 = arith.constant 0 : index
    %rank = func.call @_mlir_ciface_aclshmem_my_pe() : () -> i32
    %next = func.call @helper(%rank) : (i32) -> i32
    memref.store %next, %out[%c0] : memref<?xi32>
    return
  }
}

// -----

module {
  // expected-error @+1 {{is a kernel (a public function) and returns 'i32'; a kernel returns nothing (write results to a memref)}}
  func.func @returns() -> i32 {
    %zero = arith.constant 0 : i32
    return %zero : i32
  }
}

// -----

module {
  // expected-note @+1 {{the kernel}}
  func.func @callee() {
    return
  }
  func.func @caller() {
    // expected-error @+1 {{uses the kernel @callee, which runs only as a launch on the GPU; make it private to call it as a function}}
    func.call @callee() : () -> ()
    return
  }
}

// -----

module {
  // expected-error @+1 {{is called as @aclshmem_n_pes in a GPU module, a name that the module already has}}
  func.func private @_mlir_ciface_aclshmem_n_pes() -> i32
  // expected-note @+1 {{the other @aclshmem_n_pes}}
  func.func private @aclshmem_n_pes() -> i32 {
    %zero = arith.constant 0 : i32
    return %zero : i32
  }
}

// -----

// expected-error @+1 {{already holds a gpu.module; tdist-place-in-gpu-module makes the only one}}
module attributes {gpu.container_module} {
  gpu.module @kernels {
  }
}
