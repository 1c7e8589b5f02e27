// The launcher link's proofs of the secret: SHA-256 (FIPS 180-4's examples) and HMAC-SHA256
// (RFC 4231's test cases), the paddings that take one block and two, and fresh nonces.
#include <gtest/gtest.h>

#include <string>

#include "tools/tdist-run/link_proof.h"

namespace tdist::launcher {
namespace {

std::string hex(const Sha256Digest &digest) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  for (std::uint8_t byte : digest) {
    text += kDigits[byte >> 4];
    text += kDigits[byte & 0xf];
  }
  return text;
}

TEST(LinkProof, Sha256OfTheStandardsExamples) {
  EXPECT_EQ(hex(sha256("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hex(sha256("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(hex(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(hex(sha256(std::string(1000000, 'a'))), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// 55 bytes pad within their block, 56 need a second one, 64 fill one whole.
TEST(LinkProof, Sha256PadsAtTheBlockEdges) {
  EXPECT_EQ(hex(sha256(std::string(55, 'x'))), "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072");
  EXPECT_EQ(hex(sha256(std::string(56, 'x'))), "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e");
  EXPECT_EQ(hex(sha256(std::string(64, 'x'))), "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c");
}

TEST(LinkProof, HmacSha256OfRfc4231) {
  EXPECT_EQ(hex(hmacSha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  // A key longer than a block is hashed first.
  EXPECT_EQ(hex(hmacSha256(std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First")),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST(LinkProof, NoncesAreFreshAndBytesCompareWhole) {
  const std::string a = freshNonce(), b = freshNonce();
  EXPECT_EQ(a.size(), 16u);
  EXPECT_NE(a, b);
  EXPECT_TRUE(sameBytes("proof", "proof"));
  EXPECT_FALSE(sameBytes("proof", "proog"));
  EXPECT_FALSE(sameBytes("proof", "proo"));
  EXPECT_FALSE(sameBytes("", "p"));
}

}  // namespace
}  // namespace tdist::launcher
