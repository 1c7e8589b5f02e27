// tdist-cuda-pipeline checks a kernel's calls against the device library before any PTX is
// written (tdist-check-device-library): a function the library does not define, or defines with
// another type, is an error at the distributed op that calls it.
// REQUIRES: tdist-device-bitcode
// RUN: tdist-opt %s --split-input-file --tdist-cuda-pipeline="format=isa device-library=%tdist_device_bc" --verify-diagnostics

// barrier_all would need the programs of a grid to meet first: the device library has none.
module attributes {distributed.target = "cpu"} {
  func.func @barrier(%signals: memref<16xi32>, %peer: i32) {
    %one = arith.constant 1 : i64
    // expected-error-re @+1 {{calls '_mlir_ciface_aclshmem_barrier_all', which the device library ({{.*}}libtdist_device.bc) does not define}}
    distributed.extern_call "aclshmem_barrier_all"() : () -> ()
    distributed.notify %signals, %one, %peer sig_op = set scope = intra_node : memref<16xi32>
    return
  }
}

// -----

// The library's wait returns an i32 token: an i64 one would be a call of another type.
module attributes {distributed.target = "cpu"} {
  func.func @wide_token(%signals: memref<16xi32>, %out: memref<16xi32>) {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : i32
    // expected-error @+1 {{calls '_mlir_ciface_aclshmem_wait_int32_m1' as 'i64 (ptr, i32, i32)', but the device library defines it as 'i32 (ptr, i32, i32)'}}
    %token = distributed.wait %signals, %one, %one scope = sys semantic = acquire
        : memref<16xi32>, i32, i32 -> i64
    // expected-error @+1 {{calls '_mlir_ciface_aclshmem_consume_token_int32_ptr_1d_m1_m1' as 'void (ptr, ptr, i64)', but the device library defines it as 'void (ptr, ptr, i32)'}}
    %ready = distributed.consume_token %signals, %token : memref<16xi32>, i64
    %v = memref.load %ready[%c0] : memref<16xi32>
    memref.store %v, %out[%c0] : memref<16xi32>
    return
  }
}
