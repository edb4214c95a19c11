// util/hex: lower-case encoding and the decoding that refuses what is not hex.
#include "util/hex.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace rfdb::util {
namespace {

TEST(Hex, EncodesEveryByteAsTwoLowerCaseDigits)
{
  EXPECT_EQ(hex_encode(""), "");
  EXPECT_EQ(hex_encode(std::string("\x00\x0f\xa0\xff", 4)), "000fa0ff");
}

TEST(Hex, DecodesEitherCaseAndRefusesOddLengthOrABadDigit)
{
  EXPECT_EQ(hex_decode(""), std::string());
  EXPECT_EQ(hex_decode("000FA0ff"), std::string("\x00\x0f\xa0\xff", 4));
  EXPECT_EQ(hex_decode("abc"), std::nullopt);
  EXPECT_EQ(hex_decode("0g"), std::nullopt);
  EXPECT_EQ(hex_decode("\\x00"), std::nullopt);
  const std::string digest = "08f8335ea3a3d8c4c4c2b4e4f1f0f0d8e3a3b9c0a1d2e3f4a5b6c7d8e9f00112";
  EXPECT_EQ(hex_encode(*hex_decode(digest)), digest);
}

} // namespace
} // namespace rfdb::util
