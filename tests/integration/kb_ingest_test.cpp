// GEAK kb plane import (issue 31, docs/kb.md): a kb store root and a kb_artifacts tree
// (tests/fixtures/kb, built from the GEAK-KB §10 examples) ingest into kb_records,
// kb_attestations and kb_champions; re-ingest changes nothing; a tombstone rewrite supersedes
// its record; a malformed meta.yaml is skipped with a warning naming file and field, and
// --strict refuses leaving the database byte for byte; `rfdb show --finding`.
#include "support/helpers.hpp"
#include "support/pg.hpp"

#include "domain/content_signature.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace rfdb::test {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const std::string k_fm = "geak-fused_moe_kernel-ef134aed81ed-4b3227c7e42e";
const std::string k_ms = "geak-moe_stage1-a2ad7ee7cf21-41a080697f04";
const std::string k_gm = "geak-gemm_a8w8_blockscale-5d1e0f2a9b3c-0c9e1d7b55aa";
const std::string k_old = "geak-fused_moe_kernel-0a1b2c3d4e5f-9e8d7c6b5a41";
const std::string k_qwen = "geak-qwen3-235b-a22b-c939d33115ec-03a28a8d23d2";
const std::string k_kimi = "geak-kimi-k3-d28a9dc7aef3-f42ce291f8f9";

fs::path kb_fixture(const std::string& rel)
{
  return fixtures_dir() / "kb" / rel;
}

// '|'-joined columns of the current record `key` ("NULL" for a null).
std::string record(const fs::path& db, const std::string& key, const std::string& columns)
{
  std::string expr;
  std::string column;
  for (const char c : columns + ",") {
    if (c == ',') {
      expr += (expr.empty() ? "" : " || '|' || ") + ("ifnull(" + column + ", 'NULL')");
      column.clear();
    } else {
      column += c;
    }
  }
  return query_value(db, "SELECT " + expr + " FROM kb_records WHERE superseded = 0 AND record_key = '" + key +
                             "'");
}

CliResult ingest(const fs::path& db, std::vector<std::string> paths, std::vector<std::string> options = {})
{
  std::vector<std::string> args{"ingest", "--format", "table"};
  args.insert(args.end(), options.begin(), options.end());
  args.insert(args.end(), paths.begin(), paths.end());
  return rfdb(db.string(), args);
}

class KbIngest : public ::testing::Test {
protected:
  TempDir tmp;
  fs::path db = tmp / "kb.sqlite";
  void ingest_both()
  {
    const auto r = ingest(db, {kb_fixture("store").string(), kb_fixture("kb_artifacts").string()});
    ASSERT_EQ(r.code, 0) << r.err;
  }
};

} // namespace

TEST_F(KbIngest, EveryKernelAndE2eSessionIsImportedWithItsFields)
{
  ingest_both();
  EXPECT_EQ(query_value(db,
                        "SELECT group_concat(lane || ':' || n, ' ') FROM (SELECT lane, count(*) AS n FROM "
                        "kb_records WHERE superseded = 0 GROUP BY lane ORDER BY lane)"),
            "e2e:2 experience:4 kernel:4");
  // Kernel lane, GEAK-KB §10.2: the most specific rung is the record; both rungs counted.
  EXPECT_EQ(
      record(db, k_fm,
             "lane,canonical_id,rung,rungs,id_order,gfx,kernel_name,backend,framework,framework_version,"
             "precision,metric_name,metric_value,speedup,metric_kind,bench_key,case_names"),
      "kernel|geak:kernel:gfx950:fused_moe_kernel:triton:rocm:7.2|0|2|current|gfx950|fused_moe_kernel|"
      "triton|rocm|7.2|fp8_w8a8|speedup|1.8742|1.874213|geomean|b2:a8713a052c6a|"
      R"(["perf_M64_N7168","perf_M1_N7168","perf_M1024_N7168"])");
  EXPECT_EQ(record(db, k_fm,
                   "direction,strategy,verified_on,verified_stack,reproductions,lifecycle,validated,retained,"
                   "content_signature,signature_origin,carrier,retired,retired_why"),
            "BLOCK_SIZE_K retune for decode M|Doubled BLOCK_SIZE_K to halve K-loop trips on decode shapes|"
            R"(2026-09-03|{"rocm":"7.2.0-43","torch":"2.9.0","triton":"3.5.0"}|1|candidate|0|NULL|)"
            "csha:4b3227c7e42ea185afcd6249b62c0476|stored|patch|0|NULL");
  EXPECT_EQ(record(db, k_fm, "store_path"),
            "store/geak/kernel/gfx950/fused_moe_kernel/triton/rocm/7.2/sessions/" + k_fm + "/knowledge.json");
  // The ledger of §10.2's second example: counters and history, oldest first.
  EXPECT_EQ(record(db, k_ms,
                   "recalls,validations,failures,not_reproduced,inapplicable,last_outcome,last_at,"
                   "last_by,retired,reproductions,lifecycle,validated"),
            "2|1|1|0|0|failed|2026-09-09T02:01:13Z|kernel_lane|0|2|active|1");
  EXPECT_EQ(
      query_value(db, "SELECT group_concat(seq || ' ' || at || ' ' || outcome || ' ' || actor || ' ' || "
                      "evidence, '; ') FROM (SELECT a.* FROM kb_attestations a JOIN kb_records r USING "
                      "(record_id) WHERE r.record_key = '" +
                          k_ms + "' ORDER BY seq)"),
      R"(0 2026-09-05T10:12:40Z validated kernel_lane {"measured_speedup":1.29}; )"
      R"(1 2026-09-09T02:01:13Z failed kernel_lane {"measured_speedup":0.97,"note":"slower on M=4096"})");
  // No stored signature: computed from the session's files/patch.diff (GEAK's csha: rule) — and
  // it is the signature the kb_artifacts experience of the same change stores.
  const std::string patch = read_bytes(
      kb_fixture("store/geak/kernel/gfx942/moe_stage1/ck/rocm/7.1/sessions/" + k_ms + "/files/patch.diff"));
  EXPECT_EQ(record(db, k_ms, "content_signature,signature_origin"),
            domain::content_signature(patch) + "|patch");
  EXPECT_EQ(record(db, k_ms, "content_signature"), record(db, "20260902_101010_aa01bd", "content_signature"));
  // The tuned-artifact tombstone: scores 0.0, retired by its own reason, the withdrawn score kept.
  EXPECT_EQ(
      record(db, k_gm,
             "metric_value,speedup,lifecycle,retained,retired,retired_why,retracted_at,"
             "withdrawn_scores,carrier,apply_route,content_signature"),
      "0.0|3.29|retracted|0|1|curate: 2 negative attempts in the recent window (failed, not_reproduced), "
      R"(no validation; threshold 2|2026-09-12T08:30:00Z|{"speedup":3.29}|tuned_artifact|deploy_bundle|)"
      "asha:0c9e1d7b55aa41f2b8e3d0c4a6f19b27");
  // The old id order (§11): producer and gfx last; identity from the document.
  EXPECT_EQ(
      record(db, k_old, "canonical_id,id_order,gfx,kernel_name,backend,framework_version"),
      "geak:kernel:geak:fused_moe_kernel:rocm:7.2:triton:gfx950|old|gfx950|fused_moe_kernel|triton|7.2");
  // E2E lane, §10.3: identity, workload and throughput with its baseline.
  EXPECT_EQ(
      record(db, k_qwen,
             "canonical_id,rungs,model,gfx,framework,framework_version,precision,tp,ep,isl,osl,"
             "conc,metric_name,metric_value,throughput_tok_s,baseline_tok_s,speedup,direction,"
             "validated,retained,retired,carrier"),
      "geak:e2e:qwen3-235b-a22b:gfx950:vllm:0.11.2:fp8:tp_8:isl_1024:osl_1024:conc_64|3|qwen3-235b-a22b|"
      "gfx950|vllm|0.11.2|fp8|8|NULL|1024|1024|64|throughput_tok_s|10412.6|10412.6|9614.6|1.083|"
      "aiter-moe-routing|1|1|0|NULL");
  // The agentx address: ep and the workload kind from the path.
  EXPECT_EQ(
      record(db, k_kimi, "tp,ep,isl,conc,workload_kind,framework,framework_version,precision,lifecycle"),
      "4|4|NULL|16|agentx_trace_replay|sglang|0.5.15|mxfp4|candidate");
  // Champion pointers, one per identity dir that has champion.json.
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM kb_champions WHERE superseded = 0"), "6");
  EXPECT_EQ(query_value(db,
                        "SELECT metric || '|' || session_id || '|' || value FROM kb_champions WHERE "
                        "canonical_id = 'geak:e2e:qwen3-235b-a22b:gfx950:vllm:0.11.2:fp8:tp_8:isl_1024:osl_"
                        "1024:conc_64'"),
            "throughput_tok_s|" + k_qwen + "|10412.6");
  EXPECT_EQ(query_value(db, "SELECT value FROM kb_champions WHERE canonical_id = "
                            "'geak:kernel:gfx950:gemm_a8w8_blockscale:ck:rocm'"),
            "0.0");
  // Every file a record was read from is a stored knowledge file version.
  EXPECT_EQ(query_value(db,
                        "SELECT group_concat(kind || ':' || n, ' ') FROM (SELECT kind, count(*) AS n FROM "
                        "sources WHERE run_id IS NULL GROUP BY kind ORDER BY kind)"),
            "kb_artifact:2 kb_champion:6 kb_knowledge:11 kb_meta:4 kb_patch:5");
}

TEST_F(KbIngest, EveryExperienceIsImportedWithItsFields)
{
  ingest_both();
  EXPECT_EQ(
      record(db, "20260903_141522_3fa9c1",
             "lane,canonical_id,gfx,kernel_class,kernel_name,backend,framework,framework_version,precision,"
             "speedup,metric_kind,bench_key,reproductions,lifecycle,content_signature,signature_origin,"
             "carrier,retired"),
      "experience|NULL|gfx950|triton|fused_moe_kernel_task|triton|rocm|7.2|fp8_w8a8|1.874213|geomean|"
      "b2:a8713a052c6a|1|candidate|csha:4b3227c7e42ea185afcd6249b62c0476|stored|patch|0");
  EXPECT_EQ(json::parse(record(db, "20260903_141522_3fa9c1", "extra")).at("source_eval_dir"),
            "/srv/eval/fused_moe_kernel/run_0903");
  // The ledger that does not retire: one failure in a window of one (below the threshold of 2).
  EXPECT_EQ(
      record(db, "20260902_101010_aa01bd", "recalls,failures,validations,last_outcome,retired,retired_why"),
      "1|1|0|failed|0|NULL");
  // The ledger that retires: the last 3 tested outcomes are negative (the old validation and an
  // inapplicable outside them); its signature computed from patch.diff.
  EXPECT_EQ(record(db, "20260905_083000_c0ffee",
                   "recalls,validations,failures,not_reproduced,inapplicable,retired,"
                   "retired_why,techniques,signature_origin"),
            "5|1|2|1|1|1|ledger: last 3 attempts all negative|"
            R"(["vectorized global loads","one row per program"]|patch)");
  EXPECT_EQ(query_value(db,
                        "SELECT count(*) FROM kb_attestations a JOIN kb_records r USING (record_id) WHERE "
                        "r.record_key = '20260905_083000_c0ffee'"),
            "5");
  // The tuned table: retired by its own reason; its asha: signature over artifact/.
  const std::string name = "E-8-N-1024-device_name-AMD-Instinct-MI355X.json";
  const std::string bytes = read_bytes(kb_fixture(
      "kb_artifacts/gfx950/ck/gemm_a8w8_blockscale__ck__gfx950/20260823_120000_0c9e1d/artifact/" + name));
  EXPECT_EQ(
      record(db, "20260823_120000_0c9e1d",
             "carrier,content_signature,signature_origin,retained,retired,"
             "retired_why,apply_env,apply_route"),
      "tuned_artifact|" + domain::artifact_signature({{name, bytes}}) +
          "|artifact|0|1|duplicate_direction:per-shape tuned table|AITER_TUNED_CONFIG_DIR=/opt/aiter/configs|"
          "deploy_bundle");
}

TEST_F(KbIngest, AMalformedMetaYamlIsSkippedWithAWarningNamingFileAndField)
{
  const auto r = ingest(db, {kb_fixture("kb_artifacts").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("kb_artifacts/gfx950/hip/silu_mul__hip__gfx950/20260904_000000_badbad/meta.yaml: "
                       "skipped: /reproductions: expected an integer, got \"many\""),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("1 skipped; 4 findings"), std::string::npos) << r.out;
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM kb_records WHERE record_key = '20260904_000000_badbad'"),
            "0");
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM sources WHERE rel_path LIKE '%silu_mul%'"), "0");
}

TEST_F(KbIngest, InvalidYamlNamesItsLine)
{
  const fs::path tree = tmp / "kb_artifacts";
  const fs::path exp = tree / "gfx950/triton/x__triton__gfx950/20260901_000000_aaaaaa";
  fs::create_directories(exp);
  write_bytes(exp / "meta.yaml", "gfx: gfx950\nmetric: {speedup: 1.2\ndirection: x\n");
  const auto r = ingest(db, {tree.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("20260901_000000_aaaaaa/meta.yaml: skipped: invalid YAML at line"), std::string::npos)
      << r.err;
  // A field of the wrong type in a knowledge.json names its JSON pointer.
  const fs::path store = tmp / "store";
  const fs::path session =
      store / "geak/kernel/gfx950/k/triton/rocm/7.2/sessions/geak-k-000000000000-000000000000";
  fs::create_directories(session);
  write_bytes(session / "knowledge.json", R"({"speedup": 1.2, "value": {"metric": {"speedup": [1]}}})");
  const auto s = ingest(db, {store.string()});
  EXPECT_NE(s.err.find("knowledge.json: skipped: /value/metric/speedup: expected a number"),
            std::string::npos)
      << s.err;
}

// GEAK tests `retained is False`: only the YAML (or JSON) boolean false retires a record. A quoted
// 'false' is a string: the record is not retired, and a warning names the file and the key.
TEST_F(KbIngest, OnlyTheBooleanFalseRetiresAQuotedFalseIsAWarning)
{
  const fs::path tree = tmp / "kb_artifacts";
  const auto experience = [&](const std::string& exp_id, const std::string& retained) {
    const fs::path exp = tree / "gfx950/triton/x__triton__gfx950" / exp_id;
    fs::create_directories(exp);
    write_bytes(exp / "meta.yaml", "gfx: gfx950\nkernel_name: x\nlanguage: triton\nmetric: {speedup: 1.2}\n"
                                   "direction: tile retune\nretained: " +
                                       retained + "\n");
  };
  experience("20260901_000000_aaaaa1", "'false'");
  experience("20260901_000000_aaaaa2", "false");
  experience("20260901_000000_aaaaa3", "\"false\"");
  const auto r = ingest(db, {tree.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("x__triton__gfx950/20260901_000000_aaaaa1/meta.yaml: /retained: the string \"false\", "
                       "not the YAML boolean false; the record is not retired (GEAK retires a record on "
                       "`retained: false` only)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("20260901_000000_aaaaa3/meta.yaml: /retained: the string"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("20260901_000000_aaaaa2/meta.yaml"), std::string::npos) << r.err;
  EXPECT_EQ(record(db, "20260901_000000_aaaaa1", "retained,retired,retired_why"), "NULL|0|NULL");
  EXPECT_EQ(record(db, "20260901_000000_aaaaa3", "retained,retired,retired_why"), "NULL|0|NULL");
  EXPECT_EQ(record(db, "20260901_000000_aaaaa2", "retained,retired,retired_why"), "0|1|retained: false");
  // In a knowledge.json the JSON string "false" is named the same way.
  const fs::path store = tmp / "store";
  const fs::path session =
      store / "geak/kernel/gfx950/k/triton/rocm/7.2/sessions/geak-k-000000000000-000000000000";
  fs::create_directories(session);
  write_bytes(session / "knowledge.json", R"({"speedup": 1.2, "value": {"retained": "false"}})");
  const auto s = ingest(db, {store.string()});
  ASSERT_EQ(s.code, 0) << s.err;
  EXPECT_NE(s.err.find("knowledge.json: /value/retained: the string \"false\", not the JSON boolean false"),
            std::string::npos)
      << s.err;
  EXPECT_EQ(record(db, "geak-k-000000000000-000000000000", "retained,retired"), "NULL|0");
  // --strict counts it as a warning and refuses.
  const std::string before = read_bytes(db);
  write_bytes(session / "knowledge.json", R"({"speedup": 1.3, "value": {"retained": "false"}})");
  EXPECT_EQ(ingest(db, {store.string()}, {"--strict"}).code, 1);
  EXPECT_EQ(read_bytes(db), before);
}

// An e2e session's per-kernel patch (files/kernels/<name>.patch, named by
// value.accepted_kernels[].patch) is stored as a source of its record and signed (csha:): lookup
// applies the entry by that file and joins it to the lever of the same change. The session's own
// record signature is not taken from it.
TEST_F(KbIngest, AnE2eSessionsKernelPatchIsStoredAndSigned)
{
  fs::copy(kb_fixture("store"), tmp / "store", fs::copy_options::recursive);
  const std::string patch =
      "--- a/fused_moe.py\n+++ b/fused_moe.py\n@@ -1 +1 @@\n-BLOCK_SIZE_K = 64\n+BLOCK_SIZE_K = 128\n";
  const std::string sig = domain::content_signature(patch);
  ASSERT_FALSE(sig.empty());
  const fs::path session = tmp /
                           "store/geak/e2e/qwen3-235b-a22b/gfx950/vllm/0.11.2/fp8/tp_8/isl_1024/osl_1024/"
                           "conc_64/sessions" /
                           k_qwen;
  write_bytes(session / "files/kernels/fused_moe_kernel.patch", patch);
  write_bytes(session / "files/tuning/01_table.csv", "M,N\n1,2\n"); // not a kernel patch: not stored
  const auto r = ingest(db, {(tmp / "store").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(query_value(db,
                        "SELECT group_concat(kind) FROM sources WHERE rel_path LIKE '%/files/kernels/%' OR "
                        "rel_path LIKE '%/files/tuning/%'"),
            "kb_kernel_patch");
  EXPECT_EQ(
      query_value(db, "SELECT json_extract(extra, '$.kernel_patches') FROM kb_records WHERE superseded = 0 "
                      "AND record_key = '" +
                          k_qwen + "'"),
      "{\"kernels/fused_moe_kernel.patch\":\"" + sig + "\"}");
  EXPECT_EQ(record(db, k_qwen, "signature_origin"), "NULL");
  const auto l = rfdb(
      db.string(), {"lookup", "fused_moe_kernel", "--gfx", "gfx950", "--model", "qwen3", "--format", "json"});
  ASSERT_EQ(l.code, 0) << l.err;
  const json answer = json::parse(l.out);
  const json* lever = nullptr;
  for (const auto& x : answer.at("levers")) {
    if (x.at("kb_records") == json::array({k_qwen})) {
      lever = &x;
    }
  }
  ASSERT_NE(lever, nullptr) << answer.dump(1);
  EXPECT_EQ(lever->at("content_signatures"), json::array({sig}));
  const std::string file = lever->at("apply").at("text").get<std::string>();
  EXPECT_TRUE(file.ends_with("/sessions/" + k_qwen + "/files/kernels/fused_moe_kernel.patch")) << file;
  EXPECT_EQ(lever->at("apply").at("files"), json::array({file}));
}

TEST_F(KbIngest, StrictRefusesAndLeavesTheDatabaseByteForByte)
{
  ASSERT_EQ(ingest(db, {kb_fixture("store").string()}).code, 0);
  const std::string before = read_bytes(db);
  const auto r = ingest(db, {kb_fixture("kb_artifacts").string()}, {"--strict"});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("meta.yaml: skipped: /reproductions"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1 warning(s) with --strict; nothing was written"), std::string::npos) << r.err;
  EXPECT_EQ(read_bytes(db), before);
  EXPECT_FALSE(fs::exists(db.string() + "-wal") && fs::file_size(db.string() + "-wal") > 0);
  // Without the malformed experience, --strict accepts the tree.
  EXPECT_EQ(ingest(db, {kb_fixture("store").string()}, {"--strict"}).code, 0);
}

TEST_F(KbIngest, ReIngestingTheSameTreesChangesNothing)
{
  ingest_both();
  const std::string before = dump_tables(db);
  const auto again = ingest(db, {kb_fixture("store").string(), kb_fixture("kb_artifacts").string()});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_NE(
      again.out.find("store unchanged: 0 new file(s), 0 superseded, 20 unchanged, 0 skipped; 0 findings"),
      std::string::npos)
      << again.out;
  EXPECT_NE(again.out.find("kb_artifacts unchanged: 0 new file(s), 0 superseded, 8 unchanged"),
            std::string::npos)
      << again.out;
  EXPECT_EQ(dump_tables(db), before);
}

TEST_F(KbIngest, ATombstoneRewriteRetractsTheRecordItReplaces)
{
  const fs::path store = tmp / "store";
  fs::copy(kb_fixture("store"), store, fs::copy_options::recursive);
  ASSERT_EQ(ingest(db, {store.string()}).code, 0);
  // GEAK's retract_session (§5): the same session id rewritten on every rung, scores 0.0.
  for (const char* rung : {"rocm/7.2", "rocm"}) {
    const fs::path file =
        store / "geak/kernel/gfx950/fused_moe_kernel/triton" / rung / "sessions" / k_fm / "knowledge.json";
    json doc = json::parse(read_bytes(file));
    doc["speedup"] = 0.0;
    doc["value"]["retained"] = false;
    doc["value"]["retired_reason"] = "curate: last 2 attempts all negative";
    doc["value"]["lifecycle"] = "retracted";
    doc["value"]["validated"] = false;
    doc["value"]["retracted_at"] = "2026-09-20T10:00:00Z";
    doc["value"]["withdrawn_scores"] = {{"speedup", 1.8742}};
    write_bytes(file, doc.dump(2));
  }
  const auto r = ingest(db, {store.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("store updated: 2 new file(s), 2 superseded, 18 unchanged, 0 skipped; 1 findings"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(query_value(db, "SELECT count(*) || '|' || sum(superseded) FROM kb_records WHERE record_key = '" +
                                k_fm + "'"),
            "2|1");
  EXPECT_EQ(
      record(db, k_fm, "metric_value,speedup,lifecycle,retained,retired,retired_why,retracted_at,validated"),
      "0.0|1.874213|retracted|0|1|curate: last 2 attempts all negative|2026-09-20T10:00:00Z|0");
  // Only the tombstone counts now: the replaced record is superseded, the other records untouched.
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM kb_records WHERE superseded = 0 AND retired = 0 AND lane = "
                            "'kernel' AND kernel_name = 'fused_moe_kernel' AND id_order = 'current'"),
            "0");
  EXPECT_EQ(query_value(db, "SELECT count(*) FROM kb_records WHERE superseded = 0"), "6");
}

TEST_F(KbIngest, ShowFindingPrintsTheRecordAndItsLedger)
{
  ingest_both();
  const auto table = rfdb(db.string(), {"show", "--finding", "geak-moe_stage1", "--format", "table"});
  ASSERT_EQ(table.code, 0) << table.err;
  RFDB_EXPECT_GOLDEN("cli/show_finding.txt", table.out);
}

TEST_F(KbIngest, ShowFindingAsJson)
{
  ingest_both();
  const auto r = rfdb(db.string(), {"show", "--finding", "20260905", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j.at("lane"), "experience");
  EXPECT_EQ(j.at("id"), "20260905_083000_c0ffee");
  EXPECT_EQ(j.at("retired"), true);
  EXPECT_EQ(j.at("retired_why"), "ledger: last 3 attempts all negative");
  EXPECT_EQ(j.at("identity").at("kernel_name"), "rmsnorm_fwd");
  EXPECT_DOUBLE_EQ(j.at("metric").at("speedup").get<double>(), 1.142);
  const json& ledger = j.at("attestations");
  EXPECT_EQ(ledger.at("recalls"), 5);
  ASSERT_EQ(ledger.at("history").size(), 5U);
  EXPECT_EQ(ledger.at("history")[0].at("outcome"), "validated");
  EXPECT_EQ(ledger.at("history")[4].at("outcome"), "failed");
  EXPECT_DOUBLE_EQ(ledger.at("history")[4].at("evidence").at("measured_speedup").get<double>(), 1.01);
  EXPECT_EQ(j.at("champion_of"), json::array());
  // A champion, found by its record number.
  const std::string id =
      query_value(db, "SELECT record_id FROM kb_records WHERE record_key = '" + k_fm + "'");
  const json fm = json::parse(rfdb(db.string(), {"show", "--finding", id, "--format", "json"}).out);
  EXPECT_EQ(fm.at("id"), k_fm);
  ASSERT_EQ(fm.at("champion_of").size(), 2U);
  EXPECT_EQ(fm.at("champion_of")[0].at("canonical_id"), "geak:kernel:gfx950:fused_moe_kernel:triton:rocm");
  // An ambiguous prefix is a usage error naming the candidates; an unknown id is not found.
  const auto ambiguous = rfdb(db.string(), {"show", "--finding", "geak-fused"});
  EXPECT_EQ(ambiguous.code, 2);
  EXPECT_NE(ambiguous.err.find(k_old), std::string::npos) << ambiguous.err;
  EXPECT_EQ(rfdb(db.string(), {"show", "--finding", "nope"}).code, 1);
  EXPECT_EQ(rfdb(db.string(), {"show"}).code, 2);
  EXPECT_EQ(rfdb(db.string(), {"show", "RUN", "--finding", k_fm}).code, 2);
}

TEST_F(KbIngest, StoredFilesExportRaw)
{
  ingest_both();
  const fs::path out = tmp / "raw";
  const auto r = rfdb(db.string(), {"export", "--raw", "--all", "--out", out.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string rel = "geak/kernel/gfx942/moe_stage1/ck/rocm/7.1/sessions/" + k_ms + "/knowledge.json";
  EXPECT_EQ(read_bytes(out / "knowledge" / "store" / rel), read_bytes(kb_fixture("store/" + rel)));
}

// The PostgreSQL dialect (migrations/postgresql/0017, the kb queries): the same records, the same
// re-ingest, the same `show --finding`.
TEST(PgStoreKb, KbTreesIngestOnceAndShowTheSameFinding)
{
  RFDB_REQUIRE_PG();
  PgTestDatabase pg;
  const std::vector<std::string> paths{kb_fixture("store").string(), kb_fixture("kb_artifacts").string()};
  std::vector<std::string> args{"--db", pg.url(), "ingest", "--format", "table"};
  args.insert(args.end(), paths.begin(), paths.end());
  const auto first = run_cli(args);
  ASSERT_EQ(first.code, 0) << first.err;
  EXPECT_EQ(pg.column("SELECT count(*) FROM kb_records WHERE superseded = 0"),
            std::vector<std::string>{"10"});
  EXPECT_EQ(pg.column("SELECT count(*) FROM kb_attestations"), std::vector<std::string>{"8"});
  EXPECT_EQ(pg.column("SELECT count(*) FROM kb_champions"), std::vector<std::string>{"6"});
  const auto again = run_cli(args);
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.out.find("store unchanged"), std::string::npos) << again.out;
  EXPECT_EQ(pg.column("SELECT count(*) FROM kb_records"), std::vector<std::string>{"10"});
  const auto show = run_cli({"--db", pg.url(), "show", "--finding", "geak-moe_stage1", "--format", "table"});
  ASSERT_EQ(show.code, 0) << show.err;
  EXPECT_EQ(show.out, read_golden("cli/show_finding.txt"));
  const auto champion = run_cli({"--db", pg.url(), "show", "--finding", k_fm, "--format", "json"});
  ASSERT_EQ(champion.code, 0) << champion.err;
  EXPECT_EQ(json::parse(champion.out).at("champion_of").size(), 2U);
}

} // namespace rfdb::test
