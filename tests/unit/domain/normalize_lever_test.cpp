// The reuse vocabulary (domain/normalize_lever.cpp): one regime normalizer
// and one lever key for runs, cards and playbook lines. The pairs below
// reproduce, in our own words, each kind of duplicate that the public legacy
// knowledge holds (tests/fixtures/legacy-samples/MANIFEST.md): a card and the legacy
// playbook line it was promoted from describe one lever in different words,
// under different class and regime spellings.
#include "domain/normalize.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

using namespace rfdb::domain;

TEST(NormalizeRegime, OneVocabularyForRunsAndKnowledge)
{
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"decode", "decode"},
      {"Decode-heavy", "decode"},
      {"decode-dominated serving isl/osl/conc=8192/1024/64", "decode"},
      {"varlen prefill-dominated", "prefill"},
      {"prompt processing", "prefill"},
      {"prefill+decode", "both"},
      {"varlen prefill+decode", "both"},
      {"Mixed", "both"},
      {"both", "both"},
      {"any", "both"},
      {"all", "both"},
      {"n/a", "unknown"},
      {"launch-bound", "unknown"},
      {"small-batch", "unknown"},
      {"", "unknown"},
  };
  for (const auto& [raw, expected] : cases) {
    EXPECT_EQ(normalize_regime(raw), expected) << raw;
  }
}

TEST(LeverKey, CaseSeparatorsAndSynonymsFold)
{
  // split-k / split_k / splitk / "Split K" are one lever; split-KV is another.
  for (const char* spelling : {"split-k", "split_k", "splitk", "Split K", "SPLIT-K"}) {
    EXPECT_EQ(lever_key(spelling), "splitk") << spelling;
  }
  EXPECT_EQ(lever_key("split-KV"), "splitkv");
  EXPECT_EQ(lever_key("num_kv_splits 16"), "splitkv");
  EXPECT_EQ(fold_lever_text("hipBLAS-LT offline tune"), "hipblaslt offline tune");
  EXPECT_EQ(fold_lever_text("Composable Kernel instances"), "ck instances");
  EXPECT_EQ(fold_lever_text("full CUDA graphs"), "full cudagraph");
  // Flag and env spellings: "=" or space, the kind word, the value's file.
  EXPECT_EQ(lever_key("--attention-backend=triton"), "attention_backend=triton");
  EXPECT_EQ(lever_key("config: --attention-backend triton"), "attention_backend=triton");
  EXPECT_EQ(lever_key("--attention-backend aiter"), "attention_backend=aiter");
  EXPECT_EQ(fold_lever_text("config: --async-scheduling"), "async scheduling");
  EXPECT_EQ(fold_lever_text("`--async-scheduling`"), "async scheduling");
  EXPECT_EQ(fold_lever_text("export MY_SWITCH=<tuned.csv>"), "my switch");
  EXPECT_EQ(fold_lever_text("env MY_SWITCH=/data/tuned_v2.csv"), "my switch");
  EXPECT_EQ(fold_lever_text("env MY_SWITCH=1"), "my switch 1");
  // Markdown escapes and an autolink fold like the plain text.
  EXPECT_EQ(fold_lever_text("use \\*x\\* see <https://example.com/a_b>"),
            fold_lever_text("use *x* see https://example.com/a_b"));
  EXPECT_EQ(lever_key(""), "");
}

// One lever written down in a card and in the playbook line it came from:
// each pair must get one key (and the run's own attempt text, where a run
// measured the same lever).
TEST(LeverKey, OneServingFlagIsOneLeverWhateverTheProseAroundIt)
{
  EXPECT_EQ(lever_key("config: --async-scheduling"), "--async_scheduling");
  EXPECT_EQ(lever_key("Pass `--async-scheduling` to the server so host work overlaps the GPU."),
            "--async_scheduling");
  EXPECT_EQ(lever_key("config: --max-num-batched-tokens 16384"), "--max_num_batched_tokens=16384");
  EXPECT_EQ(lever_key("raise the prefill chunk: `--max-num-batched-tokens 16384` (2 x ISL)"),
            "--max_num_batched_tokens=16384");
  EXPECT_EQ(lever_key("--max_num_batched_tokens=16384"), "--max_num_batched_tokens=16384");
  EXPECT_EQ(lever_key("config: --compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\"}'"),
            "--compilation_config=cudagraph_mode_full_decode_only");
  // Two different flags are a combination: matched as text.
  EXPECT_EQ(lever_key("use --enable-expert-parallel with --max-num-seqs 128"),
            "use enable expert parallel with max num seqs 128");
}

TEST(LeverKey, EachDuplicatePairKindGetsOneKey)
{
  struct Pair {
    std::string what;
    std::vector<std::string> texts;
    std::string key;
  };
  const std::vector<Pair> pairs = {
      {"a serving flag (card prose, playbook bold lead, a run's config trial)",
       {"Switch the server to the Triton attention backend: a flag, no source edit.",
        "`--attention-backend triton` pays on hybrid dense models", "config: --attention-backend triton"},
       "attention_backend=triton"},
      {"the library's per-shape GEMM table (card names the module, line names the DB, run names the env)",
       {"The live dense path goes through the library's tuned_gemm module in aiter; tune its table.",
        "GEMM lever = aiter's per-shape DB plus an authored kernel.",
        "backend aiter (env AITER_TUNED_GEMM=1 AITER_CONFIG_GEMM_BF16=bf16_tuned_gemm.csv)"},
       "aiter_tuned_gemm"},
      {"the fused-MoE config tune (apply text names the env folder; run names it with a value)",
       {"Point VLLM_TUNED_CONFIG_FOLDER=<dir> at the tuned per-shape JSON.",
        "WINNING METHOD: a per-shape MoE config tune deployed via env VLLM_TUNED_CONFIG_FOLDER=$EVAL/cfg.",
        "env VLLM_TUNED_CONFIG_FOLDER=moe_tuned_int4"},
       "moe_config_tune"},
      {"a measurement method (card and line word the A/B differently)",
       {"run an INTERLEAVED A/B (REF, CAND, REF, CAND) on one GPU",
        "MEASUREMENT METHOD: pin the port for every leg and interleave the legs"},
       "interleaved_ab_pinned_port"},
      {"a routing rule (card says combined cluster, line says stack-and-compound)",
       {"Optimize the small editable kernels as a combined cluster and let the final gate decide.",
        "ROUTING: treat the editable kernels as a STACK-and-compound track."},
       "stack_editable_cluster"},
      {"a drained proposal and the card it became",
       {"Let a per-shape table race the two BLAS libraries and keep the winner.",
        "Letting a per-shape table race them is worth about +11% e2e."},
       "tunableop"},
  };
  for (const auto& p : pairs) {
    for (const auto& t : p.texts) {
      EXPECT_EQ(lever_key(t), p.key) << p.what << ": " << t;
    }
  }
  // Different levers stay apart.
  EXPECT_NE(lever_key("--attention-backend triton"), lever_key("--attention-backend aiter"));
  EXPECT_EQ(lever_key("backend ck (env AITER_CONFIG_GEMM_A8W8_BLOCKSCALE=a8w8_blockscale_tp4.csv)"),
            "aiter_tuned_gemm_a8w8_blockscale");
  EXPECT_EQ(lever_key("authored triton kernel"), "authored triton kernel");
}

TEST(LeverKey, AnAuthoredVariantIsItsOwnLeverNotTheTechniqueItsNameMentions)
{
  // Siblings on one kernel: the plain authored kernel and its split-K variant.
  EXPECT_EQ(lever_key("authored triton kernel", "gemm"), "authored triton kernel");
  EXPECT_EQ(lever_key("authored triton kernel (split-K)", "gemm"), "authored triton kernel splitk");
  EXPECT_EQ(lever_key("authored triton kernel (stream-K)", "gemm"), "authored triton kernel stream k");
  EXPECT_EQ(lever_key("authored kernel (decode-tile)", "moe"), "authored kernel decode tile");
  EXPECT_EQ(lever_key("code patch (triton, whole-file)", "moe"), "code patch triton whole file");
  EXPECT_EQ(lever_key("authored triton kernel (split-KV)", "attn"), "authored triton kernel splitkv");
  EXPECT_TRUE(is_authored_variant("authored triton kernel (Split-K)"));
  // Not a variant: a split-K lever described in prose stays the split-K lever,
  // and a code patch's backend alone is no variant.
  EXPECT_FALSE(is_authored_variant("code patch (splitk)"));
  EXPECT_FALSE(is_authored_variant("authored triton kernel"));
  EXPECT_FALSE(is_authored_variant("authored triton kernel (tuned)"));
  EXPECT_EQ(lever_key("split-K for skinny GEMMs (split-k 4)", "gemm"), "splitk");
  EXPECT_EQ(lever_key("code patch (rebind)", "attn"), "code patch rebind");
}
