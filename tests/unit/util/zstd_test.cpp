// util/zstd: round trips of odd bytes, the compression it buys on JSON, and
// clear errors on corrupt frames.
#include "util/zstd.hpp"

#include <gtest/gtest.h>

#include <string>

namespace rfdb::util::zstd {
namespace {

TEST(ZstdTest, RoundTripsBytesExactly)
{
  const std::string odd =
      std::string("\xEF\xBB\xBF{\"a\": 1,\r\n \"b\": \"\xC3\xA9\xFF\"}\r\n") + std::string(1, '\0');
  for (const std::string& text : {std::string(), std::string("x"), odd}) {
    for (const int level : {1, k_default_level, 19}) {
      auto back = decompress(compress(text, level));
      ASSERT_TRUE(back.has_value()) << back.error().describe();
      EXPECT_EQ(*back, text);
    }
  }
}

TEST(ZstdTest, RepetitiveJsonShrinks)
{
  std::string json = "[";
  for (int i = 0; i < 200; ++i) {
    json += "{\"name\": \"fused_moe_kernel\", \"pct_gpu_time\": " + std::to_string(i % 17) + ".5},";
  }
  json += "{}]";
  const std::string frame = compress(json);
  EXPECT_LT(frame.size() * 10, json.size());
  EXPECT_EQ(decompress(frame).value(), json);
}

TEST(ZstdTest, CorruptFramesAreRefusedWithTheReason)
{
  const std::string frame = compress(std::string(1000, 'a') + "tail");
  auto not_zstd = decompress("{\"plain\": \"text\"}");
  ASSERT_FALSE(not_zstd.has_value());
  EXPECT_EQ(not_zstd.error().code, ErrorCode::invalid_input);
  EXPECT_EQ(not_zstd.error().message, "corrupt compressed text: not a zstd frame (17 bytes)");

  auto cut = decompress(std::string_view(frame).substr(0, frame.size() - 3));
  ASSERT_FALSE(cut.has_value());
  EXPECT_EQ(cut.error().code, ErrorCode::invalid_input);
  EXPECT_EQ(cut.error().message.rfind("corrupt compressed text: ", 0), 0U) << cut.error().message;

  auto too_big = decompress(frame, 100);
  ASSERT_FALSE(too_big.has_value());
  EXPECT_EQ(too_big.error().message,
            "corrupt compressed text: the zstd frame claims 1004 bytes, more than 100");

  auto empty = decompress("");
  ASSERT_FALSE(empty.has_value());
  EXPECT_EQ(empty.error().code, ErrorCode::invalid_input);
}

} // namespace
} // namespace rfdb::util::zstd
