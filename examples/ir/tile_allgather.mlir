// Tile-wise AllGather with one signal per tile, in the distributed dialect.
//
// Every PE holds a shard of M rows; afterwards every PE's `gathered` holds all shards, PE r's at
// rows [r M, (r + 1) M). A shard is cut into tiles of `tile_rows` rows, and program p of the
// grid moves tiles p, p + P, p + 2P, ...:
//  - push: it stores each of its tiles straight into every PE's `gathered` (symm_at), starting
//    with its own PE and going round the ring, and after each store sets that tile's signal on
//    the receiving PE to the epoch;
//  - receive: it waits for each of its tiles from every PE, tile by tile, and copies the tile,
//    read through the consumed token, into `out` (a local result in the same layout).
// No barrier: a tile is read as soon as its own signal says it is there. Signals are never
// reset; each call uses the next epoch, so the caller only has to keep `gathered` and the
// signals apart between two calls (a barrier, or double buffering).
//
// Arguments: shard (M x K), gathered (n M x K, symmetric), signals (n T slots of 16 i32,
// symmetric, zero before the first call, T = M / tile_rows), out (n M x K), tile_rows (a divisor
// of M), epoch (1 for the first call, then 2, 3, ...).
//
//   tdist-run -n 4 --entry tile_allgather --grid 2 examples/ir/tile_allgather.mlir -- \
//     'f32[32,16]=random:3' 'f32[npes*32,16]' 'i32[npes*4*16]' 'f32[npes*32,16]' index=8 i32=1 \
//     --check '1=gather(arg(0))' --check '3=gather(arg(0))'
module attributes {distributed.target = "cpu"} {
  func.func @tile_allgather(%shard: memref<?x?xf32>, %gathered: memref<?x?xf32>,
                            %signals: memref<?xi32>, %out: memref<?x?xf32>,
                            %tile_rows: index, %epoch: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %axis = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %epoch64 = arith.extui %epoch : i32 to i64

    %rank_i32 = distributed.get_rank : i32
    %n_i32 = distributed.get_num_ranks : i32
    %pid_i32 = distributed.extern_call "tdist_program_id"(%axis) {pure = true} : (i32) -> i32
    %programs_i32 = distributed.extern_call "tdist_num_programs"(%axis) {pure = true} : (i32) -> i32
    %rank = arith.index_cast %rank_i32 : i32 to index
    %n = arith.index_cast %n_i32 : i32 to index
    %pid = arith.index_cast %pid_i32 : i32 to index
    %programs = arith.index_cast %programs_i32 : i32 to index

    %rows = memref.dim %shard, %c0 : memref<?x?xf32>
    %cols = memref.dim %shard, %c1 : memref<?x?xf32>
    %tiles = arith.divui %rows, %tile_rows : index
    %my_rows = arith.muli %rank, %rows : index

    // Push each of this program's tiles to every PE, own PE first.
    scf.for %t = %pid to %tiles step %programs {
      %row = arith.muli %t, %tile_rows : index
      %tile = memref.subview %shard[%row, 0] [%tile_rows, %cols] [1, 1]
          : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
      %at = arith.addi %my_rows, %row : index
      %slot_index = arith.addi %my_rows, %t : index
      %slot_tiles = arith.muli %rank, %tiles : index
      %slot_row = arith.addi %slot_tiles, %t : index
      %slot_at = arith.muli %slot_row, %c16 : index
      %slot = memref.subview %signals[%slot_at] [1] [1]
          : memref<?xi32> to memref<1xi32, strided<[1], offset: ?>>
      scf.for %s = %c0 to %n step %c1 {
        %ahead = arith.addi %rank, %s : index
        %peer_index = arith.remui %ahead, %n : index
        %peer = arith.index_cast %peer_index : index to i32
        %remote = distributed.symm_at %gathered, %peer : memref<?x?xf32>
        %dst = memref.subview %remote[%at, 0] [%tile_rows, %cols] [1, 1]
            : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
        memref.copy %tile, %dst : memref<?x?xf32, strided<[?, 1], offset: ?>>
            to memref<?x?xf32, strided<[?, 1], offset: ?>>
        distributed.notify %slot, %epoch64, %peer sig_op = set scope = intra_node
            : memref<1xi32, strided<[1], offset: ?>>
      }
    }

    // Receive the same tiles from every PE, each as soon as its signal is set.
    scf.for %t = %pid to %tiles step %programs {
      %row = arith.muli %t, %tile_rows : index
      scf.for %s = %c0 to %n step %c1 {
        %ahead = arith.addi %rank, %s : index
        %src = arith.remui %ahead, %n : index
        %src_tiles = arith.muli %src, %tiles : index
        %slot_row = arith.addi %src_tiles, %t : index
        %slot_at = arith.muli %slot_row, %c16 : index
        %slot = memref.subview %signals[%slot_at] [1] [1]
            : memref<?xi32> to memref<1xi32, strided<[1], offset: ?>>
        %token = distributed.wait %slot, %one, %epoch scope = sys semantic = acquire
            : memref<1xi32, strided<[1], offset: ?>>, i32, i32 -> i32
        %ready = distributed.consume_token %gathered, %token : memref<?x?xf32>, i32
        %src_rows = arith.muli %src, %rows : index
        %at = arith.addi %src_rows, %row : index
        %arrived = memref.subview %ready[%at, 0] [%tile_rows, %cols] [1, 1]
            : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
        %result = memref.subview %out[%at, 0] [%tile_rows, %cols] [1, 1]
            : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
        memref.copy %arrived, %result : memref<?x?xf32, strided<[?, 1], offset: ?>>
            to memref<?x?xf32, strided<[?, 1], offset: ?>>
      }
    }
    return
  }
}
