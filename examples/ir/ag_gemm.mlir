// AllGather + GEMM, overlapped tile by tile (seed 000, "AllGather and GEMM Overlapping").
//
// C = gather(A) B: PE r holds A's rows [r M, (r + 1) M) as `shard` (M x K) and the whole B
// (K x N); afterwards every PE holds all of C (n M x N). Rows are cut into tiles of `tile_rows`
// rows, T = M / tile_rows per PE, n T in all, and program p of a grid of P works on tiles
// p, p + P, p + 2P, ...:
//  - producer: it puts each of its shard tiles into every other PE's gathered A (`workspace`)
//    with aclshmem_float_put_signal_nbi, which delivers the tile, then sets the tile's signal
//    there to the epoch; with the copy engine (tdist-run --engines mte,sdma) the puts run
//    asynchronously while the program goes on to compute;
//  - consumer: it computes C's row tiles in swizzled order, m' = (m + r T) mod n T (seed 000's
//    threadblock swizzling), so every PE starts on its own rows, which need no wait; for a remote
//    tile it waits for that tile's signal, and reads the tile through the consumed token.
// The consumer never waits for the whole gather, only for the tile it needs next.
// With a grid P that divides T every program meets the same sequence of communication calls,
// which distributed-inject-barrier-all (tdist-jit --inject-barrier-all) needs.
//
// Arguments: shard (M x K), b (K x N), workspace (n M x K, symmetric), signals (n T slots of 16
// i32, symmetric, zero before the first call), c (n M x N), tile_rows (a divisor of M), epoch.
//
//   tdist-run -n 4 --entry ag_gemm --grid 2 examples/ir/ag_gemm.mlir -- \
//     'f32[32,24]=random:1' 'f32[24,16]=random:2' 'f32[npes*32,24]' 'i32[npes*4*16]' \
//     'f32[npes*32,16]' index=8 i32=1 --check '4=matmul(gather(arg(0)), arg(1))'
module attributes {distributed.target = "cpu"} {
  func.func @ag_gemm(%shard: memref<?x?xf32>, %b: memref<?x?xf32>, %workspace: memref<?x?xf32>,
                     %signals: memref<?xi32>, %c: memref<?x?xf32>, %tile_rows: index,
                     %epoch: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %axis = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %set = arith.constant 0 : i32
    %zero = arith.constant 0.0 : f32

    %rank_i32 = distributed.get_rank : i32
    %n_i32 = distributed.get_num_ranks : i32
    %pid_i32 = distributed.extern_call "tdist_program_id"(%axis) {pure = true} : (i32) -> i32
    %programs_i32 = distributed.extern_call "tdist_num_programs"(%axis) {pure = true} : (i32) -> i32
    %rank = arith.index_cast %rank_i32 : i32 to index
    %n = arith.index_cast %n_i32 : i32 to index
    %pid = arith.index_cast %pid_i32 : i32 to index
    %programs = arith.index_cast %programs_i32 : i32 to index

    %rows = memref.dim %shard, %c0 : memref<?x?xf32>
    %k = memref.dim %shard, %c1 : memref<?x?xf32>
    %cols = memref.dim %b, %c1 : memref<?x?xf32>
    %tiles = arith.divui %rows, %tile_rows : index
    %all_tiles = arith.muli %n, %tiles : index
    %tile_elems = arith.muli %tile_rows, %k : index
    %tile_elems_i64 = arith.index_cast %tile_elems : index to i64
    %my_first_tile = arith.muli %rank, %tiles : index

    // Flat views of the row-major shard and workspace: a tile of whole rows is contiguous.
    %shard_elems = arith.muli %rows, %k : index
    %flat_shard = memref.reinterpret_cast %shard to offset: [0], sizes: [%shard_elems], strides: [1]
        : memref<?x?xf32> to memref<?xf32, strided<[1]>>
    %workspace_elems = arith.muli %all_tiles, %tile_elems : index
    %flat_workspace = memref.reinterpret_cast %workspace to offset: [0], sizes: [%workspace_elems], strides: [1]
        : memref<?x?xf32> to memref<?xf32, strided<[1]>>

    // Producer: put each of this program's tiles to every other PE, with its signal.
    scf.for %t = %pid to %tiles step %programs {
      %src_at = arith.muli %t, %tile_elems : index
      %src = memref.subview %flat_shard[%src_at] [%tile_elems] [1]
          : memref<?xf32, strided<[1]>> to memref<?xf32, strided<[1], offset: ?>>
      %tile_id = arith.addi %my_first_tile, %t : index
      %dst_at = arith.muli %tile_id, %tile_elems : index
      %dst = memref.subview %flat_workspace[%dst_at] [%tile_elems] [1]
          : memref<?xf32, strided<[1]>> to memref<?xf32, strided<[1], offset: ?>>
      %slot_at = arith.muli %tile_id, %c16 : index
      %slot = memref.subview %signals[%slot_at] [1] [1]
          : memref<?xi32> to memref<1xi32, strided<[1], offset: ?>>
      scf.for %s = %c1 to %n step %c1 {
        %ahead = arith.addi %rank, %s : index
        %peer_index = arith.remui %ahead, %n : index
        %peer = arith.index_cast %peer_index : index to i32
        distributed.extern_call "aclshmem_float_put_signal_nbi"(%dst, %src, %tile_elems_i64, %slot, %epoch, %set, %peer)
            : (memref<?xf32, strided<[1], offset: ?>>, memref<?xf32, strided<[1], offset: ?>>, i64,
               memref<1xi32, strided<[1], offset: ?>>, i32, i32, i32) -> ()
      }
    }

    // Consumer: C's row tiles, own rows first; a remote tile is used once its signal is set.
    scf.for %m = %pid to %all_tiles step %programs {
      %shifted = arith.addi %m, %my_first_tile : index
      %tile_id = arith.remui %shifted, %all_tiles : index
      %src = arith.divui %tile_id, %tiles : index
      %row = arith.muli %tile_id, %tile_rows : index
      %is_local = arith.cmpi eq, %src, %rank : index
      %a_tile = scf.if %is_local -> (memref<?x?xf32, strided<[?, 1], offset: ?>>) {
        %local_t = arith.remui %tile_id, %tiles : index
        %local_row = arith.muli %local_t, %tile_rows : index
        %view = memref.subview %shard[%local_row, 0] [%tile_rows, %k] [1, 1]
            : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
        scf.yield %view : memref<?x?xf32, strided<[?, 1], offset: ?>>
      } else {
        %slot_at = arith.muli %tile_id, %c16 : index
        %slot = memref.subview %signals[%slot_at] [1] [1]
            : memref<?xi32> to memref<1xi32, strided<[1], offset: ?>>
        %token = distributed.wait %slot, %one, %epoch scope = sys semantic = acquire
            : memref<1xi32, strided<[1], offset: ?>>, i32, i32 -> i32
        %ready = distributed.consume_token %workspace, %token : memref<?x?xf32>, i32
        %view = memref.subview %ready[%row, 0] [%tile_rows, %k] [1, 1]
            : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
        scf.yield %view : memref<?x?xf32, strided<[?, 1], offset: ?>>
      }
      %c_tile = memref.subview %c[%row, 0] [%tile_rows, %cols] [1, 1]
          : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
      linalg.fill ins(%zero : f32) outs(%c_tile : memref<?x?xf32, strided<[?, 1], offset: ?>>)
      linalg.matmul ins(%a_tile, %b : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<?x?xf32>)
                    outs(%c_tile : memref<?x?xf32, strided<[?, 1], offset: ?>>)
    }
    return
  }
}
