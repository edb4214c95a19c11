// store/text_codec: a dictionary is trained from the stored files once
// enough exist (also when they are stored in one transaction), later files
// name it, every frame reads back byte-identical, and a dictionary whose
// transaction rolled back is never used.
#include "store/sources.hpp"
#include "util/zstd.hpp"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>

namespace rfdb::test {

namespace {

// A small JSON file like the ones runs share: the same keys and names,
// different numbers.
std::string json_like(int i)
{
  std::string out = "{\n  \"schema\": \"roofline-v1\",\n  \"cases\": [\n";
  for (int k = 0; k < 8; ++k) {
    out += "    {\"case_id\": \"decode_bs" + std::to_string(k * 8 + i % 7) +
           "\", \"kernel\": \"fused_moe_kernel\", \"roofline_efficiency_pct\": " +
           std::to_string((i * 37 + k) % 97) +
           ".25, \"observed_limit\": \"hbm_bandwidth\", \"headroom_ratio\": 1." + std::to_string(i % 13) +
           "},\n";
  }
  return out + "    {}\n  ],\n  \"run\": " + std::to_string(i) + "\n}\n";
}

store::SourceFile file(const std::string& rel, std::string_view text)
{
  return store::SourceFile{std::nullopt, rel,  "learned_card",         "card",
                           "sha-" + rel, text, "2026-01-01T00:00:00Z", std::nullopt};
}

std::string one(store::Database& db, const std::string& sql)
{
  auto s = db.prepare(sql, "test");
  EXPECT_TRUE(s.has_value());
  auto row = s->step();
  EXPECT_TRUE(row && *row);
  std::string out = s->get_text(0);
  s->reset();
  return out;
}

// Every stored file's text, by rel_path, read back through the store.
std::map<std::string, std::string> read_back(store::Database& db)
{
  std::map<std::string, std::string> out;
  auto r =
      store::for_each_current_file(db, store::FileScope{}, [&](const store::StoredFile& f) -> Result<void> {
        out[f.rel_path] = f.text;
        return {};
      });
  EXPECT_TRUE(r.has_value()) << r.error().describe();
  return out;
}

} // namespace

TEST(StoreTextCodec, TrainsADictionaryFromStoredFilesAndReadsEveryFrameBack)
{
  auto db = store::Database::open(":memory:");
  ASSERT_TRUE(db);
  auto sources = store::Sources::prepare(*db);
  ASSERT_TRUE(sources);
  std::map<std::string, std::string> texts;
  for (int i = 0; i < 300; ++i) {
    const std::string rel = "learned/card_" + std::to_string(1000 + i) + ".json";
    texts[rel] = json_like(i);
    ASSERT_TRUE(sources->put_source(file(rel, texts[rel])));
  }
  EXPECT_EQ(one(*db, "SELECT count(*) || ' ' || min(dict_id) || ' ' || min(trained_files) FROM zstd_dicts"),
            "1 32768 256");
  // Files stored before the dictionary have none; every later one names it.
  auto s = db->prepare("SELECT source_id, raw_zst FROM sources ORDER BY source_id", "test");
  ASSERT_TRUE(s);
  std::size_t before = 0;
  std::size_t after = 0;
  std::size_t with_dict = 0;
  std::size_t without_dict = 0;
  ASSERT_TRUE(store::for_each_row(*s, [&](const store::Statement& row) {
    const std::string frame = row.get_blob("raw_zst");
    const std::uint32_t id = util::zstd::frame_dictionary_id(frame);
    EXPECT_EQ(id, row.get_int("source_id") <= 256 ? 0U : 32768U) << row.get_int("source_id");
    (id == 0 ? before : after) += frame.size();
    ++(id == 0 ? without_dict : with_dict);
  }));
  EXPECT_EQ(without_dict, 256U);
  EXPECT_EQ(with_dict, 44U);
  // Per file, frames against the dictionary are at most half the size.
  EXPECT_LT(after * 2 * without_dict, before * with_dict);
  EXPECT_EQ(read_back(*db), texts);
}

// In one write transaction the codec queries the stored file count once and
// then counts the files it stores: the dictionary is still trained at the
// 256th file, and the next transaction reads the count again.
TEST(StoreTextCodec, TrainsAtTheSameFileWhenEveryFileIsStoredInOneTransaction)
{
  auto db = store::Database::open(":memory:");
  ASSERT_TRUE(db);
  auto sources = store::Sources::prepare(*db);
  ASSERT_TRUE(sources);
  std::map<std::string, std::string> texts;
  const auto put = [&](int i) {
    const std::string rel = "learned/card_" + std::to_string(1000 + i) + ".json";
    texts[rel] = json_like(i);
    ASSERT_TRUE(sources->put_source(file(rel, texts[rel])));
  };
  {
    auto tx = db->begin_immediate();
    ASSERT_TRUE(tx);
    EXPECT_NE(db->write_transaction(), 0U);
    for (int i = 0; i < 300; ++i) {
      put(i);
    }
    ASSERT_TRUE(tx->commit());
    EXPECT_EQ(db->write_transaction(), 0U);
  }
  EXPECT_EQ(one(*db, "SELECT count(*) || ' ' || min(trained_files) FROM zstd_dicts"), "1 256");
  auto s = db->prepare("SELECT source_id, raw_zst FROM sources ORDER BY source_id", "test");
  ASSERT_TRUE(s);
  ASSERT_TRUE(store::for_each_row(*s, [&](const store::Statement& row) {
    const std::uint32_t id = util::zstd::frame_dictionary_id(row.get_blob("raw_zst"));
    EXPECT_EQ(id, row.get_int("source_id") <= 256 ? 0U : 32768U) << row.get_int("source_id");
  }));
  // Files another writer stored between two transactions are counted: the
  // next training point (1024) is reached from the count read anew.
  auto other = store::Sources::prepare(*db);
  ASSERT_TRUE(other);
  for (int i = 0; i < 723; ++i) {
    const std::string rel = "other/card_" + std::to_string(i) + ".json";
    ASSERT_TRUE(other->put_source(file(rel, json_like(i))));
  }
  {
    auto tx = db->begin_immediate();
    ASSERT_TRUE(tx);
    put(300);
    put(301);
    ASSERT_TRUE(tx->commit());
  }
  EXPECT_EQ(one(*db, "SELECT count(*) || ' ' || max(trained_files) FROM zstd_dicts"), "2 1024");
}

TEST(StoreTextCodec, ADictionaryRolledBackWithItsTransactionIsNotUsed)
{
  auto db = store::Database::open(":memory:");
  ASSERT_TRUE(db);
  auto sources = store::Sources::prepare(*db);
  ASSERT_TRUE(sources);
  std::map<std::string, std::string> texts;
  const auto put = [&](int i) {
    const std::string rel = "learned/card_" + std::to_string(1000 + i) + ".json";
    texts[rel] = json_like(i);
    ASSERT_TRUE(sources->put_source(file(rel, texts[rel])));
  };
  for (int i = 0; i < 256; ++i) {
    put(i);
  }
  {
    auto tx = db->begin_immediate();
    ASSERT_TRUE(tx);
    const std::string rel = "learned/rolled_back.json";
    ASSERT_TRUE(sources->put_source(file(rel, json_like(999))));
    EXPECT_EQ(one(*db, "SELECT count(*) FROM zstd_dicts"), "1"); // trained in this transaction
  }                                                              // rolled back
  EXPECT_EQ(one(*db, "SELECT count(*) FROM zstd_dicts"), "0");
  for (int i = 256; i < 270; ++i) {
    put(i);
  }
  EXPECT_EQ(one(*db, "SELECT count(*) FROM zstd_dicts"), "1");
  EXPECT_EQ(read_back(*db), texts);
}

} // namespace rfdb::test
