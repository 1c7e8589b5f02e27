// Comparing a buffer with its reference (tolerances, NaN, exact integers, the report) and
// printing buffers.
#include <cmath>
#include <limits>

#include "test/jit_args/support.h"

namespace tdist::jit::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Tensor tensorOf(std::vector<std::int64_t> shape, std::vector<Value> values) {
  return Tensor{.shape = std::move(shape), .values = std::move(values)};
}

std::vector<Value> realValues(std::initializer_list<double> reals) {
  std::vector<Value> values;
  for (double r : reals) values.push_back(Value::ofReal(r));
  return values;
}

TEST(Tolerance, Defaults) {
  Tolerance f32 = Tolerance::defaultFor(DType::F32);
  EXPECT_EQ(f32.rtol, 1e-4);
  EXPECT_EQ(f32.atol, 1e-4);
  Tolerance f64 = Tolerance::defaultFor(DType::F64);
  EXPECT_EQ(f64.rtol, 1e-10);
  EXPECT_EQ(f64.atol, 1e-12);
  Tolerance i32 = Tolerance::defaultFor(DType::I32);
  EXPECT_EQ(i32.rtol, 0);
  EXPECT_EQ(i32.atol, 0);
}

TEST(Compare, FloatsWithinAtolPlusRtolTimesExpected) {
  ResolvedArgument argument = resolveText("f64[4]");
  Tolerance tolerance{.rtol = 1e-3, .atol = 1e-2};
  // Allowed: 0.01 + 0.001 * |expected|, i.e. 0.011 at 1 and 0.11 at 100.
  std::vector<double> actual = {1.0105, 100.105, -100.105, 0.0};
  Tensor expected = tensorOf({4}, realValues({1.0, 100.0, -100.0, 0.0099}));
  CheckReport pass = compare(argument, actual.data(), expected, tolerance);
  EXPECT_TRUE(pass.ok()) << pass.details;
  EXPECT_EQ(pass.elements, 4u);
  actual = {1.0115, 100.115, -100.115, 0.0201};
  CheckReport fail = compare(argument, actual.data(), expected, tolerance);
  EXPECT_FALSE(fail.ok());
  EXPECT_EQ(fail.mismatches, 4u);
}

TEST(Compare, DefaultF32ToleranceTakesAGemmOfKIs256) {
  // The product of random [64,256] and [256,64] matrices, summed in f32 in order, against the
  // double reference.
  std::initializer_list<const char *> texts = {"f32[64,256]=random:1", "f32[256,64]=random:2",
                                               "f32[64,64]"};
  std::vector<ArgumentSpec> specs;
  for (const char *text : texts) specs.push_back(parseArgument(text));
  std::vector<float> a = contentsOf<float>(texts.begin()[0]);
  std::vector<float> b = contentsOf<float>(texts.begin()[1]);
  std::vector<float> c(64 * 64, 0.0f);
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 64; ++j)
      for (int k = 0; k < 256; ++k) c[i * 64 + j] += a[i * 256 + k] * b[k * 64 + j];
  ResolvedArgument argument = resolve(specs[2], {});
  Tensor expected = expectedValues(parseCheck("2=matmul(arg(0), arg(1))"), specs, {});
  CheckReport report = compare(argument, c.data(), expected, Tolerance::defaultFor(DType::F32));
  EXPECT_TRUE(report.ok()) << report.details;
  c[5 * 64 + 7] += 0.01f;  // a real error is still seen
  report = compare(argument, c.data(), expected, Tolerance::defaultFor(DType::F32));
  EXPECT_EQ(report.mismatches, 1u);
  EXPECT_THAT(report.details, HasSubstr("\n  [5,7]: actual "));
}

TEST(Compare, NanAndInfinityNeverMatch) {
  ResolvedArgument argument = resolveText("f32[3]");
  std::vector<float> actual = {std::numeric_limits<float>::quiet_NaN(),
                               std::numeric_limits<float>::infinity(), 1.0f};
  Tensor expected = tensorOf({3}, realValues({1.0, 1.0, 1.0}));
  CheckReport report =
      compare(argument, actual.data(), expected, Tolerance{.rtol = 1e30, .atol = 1e30});
  EXPECT_EQ(report.mismatches, 2u);
  EXPECT_EQ(report.details,
            "2 of 3 elements differ (f32, rtol 1e+30, atol 1e+30; largest |actual - expected| nan "
            "at [0]):\n"
            "  [0]: actual nan, expected 1\n"
            "  [1]: actual inf, expected 1");
}

TEST(Compare, IntegersAreExact) {
  ResolvedArgument argument = resolveText("i32[2,3]");
  std::vector<std::int32_t> actual = {0, 1, 2, 3, 5, 5};
  Tensor expected =
      tensorOf({2, 3}, {Value::ofInteger(0), Value::ofInteger(1), Value::ofInteger(2),
                        Value::ofInteger(3), Value::ofInteger(4), Value::ofInteger(5)});
  CheckReport report = compare(argument, actual.data(), expected, Tolerance{.rtol = 1, .atol = 1});
  EXPECT_EQ(report.mismatches, 1u);
  EXPECT_EQ(report.details, "1 of 6 elements differ (i32, exact):\n  [1,1]: actual 5, expected 4");
  actual[4] = 4;
  report = compare(argument, actual.data(), expected, Tolerance{});
  EXPECT_TRUE(report.ok());
  EXPECT_EQ(report.details, "all 6 elements match (i32, exact)");
}

TEST(Compare, IntegerBufferAgainstARealReference) {
  ResolvedArgument argument = resolveText("i32[3]");
  std::vector<std::int32_t> actual = {2, 2, 3};
  Tensor expected = tensorOf({3}, realValues({2.0, 2.5, 3.0}));
  CheckReport report = compare(argument, actual.data(), expected, Tolerance{.rtol = 1, .atol = 1});
  EXPECT_EQ(report.mismatches, 1u);
  EXPECT_THAT(report.details, HasSubstr("[1]: actual 2, expected 2.5"));
}

TEST(Compare, Int64BeyondDoublePrecision) {
  ResolvedArgument argument = resolveText("i64[2]");
  std::vector<std::int64_t> actual = {9007199254740993, 9007199254740993};
  Tensor expected = tensorOf({2}, {Value::ofInteger(9007199254740993),
                                   Value::ofInteger(9007199254740992)});
  CheckReport report = compare(argument, actual.data(), expected, Tolerance{});
  EXPECT_EQ(report.mismatches, 1u);
  EXPECT_THAT(report.details, HasSubstr("[1]: actual 9007199254740993, expected 9007199254740992"));
  // As a real, 2^53 is also not 2^53 + 1.
  report = compare(argument, actual.data(), tensorOf({2}, realValues({9007199254740992.0, 1.0})),
                   Tolerance{});
  EXPECT_EQ(report.mismatches, 2u);
}

TEST(Compare, Ui64BeyondInt64NeverMatches) {
  ResolvedArgument argument = resolveText("ui64[2]");
  std::vector<std::uint64_t> actual = {18446744073709551615u, 5};
  Tensor expected = tensorOf({2}, {Value::ofInteger(-1), Value::ofInteger(5)});
  CheckReport report = compare(argument, actual.data(), expected, Tolerance{});
  EXPECT_EQ(report.mismatches, 1u);
  EXPECT_THAT(report.details, HasSubstr("[0]: actual 18446744073709551615, expected -1"));
}

TEST(Compare, ListsTheFirstEightMismatches) {
  ResolvedArgument argument = resolveText("i32[3,4]");
  std::vector<std::int32_t> actual(12, 7);
  Tensor expected = tensorOf({3, 4}, std::vector<Value>(12, Value::ofInteger(0)));
  CheckReport report = compare(argument, actual.data(), expected, Tolerance{});
  EXPECT_EQ(report.mismatches, 12u);
  EXPECT_EQ(report.details,
            "12 of 12 elements differ (i32, exact); the first 8:\n"
            "  [0,0]: actual 7, expected 0\n  [0,1]: actual 7, expected 0\n"
            "  [0,2]: actual 7, expected 0\n  [0,3]: actual 7, expected 0\n"
            "  [1,0]: actual 7, expected 0\n  [1,1]: actual 7, expected 0\n"
            "  [1,2]: actual 7, expected 0\n  [1,3]: actual 7, expected 0");
}

TEST(Compare, ReportsTheLargestDifference) {
  ResolvedArgument argument = resolveText("f32[2,2]");
  std::vector<float> actual = {1.0f, 2.0f, 3.5f, 4.0f};
  Tensor expected = tensorOf({2, 2}, realValues({1.0, 2.0, 3.0, 4.0}));
  CheckReport report =
      compare(argument, actual.data(), expected, Tolerance{.rtol = 0, .atol = 0.1});
  EXPECT_EQ(report.details,
            "1 of 4 elements differ (f32, rtol 0, atol 0.1; largest |actual - expected| 0.5 at "
            "[1,0]):\n  [1,0]: actual 3.5, expected 3");
  actual[2] = 3.0f;
  report = compare(argument, actual.data(), expected, Tolerance::defaultFor(DType::F32));
  EXPECT_EQ(report.details,
            "all 4 elements match (f32, rtol 1e-04, atol 1e-04; largest |actual - expected| 0 "
            "at [0,0])");
}

TEST(Compare, F32ExpectedValuesPrintAsFloats) {
  ResolvedArgument argument = resolveText("f32[1]");
  float actual = 1.0f;
  Tensor expected = tensorOf({1}, realValues({static_cast<double>(0.1f)}));
  EXPECT_THAT(compare(argument, &actual, expected, Tolerance{}).details,
              HasSubstr("[0]: actual 1, expected 0.1"));
}

TEST(Compare, SizeMismatchIsAnError) {
  ResolvedArgument argument = resolveText("f32[2]");
  std::vector<float> actual(2);
  EXPECT_EQ(errorOf([&] {
              compare(argument, actual.data(), tensorOf({3}, realValues({1, 2, 3})), {});
            }),
            "compare: 3 expected values for a buffer of 2 elements");
}

TEST(Compare, AllReduceFromEveryPe) {
  // Each PE checks the same simulated result; a wrong element is caught on every PE.
  const int npes = 4;
  std::vector<ArgumentSpec> specs = {parseArgument("f32[8]=random:3")};
  std::vector<float> reduced(8, 0.0f);
  for (int r = 0; r < npes; ++r) {
    std::vector<float> mine = contentsOf<float>("f32[8]=random:3", {.rank = r, .npes = npes});
    for (int i = 0; i < 8; ++i) reduced[i] += mine[i];
  }
  Check check = parseCheck("0=sum(arg(0))");
  for (int rank = 0; rank < npes; ++rank) {
    Context context{.rank = rank, .npes = npes};
    ResolvedArgument argument = resolve(specs[0], context);
    Tensor expected = expectedValues(check, specs, context);
    EXPECT_TRUE(
        compare(argument, reduced.data(), expected, Tolerance::defaultFor(DType::F32)).ok());
    std::vector<float> wrong = reduced;
    wrong[6] -= 0.5f;
    CheckReport report =
        compare(argument, wrong.data(), expected, Tolerance::defaultFor(DType::F32));
    EXPECT_EQ(report.mismatches, 1u);
    EXPECT_THAT(report.details, HasSubstr("[6]: actual"));
  }
}

std::string print(const std::string &text, std::size_t limit = 64) {
  ArgumentSpec spec = parseArgument(text);
  ResolvedArgument argument = resolve(spec, {});
  std::vector<std::byte> data(argument.bytes());
  fillInitial(spec, argument, {}, data.data());
  return formatBuffer(argument, data.data(), limit);
}

TEST(Print, RowsAlignedToTheWidestElement) {
  EXPECT_EQ(print("i32[2,3]=iota"), "i32[2,3]\n[[0, 1, 2],\n [3, 4, 5]]");
  EXPECT_EQ(print("i32[2,3]=i*5-5"), "i32[2,3]\n[[-5,  0,  5],\n [10, 15, 20]]");
  EXPECT_EQ(print("i32[4]=iota"), "i32[4]\n[0, 1, 2, 3]");
}

TEST(Print, BlocksOfThreeDimensionsAreSeparatedByABlankLine) {
  EXPECT_EQ(print("i8[2,2,2]=iota"), "i8[2,2,2]\n[[[0, 1],\n  [2, 3]],\n\n [[4, 5],\n  [6, 7]]]");
}

TEST(Print, LongBuffersShowTheirEnds) {
  EXPECT_EQ(print("i32[100]=iota"), "i32[100]\n[ 0,  1,  2, ..., 97, 98, 99]");
  EXPECT_EQ(print("i32[100]=iota", 100), print("i32[100]=iota", 1000));
  EXPECT_THAT(print("i32[100]=iota", 100), Not(HasSubstr("...")));
  EXPECT_EQ(print("i32[10,10]=iota"),
            "i32[10,10]\n"
            "[[ 0,  1,  2, ...,  7,  8,  9],\n"
            " [10, 11, 12, ..., 17, 18, 19],\n"
            " [20, 21, 22, ..., 27, 28, 29],\n"
            " ...,\n"
            " [70, 71, 72, ..., 77, 78, 79],\n"
            " [80, 81, 82, ..., 87, 88, 89],\n"
            " [90, 91, 92, ..., 97, 98, 99]]");
  // A short dimension is shown whole even when the buffer is summarized.
  EXPECT_EQ(print("i32[2,40]=iota", 10),
            "i32[2,40]\n[[ 0,  1,  2, ..., 37, 38, 39],\n [40, 41, 42, ..., 77, 78, 79]]");
}

TEST(Print, LongRowsWrapAtEightyColumns) {
  std::string text = print("i32[40]=i*1000");
  EXPECT_EQ(text.substr(0, text.find('\n')), "i32[40]");
  std::string body = text.substr(text.find('\n') + 1);
  std::size_t lines = 0;
  for (std::size_t start = 0; start < body.size(); ++lines) {
    std::size_t end = std::min(body.find('\n', start), body.size());
    EXPECT_LE(end - start, 80u);
    if (lines > 0) {
      EXPECT_EQ(body[start], ' ');  // continuation lines are indented
    }
    start = end + 1;
  }
  EXPECT_GT(lines, 1u);
  EXPECT_THAT(body, HasSubstr("39000]"));
  EXPECT_EQ(body.substr(0, 19), "[    0,  1000,  200");
}

TEST(Print, FloatsAreShortestAndScalarsOneLine) {
  EXPECT_EQ(print("f32[3]=i*0.1"), "f32[3]\n[  0, 0.1, 0.2]");
  EXPECT_EQ(print("f64[2]=1/3.0+i"), "f64[2]\n[0.3333333333333333, 1.3333333333333333]");
  EXPECT_EQ(print("f32[]=2.5"), "f32[]\n2.5");
  EXPECT_EQ(formatBuffer(resolveText("f32=0.1"), nullptr), "f32=0.1");
  EXPECT_EQ(formatBuffer(resolveText("i32=-5"), nullptr), "i32=-5");
  std::uint64_t big = 18446744073709551615u;
  EXPECT_EQ(formatBuffer(resolveText("ui64[1]"), &big), "ui64[1]\n[18446744073709551615]");
}

}  // namespace
}  // namespace tdist::jit::testing
