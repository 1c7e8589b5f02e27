// The shared reader of sizes, durations, integers and engine lists: what each grammar accepts,
// every overflow, and the message of every rejection.
#include "common/value_parser.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>

namespace tdist::values {
namespace {

using ::testing::HasSubstr;

constexpr std::uint64_t kMaxBytes = UINT64_MAX;

TEST(Size, AcceptsBytesAndBinaryMultiples) {
  EXPECT_EQ(parseSize("4096").value, 4096u);
  EXPECT_EQ(parseSize("64K").value, 64u << 10);
  EXPECT_EQ(parseSize("64k").value, 64u << 10);
  EXPECT_EQ(parseSize("256M").value, 256u << 20);
  EXPECT_EQ(parseSize("2G").value, 2ull << 30);
  EXPECT_EQ(parseSize("3T").value, 3ull << 40);
  EXPECT_EQ(parseSize("0").value, 0u);
}

TEST(Size, AcceptsTheByteSpellingsOfTheBenchmarkPeer) {
  EXPECT_EQ(parseSize("4KiB").value, 4u << 10);
  EXPECT_EQ(parseSize("4KB").value, 4u << 10);
  EXPECT_EQ(parseSize("4096B").value, 4096u);
}

TEST(Size, RejectsWhatIsNotASize) {
  for (const char *text : {"", "K", "12Q", "-1", "+1", " 1", "1 ", "1.5G", "1KK", "1iB", "1Kib",
                           "0x10", "1G2"}) {
    Parsed<std::uint64_t> parsed = parseSize(text);
    EXPECT_FALSE(parsed) << text;
    EXPECT_EQ(parsed.error, "expected a size in bytes such as 4096, 64K, 256M or 2G, got '" +
                                std::string(text) + "'");
  }
}

// 17179869185G is 2^64 + 2^30 bytes: shifted without a check it wraps to 1 GiB.
TEST(Size, RejectsWhatDoesNotFitIn64Bits) {
  for (const char *text : {"17179869185G", "16777216T", "18446744073709551616",
                           "99999999999999999999999", "18014398509481984K"}) {
    Parsed<std::uint64_t> parsed = parseSize(text);
    EXPECT_FALSE(parsed) << text << " read as " << parsed.value.value_or(0);
    EXPECT_EQ(parsed.error, "size '" + std::string(text) + "' is more than 2^64 - 1 bytes");
  }
  EXPECT_EQ(parseSize("18446744073709551615").value, kMaxBytes);
  EXPECT_EQ(parseSize("17179869183G").value, 17179869183ull << 30);
  EXPECT_EQ(parseSize("16777215T").value, 16777215ull << 40);
}

TEST(Size, ChecksItsRange) {
  Parsed<std::uint64_t> zero = parseSize("0", {.min = 1});
  EXPECT_FALSE(zero);
  EXPECT_EQ(zero.error, "expected a size of at least 1 byte, got '0'");
  Parsed<std::uint64_t> big = parseSize("2G", {.min = 1, .max = 1u << 30});
  EXPECT_FALSE(big);
  EXPECT_EQ(big.error, "expected a size from 1 to 1073741824 bytes, got '2G'");
  EXPECT_EQ(parseSize("1G", {.min = 1, .max = 1u << 30}).value, 1u << 30);
}

TEST(Integer, AcceptsDecimalIntegersInRange) {
  EXPECT_EQ(parseInteger("4").value, 4);
  EXPECT_EQ(parseInteger("-3").value, -3);
  EXPECT_EQ(parseInteger("4096", {.min = 1, .max = 4096}).value, 4096);
  EXPECT_EQ(parseInteger("0", {.min = 0}).value, 0);
}

TEST(Integer, NamesTheRangeItExpected) {
  EXPECT_EQ(parseInteger("0", {.min = 1, .max = 4096}).error,
            "expected an integer from 1 to 4096, got '0'");
  EXPECT_EQ(parseInteger("4097", {.min = 1, .max = 4096}).error,
            "expected an integer from 1 to 4096, got '4097'");
  EXPECT_EQ(parseInteger("-1", {.min = 0}).error, "expected an integer of at least 0, got '-1'");
  EXPECT_EQ(parseInteger("two").error, "expected an integer, got 'two'");
  for (const char *text : {"", "1.0", "1e3", " 1", "+1", "0x10", "9223372036854775808"})
    EXPECT_FALSE(parseInteger(text)) << text;
}

TEST(Seconds, AcceptsDecimalSecondsAndUnits) {
  EXPECT_EQ(parseSeconds("30").value, 30.0);
  EXPECT_EQ(parseSeconds("1.5").value, 1.5);
  EXPECT_EQ(parseSeconds("2e-3").value, 2e-3);
  EXPECT_EQ(parseSeconds("500ms").value, 0.5);
  EXPECT_EQ(parseSeconds("10s").value, 10.0);
  EXPECT_EQ(parseSeconds("2m").value, 120.0);
  EXPECT_EQ(parseSeconds("1.5h").value, 5400.0);
}

TEST(Seconds, ZeroOnlyWhereAllowed) {
  EXPECT_EQ(parseSeconds("0", ZeroSeconds::Allowed).value, 0.0);
  Parsed<double> zero = parseSeconds("0");
  EXPECT_FALSE(zero);
  EXPECT_EQ(zero.error,
            "expected a number of seconds greater than 0 (or with a unit: 500ms, 2m, 1h), got '0'");
  Parsed<double> negative = parseSeconds("-1", ZeroSeconds::Allowed);
  EXPECT_FALSE(negative);
  EXPECT_EQ(negative.error,
            "expected a number of seconds, 0 or more (or with a unit: 500ms, 2m, 1h), got '-1'");
}

TEST(Seconds, RejectsWhatIsNotAFiniteDuration) {
  for (const char *text : {"", "soon", "inf", "nan", "1e400", "1.5x", "ms", "5 s", "1e", "-0.5"})
    EXPECT_THAT(parseSeconds(text).error, HasSubstr("expected a number of seconds")) << text;
}

// A deadline is added to a steady_clock time point: a huge one would overflow it.
TEST(Seconds, RejectsDurationsBeyondTheLimit) {
  EXPECT_EQ(parseSeconds("1e9").value, kMaxSeconds);
  EXPECT_EQ(parseSeconds("1e300").error, "duration '1e300' is more than 1e+09 seconds");
  EXPECT_FALSE(parseSeconds("300000h"));
}

TEST(Seconds, FormatReadsBackAsTheSameNumber) {
  EXPECT_EQ(formatSeconds(30), "30");
  EXPECT_EQ(formatSeconds(1.5), "1.5");
  EXPECT_EQ(formatSeconds(0.1), "0.1");
  for (double seconds : {0.1, 1.0 / 3, 2e-3, 123456.789, kMaxSeconds})
    EXPECT_EQ(parseSeconds(formatSeconds(seconds)).value, seconds) << formatSeconds(seconds);
}

TEST(Engines, ReadsAListInTheOrderGivenWithoutDuplicates) {
  EXPECT_EQ(parseEngines("mte").value, std::vector<Engine>{Engine::Mte});
  EXPECT_EQ(parseEngines("sdma,mte").value, (std::vector<Engine>{Engine::Sdma, Engine::Mte}));
  EXPECT_EQ(parseEngines("mte,sdma,roce,udma").value,
            (std::vector<Engine>{Engine::Mte, Engine::Sdma, Engine::Roce, Engine::Udma}));
  EXPECT_EQ(parseEngines("mte,sdma,mte").value, (std::vector<Engine>{Engine::Mte, Engine::Sdma}));
  EXPECT_EQ(formatEngines(*parseEngines("sdma,mte,sdma").value), "sdma,mte");
}

TEST(Engines, NamesTheEngineItDoesNotKnow) {
  EXPECT_EQ(parseEngines("mte,dma").error,
            "unknown engine 'dma' in 'mte,dma' (known: mte, sdma, roce, udma)");
  EXPECT_EQ(parseEngines("MTE").error,
            "unknown engine 'MTE' in 'MTE' (known: mte, sdma, roce, udma)");
  EXPECT_EQ(parseEngines("mte,,sdma").error,
            "empty engine name in 'mte,,sdma' (known: mte, sdma, roce, udma)");
  EXPECT_EQ(parseEngines("mte,").error,
            "empty engine name in 'mte,' (known: mte, sdma, roce, udma)");
  EXPECT_EQ(parseEngines("").error, "expected a list of engines such as mte or mte,sdma, got ''");
}

}  // namespace
}  // namespace tdist::values
