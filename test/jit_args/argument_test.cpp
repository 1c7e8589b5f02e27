// Argument descriptions: dtypes, scalars, buffer shapes, initial patterns, random(), and the
// conversion of values to elements.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "test/jit_args/support.h"

namespace tdist::jit::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The generator as kernel_args.h documents it, written out again so that the test checks the
// documented formula rather than the library against itself.
double documentedRandom(std::uint64_t seed, std::uint64_t rank, std::uint64_t i) {
  auto mix = [](std::uint64_t z) {
    z += 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
  };
  std::uint64_t h = mix(mix(mix(seed) ^ rank) ^ i);
  return std::ldexp(static_cast<double>(h >> 40), -23) - 1.0;
}

TEST(DTypes, NamesSizesAndKinds) {
  struct Row {
    std::string_view name;
    DType dtype;
    std::size_t size;
    bool is_float;
  };
  const Row rows[] = {
      {"i8", DType::I8, 1, false},     {"i16", DType::I16, 2, false},
      {"i32", DType::I32, 4, false},   {"i64", DType::I64, 8, false},
      {"ui8", DType::U8, 1, false},    {"ui16", DType::U16, 2, false},
      {"ui32", DType::U32, 4, false},  {"ui64", DType::U64, 8, false},
      {"index", DType::Index, 8, false}, {"f32", DType::F32, 4, true},
      {"f64", DType::F64, 8, true},
  };
  for (const Row &row : rows) {
    SCOPED_TRACE(std::string(row.name));
    EXPECT_EQ(dtypeName(row.dtype), row.name);
    EXPECT_EQ(dtypeFromName(row.name), row.dtype);
    EXPECT_EQ(dtypeSize(row.dtype), row.size);
    EXPECT_EQ(isFloat(row.dtype), row.is_float);
    ArgumentSpec spec = parseArgument(std::string(row.name) + "[2]");
    EXPECT_EQ(spec.dtype, row.dtype);
    EXPECT_EQ(resolve(spec, {}).bytes(), 2 * row.size);
  }
  EXPECT_EQ(dtypeFromName("u8"), std::nullopt);
}

TEST(DTypes, UnsupportedOnesAreListed) {
  for (const char *text : {"f16[4]", "bf16[4]", "i1=1", "F32[4]"}) {
    std::string name = std::string(text).substr(0, std::string(text).find_first_of("[="));
    EXPECT_EQ(errorOf([&] { parseArgument(text); }),
              "\"" + std::string(text) + "\": unknown dtype '" + name +
                  "'; supported: i8 i16 i32 i64 ui8 ui16 ui32 ui64 index f32 f64 at column 1");
  }
  EXPECT_EQ(errorOf([] { parseArgument(""); }),
            "\"\": expected a dtype (i8 i16 i32 i64 ui8 ui16 ui32 ui64 index f32 f64) at column 1");
  EXPECT_EQ(
      errorOf([] { parseArgument("[4]"); }),
      "\"[4]\": expected a dtype (i8 i16 i32 i64 ui8 ui16 ui32 ui64 index f32 f64) at column 1");
}

TEST(Descriptions, ScalarsAndBuffersAreTold) {
  ArgumentSpec scalar = parseArgument("i32=1");
  EXPECT_FALSE(scalar.buffer);
  EXPECT_EQ(scalar.text, "i32=1");
  ArgumentSpec buffer = parseArgument("f32[npes*256]=iota");
  EXPECT_TRUE(buffer.buffer);
  EXPECT_EQ(buffer.dims.size(), 1u);
  EXPECT_EQ(errorOf([] { parseArgument("f32"); }),
            "\"f32\": expected '[' and the dimensions of a buffer, or '=' and a scalar's value, "
            "found the end at column 4");
  EXPECT_EQ(errorOf([] { parseArgument("f32[4]=1]"); }),
            "\"f32[4]=1]\": unexpected ']' after the description at column 9");
  EXPECT_EQ(errorOf([] { parseArgument("f32[4]="); }),
            "\"f32[4]=\": expected a number, a variable or '(', found the end at column 8");
}

TEST(Descriptions, ScalarValues) {
  ResolvedArgument one = resolveText("i32=1");
  EXPECT_FALSE(one.buffer);
  EXPECT_TRUE(one.shape.empty());
  EXPECT_EQ(one.int_value, 1);
  EXPECT_EQ(one.elements(), 1u);
  EXPECT_EQ(one.bytes(), 4u);
  EXPECT_EQ(integerOf("index=1024/npes", {.rank = 1, .npes = 8}), 128);
  EXPECT_EQ(realOf("f32=0.5"), 0.5);
  EXPECT_EQ(realOf("f32=0.1"), static_cast<double>(0.1f));  // rounded to float
  EXPECT_EQ(realOf("f64=0.1"), 0.1);
  EXPECT_EQ(integerOf("i32=rank", {.rank = 5, .npes = 6}), 5);
  EXPECT_EQ(integerOf("i32=-3.9"), -3);  // toward zero
  EXPECT_EQ(integerOf("ui8=255"), 255);
  EXPECT_EQ(errorOf([] { resolveText("ui8=256"); }),
            "\"ui8=256\": 256 does not fit ui8 (0..255) at column 5 (rank 0 of 1)");
  EXPECT_EQ(errorOf([] { resolveText("i8=-129"); }),
            "\"i8=-129\": -129 does not fit i8 (-128..127) at column 4 (rank 0 of 1)");
  EXPECT_EQ(errorOf([] { resolveText("i32=2.5e9"); }),
            "\"i32=2.5e9\": 2.5e+09 does not fit i32 (-2147483648..2147483647) at column 5 "
            "(rank 0 of 1)");
  EXPECT_EQ(errorOf([] { resolveText("ui64=-1"); }),
            "\"ui64=-1\": -1 does not fit ui64 (0..9223372036854775807) at column 6 (rank 0 of 1)");
}

TEST(Descriptions, ScalarFillsItsOneElement) {
  ArgumentSpec spec = parseArgument("i16=-7");
  std::int16_t element = 0;
  fillInitial(spec, resolve(spec, {}), {}, &element);
  EXPECT_EQ(element, -7);
}

TEST(Shapes, DimensionsAreExpressions) {
  ResolvedArgument a = resolveText("f32[npes*256]=iota", {.rank = 1, .npes = 2});
  EXPECT_TRUE(a.buffer);
  EXPECT_THAT(a.shape, ElementsAre(512));
  EXPECT_EQ(a.elements(), 512u);
  EXPECT_EQ(a.bytes(), 2048u);
  ResolvedArgument b = resolveText(" f64 [ 4 , npes + 1 , 2 ] ", {.rank = 0, .npes = 3});
  EXPECT_THAT(b.shape, ElementsAre(4, 4, 2));
  EXPECT_EQ(b.bytes(), 4u * 4 * 2 * 8);
  ResolvedArgument c = resolveText("i64[1024/npes]", {.rank = 0, .npes = 4});
  EXPECT_THAT(c.shape, ElementsAre(256));
}

TEST(Shapes, ZeroDimensionalBufferHoldsOneElement) {
  ResolvedArgument a = resolveText("f32[]=7");
  EXPECT_TRUE(a.buffer);
  EXPECT_TRUE(a.shape.empty());
  EXPECT_EQ(a.elements(), 1u);
  EXPECT_THAT(contentsOf<float>("f32[]=7"), ElementsAre(7.0f));
}

TEST(Shapes, Errors) {
  EXPECT_EQ(errorOf([] { resolveText("f32[0]"); }),
            "\"f32[0]\": dimension 0 is 0, and must be at least 1 at column 5 (rank 0 of 1)");
  EXPECT_EQ(errorOf([] { resolveText("f32[4,npes-1]"); }),
            "\"f32[4,npes-1]\": dimension 1 is 0, and must be at least 1 at column 11 (rank 0 "
            "of 1)");
  EXPECT_EQ(errorOf([] { resolveText("f32[2.5]"); }),
            "\"f32[2.5]\": a dimension must be an integer, got the real 2.5 at column 5");
  EXPECT_EQ(errorOf([] { resolveText("f32[4"); }),
            "\"f32[4\": expected ',' or ']', found the end at column 6");
  EXPECT_EQ(errorOf([] { resolveText("f32[4;2]"); }),
            "\"f32[4;2]\": expected ',' or ']', found ';' at column 6");
  EXPECT_THAT(errorOf([] { resolveText("i8[1000000,1000000,1000]"); }),
              HasSubstr("the buffer is larger than 2^48 bytes at column 20"));
  EXPECT_THAT(errorOf([] { resolveText("i8[4/(npes-1)]"); }), HasSubstr("division by zero"));
}

TEST(Patterns, ZerosByDefaultAndTheSugar) {
  EXPECT_THAT(contentsOf<std::int32_t>("i32[4]"), ElementsAre(0, 0, 0, 0));
  EXPECT_THAT(contentsOf<std::int32_t>("i32[4]=zeros"), ElementsAre(0, 0, 0, 0));
  EXPECT_THAT(contentsOf<std::int32_t>("i32[4]=ones"), ElementsAre(1, 1, 1, 1));
  EXPECT_THAT(contentsOf<std::int32_t>("i32[4]=iota"), ElementsAre(0, 1, 2, 3));
  EXPECT_THAT(contentsOf<std::int32_t>("i32[4]=ones*3+iota"), ElementsAre(3, 4, 5, 6));
  EXPECT_THAT(contentsOf<float>("f32[3]=-2.5"), ElementsAre(-2.5f, -2.5f, -2.5f));
}

TEST(Patterns, FlatIndexIsRowMajor) {
  EXPECT_THAT(contentsOf<std::int32_t>("i32[2,3]=i"), ElementsAre(0, 1, 2, 3, 4, 5));
  EXPECT_THAT(contentsOf<std::int32_t>("i32[2,3]=d0*10+d1"), ElementsAre(0, 1, 2, 10, 11, 12));
  EXPECT_THAT(contentsOf<std::int32_t>("i32[2,2,2]=d0*100+d1*10+d2"),
              ElementsAre(0, 1, 10, 11, 100, 101, 110, 111));
}

TEST(Patterns, RankDependence) {
  Context pe2{.rank = 2, .npes = 4};
  std::vector<float> values = contentsOf<float>("f32[8,8]=rank*100+d0*8+d1", pe2);
  for (int k = 0; k < 64; ++k) EXPECT_EQ(values[k], 200.0f + k);
  EXPECT_THAT(contentsOf<std::int64_t>("index[3]=npes-i", pe2), ElementsAre(4, 3, 2));
}

TEST(Patterns, DimensionBeyondTheRankIsAnError) {
  EXPECT_EQ(errorOf([] { parseArgument("f32[4,4]=d2"); }),
            "\"f32[4,4]=d2\": 'd2' is beyond the buffer's 2 dimensions; an initializer may use "
            "numbers, rank, npes, i, d0..d1, zeros, ones, iota and random(SEED) at column 10");
  EXPECT_THAT(errorOf([] { parseArgument("f32[]=d0"); }),
              HasSubstr("'d0' is beyond the buffer's 0 dimensions; an initializer may use "
                        "numbers, rank, npes, i, zeros, ones, iota and random(SEED)"));
}

TEST(Patterns, EvaluationErrorsNameTheElement) {
  EXPECT_EQ(errorOf([] { contentsOf<std::int32_t>("i32[4]=10/(i-2)"); }),
            "\"i32[4]=10/(i-2)\": division by zero at column 10 (element [2], rank 0 of 1)");
  EXPECT_EQ(
      errorOf([] { contentsOf<std::int32_t>("i32[2,2]=1/(d1-rank)", {.rank = 1, .npes = 2}); }),
      "\"i32[2,2]=1/(d1-rank)\": division by zero at column 11 (element [0,1], rank 1 of "
      "2)");
}

TEST(Random, FollowsTheDocumentedGenerator) {
  for (int rank : {0, 3}) {
    std::vector<double> values =
        contentsOf<double>("f64[100]=random(7)", {.rank = rank, .npes = 4});
    for (int i = 0; i < 100; ++i) ASSERT_EQ(values[i], documentedRandom(7, rank, i)) << i;
  }
  std::vector<double> negative_seed = contentsOf<double>("f64[4]=random(-5)");
  EXPECT_EQ(negative_seed[3], documentedRandom(static_cast<std::uint64_t>(-5), 0, 3));
}

TEST(Random, SugarIsTheSameAsTheFunction) {
  EXPECT_EQ(contentsOf<float>("f32[16]=random:7"), contentsOf<float>("f32[16]=random(7)"));
  EXPECT_EQ(contentsOf<float>("f32[16]=random:3+4"), contentsOf<float>("f32[16]=random(7)"));
  EXPECT_EQ(contentsOf<float>("f32[16]=random:npes", {.rank = 0, .npes = 7}),
            contentsOf<float>("f32[16]=random(7)"));
  EXPECT_THAT(errorOf([] { parseArgument("f32[4]=random:i"); }),
              HasSubstr("'i' cannot appear in the seed of random:"));
  EXPECT_THAT(errorOf([] { parseArgument("f32[4]=random(d0)"); }),
              HasSubstr("'d0' cannot appear in an argument of random(SEED)"));
  EXPECT_EQ(
      errorOf([] { contentsOf<float>("f32[4]=random(1.5)"); }),
      "\"f32[4]=random(1.5)\": the seed of random() must be an integer, got 1.5 at column 15");
}

TEST(Random, DeterministicAndDependsOnSeedRankAndIndexOnly) {
  Context pe0{.rank = 0, .npes = 2};
  Context pe1{.rank = 1, .npes = 2};
  std::vector<float> a = contentsOf<float>("f32[64]=random:7", pe0);
  EXPECT_EQ(a, contentsOf<float>("f32[64]=random:7", pe0));
  EXPECT_EQ(a, contentsOf<float>("f32[64]=random:7", {.rank = 0, .npes = 8}));  // not npes
  EXPECT_EQ(a, contentsOf<float>("f32[8,8]=random:7", pe0));                    // not the shape
  EXPECT_NE(a, contentsOf<float>("f32[64]=random:7", pe1));
  EXPECT_NE(a, contentsOf<float>("f32[64]=random:8", pe0));
  EXPECT_NE(a[0], a[1]);
  // Values are multiples of 2^-23, so f32 and f64 buffers hold the same numbers.
  std::vector<double> wide = contentsOf<double>("f64[64]=random:7", pe0);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(static_cast<double>(a[i]), wide[i]);
}

TEST(Random, UniformInMinusOneToOne) {
  std::vector<float> values = contentsOf<float>("f32[100000]=random:11");
  float low = *std::min_element(values.begin(), values.end());
  float high = *std::max_element(values.begin(), values.end());
  EXPECT_GE(low, -1.0f);
  EXPECT_LT(high, 1.0f);
  EXPECT_LT(low, -0.999f);
  EXPECT_GT(high, 0.999f);
  double sum = 0;
  int below_half = 0;
  for (float v : values) {
    sum += v;
    below_half += v < -0.5f;
    EXPECT_EQ(std::ldexp(v, 23), std::trunc(std::ldexp(v, 23)));
  }
  EXPECT_NEAR(sum / values.size(), 0.0, 0.01);
  EXPECT_NEAR(below_half / 100000.0, 0.25, 0.01);
}

TEST(Conversion, IntegersRoundTowardZeroAndMustFit) {
  EXPECT_THAT(contentsOf<std::int32_t>("i32[4]=i*0.75"), ElementsAre(0, 0, 1, 2));
  EXPECT_THAT(contentsOf<std::int32_t>("i32[4]=-i*0.75"), ElementsAre(0, 0, -1, -2));
  std::vector<std::int32_t> scaled = contentsOf<std::int32_t>("i32[8]=random(1)*100");
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(scaled[i], static_cast<std::int32_t>(std::trunc(documentedRandom(1, 0, i) * 100)));
  EXPECT_EQ(errorOf([] { contentsOf<std::int8_t>("i8[4]=i*100"); }),
            "\"i8[4]=i*100\": 200 does not fit i8 (-128..127) at column 7 (element [2], rank 0 of "
            "1)");
  EXPECT_THAT(errorOf([] { contentsOf<std::uint8_t>("ui8[3]=i-1"); }),
              HasSubstr("-1 does not fit ui8 (0..255) at column 8 (element [0]"));
  EXPECT_THAT(errorOf([] { contentsOf<std::uint8_t>("ui8[2]=255+i"); }),
              HasSubstr("256 does not fit ui8 (0..255)"));
  EXPECT_THAT(errorOf([] { contentsOf<std::uint16_t>("ui16[2]=65535.5+i"); }),
              HasSubstr("65536.5 does not fit ui16 (0..65535)"));
  EXPECT_THAT(contentsOf<std::uint16_t>("ui16[2]=65534.9+i*0.1"), ElementsAre(65534, 65535));
}

TEST(Conversion, EveryIntegerDtype) {
  EXPECT_THAT(contentsOf<std::int16_t>("i16[2]=-32768+i*65535"), ElementsAre(-32768, 32767));
  EXPECT_THAT(contentsOf<std::uint32_t>("ui32[2]=4294967295-i"),
              ElementsAre(4294967295u, 4294967294u));
  EXPECT_THAT(contentsOf<std::int64_t>("i64[2]=9007199254740993+i"),
              ElementsAre(9007199254740993, 9007199254740994));
  EXPECT_THAT(contentsOf<std::uint64_t>("ui64[2]=9223372036854775807-i"),
              ElementsAre(9223372036854775807u, 9223372036854775806u));
  EXPECT_THAT(contentsOf<std::int64_t>("index[2]=-i"), ElementsAre(0, -1));
  // 2^63 as a real fits no integer dtype of the language.
  EXPECT_THAT(errorOf([] { contentsOf<std::int64_t>("i64[1]=9223372036854775808.0"); }),
              HasSubstr("does not fit i64"));
  EXPECT_THAT(contentsOf<std::int64_t>("i64[1]=-9223372036854775808.0"), ElementsAre(INT64_MIN));
}

TEST(Conversion, FloatsTakeTheNearestValue) {
  EXPECT_THAT(contentsOf<float>("f32[1]=16777217"), ElementsAre(16777216.0f));
  EXPECT_THAT(contentsOf<float>("f32[1]=0.1"), ElementsAre(0.1f));
  // One rounding, straight from the integer: 2^53 + 2^29 + 1 is nearer 2^53 + 2^30 than
  // 2^53, though through double it would tie and round to even, 2^53.
  EXPECT_THAT(contentsOf<float>("f32[1]=9007199791611905"),
              ElementsAre(static_cast<float>(9007199791611905LL)));
  EXPECT_EQ(static_cast<float>(9007199791611905LL), 9007200328482816.0f);
  EXPECT_THAT(contentsOf<double>("f64[1]=9007199254740993"), ElementsAre(9007199254740992.0));
  EXPECT_THAT(contentsOf<double>("f64[2]=1e300*(i+1)"), ElementsAre(1e300, 2e300));
  EXPECT_EQ(errorOf([] { contentsOf<float>("f32[1]=1e39"); }),
            "\"f32[1]=1e39\": 1e+39 does not fit f32 at column 8 (rank 0 of 1)");
}

TEST(Descriptions, SpecsCopyAndReuse) {
  ArgumentSpec original = parseArgument("i32[4]=rank+i");
  ArgumentSpec copy = original;
  original = parseArgument("i32[2]");
  std::vector<std::int32_t> data(4);
  fillInitial(copy, resolve(copy, {.rank = 1, .npes = 2}), {.rank = 1, .npes = 2}, data.data());
  EXPECT_THAT(data, ElementsAre(1, 2, 3, 4));
}

}  // namespace
}  // namespace tdist::jit::testing
