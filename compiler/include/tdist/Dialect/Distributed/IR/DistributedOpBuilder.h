//===- DistributedOpBuilder.h - front-end builder of distributed ops ------===//
//
// What a front end calls to emit the seven distributed operations (seed 001
// §4.1: the create_distributed_* builder bindings). It takes numbers where
// the front end has numbers, and defaults as the Triton-distributed `dl.*`
// functions do, so that a kernel author writes
//
//   DistributedOpBuilder dl(builder, loc);
//   Value token = dl.create_distributed_wait(signals, /*numBarriers=*/4, epoch);
//   dl.create_distributed_notify(peerSignal, /*value=*/1, peer);
//
// It does not check its input: the verifiers are the one place that decides
// what is valid, so a kernel built here is verified like a parsed one.
//
//===----------------------------------------------------------------------===//
#ifndef TDIST_DIALECT_DISTRIBUTED_IR_DISTRIBUTEDOPBUILDER_H
#define TDIST_DIALECT_DISTRIBUTED_IR_DISTRIBUTEDOPBUILDER_H

#include "tdist/Dialect/Distributed/IR/Distributed.h"

#include "mlir/IR/Builders.h"

#include <cstdint>

namespace mlir::triton::distributed {

/// An integer operand given either as an SSA value or as a number; the
/// builder turns a number into an `arith.constant` of the type the op needs.
class IntOrValue {
public:
  IntOrValue(Value value) : value(value) {}
  IntOrValue(int64_t number) : number(number) {}

  /// The value, or a new `arith.constant` of `type` holding the number.
  Value materialize(OpBuilder &builder, Location loc, Type type) const;

private:
  Value value;
  int64_t number = 0;
};

/// Emits distributed operations at the insertion point of an OpBuilder, all
/// with one location. The method names are those of the Python bindings.
class DistributedOpBuilder {
public:
  /// Loads the distributed dialect, and the arith dialect that numbers
  /// become constants of, into the builder's context.
  DistributedOpBuilder(OpBuilder &builder, Location loc);

  OpBuilder &getBuilder() { return builder; }
  Location getLoc() const { return loc; }
  void setLoc(Location newLoc) { loc = newLoc; }

  /// Waits until `numBarriers` signal slots from `barrierPtr` hold
  /// `waitValue`. A number for `numBarriers` becomes an i32 constant; a
  /// number for `waitValue` a constant of the pointee's element type (i32
  /// when the pointer is opaque). The token is i32 unless `tokenType` says
  /// otherwise.
  WaitOp create_distributed_wait(Value barrierPtr, IntOrValue numBarriers, IntOrValue waitValue,
                                 MemScope scope = MemScope::GPU,
                                 MemSemantic semantic = MemSemantic::ACQUIRE,
                                 Type tokenType = {});

  /// `input`, ordered after the wait that produced `token`.
  ConsumeTokenOp create_distributed_consume_token(Value input, Value token);

  GetRankOp create_distributed_get_rank(int32_t axis = 0);
  GetNumRanksOp create_distributed_get_num_ranks(int32_t axis = 0);

  /// `symmAddr` on PE `rank` (a number becomes an i32 constant).
  SymmAtOp create_distributed_symm_at(Value symmAddr, IntOrValue rank);

  /// Sets or adds `signalVal` (i64) to the signal at `sigAddr` on PE `rank`
  /// (i32). The defaults are those of `dl.notify`: set, inter-node.
  NotifyOp create_distributed_notify(Value sigAddr, IntOrValue signalVal, IntOrValue rank,
                                     SignalOp sigOp = SignalOp::SET,
                                     CommScope commScope = CommScope::INTER_NODE);

  /// Calls `symbol` of the communication library. A `pure` call has no
  /// memory effects; only declare it so for a call that reads no memory
  /// another PE may write.
  ExternCallOp create_distributed_extern_call(StringRef symbol, ValueRange srcs,
                                              TypeRange resultTypes, bool pure = false,
                                              StringRef libname = "", StringRef libpath = "");

private:
  OpBuilder &builder;
  Location loc;
};

} // namespace mlir::triton::distributed

#endif // TDIST_DIALECT_DISTRIBUTED_IR_DISTRIBUTEDOPBUILDER_H
