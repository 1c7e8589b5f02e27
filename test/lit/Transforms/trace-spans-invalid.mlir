// The marks of tdist-trace-spans are checked whether or not the pass records spans.
// RUN: tdist-opt %s --split-input-file --tdist-trace-spans --verify-diagnostics
// RUN: tdist-opt %s --split-input-file --tdist-trace-spans="record=false" --verify-diagnostics

func.func @name_not_a_string(%a: memref<4xf32>, %b: memref<4xf32>) {
  // expected-error @+1 {{'tdist.span' must be the span's name, a non-empty string of at most 31 bytes (what a trace keeps), got 7 : i32}}
  memref.copy %a, %b {tdist.span = 7 : i32} : memref<4xf32> to memref<4xf32>
  return
}

// -----

func.func @empty_name(%a: memref<4xf32>, %b: memref<4xf32>) {
  // expected-error @+1 {{'tdist.span' must be the span's name, a non-empty string of at most 31 bytes (what a trace keeps), got ""}}
  memref.copy %a, %b {tdist.span = ""} : memref<4xf32> to memref<4xf32>
  return
}

// -----

func.func @name_too_long(%a: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{got "a_name_of_thirty_two_bytes_long!"}}
  linalg.fill {tdist.span = "a_name_of_thirty_two_bytes_long!"} ins(%zero : f32) outs(%a : memref<4xf32>)
  return
}

// -----

func.func @unknown_category(%a: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'tdist.span_category' must be "user", "call", "compute", "move" or "wait", got "io"}}
  linalg.fill {tdist.span_category = "io"} ins(%zero : f32) outs(%a : memref<4xf32>)
  return
}

// -----

func.func @category_not_a_string(%a: memref<4xf32>, %b: memref<4xf32>) {
  // expected-error @+1 {{'tdist.span_category' must be "user", "call", "compute", "move" or "wait", got 2 : i32}}
  memref.copy %a, %b {tdist.span = "copy", tdist.span_category = 2 : i32} : memref<4xf32> to memref<4xf32>
  return
}

// -----

func.func @category_without_name(%a: memref<4xf32>, %b: memref<4xf32>) {
  // expected-error @+1 {{'tdist.span_category' without 'tdist.span': only linalg ops get a span without naming it}}
  memref.copy %a, %b {tdist.span_category = "move"} : memref<4xf32> to memref<4xf32>
  return
}

// -----

func.func @terminator() {
  // expected-error @+1 {{a terminator cannot be wrapped in a span: nothing runs after it}}
  func.return {tdist.span = "leave"}
}

// -----

// expected-error @+1 {{a span wraps an operation of a function's body}}
func.func @function() attributes {tdist.span = "kernel"} {
  return
}

// -----

// expected-error @+1 {{a span wraps an operation of a function's body}}
memref.global "private" constant @outside : memref<1xi8> = dense<0> {tdist.span = "global"}

// -----

#map = affine_map<(d0) -> (d0)>
func.func @inside_linalg(%a: memref<4xf32>) {
  linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%a : memref<4xf32>) {
  ^bb0(%x: f32):
    // expected-error @+1 {{a span cannot be inside a linalg op's body, which computes one element}}
    %y = arith.addf %x, %x {tdist.span = "element"} : f32
    linalg.yield %y : f32
  }
  return
}

// -----

// Every error is reported, and nothing changes.
func.func @two_errors(%a: memref<4xf32>, %b: memref<4xf32>) {
  // expected-error @+1 {{'tdist.span' must be the span's name}}
  memref.copy %a, %b {tdist.span = ""} : memref<4xf32> to memref<4xf32>
  // expected-error @+1 {{'tdist.span_category' must be}}
  memref.copy %b, %a {tdist.span = "back", tdist.span_category = "later"} : memref<4xf32> to memref<4xf32>
  return
}
