// Expressions of the argument language, read through scalar descriptions: precedence, integer
// and real semantics, names, and every parse and arithmetic error.
#include "test/jit_args/support.h"

namespace tdist::jit::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(Expression, PrecedenceAndAssociativity) {
  EXPECT_EQ(integerOf("i64=1+2*3"), 7);
  EXPECT_EQ(integerOf("i64=(1+2)*3"), 9);
  EXPECT_EQ(integerOf("i64=10-4-3"), 3);
  EXPECT_EQ(integerOf("i64=100/10/5"), 2);
  EXPECT_EQ(integerOf("i64=2*3%4"), 2);
  EXPECT_EQ(integerOf("i64=2+3%4*5"), 17);
  EXPECT_EQ(integerOf("i64=-2*3"), -6);
  EXPECT_EQ(integerOf("i64=2*-3"), -6);
  EXPECT_EQ(integerOf("i64=- -3"), 3);
  EXPECT_EQ(integerOf("i64=+5"), 5);
  EXPECT_EQ(integerOf("i64=-(1-4)*2"), 6);
  EXPECT_EQ(integerOf("i64= ( 1 + 2 ) * ( 3 - 1 ) "), 6);
}

TEST(Expression, RankAndNpes) {
  EXPECT_EQ(integerOf("index=1024/npes", {.rank = 0, .npes = 4}), 256);
  EXPECT_EQ(integerOf("i32=rank", {.rank = 3, .npes = 4}), 3);
  EXPECT_EQ(integerOf("i32=(rank+1)%npes", {.rank = 3, .npes = 4}), 0);
  EXPECT_EQ(integerOf("i32=rank*npes+1", {.rank = 2, .npes = 5}), 11);
}

TEST(Expression, IntegerDivisionTruncatesLikeC) {
  EXPECT_EQ(integerOf("i64=7/2"), 3);
  EXPECT_EQ(integerOf("i64=-7/2"), -3);
  EXPECT_EQ(integerOf("i64=-7%3"), -1);
  EXPECT_EQ(integerOf("i64=7%-3"), 1);
  EXPECT_EQ(integerOf("i64=(-9223372036854775807-1)%-1"), 0);
}

TEST(Expression, RealWhenEitherOperandIsReal) {
  EXPECT_DOUBLE_EQ(realOf("f64=7/2.0"), 3.5);
  EXPECT_DOUBLE_EQ(realOf("f64=7.0/2"), 3.5);
  EXPECT_DOUBLE_EQ(realOf("f64=7/2"), 3.0);  // integer division, then converted
  EXPECT_DOUBLE_EQ(realOf("f64=1e3"), 1000.0);
  EXPECT_DOUBLE_EQ(realOf("f64=2.5E-1"), 0.25);
  EXPECT_DOUBLE_EQ(realOf("f64=.5"), 0.5);
  EXPECT_DOUBLE_EQ(realOf("f64=1."), 1.0);
  EXPECT_DOUBLE_EQ(realOf("f64=5.5%2"), 1.5);
  EXPECT_DOUBLE_EQ(realOf("f64=-7.5%2"), -1.5);
  EXPECT_DOUBLE_EQ(realOf("f64=npes*0.5", {.rank = 0, .npes = 3}), 1.5);
}

TEST(Expression, IntegersAreExactBeyondDoublePrecision) {
  EXPECT_EQ(integerOf("i64=9007199254740993"), 9007199254740993);  // 2^53 + 1
  EXPECT_EQ(integerOf("i64=9007199254740992+1"), 9007199254740993);
  EXPECT_EQ(integerOf("i64=9223372036854775807"), INT64_MAX);
  EXPECT_EQ(integerOf("i64=-9223372036854775807-1"), INT64_MIN);
}

TEST(Expression, DivisionByZeroIsAnError) {
  EXPECT_EQ(errorOf([] { integerOf("i32=1/0"); }),
            "\"i32=1/0\": division by zero at column 6 (rank 0 of 1)");
  EXPECT_THAT(errorOf([] { integerOf("i32=5%(npes-1)"); }),
              HasSubstr("division by zero at column 6"));
  EXPECT_THAT(errorOf([] { realOf("f64=1.0/0"); }), HasSubstr("division by zero at column 8"));
  EXPECT_THAT(errorOf([] { realOf("f64=1.5%0.0"); }), HasSubstr("division by zero"));
  EXPECT_EQ(errorOf([] { integerOf("i32=1/(rank-1)", {.rank = 1, .npes = 2}); }),
            "\"i32=1/(rank-1)\": division by zero at column 6 (rank 1 of 2)");
}

TEST(Expression, OverflowIsAnError) {
  EXPECT_EQ(errorOf([] { integerOf("i64=9223372036854775807+1"); }),
            "\"i64=9223372036854775807+1\": integer overflow: 9223372036854775807 + 1 does not "
            "fit int64 at column 24 (rank 0 of 1)");
  EXPECT_THAT(errorOf([] { integerOf("i64=4294967296*4294967296"); }),
              HasSubstr("integer overflow: 4294967296 * 4294967296 does not fit int64"));
  EXPECT_THAT(errorOf([] { integerOf("i64=(-9223372036854775807-1)/-1"); }),
              HasSubstr("integer overflow"));
  EXPECT_THAT(
      errorOf([] { integerOf("i64=-(-9223372036854775807-1)"); }),
      HasSubstr("integer overflow: -(-9223372036854775808) does not fit int64 at column 5"));
  EXPECT_THAT(errorOf([] { realOf("f64=1e300*1e300"); }),
              HasSubstr("1e+300 * 1e+300 is not finite at column 10"));
}

TEST(Expression, NumbersOutOfRange) {
  EXPECT_EQ(errorOf([] { parseArgument("i64=9223372036854775808"); }),
            "\"i64=9223372036854775808\": the integer 9223372036854775808 does not fit int64 at "
            "column 5");
  EXPECT_EQ(errorOf([] { parseArgument("f64=1e999"); }),
            "\"f64=1e999\": the number 1e999 is out of range of a double at column 5");
}

TEST(Expression, SyntaxErrorsPointAtTheColumn) {
  EXPECT_EQ(errorOf([] { parseArgument("f32[npes*]"); }),
            "\"f32[npes*]\": expected a number, a variable or '(', found ']' at column 10");
  EXPECT_EQ(errorOf([] { parseArgument("i32=1+"); }),
            "\"i32=1+\": expected a number, a variable or '(', found the end at column 7");
  EXPECT_EQ(errorOf([] { parseArgument("i32=(1+2"); }),
            "\"i32=(1+2\": expected ')', found the end at column 9");
  EXPECT_EQ(errorOf([] { parseArgument("i32=1 2"); }),
            "\"i32=1 2\": unexpected '2' after the description at column 7");
  EXPECT_EQ(errorOf([] { parseArgument("i32=2e"); }),
            "\"i32=2e\": unexpected 'e' after the description at column 6");
  EXPECT_EQ(errorOf([] { parseArgument("i32=#"); }),
            "\"i32=#\": expected a number, a variable or '(', found '#' at column 5");
}

TEST(Expression, NamesAreCheckedWhereTheyAppear) {
  EXPECT_EQ(errorOf([] { parseArgument("i32=foo"); }),
            "\"i32=foo\": unknown name 'foo'; a scalar value may use numbers, rank and npes at "
            "column 5");
  EXPECT_EQ(errorOf([] { parseArgument("i32=i"); }),
            "\"i32=i\": 'i' cannot appear in a scalar value, which may use numbers, rank and npes "
            "at column 5");
  EXPECT_THAT(errorOf([] { parseArgument("f32[d0]"); }),
              HasSubstr("'d0' cannot appear in a dimension, which may use numbers, rank and npes"));
  EXPECT_THAT(errorOf([] { parseArgument("f32[iota]"); }), HasSubstr("'iota' cannot appear"));
  EXPECT_EQ(errorOf([] { parseArgument("i32=rank(1)"); }),
            "\"i32=rank(1)\": 'rank' is not a function at column 5");
  EXPECT_EQ(errorOf([] { parseArgument("f32[4]=random"); }),
            "\"f32[4]=random\": 'random' is a function: random(SEED) at column 8");
  EXPECT_THAT(errorOf([] { parseArgument("i32=random(1)"); }),
              HasSubstr("'random' cannot appear in a scalar value, which may use numbers, rank "
                        "and npes at column 5"));
  EXPECT_THAT(errorOf([] { parseArgument("f32[4]=sum(1)"); }),
              HasSubstr("'sum' cannot appear in an initializer, which may use numbers, rank, "
                        "npes, i, d0, zeros, ones, iota and random(SEED) at column 8"));
  EXPECT_THAT(errorOf([] { parseArgument("f32[4]=foo(1)"); }),
              HasSubstr("unknown function 'foo'; an initializer may use"));
  EXPECT_THAT(errorOf([] { parseArgument("f32[4]=random(1,2)"); }),
              HasSubstr("random takes 1 argument: random(SEED) at column 16"));
  EXPECT_THAT(errorOf([] { parseArgument("f32[4]=random()"); }),
              HasSubstr("random takes 1 argument: random(SEED) at column 15"));
}

TEST(Expression, ErrorsQuoteTheWholeDescription) {
  std::string message = errorOf([] { parseArgument("f32[4, 8]=d0 / zz"); });
  EXPECT_THAT(message, StartsWith("\"f32[4, 8]=d0 / zz\": unknown name 'zz'"));
  EXPECT_THAT(message, HasSubstr("d0..d1"));
  EXPECT_THAT(message, HasSubstr("at column 16"));
}

}  // namespace
}  // namespace tdist::jit::testing
