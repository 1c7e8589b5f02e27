// Spans of an IR kernel's own steps, for tdist-run --trace (test/ir/trace_spans_test.py).
//
// Each program fills its tiles of `out` (tiles of `tile` x `tile`, tile t to program t mod P)
// with rank + 1, then sets its signal slot on the next PE. The spans:
//  - "fill_tile": the fill of a tile, named by its mark; a compute span at the tile's first
//    row and column;
//  - "tile_loop": each program's loop over its tiles, a marked scf.for (a user span);
//  - "step": around the notify, by calls of the template library through extern_call, with
//    m = rank and n = program id (a move span);
//  - "notify_peer": the notify itself, a marked distributed op (a move span).
module attributes {distributed.target = "cpu"} {
  memref.global "private" constant @step_name : memref<4xi8> = dense<[115, 116, 101, 112]>

  func.func @trace_spans(%out: memref<?x?xf32>, %signals: memref<?xi32>, %tile: index, %epoch: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %axis = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %move = arith.constant 3 : i32
    %rank = distributed.get_rank : i32
    %n = distributed.get_num_ranks : i32
    %pid = distributed.extern_call "tdist_program_id"(%axis) {pure = true} : (i32) -> i32
    %programs = distributed.extern_call "tdist_num_programs"(%axis) {pure = true} : (i32) -> i32
    %pid_index = arith.index_cast %pid : i32 to index
    %programs_index = arith.index_cast %programs : i32 to index

    %rows = memref.dim %out, %c0 : memref<?x?xf32>
    %cols = memref.dim %out, %c1 : memref<?x?xf32>
    %tile_rows = arith.divui %rows, %tile : index
    %tile_cols = arith.divui %cols, %tile : index
    %tiles = arith.muli %tile_rows, %tile_cols : index
    %rank_plus_one = arith.addi %rank, %one : i32
    %value = arith.sitofp %rank_plus_one : i32 to f32
    scf.for %t = %pid_index to %tiles step %programs_index {
      %i = arith.divui %t, %tile_cols : index
      %j = arith.remui %t, %tile_cols : index
      %row = arith.muli %i, %tile : index
      %col = arith.muli %j, %tile : index
      %view = memref.subview %out[%row, %col] [%tile, %tile] [1, 1]
          : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
      linalg.fill {tdist.span = "fill_tile"} ins(%value : f32)
          outs(%view : memref<?x?xf32, strided<[?, 1], offset: ?>>)
    } {tdist.span = "tile_loop"}

    %bytes = memref.get_global @step_name : memref<4xi8>
    %name = memref.cast %bytes : memref<4xi8> to memref<?xi8>
    distributed.extern_call "tdist_trace_begin_span"(%name, %rank, %pid, %move)
        : (memref<?xi8>, i32, i32, i32) -> ()
    %ahead = arith.addi %rank, %one : i32
    %next = arith.remsi %ahead, %n : i32
    %epoch64 = arith.extui %epoch : i32 to i64
    %slot_at = arith.muli %pid_index, %c16 : index
    %slot = memref.subview %signals[%slot_at] [1] [1]
        : memref<?xi32> to memref<1xi32, strided<[1], offset: ?>>
    distributed.notify %slot, %epoch64, %next sig_op = set scope = intra_node
        {tdist.span = "notify_peer", tdist.span_category = "move"} : memref<1xi32, strided<[1], offset: ?>>
    distributed.extern_call "tdist_trace_end"() : () -> ()
    return
  }
}
