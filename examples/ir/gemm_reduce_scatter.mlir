// GEMM + ReduceScatter, overlapped tile by tile (seed 000, "GEMM and ReduceScatter Overlapping").
//
// Every PE holds a K-slice of the problem: A_r (n M x K_r) and B_r (K_r x N), so C = sum over r of
// A_r B_r (n M x N), and PE r ends with its rows of C, [r M, (r + 1) M), in `out` (M x N). Rows
// are cut into tiles of `tile_rows`, T = M / tile_rows per PE, and program p of a grid of P works
// on tiles p, p + P, ...:
//  - producer (GEMM): it computes partial tiles of A_r B_r straight into the staging buffer of
//    the PE that owns the rows (symm_at), and after each tile sets that tile's signal there. The
//    order is swizzled, m' = (m + (r + 1) T) mod n T: every PE starts with the next PE's rows, so
//    the PEs do not all send to the same owner at once, and computes its own rows last;
//  - consumer (ReduceScatter): for each of its own tiles it waits for the partial tile of every
//    PE, one signal each, and adds it in as soon as it is there.
// With a grid P that divides T every program meets the same sequence of communication calls,
// which distributed-inject-barrier-all needs.
//
// Arguments: a (n M x K_r), b (K_r x N), staging (n M x N, symmetric: rows [s M, (s + 1) M) hold
// PE s's partial rows for this PE), signals (T n slots of 16 i32, symmetric, zero before the
// first call), out (M x N), tile_rows (a divisor of M), epoch (1 for the first call, then 2, ...).
//
//   tdist-run -n 4 --entry gemm_reduce_scatter --grid 2 examples/ir/gemm_reduce_scatter.mlir -- \
//     'f32[npes*32,24]=random:1' 'f32[24,16]=random:2' 'f32[npes*32,16]' 'i32[4*npes*16]' \
//     'f32[32,16]' index=8 i32=1 --check '4=shard(sum(matmul(arg(0),arg(1))))'
module attributes {distributed.target = "cpu"} {
  func.func @gemm_reduce_scatter(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %staging: memref<?x?xf32>,
                                 %signals: memref<?xi32>, %out: memref<?x?xf32>, %tile_rows: index,
                                 %epoch: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %axis = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %zero = arith.constant 0.0 : f32
    %epoch64 = arith.extui %epoch : i32 to i64

    %rank_i32 = distributed.get_rank : i32
    %n_i32 = distributed.get_num_ranks : i32
    %pid_i32 = distributed.extern_call "tdist_program_id"(%axis) {pure = true} : (i32) -> i32
    %programs_i32 = distributed.extern_call "tdist_num_programs"(%axis) {pure = true} : (i32) -> i32
    %rank = arith.index_cast %rank_i32 : i32 to index
    %n = arith.index_cast %n_i32 : i32 to index
    %pid = arith.index_cast %pid_i32 : i32 to index
    %programs = arith.index_cast %programs_i32 : i32 to index

    %all_rows = memref.dim %a, %c0 : memref<?x?xf32>
    %k = memref.dim %a, %c1 : memref<?x?xf32>
    %cols = memref.dim %b, %c1 : memref<?x?xf32>
    %rows = arith.divui %all_rows, %n : index
    %tiles = arith.divui %rows, %tile_rows : index
    %all_tiles = arith.muli %n, %tiles : index
    %ahead = arith.addi %rank, %c1 : index
    %next = arith.remui %ahead, %n : index
    %first_tile = arith.muli %next, %tiles : index
    %my_staging_row = arith.muli %rank, %rows : index

    // Producer: partial tiles of A_r B_r, computed in the owner's staging buffer, then signalled.
    scf.for %m = %pid to %all_tiles step %programs {
      %shifted = arith.addi %m, %first_tile : index
      %tile_id = arith.remui %shifted, %all_tiles : index
      %owner = arith.divui %tile_id, %tiles : index
      %t = arith.remui %tile_id, %tiles : index
      %row = arith.muli %tile_id, %tile_rows : index
      %a_tile = memref.subview %a[%row, 0] [%tile_rows, %k] [1, 1]
          : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
      %owner_i32 = arith.index_cast %owner : index to i32
      %remote = distributed.symm_at %staging, %owner_i32 : memref<?x?xf32>
      %t_row = arith.muli %t, %tile_rows : index
      %dst_row = arith.addi %my_staging_row, %t_row : index
      %partial = memref.subview %remote[%dst_row, 0] [%tile_rows, %cols] [1, 1]
          : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
      linalg.fill ins(%zero : f32) outs(%partial : memref<?x?xf32, strided<[?, 1], offset: ?>>)
      linalg.matmul ins(%a_tile, %b : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<?x?xf32>)
                    outs(%partial : memref<?x?xf32, strided<[?, 1], offset: ?>>)
      %slot_row = arith.muli %t, %n : index
      %slot_index = arith.addi %slot_row, %rank : index
      %slot_at = arith.muli %slot_index, %c16 : index
      %slot = memref.subview %signals[%slot_at] [1] [1]
          : memref<?xi32> to memref<1xi32, strided<[1], offset: ?>>
      distributed.notify %slot, %epoch64, %owner_i32 sig_op = set scope = intra_node
          : memref<1xi32, strided<[1], offset: ?>>
    }

    // Consumer: each own tile is the sum of every PE's partial tile, added as each arrives.
    scf.for %t = %pid to %tiles step %programs {
      %t_row = arith.muli %t, %tile_rows : index
      %result = memref.subview %out[%t_row, 0] [%tile_rows, %cols] [1, 1]
          : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
      linalg.fill ins(%zero : f32) outs(%result : memref<?x?xf32, strided<[?, 1], offset: ?>>)
      scf.for %s = %c0 to %n step %c1 {
        // PE rank + 1 computes this PE's rows last, PE rank - 1 first: take them in that order.
        %back = arith.addi %rank, %n : index
        %back_s = arith.subi %back, %s : index
        %before = arith.subi %back_s, %c1 : index
        %src = arith.remui %before, %n : index
        %slot_row = arith.muli %t, %n : index
        %slot_index = arith.addi %slot_row, %src : index
        %slot_at = arith.muli %slot_index, %c16 : index
        %slot = memref.subview %signals[%slot_at] [1] [1]
            : memref<?xi32> to memref<1xi32, strided<[1], offset: ?>>
        %token = distributed.wait %slot, %one, %epoch scope = sys semantic = acquire
            : memref<1xi32, strided<[1], offset: ?>>, i32, i32 -> i32
        %ready = distributed.consume_token %staging, %token : memref<?x?xf32>, i32
        %src_rows = arith.muli %src, %rows : index
        %src_row = arith.addi %src_rows, %t_row : index
        %arrived = memref.subview %ready[%src_row, 0] [%tile_rows, %cols] [1, 1]
            : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
        linalg.add ins(%result, %arrived : memref<?x?xf32, strided<[?, 1], offset: ?>>,
                                            memref<?x?xf32, strided<[?, 1], offset: ?>>)
                   outs(%result : memref<?x?xf32, strided<[?, 1], offset: ?>>)
      }
    }
    return
  }
}
