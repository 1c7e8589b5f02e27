// tdist-map-programs-to-blocks: the template library's program queries become the block's
// coordinates in the grid, and their declarations go.
// RUN: tdist-opt %s --split-input-file --tdist-map-programs-to-blocks --verify-diagnostics | FileCheck %s

// CHECK-NOT: func.func private @_mlir_ciface_tdist_program_id
// CHECK-NOT: func.func private @_mlir_ciface_tdist_num_programs
// CHECK-LABEL: func.func @constant_axes(
// CHECK: %[[X:.*]] = gpu.block_id x
// CHECK: %[[PID:.*]] = arith.index_cast %[[X]] : index to i32
// CHECK: %[[NX:.*]] = gpu.grid_dim x
// CHECK: %[[PROGRAMS:.*]] = arith.index_cast %[[NX]] : index to i32
// CHECK: %[[Z:.*]] = gpu.block_id z
// CHECK: %[[PIDZ:.*]] = arith.index_cast %[[Z]] : index to i32
// CHECK: return %[[PID]], %[[PROGRAMS]], %[[PIDZ]]
func.func private @_mlir_ciface_tdist_program_id(i32) -> i32
func.func private @_mlir_ciface_tdist_num_programs(i32) -> i32
func.func @constant_axes() -> (i32, i32, i32) {
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i32
  %pid = func.call @_mlir_ciface_tdist_program_id(%c0) : (i32) -> i32
  %programs = func.call @_mlir_ciface_tdist_num_programs(%c0) : (i32) -> i32
  %pid_z = func.call @_mlir_ciface_tdist_program_id(%c2) : (i32) -> i32
  return %pid, %programs, %pid_z : i32, i32, i32
}

// -----

// Any integer type: the answer is cast to the call's.
// CHECK-LABEL: func.func @wide_axis(
// CHECK: %[[Y:.*]] = gpu.block_id y
// CHECK: arith.index_cast %[[Y]] : index to i64
func.func private @_mlir_ciface_tdist_program_id(i64) -> i64
func.func @wide_axis() -> i64 {
  %c1 = arith.constant 1 : i64
  %pid = func.call @_mlir_ciface_tdist_program_id(%c1) : (i64) -> i64
  return %pid : i64
}

// -----

// An axis known only at run time chooses among the three, behind an assertion.
// CHECK-LABEL: func.func @dynamic_axis(
// CHECK-SAME: %[[AXIS:.*]]: i32
// CHECK-DAG: %[[IS0:.*]] = arith.cmpi eq, %[[AXIS]], %c0_i32
// CHECK-DAG: %[[IS1:.*]] = arith.cmpi eq, %[[AXIS]], %c1_i32
// CHECK-DAG: %[[IS2:.*]] = arith.cmpi eq, %[[AXIS]], %c2_i32
// CHECK: cf.assert %{{.*}}, "_mlir_ciface_tdist_num_programs: the axis is not 0, 1 or 2"
// CHECK-DAG: %[[Z:.*]] = gpu.grid_dim z
// CHECK-DAG: %[[Y:.*]] = gpu.grid_dim y
// CHECK-DAG: %[[X:.*]] = gpu.grid_dim x
// CHECK: %[[ZX:.*]] = arith.select %[[IS2]], %[[Z]], %[[X]]
// CHECK: %[[N:.*]] = arith.select %[[IS1]], %[[Y]], %[[ZX]]
// CHECK: arith.index_cast %[[N]] : index to i32
func.func private @_mlir_ciface_tdist_num_programs(i32) -> i32
func.func @dynamic_axis(%axis: i32) -> i32 {
  %programs = func.call @_mlir_ciface_tdist_num_programs(%axis) : (i32) -> i32
  return %programs : i32
}

// -----

func.func private @_mlir_ciface_tdist_program_id(i32) -> i32
func.func @axis_out_of_range() -> i32 {
  %c3 = arith.constant 3 : i32
  // expected-error @+1 {{asks for axis 3 of the grid; a GPU grid has the axes 0, 1 and 2}}
  %pid = func.call @_mlir_ciface_tdist_program_id(%c3) : (i32) -> i32
  return %pid : i32
}

// -----

func.func private @_mlir_ciface_tdist_program_id(f32) -> i32
func.func @axis_not_an_integer(%axis: f32) -> i32 {
  // expected-error @+1 {{calls _mlir_ciface_tdist_program_id with type '(f32) -> i32'; it takes an integer axis and returns an integer}}
  %pid = func.call @_mlir_ciface_tdist_program_id(%axis) : (f32) -> i32
  return %pid : i32
}
