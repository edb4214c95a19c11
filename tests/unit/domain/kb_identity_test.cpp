// GEAK's kb identity and promotion rules (domain/kb_identity.hpp). The examples are those of
// GEAK-KB §1 (pinned by GEAK's kb/tests/test_identity.py @ 14b10f5a), §2.3, §10
// and §11; session-id fingerprints were checked with Python's hashlib.
#include "domain/kb_identity.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace rfdb::domain::kb {
namespace {

TEST(KbIdentity, SegmentFoldsAsGeak)
{
  EXPECT_EQ(segment("Qwen3-235B-A22B"), "qwen3-235b-a22b");
  EXPECT_EQ(segment("FP8-w8a8"), "fp8-w8a8");
  EXPECT_EQ(segment("_attn_fwd"), "_attn_fwd"); // a leading underscore is legal
  EXPECT_EQ(segment("  AMD Instinct MI355X  "), "amd-instinct-mi355x");
  EXPECT_EQ(segment("--.x"), "x");                 // leading chars outside [a-z0-9_] removed
  EXPECT_EQ(segment("a / b  c"), "a-b-c");         // one '-' per run
  EXPECT_EQ(segment("caf\xc3\xa9-v2"), "caf--v2"); // non-ASCII folds (one run), the "-" stays
  EXPECT_EQ(segment("", "unknown"), "unknown");
  EXPECT_EQ(segment("///", "fallback"), "fallback");
  EXPECT_EQ(segment(std::string(300, 'a')).size(), 256U);
}

TEST(KbIdentity, ValidatesSegmentsIdsAndSessionIds)
{
  EXPECT_TRUE(is_valid_segment("tp_8"));
  EXPECT_TRUE(is_valid_segment("_attn_fwd"));
  EXPECT_FALSE(is_valid_segment("-x"));
  EXPECT_FALSE(is_valid_segment("Gfx950"));
  EXPECT_FALSE(is_valid_segment(""));
  EXPECT_TRUE(check_canonical_id("geak:kernel:gfx950:fused_moe_kernel:triton:rocm:7.2").has_value());
  EXPECT_FALSE(check_canonical_id("geak").has_value());
  const auto bad = check_canonical_id("geak:kernel:GFX950:x");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("segment 2 'GFX950'"), std::string::npos) << bad.error().message;
  EXPECT_TRUE(is_valid_session_id("geak-fused_moe_kernel-ef134aed81ed-4b3227c7e42e"));
  EXPECT_FALSE(is_valid_session_id(".staging"));
  EXPECT_FALSE(is_valid_session_id("a/b"));
  EXPECT_FALSE(is_valid_session_id(std::string(129, 'a')));
  EXPECT_TRUE(is_valid_session_id(std::string(128, 'a')));
}

TEST(KbIdentity, CountedSegmentsDropTheRungInsteadOfAPlaceholder)
{
  EXPECT_EQ(counted("tp", "8"), "tp_8");
  EXPECT_EQ(counted("isl", " 1024 "), "isl_1024");
  EXPECT_EQ(counted("ep", std::optional<int>(1)), "ep_1");
  EXPECT_EQ(counted("conc", "0"), "");
  EXPECT_EQ(counted("conc", "-3"), "");
  EXPECT_EQ(counted("conc", "x"), "");
  EXPECT_EQ(counted("conc", "8.0"), "");
  EXPECT_EQ(counted("conc", std::optional<int>()), "");
}

TEST(KbIdentity, RocmAddressIsCutToMajorMinor)
{
  EXPECT_EQ(short_rocm_version("7.2.0-98765"), "7.2");
  EXPECT_EQ(short_rocm_version("7.2"), "7.2");
  EXPECT_EQ(short_rocm_version("7"), "7");
  EXPECT_EQ(short_rocm_version("7.1.1"), "7.1");
  EXPECT_EQ(short_rocm_version(""), "unspecified");
  EXPECT_EQ(short_rocm_version("Nightly Build"), "nightly-build");
}

TEST(KbIdentity, ReleaseVersionCutAsPinnedByGeak)
{
  EXPECT_EQ(release_version("0.5.15.post1.dev20260723+g6c9fd0adc5"), "0.5.15");
  EXPECT_EQ(release_version("0.5.15"), "0.5.15");
  EXPECT_EQ(release_version("v0.5.15"), "0.5.15");
  EXPECT_EQ(release_version(" 0.5.15 "), "0.5.15");
  EXPECT_EQ(release_version("0.5.15rc1"), "0.5.15");
  EXPECT_EQ(release_version("0.5"), "0.5");
  EXPECT_EQ(release_version("2"), "2");
  EXPECT_EQ(release_version(""), "unspecified");
  EXPECT_EQ(release_version("   "), "unspecified");
  EXPECT_EQ(release_version("nightly-main"), "nightly-main");
  EXPECT_EQ(release_version("0.11.2.dev41+gabc1234"), "0.11.2");         // §10.7
  EXPECT_EQ(release_version(release_version("0.5.15.post1")), "0.5.15"); // idempotent
}

TEST(KbIdentity, CanonNameAndGfx)
{
  EXPECT_EQ(canon_name("fused_moe_kernel_task"), "fused_moe_kernel");
  EXPECT_EQ(canon_name("triton_fused_moe_kernel.py"), "fused_moe_kernel");
  EXPECT_EQ(canon_name("fused_moe_kernel"), "fused_moe_kernel");
  EXPECT_EQ(canon_name("kernels/Triton_Attn.py"), "Attn"); // basename, prefix any case, case kept
  EXPECT_EQ(canon_name("_task"), "_task");                 // never below the affix
  EXPECT_EQ(norm_gfx("AMD gfx950 (MI355X)"), "gfx950");
  EXPECT_EQ(norm_gfx("GFX942"), "gfx942");
  EXPECT_EQ(norm_gfx("MI355X"), "");
}

TEST(KbIdentity, KernelLadderHasTwoRungs)
{
  const auto id = kernel_identity("gfx950", canon_name("fused_moe_kernel_task"), "Triton", "7.2.0-43");
  EXPECT_EQ(id.gpu, "gfx950");
  EXPECT_EQ(id.kernel_name, "fused_moe_kernel");
  EXPECT_EQ(id.backend, "triton");
  EXPECT_EQ(id.framework_version, "7.2");
  EXPECT_EQ(kernel_ladder(id),
            (std::vector<std::string>{"geak:kernel:gfx950:fused_moe_kernel:triton:rocm:7.2",
                                      "geak:kernel:gfx950:fused_moe_kernel:triton:rocm"}));
  EXPECT_EQ(kernel_ladder(kernel_identity("", "", "", "")).front(),
            "geak:kernel:unknown:unknown:unknown:rocm:unspecified");
}

TEST(KbIdentity, E2eLadderSyntheticAgentxAndEpWithoutTp)
{
  E2eInputs in{.model = "M",
               .gfx = "gfx950",
               .framework = "vllm",
               .framework_version = "0.26.0",
               .precision = "fp8",
               .tp = 8,
               .isl = 1024,
               .osl = 1024,
               .conc = 64};
  EXPECT_EQ(e2e_ladder(e2e_identity(in)),
            (std::vector<std::string>{"geak:e2e:m:gfx950:vllm:0.26.0:fp8:tp_8:isl_1024:osl_1024:conc_64",
                                      "geak:e2e:m:gfx950:vllm:0.26.0:fp8:tp_8",
                                      "geak:e2e:m:gfx950:vllm:0.26.0:fp8"}));
  E2eInputs agentx{.model = "M",
                   .gfx = "gfx950",
                   .framework = "vllm",
                   .framework_version = "0.26.0",
                   .precision = "fp8",
                   .tp = 8,
                   .ep = 1,
                   .isl = 900,
                   .osl = 90,
                   .conc = 10,
                   .workload_kind = "AgentX_Trace_Replay"};
  const auto ladder = e2e_ladder(e2e_identity(agentx));
  ASSERT_EQ(ladder.size(), 3U);
  EXPECT_EQ(ladder[0], "geak:e2e:m:gfx950:vllm:0.26.0:fp8:tp_8:ep_1:wl_agentx:conc_10");
  EXPECT_EQ(ladder[1], "geak:e2e:m:gfx950:vllm:0.26.0:fp8:tp_8:ep_1");
  E2eInputs ep_only{.model = "M",
                    .gfx = "gfx950",
                    .framework = "vllm",
                    .framework_version = "0.26.0",
                    .precision = "fp8",
                    .ep = 8};
  EXPECT_EQ(e2e_ladder(e2e_identity(ep_only)),
            (std::vector<std::string>{"geak:e2e:m:gfx950:vllm:0.26.0:fp8"}));
  E2eInputs no_conc{.model = "Qwen3-235B-A22B",
                    .gfx = "gfx950",
                    .framework = "vllm",
                    .framework_version = "0.11.2.dev41+gabc1234",
                    .precision = "fp8",
                    .tp = 8,
                    .isl = 1024,
                    .osl = 1024};
  EXPECT_EQ(e2e_ladder(e2e_identity(no_conc)),
            (std::vector<std::string>{"geak:e2e:qwen3-235b-a22b:gfx950:vllm:0.11.2:fp8:tp_8",
                                      "geak:e2e:qwen3-235b-a22b:gfx950:vllm:0.11.2:fp8"}));
}

TEST(KbIdentity, SessionIdsOfTheWorkedExamples)
{
  EXPECT_EQ(session_id("geak:kernel:gfx950:fused_moe_kernel:triton:rocm:7.2", "fused_moe_kernel",
                       "4b3227c7e42ea185afcd6249b62c0476"),
            "geak-fused_moe_kernel-ef134aed81ed-4b3227c7e42e");
  EXPECT_EQ(session_id("geak:e2e:qwen3-235b-a22b:gfx950:vllm:0.11.2:fp8:tp_8:isl_1024:osl_1024:conc_64",
                       "qwen3-235b-a22b", "03a28a8d23d2ffff"),
            "geak-qwen3-235b-a22b-c939d33115ec-03a28a8d23d2");
  EXPECT_EQ(session_id("geak:e2e:kimi-k3:gfx950:sglang:0.5.15:mxfp4:tp_4:ep_4:wl_agentx:conc_16", "kimi-k3",
                       "f42ce291f8f9"),
            "geak-kimi-k3-d28a9dc7aef3-f42ce291f8f9");
  EXPECT_EQ(session_id("geak:kernel:gfx942:moe_stage1:ck:rocm:7.1", "moe_stage1", "41a080697f045c1f"),
            "geak-moe_stage1-a2ad7ee7cf21-41a080697f04");
  // Another producer, an illegible name and a digest with ':' (the port keeps safe chars only).
  EXPECT_EQ(
      session_id("geak:kernel:gfx950:fused_moe_kernel:triton:rocm:7.2", " / ", "csha:4b3227c7e4", "RFDB"),
      "rfdb-unknown-ef134aed81ed-csha4b3227c7");
  EXPECT_EQ(
      session_id("geak:kernel:gfx950:fused_moe_kernel:triton:rocm:7.2", std::string(60, 'k') + "..x", "d")
          .size(),
      std::string("geak-").size() + 48 + 1 + 12 + 1 + 1);
}

TEST(KbIdentity, ParsesEveryRungBack)
{
  const auto k0 = parse_canonical_id("geak:kernel:gfx950:fused_moe_kernel:triton:rocm:7.2");
  ASSERT_TRUE(k0.has_value()) << k0.error().message;
  EXPECT_EQ(k0->domain, "kernel");
  EXPECT_EQ(k0->rung, 0);
  EXPECT_EQ(k0->kernel.gpu, "gfx950");
  EXPECT_EQ(k0->kernel.kernel_name, "fused_moe_kernel");
  EXPECT_EQ(k0->kernel.backend, "triton");
  EXPECT_EQ(k0->kernel.framework_version, "7.2");
  EXPECT_FALSE(k0->old_order);
  const auto k1 = parse_canonical_id("geak:kernel:gfx950:fused_moe_kernel:triton:rocm");
  ASSERT_TRUE(k1.has_value());
  EXPECT_EQ(k1->rung, 1);
  EXPECT_FALSE(k1->has_version);

  const auto e =
      parse_canonical_id("geak:e2e:kimi-k3:gfx950:sglang:0.5.15:mxfp4:tp_4:ep_4:wl_agentx:conc_16");
  ASSERT_TRUE(e.has_value()) << e.error().message;
  EXPECT_EQ(e->domain, "e2e");
  EXPECT_EQ(e->rung, 0);
  EXPECT_EQ(e->e2e.model, "kimi-k3");
  EXPECT_EQ(e->e2e.framework_version, "0.5.15");
  EXPECT_EQ(e->e2e.precision, "mxfp4");
  EXPECT_EQ(e->e2e.tp, "tp_4");
  EXPECT_EQ(e->e2e.ep, "ep_4");
  EXPECT_EQ(e->e2e.conc, "conc_16");
  EXPECT_EQ(e->e2e.workload_kind, "agentx_trace_replay");
  EXPECT_EQ(e2e_ladder(e->e2e).front(),
            "geak:e2e:kimi-k3:gfx950:sglang:0.5.15:mxfp4:tp_4:ep_4:wl_agentx:conc_16");
  const auto s =
      parse_canonical_id("geak:e2e:qwen3-235b-a22b:gfx950:vllm:0.11.2:fp8:tp_8:isl_1024:osl_1024:conc_64");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->e2e.isl, "isl_1024");
  EXPECT_EQ(s->e2e.osl, "osl_1024");
  // A coarser e2e id is the most specific rung of the ladder its own parts rebuild (it cannot
  // tell which finer ids were written beside it).
  const auto tp = parse_canonical_id("geak:e2e:qwen3-235b-a22b:gfx950:vllm:0.11.2:fp8:tp_8");
  ASSERT_TRUE(tp.has_value());
  EXPECT_EQ(tp->rung, 0);
  EXPECT_EQ(tp->e2e.tp, "tp_8");
  EXPECT_EQ(tp->e2e.isl, "");
  EXPECT_EQ(e2e_ladder(tp->e2e).size(), 2U);
}

TEST(KbIdentity, ParsesTheOldOrderingWithProducerAndGfxLast)
{
  const auto old = parse_canonical_id("geak:kernel:geak:fused_moe_kernel:rocm:7.2:triton:gfx950");
  ASSERT_TRUE(old.has_value()) << old.error().message;
  EXPECT_TRUE(old->old_order);
  EXPECT_EQ(old->producer, "geak");
  EXPECT_EQ(old->kernel.gpu, "gfx950");
  EXPECT_EQ(old->kernel.kernel_name, "fused_moe_kernel");
  EXPECT_EQ(old->kernel.backend, "triton");
  EXPECT_EQ(old->kernel.framework_version, "7.2");
  EXPECT_EQ(kernel_ladder(old->kernel).front(), "geak:kernel:gfx950:fused_moe_kernel:triton:rocm:7.2");
}

TEST(KbIdentity, RefusesIdsNoLadderWrites)
{
  for (const char* cid :
       {"kernel:geak:x", "geak:tuning:a:b", "geak:kernel:gfx950:k:triton:cuda:7.2",
        "geak:e2e:m:gfx950:vllm:0.5:fp8:isl_1:osl_1:conc_1", "geak:e2e:m:gfx950:vllm",
        "geak:e2e:m:gfx950:vllm:0.5:fp8:tp_8:isl_1:osl_1", "geak:e2e:m:gfx950:vllm:0.5:fp8:tp_0"}) {
    EXPECT_FALSE(parse_canonical_id(cid).has_value()) << cid;
  }
}

TEST(KbPromotion, FiniteStrictlyAboveFloorAndIncumbent)
{
  const PromotionLane lane = kernel_lane(0);
  EXPECT_EQ(lane.metric, "speedup");
  EXPECT_DOUBLE_EQ(lane.floor, 1.0);
  EXPECT_TRUE(should_promote(1.8742, lane, std::nullopt));
  EXPECT_FALSE(should_promote(1.0, lane, std::nullopt)); // the floor itself never promotes
  EXPECT_FALSE(should_promote(0.97, lane, std::nullopt));
  EXPECT_FALSE(should_promote(std::nullopt, lane, std::nullopt)); // a bool/string score
  EXPECT_FALSE(should_promote(std::numeric_limits<double>::quiet_NaN(), lane, std::nullopt));
  EXPECT_FALSE(should_promote(std::numeric_limits<double>::infinity(), lane, std::nullopt));
  const Champion incumbent{"speedup", "geak-fused_moe_kernel-ef134aed81ed-4b3227c7e42e", 1.8742};
  EXPECT_FALSE(should_promote(1.8742, lane, incumbent)); // ties never promote
  EXPECT_FALSE(should_promote(1.5, lane, incumbent));
  EXPECT_TRUE(should_promote(1.8743, lane, incumbent));
  // An incumbent under another metric counts as none.
  const Champion other{"throughput_tok_s", "geak-qwen3-235b-a22b-c939d33115ec-03a28a8d23d2", 10412.6};
  EXPECT_TRUE(should_promote(1.2, lane, other));
  // A tombstone pointer (value 0.0) is beaten by any score above the floor.
  EXPECT_TRUE(
      should_promote(1.01, lane, Champion{"speedup", "geak-moe_stage1-a2ad7ee7cf21-41a080697f04", 0.0}));
}

TEST(KbPromotion, E2eLanesPerRung)
{
  EXPECT_EQ(e2e_lane(0, 3).metric, "throughput_tok_s");
  EXPECT_DOUBLE_EQ(e2e_lane(0, 3).floor, 0.0);
  EXPECT_EQ(e2e_lane(1, 3).metric, "speedup");
  EXPECT_EQ(e2e_lane(2, 3).metric, "speedup");
  EXPECT_EQ(e2e_lane(0, 2).metric, "speedup"); // no workload rung: speedup everywhere
  EXPECT_DOUBLE_EQ(e2e_lane(0, 1).floor, 1.0);
  EXPECT_TRUE(should_promote(3188.2, e2e_lane(0, 3), std::nullopt));
  EXPECT_FALSE(should_promote(0.0, e2e_lane(0, 3), std::nullopt));
  EXPECT_FALSE(should_promote(
      10412.6, e2e_lane(0, 3),
      Champion{"throughput_tok_s", "geak-qwen3-235b-a22b-c939d33115ec-03a28a8d23d2", 10412.6}));
}

} // namespace
} // namespace rfdb::domain::kb
