// File versions (store/sources.hpp): put_source inserts, skips, supersedes
// and revives.
#include "store/database.hpp"
#include "store/sources.hpp"
#include "util/digest.hpp"
#include "util/hex.hpp"

#include <gtest/gtest.h>

namespace rfdb::test {

namespace {

using store::PutSource;

// The hex sha256 of `raw`, as ingest records it (a revived version is
// verified against it).
std::string hex_of(std::string_view raw)
{
  return util::hex_encode(util::sha256(raw));
}

store::SourceFile card(const std::string& sha, std::string_view raw)
{
  return store::SourceFile{std::nullopt, "learned/a.md",         "learned_card", "card", sha,
                           raw,          "2026-01-01T00:00:00Z", std::nullopt};
}

} // namespace

TEST(StoreSources, PutSourceInsertsSupersedesAndRevives)
{
  auto db = store::Database::open(":memory:");
  ASSERT_TRUE(db);
  auto sources = store::Sources::prepare(*db);
  ASSERT_TRUE(sources);

  auto first = sources->put_source(card(hex_of("v1"), "v1"));
  ASSERT_TRUE(first);
  EXPECT_EQ(first->action, PutSource::Action::inserted);
  EXPECT_FALSE(first->superseded_id);

  auto same = sources->put_source(card(hex_of("v1"), "v1"));
  ASSERT_TRUE(same);
  EXPECT_EQ(same->action, PutSource::Action::unchanged);
  EXPECT_EQ(same->source_id, first->source_id);

  auto second = sources->put_source(card(hex_of("v2"), "v2"));
  ASSERT_TRUE(second);
  EXPECT_EQ(second->action, PutSource::Action::inserted);
  EXPECT_EQ(second->superseded_id, first->source_id);

  auto v1 = sources->find(std::nullopt, "learned/a.md", hex_of("v1"));
  ASSERT_TRUE(v1 && *v1);
  EXPECT_FALSE((*v1)->current);

  // Content an older version holds (a file reverted on disk) makes that
  // version current again.
  auto revived = sources->put_source(card(hex_of("v1"), "v1"));
  ASSERT_TRUE(revived);
  EXPECT_EQ(revived->action, PutSource::Action::revived);
  EXPECT_EQ(revived->source_id, first->source_id);
  EXPECT_EQ(revived->superseded_id, second->source_id);
  v1 = sources->find(std::nullopt, "learned/a.md", hex_of("v1"));
  ASSERT_TRUE(v1 && *v1);
  EXPECT_TRUE((*v1)->current);
  auto v2 = sources->find(std::nullopt, "learned/a.md", hex_of("v2"));
  ASSERT_TRUE(v2 && *v2);
  EXPECT_FALSE((*v2)->current);
  auto none = sources->find(std::nullopt, "learned/a.md", "cc");
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
}

TEST(StoreSources, DigestsAreStoredAsTheirBytesAndShownInLowerCaseHex)
{
  const std::string hex = "08f833e84d5b0324b0dbc684a76a71c3119d182a4bbfaecdd02f36b8740946f6";
  const std::string bytes = store::digest_bytes(hex);
  ASSERT_EQ(bytes.size(), 32U);
  EXPECT_EQ(static_cast<unsigned char>(bytes[0]), 0x08U);
  EXPECT_EQ(static_cast<unsigned char>(bytes[31]), 0xF6U);
  EXPECT_EQ(store::digest_hex(bytes), hex);
  EXPECT_EQ(store::digest_bytes("08F833"), std::string("\x08\xF8\x33", 3)); // upper case reads too
  // Not hex: unchanged, so it matches no stored digest.
  EXPECT_EQ(store::digest_bytes("not-hex!"), "not-hex!");
  EXPECT_EQ(store::digest_bytes("abc"), "abc");
  EXPECT_EQ(store::digest_hex(std::string("\x00\xff", 2)), "00ff");
}

} // namespace rfdb::test
