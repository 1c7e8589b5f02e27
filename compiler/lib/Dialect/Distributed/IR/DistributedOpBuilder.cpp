//===- DistributedOpBuilder.cpp - front-end builder of distributed ops ----===//
#include "tdist/Dialect/Distributed/IR/DistributedOpBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::triton::distributed;

Value IntOrValue::materialize(OpBuilder &builder, Location loc, Type type) const {
  if (value)
    return value;
  // arith.constant is signless only. A ui64 signal then gets an i64 constant,
  // and the verifier reports the mismatch instead of the builder guessing a
  // cast.
  auto integer = cast<IntegerType>(type);
  if (!integer.isSignless())
    integer = builder.getIntegerType(integer.getWidth());
  return arith::ConstantIntOp::create(builder, loc, integer, number);
}

DistributedOpBuilder::DistributedOpBuilder(OpBuilder &builder, Location loc)
    : builder(builder), loc(loc) {
  // Creating an op of a dialect the context has not loaded is an error, and
  // a front end should not need to know which dialects the numbers use.
  builder.getContext()->loadDialect<DistributedDialect, arith::ArithDialect>();
}

WaitOp DistributedOpBuilder::create_distributed_wait(Value barrierPtr, IntOrValue numBarriers,
                                                     IntOrValue waitValue, MemScope scope,
                                                     MemSemantic semantic, Type tokenType) {
  Type i32 = builder.getI32Type();
  Type signal = getPointeeType(barrierPtr.getType());
  if (!isa_and_nonnull<IntegerType>(signal))
    signal = i32;
  // Materialized one statement at a time: the order of function arguments'
  // evaluation is unspecified, and the constants' order in the IR should not be.
  Value count = numBarriers.materialize(builder, loc, i32);
  Value expected = waitValue.materialize(builder, loc, signal);
  return WaitOp::create(builder, loc, tokenType ? tokenType : i32, barrierPtr, count, expected,
                        scope, semantic);
}

ConsumeTokenOp DistributedOpBuilder::create_distributed_consume_token(Value input, Value token) {
  return ConsumeTokenOp::create(builder, loc, input.getType(), input, token);
}

GetRankOp DistributedOpBuilder::create_distributed_get_rank(int32_t axis) {
  return GetRankOp::create(builder, loc, builder.getI32Type(), builder.getI32IntegerAttr(axis));
}

GetNumRanksOp DistributedOpBuilder::create_distributed_get_num_ranks(int32_t axis) {
  return GetNumRanksOp::create(builder, loc, builder.getI32Type(),
                               builder.getI32IntegerAttr(axis));
}

SymmAtOp DistributedOpBuilder::create_distributed_symm_at(Value symmAddr, IntOrValue rank) {
  return SymmAtOp::create(builder, loc, symmAddr.getType(), symmAddr,
                          rank.materialize(builder, loc, builder.getI32Type()));
}

NotifyOp DistributedOpBuilder::create_distributed_notify(Value sigAddr, IntOrValue signalVal,
                                                         IntOrValue rank, SignalOp sigOp,
                                                         CommScope commScope) {
  Value value = signalVal.materialize(builder, loc, builder.getI64Type());
  Value peer = rank.materialize(builder, loc, builder.getI32Type());
  return NotifyOp::create(builder, loc, sigAddr, value, peer, sigOp, commScope);
}

ExternCallOp DistributedOpBuilder::create_distributed_extern_call(StringRef symbol,
                                                                  ValueRange srcs,
                                                                  TypeRange resultTypes, bool pure,
                                                                  StringRef libname,
                                                                  StringRef libpath) {
  return ExternCallOp::create(builder, loc, resultTypes, srcs, symbol, libname, libpath, pure);
}
