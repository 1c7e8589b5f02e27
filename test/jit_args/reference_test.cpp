// References: parsing "K=REF", each tensor function, element-wise expressions and their
// shapes, exactness, and the errors.
#include <cmath>

#include "test/jit_args/support.h"

namespace tdist::jit::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

std::vector<ArgumentSpec> specsOf(std::initializer_list<const char *> texts) {
  std::vector<ArgumentSpec> specs;
  for (const char *text : texts) specs.push_back(parseArgument(text));
  return specs;
}

Tensor expect(const std::string &check, std::initializer_list<const char *> arguments,
              Context context) {
  return expectedValues(parseCheck(check), specsOf(arguments), context);
}

std::vector<std::int64_t> integers(const Tensor &t) {
  std::vector<std::int64_t> out;
  for (Value v : t.values) {
    EXPECT_TRUE(v.isInteger()) << v.toString();
    out.push_back(v.integer());
  }
  return out;
}

std::vector<double> reals(const Tensor &t) {
  std::vector<double> out;
  for (Value v : t.values) {
    EXPECT_FALSE(v.isInteger()) << v.toString();
    out.push_back(v.real());
  }
  return out;
}

TEST(ParseCheck, IndexAndReference) {
  Check check = parseCheck("0=sum(arg(0))");
  EXPECT_EQ(check.argument, 0);
  EXPECT_EQ(check.text, "0=sum(arg(0))");
  EXPECT_EQ(parseCheck("12 = arg(1)").argument, 12);
}

TEST(ParseCheck, Errors) {
  EXPECT_EQ(errorOf([] { parseCheck("x=1"); }),
            "\"x=1\": expected the index of the checked argument, as in 0=sum(arg(0)) at column 1");
  EXPECT_EQ(errorOf([] { parseCheck("0 sum"); }),
            "\"0 sum\": expected '=' after the argument index, found 's' at column 3");
  EXPECT_EQ(errorOf([] { parseCheck("0="); }),
            "\"0=\": expected a number, a variable or '(', found the end at column 3");
  EXPECT_EQ(errorOf([] { parseCheck("0=arg(0),"); }),
            "\"0=arg(0),\": unexpected ',' after the reference at column 9");
  EXPECT_EQ(errorOf([] { parseCheck("0=sum(arg(0), 1)"); }),
            "\"0=sum(arg(0), 1)\": sum takes 1 argument: sum(X) at column 13");
  EXPECT_EQ(errorOf([] { parseCheck("0=matmul(arg(0))"); }),
            "\"0=matmul(arg(0))\": matmul takes 2 arguments: matmul(X, Y) at column 16");
  EXPECT_THAT(errorOf([] { parseCheck("0=at(arg(0))"); }),
              HasSubstr("at takes 2 arguments: at(X, R)"));
  EXPECT_THAT(errorOf([] { parseCheck("0=arg(i)"); }),
              HasSubstr("'i' cannot appear in an argument of arg(J), which may use numbers, rank "
                        "and npes at column 7"));
  EXPECT_THAT(errorOf([] { parseCheck("0=at(arg(0), d0)"); }),
              HasSubstr("'d0' cannot appear in an argument of at(X, R)"));
  EXPECT_EQ(errorOf([] { parseCheck("0=sum"); }),
            "\"0=sum\": 'sum' is a function: sum(X) at column 3");
  EXPECT_EQ(errorOf([] { parseCheck("0=mean(arg(0))"); }),
            "\"0=mean(arg(0))\": unknown function 'mean'; a reference may use numbers, rank, "
            "npes, i, dK, zeros, ones, iota, random(SEED), arg(J), sum(X), gather(X), shard(X), "
            "at(X, R) and matmul(X, Y) at column 3");
}

TEST(Reference, ArgRecomputesTheInitialContents) {
  Tensor t = expect("0=arg(0)", {"i32[4]=rank*10+i"}, {.rank = 2, .npes = 4});
  EXPECT_THAT(t.shape, ElementsAre(4));
  EXPECT_THAT(integers(t), ElementsAre(20, 21, 22, 23));
  // An f32 buffer's values as the buffer holds them: rounded to float.
  Tensor f = expect("0=arg(0)", {"f32[2]=0.1*(i+1)"}, {});
  EXPECT_THAT(reals(f), ElementsAre(static_cast<double>(0.1f), static_cast<double>(0.2f)));
  // A scalar argument gives its value, which stands for every element.
  Tensor s = expect("0=arg(1)*i", {"i32[3]", "i32=5"}, {});
  EXPECT_THAT(integers(s), ElementsAre(0, 5, 10));
}

TEST(Reference, RingAllReduceSumsOverRanks) {
  Tensor f = expect("0=sum(arg(0))", {"f32[16]=rank*16+i"}, {.rank = 1, .npes = 4});
  std::vector<double> values = reals(f);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(values[i], 96.0 + 4 * i);
  Tensor n = expect("0=sum(arg(0))", {"i32[3]=rank+1"}, {.rank = 0, .npes = 5});
  EXPECT_THAT(integers(n), ElementsAre(15, 15, 15));
}

TEST(Reference, AllGatherConcatenatesAlongDimensionZero) {
  Tensor t =
      expect("1=gather(arg(0))", {"i32[4]=rank*10+i", "i32[npes*4]"}, {.rank = 0, .npes = 3});
  EXPECT_THAT(t.shape, ElementsAre(12));
  EXPECT_THAT(integers(t), ElementsAre(0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23));
  Tensor m =
      expect("1=gather(arg(0))", {"i32[1,2]=rank*10+d1", "i32[npes,2]"}, {.rank = 1, .npes = 3});
  EXPECT_THAT(m.shape, ElementsAre(3, 2));
  EXPECT_THAT(integers(m), ElementsAre(0, 1, 10, 11, 20, 21));
  // Dimension 0 may differ from rank to rank.
  Tensor ragged =
      expect("1=gather(arg(0))", {"i32[rank+1]=rank", "i32[6]"}, {.rank = 0, .npes = 3});
  EXPECT_THAT(integers(ragged), ElementsAre(0, 1, 1, 2, 2, 2));
}

TEST(Reference, ShardIsTheContextRanksPartOfDimensionZero) {
  // ReduceScatter: rank r holds rows [2r, 2r + 2) of the sum over ranks, 300 + 3i.
  std::initializer_list<const char *> args = {"i32[npes*2,2]=rank*100+i", "i32[2,2]"};
  EXPECT_THAT(integers(expect("1=shard(sum(arg(0)))", args, {.rank = 0, .npes = 3})),
              ElementsAre(300, 303, 306, 309));
  EXPECT_THAT(integers(expect("1=shard(sum(arg(0)))", args, {.rank = 2, .npes = 3})),
              ElementsAre(324, 327, 330, 333));
  // Inside shard an element-wise expression has npes times the rows.
  EXPECT_THAT(integers(expect("0=shard(i)", {"i32[2]"}, {.rank = 1, .npes = 3})), ElementsAre(2, 3));
  EXPECT_EQ(errorOf([] { expect("1=shard(arg(0))", {"i32[5]", "i32[1]"}, {.rank = 0, .npes = 2}); }),
            "\"1=shard(arg(0))\": shard(X): dimension 0 of X, 5, is not a multiple of npes = 2 at "
            "column 3 (rank 0 of 2)");
  EXPECT_THAT(errorOf([] { expect("0=shard(npes)", {"i32[2]"}, {.rank = 0, .npes = 2}); }),
              HasSubstr("shard(X) needs X with at least one dimension; X is a scalar"));
}

TEST(Reference, AllGatherGemmAgainstAHandComputedProduct) {
  // A's shards: rank 0 [[0,1,2],[3,4,5]], rank 1 [[6,7,8],[9,10,11]]; B = [[1,2],[3,4],[5,6]].
  std::initializer_list<const char *> args = {"f32[2,3]=rank*6+i", "f32[3,2]=i+1",
                                              "f32[npes*2,2]"};
  for (int rank : {0, 1}) {
    Tensor c = expect("2=matmul(gather(arg(0)), arg(1))", args, {.rank = rank, .npes = 2});
    EXPECT_THAT(c.shape, ElementsAre(4, 2));
    EXPECT_THAT(reals(c), ElementsAre(13, 16, 40, 52, 67, 88, 94, 124));
  }
  Tensor ints = expect("2=matmul(gather(arg(0)), arg(1))",
                       {"i64[2,3]=rank*6+i", "i64[3,2]=i+1", "i64[4,2]"}, {.rank = 0, .npes = 2});
  EXPECT_THAT(integers(ints), ElementsAre(13, 16, 40, 52, 67, 88, 94, 124));
}

TEST(Reference, MatmulOfRandomInputsMatchesADirectSum) {
  std::initializer_list<const char *> args = {"f64[3,5]=random:1", "f64[5,2]=random:2",
                                              "f64[3,2]"};
  Tensor c = expect("2=matmul(arg(0), arg(1))", args, {});
  Tensor a = expect("0=arg(0)", args, {});
  Tensor b = expect("1=arg(1)", args, {});
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) {
      double sum = 0;
      for (int k = 0; k < 5; ++k) sum += a.values[i * 5 + k].real() * b.values[k * 2 + j].real();
      EXPECT_DOUBLE_EQ(c.values[i * 2 + j].real(), sum);
    }
}

TEST(Reference, MatmulErrors) {
  EXPECT_EQ(errorOf([] { expect("0=matmul(arg(0), arg(0))", {"f32[4]"}, {}); }),
            "\"0=matmul(arg(0), arg(0))\": matmul(X, Y) needs X of shape [m,k] and Y of shape "
            "[k,n]; got [4] and [4] at column 3 (rank 0 of 1)");
  EXPECT_THAT(errorOf([] {
                expect("2=matmul(arg(0), arg(1))", {"f32[2,3]", "f32[4,2]", "f32[2,2]"}, {});
              }),
              HasSubstr("got [2,3] and [4,2]"));
  EXPECT_THAT(errorOf([] { expect("0=matmul(i, arg(0))", {"f32[2,2]"}, {}); }),
              HasSubstr("an expression of i, dK or random() has no shape here"));
  EXPECT_THAT(errorOf([] {
                expect("2=matmul(arg(0), arg(1))",
                       {"i64[1,2]=3037000500", "i64[2,1]=3037000500", "i64[1,1]"}, {});
              }),
              HasSubstr("integer overflow in matmul(X, Y) at [0,0] at column 3"));
}

TEST(Reference, ConstantsAndElementWiseExpressions) {
  Tensor c = expect("0=npes*(npes-1)/2", {"i32[2,2]"}, {.rank = 0, .npes = 4});
  EXPECT_THAT(c.shape, ElementsAre(2, 2));
  EXPECT_THAT(integers(c), ElementsAre(6, 6, 6, 6));
  Tensor e = expect("0=rank*100+d0*10+d1", {"f32[2,3]"}, {.rank = 1, .npes = 2});
  EXPECT_THAT(integers(e), ElementsAre(100, 101, 102, 110, 111, 112));
  Tensor r = expect("0=i/2.0", {"f32[3]"}, {});
  EXPECT_THAT(reals(r), ElementsAre(0.0, 0.5, 1.0));
  Tensor z = expect("0=zeros", {"f32[]"}, {});
  EXPECT_TRUE(z.shape.empty());
  EXPECT_THAT(integers(z), ElementsAre(0));
}

TEST(Reference, RandomMatchesTheInitializer) {
  std::initializer_list<const char *> args = {"f32[8]=random:7"};
  Context pe3{.rank = 3, .npes = 4};
  std::vector<float> filled = contentsOf<float>("f32[8]=random:7", pe3);
  for (const char *check : {"0=random:7", "0=random(7)", "0=arg(0)"}) {
    SCOPED_TRACE(check);
    std::vector<double> expected = reals(expect(check, args, pe3));
    for (int i = 0; i < 8; ++i) EXPECT_EQ(expected[i], static_cast<double>(filled[i]));
  }
}

TEST(Reference, BinaryOperationsAndScalars) {
  std::initializer_list<const char *> args = {"i32[4]=i", "i32[4]=10*i", "i32[5]"};
  EXPECT_THAT(integers(expect("0=arg(0)*2+1", args, {})), ElementsAre(1, 3, 5, 7));
  EXPECT_THAT(integers(expect("0=2*arg(0)", args, {})), ElementsAre(0, 2, 4, 6));
  EXPECT_THAT(integers(expect("0=arg(1)-arg(0)", args, {})), ElementsAre(0, 9, 18, 27));
  EXPECT_THAT(integers(expect("0=arg(1)/3", args, {})), ElementsAre(0, 3, 6, 10));
  EXPECT_THAT(integers(expect("0=arg(1)%7", args, {})), ElementsAre(0, 3, 6, 2));
  EXPECT_THAT(integers(expect("0=-arg(0)", args, {})), ElementsAre(0, -1, -2, -3));
  // The element-wise operand takes the other operand's shape.
  EXPECT_THAT(integers(expect("0=arg(0)+i*100", args, {})), ElementsAre(0, 101, 202, 303));
  EXPECT_THAT(integers(expect("0=sum(arg(0))-npes*i", args, {.rank = 0, .npes = 3})),
              ElementsAre(0, 0, 0, 0));
  EXPECT_THAT(reals(expect("0=arg(0)*0.5", args, {})), ElementsAre(0.0, 0.5, 1.0, 1.5));
  EXPECT_EQ(errorOf([&] { expect("0=arg(0)+arg(2)", args, {}); }),
            "\"0=arg(0)+arg(2)\": the operands have shapes [4] and [5]; they must be equal, or "
            "one a scalar at column 9 (rank 0 of 1)");
  EXPECT_THAT(errorOf([&] { expect("0=arg(1)/(arg(0)-1)", args, {}); }),
              HasSubstr("division by zero at column 9 (rank 0 of 1)"));
}

TEST(Reference, AtEvaluatesAtAnotherRank) {
  std::initializer_list<const char *> args = {"i32[2]=rank*10+i", "i32[2]"};
  Context pe1{.rank = 1, .npes = 4};
  EXPECT_THAT(integers(expect("1=at(arg(0), 0)", args, pe1)), ElementsAre(0, 1));
  EXPECT_THAT(integers(expect("1=at(arg(0), (rank+npes-1)%npes)", args, pe1)), ElementsAre(0, 1));
  EXPECT_THAT(integers(expect("1=at(arg(0), (rank+1)%npes)", args, pe1)), ElementsAre(20, 21));
  EXPECT_THAT(integers(expect("1=at(rank, 3)", args, pe1)), ElementsAre(3, 3));
  EXPECT_THAT(integers(expect("1=sum(at(arg(0), 0))", args, pe1)), ElementsAre(0, 4));
  EXPECT_EQ(errorOf([&] { expect("1=at(arg(0), npes)", args, pe1); }),
            "\"1=at(arg(0), npes)\": at(X, R): rank 4 is not in 0..3 at column 14 (rank 1 of 4)");
  EXPECT_THAT(errorOf([&] { expect("1=at(arg(0), -1)", args, pe1); }),
              HasSubstr("rank -1 is not in 0..3"));
}

TEST(Reference, ElementWiseShapesInsideFunctions) {
  // Inside gather, a 1/npes slice of dimension 0.
  EXPECT_THAT(integers(expect("0=gather(i)", {"i32[npes*2]"}, {.rank = 0, .npes = 3})),
              ElementsAre(0, 1, 0, 1, 0, 1));
  EXPECT_THAT(integers(expect("0=gather(rank*2+i)", {"i32[npes*2]"}, {.rank = 0, .npes = 3})),
              ElementsAre(0, 1, 2, 3, 4, 5));
  // Inside sum, X's own shape.
  EXPECT_THAT(integers(expect("0=sum(rank+i)", {"i32[3]"}, {.rank = 0, .npes = 2})),
              ElementsAre(1, 3, 5));
  EXPECT_THAT(errorOf([] { expect("0=gather(i)", {"i32[5]"}, {.rank = 0, .npes = 2}); }),
              HasSubstr("\"0=gather(i)\": an expression of i, dK or random() has no shape here"));
  EXPECT_EQ(errorOf([] { expect("0=gather(npes)", {"i32[4]"}, {.rank = 0, .npes = 2}); }),
            "\"0=gather(npes)\": gather(X) needs X with at least one dimension; X is a scalar at "
            "column 3");
  EXPECT_EQ(errorOf([] { expect("0=d1", {"i32[4]"}, {}); }),
            "\"0=d1\": 'd1' is beyond the 1 dimensions of this expression's shape at column 3");
}

TEST(Reference, ShapeMustMatchTheCheckedArgument) {
  EXPECT_EQ(errorOf([] { expect("1=arg(0)", {"i32[4]", "i32[8]"}, {}); }),
            "\"1=arg(0)\": the reference has shape [4], but argument 1 (i32[8]) has shape [8] at "
            "column 3 (rank 0 of 1)");
  EXPECT_EQ(errorOf([] {
              expect("1=gather(arg(0))", {"i32[4]", "i32[8]"}, {.rank = 2, .npes = 3});
            }),
            "\"1=gather(arg(0))\": the reference has shape [12], but argument 1 (i32[8]) has "
            "shape [8] at column 3 (rank 2 of 3)");
  EXPECT_THAT(errorOf([] { expect("0=sum(arg(0))", {"i32[rank+1]"}, {.rank = 0, .npes = 2}); }),
              HasSubstr("sum(X): X has shape [1] on rank 0 but [2] on rank 1"));
}

TEST(Reference, ArgumentErrors) {
  EXPECT_EQ(errorOf([] { expect("0=arg(3)", {"i32[4]", "i32[4]"}, {}); }),
            "\"0=arg(3)\": arg(3) names no argument; there are 2 at column 7");
  EXPECT_EQ(errorOf([] { expect("2=1", {"i32[4]", "i32[4]"}, {}); }),
            "\"2=1\": argument 2 does not exist; there are 2 at column 1");
  EXPECT_EQ(errorOf([] { expect("1=1", {"i32[4]", "i32=4"}, {}); }),
            "\"1=1\": argument 1 (i32=4) is a scalar; only buffers can be checked at column 1");
  EXPECT_EQ(errorOf([] { expect("0=arg(0.5)", {"i32[4]"}, {}); }),
            "\"0=arg(0.5)\": the J of arg(J) must be an integer, got the real 0.5 at column 7");
  EXPECT_THAT(errorOf([] { expect("0=at(arg(0), npes/2.0)", {"i32[4]"}, {.rank = 0, .npes = 2}); }),
              HasSubstr("the R of at(X, R) must be an integer, got the real 1 at column 18"));
  // An error in a recomputed argument names that argument's description.
  EXPECT_THAT(errorOf([] { expect("1=arg(0)", {"i8[4]=i*100", "i8[4]"}, {}); }),
              HasSubstr("\"i8[4]=i*100\": 200 does not fit i8"));
}

TEST(Reference, IntegersStayExactBeyondDoublePrecision) {
  std::initializer_list<const char *> args = {"i64[2]=9007199254740993+i"};
  EXPECT_THAT(integers(expect("0=arg(0)", args, {})),
              ElementsAre(9007199254740993, 9007199254740994));
  EXPECT_THAT(integers(expect("0=sum(arg(0))", args, {.rank = 0, .npes = 2})),
              ElementsAre(18014398509481986, 18014398509481988));
  EXPECT_THAT(errorOf([] {
                expect("0=sum(arg(0))", {"i64[1]=9223372036854775807"}, {.rank = 0, .npes = 2});
              }),
              HasSubstr("integer overflow: 9223372036854775807 + 9223372036854775807 does not "
                        "fit int64 at column 3 (rank 1 of 2)"));
}

}  // namespace
}  // namespace tdist::jit::testing
