// `rfdb export --kb DIR` on the four dev runs (tests/fixtures/dev-runs): the tree follows GEAK's
// local kb store layout (GEAK-KB §2), re-export is byte-identical, foreign
// sessions and better foreign champions survive (docs/kb-export.md). Session ids were checked
// with Python's hashlib: fingerprint = sha256(rung-0 id)[:12], port = sha256("rfdb|RUN#ATTEMPT")[:12].
#include "support/helpers.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace rfdb::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::vector<std::string> k_dev_runs = {
    "e2e_Qwen3.5-27B-FP8_20260822_031407_1753320_20931",
    "e2e_Qwen3.5-122B-A10B-FP8_20260819_201544_3310472_7726",
    "e2e_gemma-4-26B-A4B-it_20260824_113052_905513_28817",
    "e2e_Kimi-K2.6_20260621_142207_774130_3902",
};

const std::string k_kimi_kernel = "geak/kernel/gfx942/fused_moe_kernel_gptq_awq/triton/rocm/7.0";
const std::string k_kimi_kernel_sid = "rfdb-fused_moe_kernel_gptq_awq-9a2cc98bc403-9cd451f0a3d5";
const std::string k_kimi_e2e_exact =
    "geak/e2e/kimi-k2.6/gfx942/vllm/0.24.1/int4/tp_8/isl_8192/osl_1024/conc_64";
const std::string k_kimi_e2e_sid = "rfdb-kimi-k2.6-d69bb746a337-b2ac0967496a";

const std::string k_kimi_patch_csha = "7d5653adbf37c9eb34a79211abe4ccbf";

class KbExport : public ::testing::Test {
protected:
  static void SetUpTestSuite()
  {
    s_tmp = new TempDir();
    s_db = *s_tmp / "dev.db";
    for (const auto& run : k_dev_runs) {
      const auto r = run_cli({"--db", s_db.string(), "ingest", dev_run(run).string()});
      ASSERT_EQ(r.code, 0) << r.err;
    }
  }
  static void TearDownTestSuite()
  {
    delete s_tmp;
    s_tmp = nullptr;
  }

  static json export_kb(const fs::path& store)
  {
    const auto r = rfdb(s_db.string(), {"export", "--kb", store.string(), "--format", "json"});
    EXPECT_EQ(r.code, 0) << r.err;
    return json::parse(r.out);
  }

  static inline TempDir* s_tmp = nullptr;
  static inline fs::path s_db;
  TempDir m_dir;
};

// Every regular file under `root` (relative path → bytes).
std::map<std::string, std::string> tree(const fs::path& root)
{
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file()) {
      out[e.path().lexically_relative(root).generic_string()] = read_bytes(e.path());
    }
  }
  return out;
}

// Directories holding a `sessions` subdirectory: GEAK's LocalKBStore.identities().
std::vector<std::string> identities(const fs::path& root)
{
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_directory() && e.path().filename() == "sessions") {
      out.push_back(e.path().parent_path().lexically_relative(root).generic_string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST_F(KbExport, WritesGeakLayoutForEveryRung)
{
  const fs::path store = m_dir / "kb";
  const json summary = export_kb(store);
  EXPECT_EQ(summary["identities"], 18);
  EXPECT_EQ(summary["sessions_written"], 18);
  EXPECT_EQ(summary["sessions_unchanged"], 0);
  EXPECT_EQ(summary["champions_promoted"], 18);
  EXPECT_EQ(summary["skipped"], json::array());
  EXPECT_EQ(identities(store),
            (std::vector<std::string>{
                "geak/e2e/kimi-k2.6/gfx942/vllm/0.24.1/int4",
                "geak/e2e/kimi-k2.6/gfx942/vllm/0.24.1/int4/tp_8",
                k_kimi_e2e_exact,
                "geak/e2e/qwen3.5-27b-fp8/gfx950/vllm/0.26.1/fp8",
                "geak/e2e/qwen3.5-27b-fp8/gfx950/vllm/0.26.1/fp8/tp_4",
                "geak/e2e/qwen3.5-27b-fp8/gfx950/vllm/0.26.1/fp8/tp_4/isl_1024/osl_1024/conc_64",
                "geak/kernel/gfx942/fused_moe_kernel_gptq_awq/triton/rocm",
                k_kimi_kernel,
                "geak/kernel/gfx950/_fwd_grouped_kernel_stage1/unknown/rocm",
                "geak/kernel/gfx950/_fwd_grouped_kernel_stage1/unknown/rocm/7.1",
                "geak/kernel/gfx950/_fwd_kernel/unknown/rocm",
                "geak/kernel/gfx950/_fwd_kernel/unknown/rocm/7.1",
                "geak/kernel/gfx950/_w8a8_block_fp8_matmul/ck/rocm",
                "geak/kernel/gfx950/_w8a8_block_fp8_matmul/ck/rocm/7.1",
                "geak/kernel/gfx950/_w8a8_block_fp8_matmul/triton/rocm",
                "geak/kernel/gfx950/_w8a8_block_fp8_matmul/triton/rocm/7.1",
                "geak/kernel/gfx950/kentry/ck/rocm",
                "geak/kernel/gfx950/kentry/ck/rocm/7.1",
            }));
  // The kernel session: the same document and files on both rungs, .lock beside champion.json.
  const fs::path session = store / k_kimi_kernel / "sessions" / k_kimi_kernel_sid;
  const std::string knowledge = read_bytes(session / "knowledge.json");
  RFDB_EXPECT_GOLDEN("kb/kernel_knowledge.json", knowledge);
  const fs::path coarse = store / fs::path(k_kimi_kernel).parent_path() / "sessions" / k_kimi_kernel_sid;
  EXPECT_EQ(read_bytes(coarse / "knowledge.json"), knowledge);
  EXPECT_TRUE(fs::is_regular_file(store / k_kimi_kernel / ".lock"));
  const json k = json::parse(knowledge);
  EXPECT_EQ(k["producer"], "rfdb");
  EXPECT_DOUBLE_EQ(k["speedup"].get<double>(), 1.5902);
  EXPECT_EQ(k["identity"],
            json::parse(R"({"backend": "triton", "framework": "rocm", "framework_version": "7.0",
                                          "gpu": "gfx942", "kernel_name": "fused_moe_kernel_gptq_awq"})"));
  EXPECT_EQ(k["value"]["verified_stack"]["rocm"], "7.0.2");
  // Every artifact the value names is under files/, byte-identical to the eval dir's file.
  for (const auto& [role, stored] : k["value"]["artifacts"].items()) {
    const std::string rel = stored.get<std::string>().substr(std::string("evidence/").size());
    EXPECT_EQ(read_bytes(session / "files" / stored.get<std::string>()),
              read_bytes(dev_run("e2e_Kimi-K2.6_20260621_142207_774130_3902") / rel))
        << role;
  }
  EXPECT_TRUE(fs::is_regular_file(
      session / "files/evidence/overlay/cand_fused_moe_kernel_gptq_awq/integrate_result.json"));
  EXPECT_EQ(
      json::parse(read_bytes(store / k_kimi_kernel / "champion.json")),
      json::parse(R"({"metric": "speedup", "session_id": ")" + k_kimi_kernel_sid + R"(", "value": 1.5902})"));
}

// The serving-config win of the Kimi run as an e2e-lane session (GEAK-KB §6.2).
TEST_F(KbExport, WritesTheConfigWinAsAnE2eSession)
{
  const fs::path store = m_dir / "kb";
  export_kb(store);
  // The e2e exact-workload rung ranks by throughput, the coarser rungs by speedup.
  const std::string e2e =
      read_bytes(store / k_kimi_e2e_exact / "sessions" / k_kimi_e2e_sid / "knowledge.json");
  EXPECT_EQ(read_bytes(store / k_kimi_e2e_exact / "champion.json"),
            "{\n  \"metric\": \"throughput_tok_s\",\n  \"session_id\": \"" + k_kimi_e2e_sid +
                "\",\n  \"value\": 521.5993\n}");
  EXPECT_EQ(
      json::parse(read_bytes(store / "geak/e2e/kimi-k2.6/gfx942/vllm/0.24.1/int4/tp_8/champion.json")),
      json::parse(R"({"metric": "speedup", "session_id": ")" + k_kimi_e2e_sid + R"(", "value": 1.0137})"));
  RFDB_EXPECT_GOLDEN("kb/e2e_knowledge.json", e2e);
}

TEST_F(KbExport, ReExportIsByteIdenticalAndWritesNothing)
{
  const fs::path store = m_dir / "kb";
  export_kb(store);
  const auto before = tree(store);
  const auto mtime =
      fs::last_write_time(store / k_kimi_kernel / "sessions" / k_kimi_kernel_sid / "knowledge.json");
  const json again = export_kb(store);
  EXPECT_EQ(again["sessions_written"], 0);
  EXPECT_EQ(again["sessions_unchanged"], 18);
  EXPECT_EQ(again["champions_promoted"], 0);
  EXPECT_EQ(again["champions_kept"], 18);
  EXPECT_EQ(tree(store), before);
  EXPECT_EQ(fs::last_write_time(store / k_kimi_kernel / "sessions" / k_kimi_kernel_sid / "knowledge.json"),
            mtime);
  // The table summary line.
  const auto r = rfdb(s_db.string(), {"export", "--kb", store.string(), "--format", "table"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "kb store " + store.string() +
                       ": 18 identities, 0 sessions written, 18 unchanged, 0 champions promoted, 18 kept\n");
}

// Export, then ingest the exported tree into a copy of the database: rfdb's own sessions are
// skipped with a note (their evidence is the runs already stored), so no kb record is added and
// the playbook and priors are byte-identical.
TEST_F(KbExport, ExportThenReimportChangesNothing)
{
  const fs::path store = m_dir / "kb";
  const json summary = export_kb(store);
  ASSERT_EQ(summary.at("sessions_written"), 18); // 8 sessions, each on every rung
  const fs::path copy = m_dir / "copy.db";
  fs::copy_file(s_db, copy);
  const auto ingested = rfdb(copy.string(), {"ingest", store.string(), "--format", "json"});
  ASSERT_EQ(ingested.code, 0) << ingested.err;
  const json report = json::parse(ingested.out);
  int own = 0;
  for (const auto& path : report.at("paths")) {
    for (const auto& w : path.at("warnings")) {
      own += w.at("message").get<std::string>().find("rfdb's own export") != std::string::npos ? 1 : 0;
    }
  }
  EXPECT_EQ(own, 8 + 18); // the 8 sessions, and the 18 champions (one per rung) pointing to them
  // Nothing of the export is stored: no record, no champion, no source file.
  EXPECT_EQ(query_value(copy, "SELECT count(*) FROM kb_champions"), "0");
  EXPECT_EQ(query_value(copy, "SELECT count(*) FROM sources"),
            query_value(s_db, "SELECT count(*) FROM sources"));
  const auto records = rfdb(copy.string(), {"query", "kb_records", "--format", "json"});
  ASSERT_EQ(records.code, 0) << records.err;
  EXPECT_EQ(json::parse(records.out), json::array());
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"report"}, std::vector<std::string>{"priors", "--format", "json"}}) {
    const auto before = rfdb(s_db.string(), args);
    const auto after = rfdb(copy.string(), args);
    ASSERT_EQ(before.code, 0) << before.err;
    EXPECT_EQ(after.out, before.out) << args[0];
  }
  // --strict is not refused by a note.
  EXPECT_EQ(rfdb(copy.string(), {"ingest", "--strict", store.string()}).code, 0);
}

// A kernel attempt signed by its own stored diff (Kimi's candidate with a diff in its candidate
// directory: csha of the whole file) carries it as the session's files/patch.diff, byte-identical,
// named by artifacts.patch and value.content_signature; a re-export rewrites nothing.
TEST_F(KbExport, WritesTheStoredPatchAsTheSessionsPatchDiff)
{
  const std::string run = "e2e_Kimi-K2.6_20260621_142207_774130_3902";
  fs::copy(dev_run(run), m_dir / run, fs::copy_options::recursive);
  // Another workspace's paths and spacing: the bytes are kept as they are.
  const std::string diff = "diff --git a/fused_moe.py b/fused_moe.py\n"
                           "--- a/fused_moe.py\n"
                           "+++ b/fused_moe.py\n"
                           "@@ -10,2 +10,2 @@\n"
                           "-    BLOCK_SIZE_K = 64\n"
                           "+    BLOCK_SIZE_K  =  128\n";
  write_bytes(m_dir / run / "overlay/cand_fused_moe_kernel_gptq_awq/fused_moe.diff", diff);
  const fs::path db = m_dir / "patch.db";
  const auto in = run_cli({"--db", db.string(), "ingest", "-q", (m_dir / run).string()});
  ASSERT_EQ(in.code, 0) << in.err;
  const fs::path store = m_dir / "kb";
  const auto r = rfdb(db.string(), {"export", "--kb", store.string(), "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const auto& identity : {k_kimi_kernel, fs::path(k_kimi_kernel).parent_path().generic_string()}) {
    const fs::path session = store / identity / "sessions" / k_kimi_kernel_sid;
    EXPECT_EQ(read_bytes(session / "files/patch.diff"), diff) << identity;
    const json value = json::parse(read_bytes(session / "knowledge.json")).at("value");
    EXPECT_EQ(value.at("artifacts").at("patch"), "patch.diff");
    // sha256("-BLOCK_SIZE_K = 64\n+BLOCK_SIZE_K = 128")[:32], GEAK's csha rule.
    EXPECT_EQ(value.at("content_signature"), "csha:" + k_kimi_patch_csha);
    EXPECT_FALSE(value.contains("carrier"));
    // The evidence stays beside it.
    EXPECT_TRUE(fs::exists(session / "files/evidence/overlay/cand_fused_moe_kernel_gptq_awq/fused_moe.diff"));
  }
  const auto again = rfdb(db.string(), {"export", "--kb", store.string(), "--format", "json"});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(json::parse(again.out).at("sessions_written"), 0);
}

TEST_F(KbExport, ForeignSessionsSurviveAndOnlyTheRuleRepointsChampions)
{
  const fs::path store = m_dir / "kb";
  // A GEAK session beside ours, with a champion better than rfdb's 1.5902 on rung 0 …
  const fs::path foreign =
      store / k_kimi_kernel / "sessions/geak-fused_moe_kernel_gptq_awq-9a2cc98bc403-4b3227c7e42e";
  const std::string foreign_doc =
      R"({"producer": "geak", "speedup": 1.8742, "value": {"direction": "BLOCK_SIZE_K"}})";
  write_bytes(foreign / "knowledge.json", foreign_doc);
  write_bytes(foreign / "files/patch.diff", "-a\n+b\n");
  const std::string better =
      R"({"metric": "speedup", "session_id": "geak-fused_moe_kernel_gptq_awq-9a2cc98bc403-4b3227c7e42e", "value": 1.8742})";
  write_bytes(store / k_kimi_kernel / "champion.json", better);
  // … and a worse one on rung 1, plus one under another metric (counts as none) on the e2e tp rung.
  const fs::path rung1 = store / fs::path(k_kimi_kernel).parent_path();
  write_bytes(rung1 / "champion.json", R"({"metric": "speedup", "session_id": "geak-x", "value": 1.2})");
  const fs::path tp = store / "geak/e2e/kimi-k2.6/gfx942/vllm/0.24.1/int4/tp_8";
  write_bytes(tp / "champion.json", R"({"metric": "throughput", "session_id": "geak-y", "value": 9999.0})");
  // A stale file in one of our own sessions is dropped (a session is replaced whole).
  write_bytes(store / k_kimi_kernel / "sessions" / k_kimi_kernel_sid / "files/old.txt", "stale");

  const json summary = export_kb(store);
  EXPECT_EQ(summary["champions_promoted"], 17);
  EXPECT_EQ(summary["champions_kept"], 1);
  EXPECT_EQ(read_bytes(foreign / "knowledge.json"), foreign_doc);
  EXPECT_EQ(read_bytes(foreign / "files/patch.diff"), "-a\n+b\n");
  EXPECT_EQ(read_bytes(store / k_kimi_kernel / "champion.json"), better);
  EXPECT_EQ(json::parse(read_bytes(rung1 / "champion.json"))["session_id"], k_kimi_kernel_sid);
  EXPECT_DOUBLE_EQ(json::parse(read_bytes(rung1 / "champion.json"))["value"].get<double>(), 1.5902);
  EXPECT_EQ(json::parse(read_bytes(tp / "champion.json"))["session_id"], k_kimi_e2e_sid);
  EXPECT_FALSE(fs::exists(store / k_kimi_kernel / "sessions" / k_kimi_kernel_sid / "files/old.txt"));
}

TEST_F(KbExport, RefusesLinksAndFilesWhereTheStoreHasDirectories)
{
  const fs::path store = m_dir / "kb";
  fs::create_directories(store);
  fs::create_directories(m_dir / "elsewhere");
  fs::create_directory_symlink(m_dir / "elsewhere", store / "geak");
  const auto r = rfdb(s_db.string(), {"export", "--kb", store.string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("is a symbolic link"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_empty(m_dir / "elsewhere"));

  write_bytes(m_dir / "plain", "x");
  const auto f = rfdb(s_db.string(), {"export", "--kb", (m_dir / "plain").string()});
  EXPECT_EQ(f.code, 1);
  EXPECT_NE(f.err.find("is not a directory"), std::string::npos) << f.err;
}

// D6's triton candidate of the 27B run names final/overlay/sitecustomize.py: it is signed by that
// file's section of final/final_patch.diff (csha:4ba4f644…), and that section alone, byte for
// byte, is its patch.diff (the whole diff also adds another candidate's module).
TEST_F(KbExport, ASectionSignedAttemptCarriesItsSectionOfTheSharedDiff)
{
  const fs::path store = m_dir / "kb";
  export_kb(store);
  const fs::path session = store / "geak/kernel/gfx950/_w8a8_block_fp8_matmul/triton/rocm/7.1/sessions" /
                           "rfdb-_w8a8_block_fp8_matmul-51f86500d95b-97b89dc20b7c";
  EXPECT_EQ(read_bytes(session / "files/patch.diff"),
            "diff --git a/overlay/sitecustomize.py b/overlay/sitecustomize.py\n"
            "new file mode 100644\n"
            "--- /dev/null\n"
            "+++ b/overlay/sitecustomize.py\n"
            "@@ -0,0 +1,3 @@\n"
            "+# overlay module (content omitted in this corpus)\n"
            "+\n"
            "+\n");
  const json value = json::parse(read_bytes(session / "knowledge.json")).at("value");
  EXPECT_EQ(value.at("content_signature"), "csha:4ba4f6446b6b97a59a99e8df7cb65a9d");
  EXPECT_EQ(value.at("artifacts").at("patch"), "patch.diff");
  // The whole diff stays cited under evidence/.
  EXPECT_EQ(read_bytes(session / "files/evidence/final/final_patch.diff"),
            read_bytes(dev_run(k_dev_runs[0]) / "final/final_patch.diff"));
}

// A kernel attempt signed by its tuned table (Kimi's candidate naming a moe_tuned table in its
// integrate result): the table under files/artifact/<GEAK's stored name>, byte-identical, with
// carrier tuned_artifact, artifact_files and artifact_names as GEAK's kernel lane writes them.
TEST_F(KbExport, WritesTheStoredTunedTableUnderArtifact)
{
  const std::string run = "e2e_Kimi-K2.6_20260621_142207_774130_3902";
  fs::copy(dev_run(run), m_dir / run, fs::copy_options::recursive);
  const std::string table_name = "E=384,N=256,device_name=AMD_Instinct_MI300X,dtype=int4_w4a16.json";
  const std::string table = "{\"16\": {\"BLOCK_SIZE_M\": 16}}\n";
  write_bytes(m_dir / run / "config/moe_tuned_int4" / table_name, table);
  const fs::path integrate = m_dir / run / "overlay/cand_fused_moe_kernel_gptq_awq/integrate_result.json";
  json doc = json::parse(read_bytes(integrate));
  doc["tuned_config_file"] = "config/moe_tuned_int4/" + table_name;
  write_bytes(integrate, doc.dump(2));
  const fs::path db = m_dir / "table.db";
  const auto in = run_cli({"--db", db.string(), "ingest", "-q", (m_dir / run).string()});
  ASSERT_EQ(in.code, 0) << in.err;
  const fs::path store = m_dir / "kb";
  ASSERT_EQ(rfdb(db.string(), {"export", "--kb", store.string()}).code, 0);
  const std::string stored = "E-384-N-256-device_name-AMD_Instinct_MI300X-dtype-int4_w4a16.json";
  const fs::path session = store / k_kimi_kernel / "sessions" / k_kimi_kernel_sid;
  EXPECT_EQ(read_bytes(session / "files/artifact" / stored), table);
  EXPECT_FALSE(fs::exists(session / "files/patch.diff"));
  const json value = json::parse(read_bytes(session / "knowledge.json")).at("value");
  // GEAK's artifact_signature of the one file (checked in signature_test.cpp).
  EXPECT_EQ(value.at("content_signature"), "asha:ea59683045e9d79a87154e3895e0a3e0");
  EXPECT_EQ(value.at("carrier"), "tuned_artifact");
  EXPECT_EQ(value.at("artifacts").at(stored), "artifact/" + stored);
  EXPECT_EQ(value.at("artifact_files"), json::array({stored}));
  EXPECT_EQ(value.at("artifact_names"), json({{stored, table_name}}));
}

// A run retracted since the last export: its rfdb session pages are removed from every rung,
// foreign sessions stay, and a champion that named a removed session is re-pointed to the best
// session left that is not retired (GEAK's retract_session), or removed when none is.
TEST_F(KbExport, ReExportRemovesTheSessionsOfARetractedRun)
{
  const fs::path store = m_dir / "kb";
  const fs::path db = m_dir / "retract.db";
  fs::copy_file(s_db, db);
  ASSERT_EQ(export_kb(store).at("sessions_written"), 18);
  // A foreign session below rfdb's 1.5902 on rung 0, a retired foreign one on rung 1.
  const fs::path rung1 = store / fs::path(k_kimi_kernel).parent_path();
  const std::string sid = "geak-fused_moe_kernel_gptq_awq-9a2cc98bc403-4b3227c7e42e";
  const std::string doc = R"({"producer": "geak", "speedup": 1.2, "value": {"direction": "BLOCK_SIZE_K"}})";
  write_bytes(store / k_kimi_kernel / "sessions" / sid / "knowledge.json", doc);
  write_bytes(store / k_kimi_kernel / "sessions" / sid / "files/patch.diff", "-a\n+b\n");
  write_bytes(
      rung1 / "sessions" / sid / "knowledge.json",
      R"({"producer": "geak", "speedup": 1.4, "value": {"retained": false, "retired_reason": "curate"}})");
  const auto pages_before = tree(store);

  const std::string kimi = k_dev_runs[3];
  ASSERT_EQ(run_cli({"--db", db.string(), "retract", kimi, "--reason", "box was not quiet"}).code, 0);
  const auto r = rfdb(db.string(), {"export", "--kb", store.string(), "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json summary = json::parse(r.out);

  // The removed pages are exactly the rfdb pages of the retracted run.
  std::size_t removed = 0;
  const auto after = tree(store);
  for (const auto& [path, bytes] : pages_before) {
    if (!path.ends_with("/knowledge.json") || path.find("/sessions/rfdb-") == std::string::npos) {
      continue;
    }
    const bool of_kimi = json::parse(bytes).at("value").at("rfdb").at("run_id") == kimi;
    EXPECT_EQ(after.contains(path), !of_kimi) << path;
    removed += of_kimi ? 1 : 0;
  }
  EXPECT_EQ(removed, 5); // the kernel session on 2 rungs, the e2e session on 3
  EXPECT_EQ(summary.at("sessions_removed"), removed);
  EXPECT_FALSE(fs::exists(store / k_kimi_kernel / "sessions" / k_kimi_kernel_sid));
  EXPECT_FALSE(fs::exists(store / k_kimi_e2e_exact / "sessions" / k_kimi_e2e_sid));
  // Foreign sessions are untouched.
  EXPECT_EQ(read_bytes(store / k_kimi_kernel / "sessions" / sid / "knowledge.json"), doc);
  EXPECT_EQ(read_bytes(store / k_kimi_kernel / "sessions" / sid / "files/patch.diff"), "-a\n+b\n");
  // Rung 0: re-pointed to the foreign 1.2; rung 1: only a retired session left, no champion;
  // the e2e identities held only Kimi's session.
  EXPECT_EQ(read_bytes(store / k_kimi_kernel / "champion.json"),
            R"({
  "metric": "speedup",
  "session_id": ")" +
                sid + R"(",
  "value": 1.2
})");
  EXPECT_FALSE(fs::exists(rung1 / "champion.json"));
  EXPECT_FALSE(fs::exists(store / k_kimi_e2e_exact / "champion.json"));
  EXPECT_EQ(summary.at("champions_removed"), 4); // rung 1 and the 3 e2e rungs
  // Exported again: nothing left to remove.
  const auto again = rfdb(db.string(), {"export", "--kb", store.string(), "--format", "json"});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(json::parse(again.out).at("sessions_removed"), 0);
  EXPECT_EQ(json::parse(again.out).at("sessions_written"), 0);
}

// Every target is checked before anything is written: a file where a session directory belongs,
// in the last identity written, refuses the export with the store untouched.
TEST_F(KbExport, AFileWhereADirectoryBelongsRefusesBeforeAnythingIsWritten)
{
  const fs::path store = m_dir / "kb";
  const fs::path blocker = store / k_kimi_kernel / "sessions" / k_kimi_kernel_sid;
  write_bytes(blocker, "not a directory");
  const auto r = rfdb(s_db.string(), {"export", "--kb", store.string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find(blocker.string() + ": is not a directory"), std::string::npos) << r.err;
  const auto left = tree(store);
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left.begin()->first, fs::path(blocker).lexically_relative(store).generic_string());
  EXPECT_EQ(identities(store), std::vector<std::string>{k_kimi_kernel});
}

TEST_F(KbExport, KbGoesAlone)
{
  const auto r = rfdb(s_db.string(), {"export", "--kb", (m_dir / "kb").string(), "--raw", "--all"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--kb DIR goes alone"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(m_dir / "kb"));
}

} // namespace
} // namespace rfdb::test
