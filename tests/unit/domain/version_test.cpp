// PEP 440 versions (domain/version.hpp): PEP 440's own examples and the
// strings the dev runs record (env_info.txt, env_report.json, roofline-v1
// tool_version, the roofline install record).
#include "domain/version.hpp"

#include <gtest/gtest.h>

#include <vector>

using namespace rfdb::domain;

namespace {

Pep440Version v(std::string_view text)
{
  auto r = parse_version(text);
  EXPECT_TRUE(r.has_value()) << text;
  return r ? *r : Pep440Version{};
}

StackSpec spec(std::string_view text)
{
  auto r = parse_stack_spec(text);
  EXPECT_TRUE(r.has_value()) << text << ": " << (r ? "" : r.error().message);
  return r ? *r : StackSpec{};
}

} // namespace

TEST(Pep440, ParsesTheDevRunsStrings)
{
  const auto vllm = v("0.26.1.dev37+g9c1d2e4.rocm712");
  EXPECT_EQ(vllm.raw, "0.26.1.dev37+g9c1d2e4.rocm712");
  EXPECT_EQ(vllm.release, (std::vector<std::int64_t>{0, 26, 1}));
  EXPECT_EQ(vllm.release_text(), "0.26.1");
  EXPECT_EQ(vllm.dev, 37);
  EXPECT_FALSE(vllm.pre);
  EXPECT_FALSE(vllm.post);
  EXPECT_EQ(vllm.local, (std::vector<std::string>{"g9c1d2e4", "rocm712"}));
  EXPECT_EQ(vllm.public_text(), "0.26.1.dev37");

  const auto torch = v("2.9.0+rocm7.1.2");
  EXPECT_EQ(torch.release_text(), "2.9.0");
  EXPECT_EQ(torch.local, (std::vector<std::string>{"rocm7", "1", "2"}));
  EXPECT_FALSE(torch.dev);

  EXPECT_EQ(v("3.5.1").release_text(), "3.5.1");
  const auto aiter = v("0.1.8.dev3");
  EXPECT_EQ(aiter.release_text(), "0.1.8");
  EXPECT_EQ(aiter.dev, 3);
  const auto aiter_post = v("0.1.5.post2");
  EXPECT_EQ(aiter_post.post, 2);
  EXPECT_EQ(v("0.1.7.post1").post, 1);
  EXPECT_EQ(v("0.1.8.dev1+g2f4b9d0").local_text(), "g2f4b9d0");
  EXPECT_EQ(v("0.26.0.dev412+gb81a6f0.rocm712").dev, 412);
  EXPECT_EQ(v("0.24.1.dev9+g0d3e7a1.rocm702").release_text(), "0.24.1");
  EXPECT_EQ(v("0.5.17").release_text(), "0.5.17");
}

TEST(Pep440, ParsesPep440Examples)
{
  const auto epoch = v("1!2.0");
  EXPECT_EQ(epoch.epoch, 1);
  EXPECT_EQ(epoch.release_text(), "2.0");
  const auto rc = v("1.0rc1");
  ASSERT_TRUE(rc.pre);
  EXPECT_EQ(rc.pre->kind, PreKind::rc);
  EXPECT_EQ(rc.pre->number, 1);
  EXPECT_EQ(v("1.0.post2").post, 2);
  // Normalization examples of PEP 440.
  EXPECT_EQ(v("1.0-RC-1").public_text(), "1.0rc1");
  EXPECT_EQ(v("1.0c1").public_text(), "1.0rc1");
  EXPECT_EQ(v("1.0alpha2").public_text(), "1.0a2");
  EXPECT_EQ(v("1.0-beta.3").public_text(), "1.0b3");
  EXPECT_EQ(v("1.0a").public_text(), "1.0a0");
  EXPECT_EQ(v("1.0-1").public_text(), "1.0.post1");
  EXPECT_EQ(v("1.0.rev4").public_text(), "1.0.post4");
  EXPECT_EQ(v("1.0-dev").public_text(), "1.0.dev0");
  EXPECT_EQ(v("v1.0").public_text(), "1.0");
  EXPECT_EQ(v(" 1.0 ").public_text(), "1.0");
  EXPECT_EQ(v("1.0+Ubuntu-1").local_text(), "ubuntu.1");
  EXPECT_EQ(v("1!2.0rc1.post2.dev3").public_text(), "1!2.0rc1.post2.dev3");
}

TEST(Pep440, RejectsWhatIsNotAVersion)
{
  for (const char* bad : {"", "abc", "1.0+", "1.0+a..b", "rocprofiler-compute version: 3.1.1",
                          "/opt/rocm-7.1.1", "1..0", "1.0.dev1.dev2", "99999999999999999999"}) {
    const auto r = parse_version(bad);
    EXPECT_FALSE(r.has_value()) << bad;
    if (!r) {
      EXPECT_NE(r.error().message.find("is not a PEP 440 version"), std::string::npos) << r.error().message;
    }
  }
}

// A string of tens of thousands of characters (the breaker's 40,001-character backend version,
// which crashed std::regex by recursion) is refused by length, without matching; so is a spec
// on one, and a banner holding one yields no version.
TEST(Pep440, RefusesAnOverlongStringWithoutMatchingIt)
{
  std::string huge;
  for (int i = 0; i < 20000; ++i) {
    huge += "1.";
  }
  huge += "1";
  const auto r = parse_version(huge);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message,
            "'1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1.… (40001 characters)' is not a PEP 440 "
            "version (longer than 128 characters)");
  EXPECT_FALSE(find_version("hipblaslt " + huge).has_value());
  EXPECT_FALSE(parse_stack_spec("vllm>=" + huge).has_value());
  std::string longest(k_max_version_chars - 2, '1');
  EXPECT_FALSE(parse_version("1." + longest).has_value()); // 128 characters: matched, its number too large
  EXPECT_TRUE(parse_version("1.2.3." + std::string(k_max_version_chars - 6, '0')).has_value());
}

TEST(Pep440, OrdersAsPep440Does)
{
  // PEP 440's summary of permitted suffixes and relative ordering.
  const std::vector<std::string> ordered = {"1.dev0",
                                            "1.0.dev456",
                                            "1.0a1",
                                            "1.0a2.dev456",
                                            "1.0a12.dev456",
                                            "1.0a12",
                                            "1.0b1.dev456",
                                            "1.0b2",
                                            "1.0b2.post345.dev456",
                                            "1.0b2.post345",
                                            "1.0rc1.dev456",
                                            "1.0rc1",
                                            "1.0",
                                            "1.0+abc.5",
                                            "1.0+abc.7",
                                            "1.0+5",
                                            "1.0.post456.dev34",
                                            "1.0.post456",
                                            "1.0.15",
                                            "1.1.dev1",
                                            "1!0.1"};
  for (std::size_t i = 0; i + 1 < ordered.size(); ++i) {
    EXPECT_LT(v(ordered[i]), v(ordered[i + 1])) << ordered[i] << " < " << ordered[i + 1];
    EXPECT_GT(v(ordered[i + 1]), v(ordered[i])) << ordered[i + 1] << " > " << ordered[i];
  }
  EXPECT_EQ(v("1.0"), v("1.0.0"));
  EXPECT_EQ(compare(v("1.0"), v("1")), std::strong_ordering::equal);
  EXPECT_NE(v("1.0"), v("1.0+local"));
  // The dev runs: a dev build sorts before its release, after the previous one.
  EXPECT_LT(v("0.26.0.dev412+gb81a6f0.rocm712"), v("0.26.0"));
  EXPECT_GT(v("0.26.0.dev412+gb81a6f0.rocm712"), v("0.24.1.dev9+g0d3e7a1.rocm702"));
  EXPECT_LT(v("0.26.0.dev412+gb81a6f0.rocm712"), v("0.26.1.dev37+g9c1d2e4.rocm712"));
  EXPECT_LT(v("0.1.5.post2"), v("0.1.7.post1"));
  EXPECT_LT(v("0.1.8.dev1+g2f4b9d0"), v("0.1.8.dev3+g77e0c1a"));
}

TEST(Pep440, FindsTheVersionInABanner)
{
  const auto rp = find_version("rocprofiler-compute version: 3.1.1");
  ASSERT_TRUE(rp);
  EXPECT_EQ(rp->release_text(), "3.1.1");
  EXPECT_EQ(find_version("rocprof-compute v3.5.0 (build 12)")->release_text(), "3.5.0");
  EXPECT_FALSE(find_version("not found"));
  EXPECT_FALSE(find_version(""));
}

TEST(Pep440, FindsTheProfilersVersionNotRocmsInABanner)
{
  // A banner that names ROCm first: the tool's version, not ROCm's.
  EXPECT_EQ(find_profiler_version("ROCm 7.1.1 rocprofiler-compute 3.1.1")->release_text(), "3.1.1");
  EXPECT_EQ(find_version("ROCm 7.1.1 rocprofiler-compute 3.1.1")->release_text(), "7.1.1");
  EXPECT_EQ(find_profiler_version("rocprofiler-compute (3.4.2)")->release_text(), "3.4.2");
  EXPECT_EQ(find_profiler_version("ROCPROF-COMPUTE-3.5.0")->release_text(), "3.5.0");
  EXPECT_EQ(find_profiler_version("3.4.0")->release_text(), "3.4.0");
  EXPECT_EQ(find_version("hipblaslt-0.10.0;rocm")->release_text(), "0.10.0");
  // The tool named with no version after it: unknown, never ROCm's.
  EXPECT_FALSE(find_profiler_version("/opt/rocm-7.1.1/bin/rocprof-compute"));
  EXPECT_FALSE(find_profiler_version(""));
}

TEST(Pep440, RocmFromLocalVersionOrInstallPath)
{
  EXPECT_EQ(rocm_from_local("+rocm7.1.2"), "7.1.2");
  EXPECT_EQ(rocm_from_local("rocm7.1.2"), "7.1.2");
  EXPECT_EQ(rocm_from_local("2.9.0+rocm7.1.2"), "7.1.2");
  EXPECT_EQ(rocm_from_local("2.10.0+rocm7.1.2"), "7.1.2");
  EXPECT_EQ(rocm_from_local(".rocm712"), "7.1.2");
  EXPECT_EQ(rocm_from_local("0.26.1.dev37+g9c1d2e4.rocm712"), "7.1.2");
  EXPECT_EQ(rocm_from_local("0.24.1.dev9+g0d3e7a1.rocm702"), "7.0.2");
  EXPECT_EQ(rocm_from_local("2.6.0+rocm6.4"), "6.4");
  EXPECT_EQ(rocm_from_local("/opt/rocm-7.1.1"), "7.1.1");
  EXPECT_EQ(rocm_from_local("/opt/rocm-7.1.1/bin/rocprof-compute"), "7.1.1");
  // Never guessed.
  EXPECT_FALSE(rocm_from_local("/opt/rocm/bin/rocprof-compute"));
  EXPECT_FALSE(rocm_from_local("0.1.8.dev3+g77e0c1a"));
  EXPECT_FALSE(rocm_from_local("3.5.1"));
  EXPECT_FALSE(rocm_from_local("1.0+rocm71234"));
  EXPECT_FALSE(rocm_from_local("1.0+rocm712abc"));
  EXPECT_FALSE(rocm_from_local("1.0+xrocm712"));
}

TEST(Pep440, PackageNamesNormalize)
{
  EXPECT_EQ(normalize_package("vLLM"), "vllm");
  EXPECT_EQ(normalize_package("sgl_kernel"), "sgl-kernel");
  EXPECT_EQ(normalize_package("Sgl.-Kernel"), "sgl-kernel");
}

TEST(StackSpec, ParsesEachOperator)
{
  const auto s = spec("vllm>=0.26");
  EXPECT_EQ(s.package, "vllm");
  EXPECT_EQ(s.op, SpecOp::ge);
  EXPECT_EQ(s.version.release_text(), "0.26");
  EXPECT_EQ(spec("torch<2.10").op, SpecOp::lt);
  EXPECT_EQ(spec("rocm==7.1.2").op, SpecOp::eq);
  EXPECT_EQ(spec("aiter!=0.1.8").op, SpecOp::ne);
  EXPECT_EQ(spec("triton<=3.5").op, SpecOp::le);
  EXPECT_EQ(spec("flydsl>0.2").op, SpecOp::gt);
  EXPECT_EQ(spec(" VLLM >= 0.26 ").package, "vllm");
  EXPECT_TRUE(spec("vllm==0.26.*").wildcard);
}

TEST(StackSpec, MalformedSpecsSayWhatIsWrong)
{
  struct Case {
    const char* text;
    const char* why;
  };
  for (const auto& c :
       {Case{"vllm", "no comparison operator"}, Case{">=0.26", "no package name"},
        Case{"vllm>=", "no version"}, Case{"vllm>=abc", "is not a PEP 440 version"},
        Case{"vllm=>0.26", "unsupported operator"}, Case{"vllm~=0.26", "unsupported operator"},
        Case{"vllm===0.26", "unsupported operator"}, Case{"vllm>=0.26.*", "'.*'"},
        Case{"v llm>=0.26", "not a package name"}}) {
    const auto r = parse_stack_spec(c.text);
    ASSERT_FALSE(r.has_value()) << c.text;
    EXPECT_NE(r.error().message.find(c.why), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find(c.text), std::string::npos) << r.error().message;
  }
}

TEST(StackSpec, DevBuildsSortBeforeTheirRelease)
{
  const auto d6 = v("0.26.1.dev37+g9c1d2e4.rocm712");
  const auto d7 = v("0.26.0.dev412+gb81a6f0.rocm712");
  const auto d9 = v("0.24.1.dev9+g0d3e7a1.rocm702");
  EXPECT_TRUE(satisfies(d6, spec("vllm>=0.26")));
  EXPECT_TRUE(satisfies(d7, spec("vllm>=0.26"))); // on the release part: 0.26.0.dev412 is a 0.26.0 build
  EXPECT_FALSE(satisfies(d9, spec("vllm>=0.26")));
  EXPECT_FALSE(satisfies(d7, spec("vllm<0.26")));
  EXPECT_TRUE(satisfies(d7, spec("vllm>=0.26.0.dev0")));
  EXPECT_TRUE(satisfies(d7, spec("vllm>=0.26.0.dev400")));  // a dev spec: full PEP 440 order
  EXPECT_FALSE(satisfies(d7, spec("vllm>=0.26.0.dev500"))); // dev412 < dev500
  EXPECT_FALSE(satisfies(d7, spec("vllm>=0.26.0rc1")));     // a dev build sorts before its pre-releases
  EXPECT_TRUE(satisfies(v("0.1.8.dev3+g77e0c1a"), spec("aiter==0.1.8")));
  EXPECT_TRUE(satisfies(v("0.1.5.post2"), spec("aiter<=0.1.5")));
  EXPECT_TRUE(satisfies(d7, spec("vllm==0.26.*")));
  EXPECT_FALSE(satisfies(d6, spec("vllm==0.26.0.*")));
  EXPECT_TRUE(satisfies(d9, spec("vllm!=0.26.*")));
  // The local segment is ignored unless the spec names one.
  EXPECT_TRUE(satisfies(v("2.9.0+rocm7.1.2"), spec("torch==2.9")));
  EXPECT_TRUE(satisfies(v("2.9.0+rocm7.1.2"), spec("torch==2.9.0+rocm7.1.2")));
  EXPECT_FALSE(satisfies(v("2.9.0+rocm7.0.2"), spec("torch==2.9.0+rocm7.1.2")));
  EXPECT_TRUE(satisfies(v("2.9.1+rocm7.1.1"), spec("torch<2.10")));
  EXPECT_FALSE(satisfies(v("2.10.0+rocm7.1.2"), spec("torch<2.10")));
  EXPECT_TRUE(satisfies(v("7.1.2"), spec("rocm==7.1.2")));
  EXPECT_FALSE(satisfies(v("7.1.1"), spec("rocm==7.1.2")));
  EXPECT_FALSE(satisfies(v("0.1.8.dev3+g77e0c1a"), spec("aiter!=0.1.8"))); // a 0.1.8 build
  EXPECT_FALSE(satisfies(v("0.1.8"), spec("aiter!=0.1.8")));
  EXPECT_FALSE(satisfies(v("0.1.5.post2"), spec("aiter>0.1.5"))); // a 0.1.5 build
  EXPECT_TRUE(satisfies(v("0.1.5.post2"), spec("aiter>0.1.5.post1")));
  EXPECT_TRUE(satisfies(v("3.4.0"), spec("rocprof-compute<3.5")));
  EXPECT_FALSE(satisfies(v("3.5.0"), spec("rocprof-compute<3.5")));
}
