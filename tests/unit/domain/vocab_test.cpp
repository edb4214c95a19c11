// Closed vocabularies (domain/vocab.hpp): every value round-trips through its
// stored spelling, and text outside the vocabulary is rejected.
#include "domain/vocab.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

using namespace rfdb::domain;

namespace {

// Every value's spelling parses back to it, spellings are distinct, and the
// text outside the vocabulary ("", a case change, a near miss) is rejected.
template <typename E> std::vector<std::string> round_trip()
{
  std::vector<std::string> spellings;
  std::set<std::string_view> seen;
  for (const E value : all_values<E>()) {
    const std::string_view text = to_string(value);
    EXPECT_FALSE(text.empty());
    EXPECT_TRUE(seen.insert(text).second) << text;
    EXPECT_EQ(parse<E>(text), value) << text;
    EXPECT_TRUE(is(text, value)) << text;
    spellings.emplace_back(text);
  }
  EXPECT_EQ(parse<E>(""), std::nullopt);
  EXPECT_EQ(parse<E>("bogus"), std::nullopt);
  EXPECT_EQ(parse<E>(" " + std::string(to_string(all_values<E>()[0]))), std::nullopt);
  return spellings;
}

using Names = std::vector<std::string>;

} // namespace

TEST(Vocab, OpClass)
{
  EXPECT_EQ(round_trip<OpClass>(), (Names{"gemm", "moe", "attn", "elementwise", "unknown"}));
  EXPECT_EQ(parse<OpClass>("GEMM"), std::nullopt);
  EXPECT_EQ(parse<OpClass>("attention"), std::nullopt);
}

TEST(Vocab, BoundType)
{
  EXPECT_EQ(round_trip<BoundType>(), (Names{"memory", "compute", "latency", "unknown"}));
  EXPECT_EQ(parse<BoundType>("memory_bound"), std::nullopt);
}

TEST(Vocab, HeadroomClass)
{
  EXPECT_EQ(round_trip<HeadroomClass>(), (Names{"underperforming", "moderate", "saturated", "unknown"}));
  EXPECT_EQ(parse<HeadroomClass>("Saturated"), std::nullopt);
}

TEST(Vocab, Confidence)
{
  EXPECT_EQ(round_trip<Confidence>(), (Names{"low", "medium", "high"}));
  EXPECT_EQ(parse<Confidence>("med"), std::nullopt);
}

TEST(Vocab, Stage)
{
  EXPECT_EQ(round_trip<Stage>(), (Names{"A", "B", "C"}));
  EXPECT_EQ(parse<Stage>("b"), std::nullopt);
  EXPECT_EQ(parse<Stage>("D"), std::nullopt);
}

TEST(Vocab, SourceKind)
{
  EXPECT_EQ(round_trip<SourceKind>(), (Names{"analytic", "measured"}));
}

TEST(Vocab, Gate)
{
  EXPECT_EQ(round_trip<Gate>(), (Names{"accepted", "stack", "rejected", "incomplete"}));
  EXPECT_EQ(parse<Gate>("accept"), std::nullopt);
}

TEST(Vocab, Verdict)
{
  EXPECT_EQ(round_trip<Verdict>(),
            (Names{"confirmed", "partial", "dead_end", "flagged", "incomplete", "unknown"}));
  EXPECT_EQ(parse<Verdict>("dead-end"), std::nullopt);
}

TEST(Vocab, ValidationClass)
{
  EXPECT_EQ(round_trip<ValidationClass>(), (Names{"win", "no_win", "flagged", "unknown"}));
  EXPECT_EQ(parse<ValidationClass>("accepted"), std::nullopt);
}

TEST(Vocab, AttemptKind)
{
  EXPECT_EQ(round_trip<AttemptKind>(), (Names{"kernel", "config"}));
}

TEST(Vocab, LeverKind)
{
  EXPECT_EQ(round_trip<LeverKind>(),
            (Names{"config", "tuning", "authored", "backend", "fusion", "precision", "other"}));
}

TEST(Vocab, Regime)
{
  EXPECT_EQ(round_trip<Regime>(), (Names{"decode", "prefill", "both", "unknown"}));
  EXPECT_EQ(parse<Regime>("mixed"), std::nullopt);
}

TEST(Vocab, Lifecycle)
{
  EXPECT_EQ(round_trip<Lifecycle>(), (Names{"active", "archived"}));
}

TEST(Vocab, OutputParity)
{
  EXPECT_EQ(round_trip<OutputParity>(), (Names{"pass", "fail", "n/a"}));
  EXPECT_EQ(parse<OutputParity>("na"), std::nullopt);
}

TEST(Vocab, RejectReason)
{
  EXPECT_EQ(round_trip<RejectReason>(),
            (Names{"no_engagement", "parity_regression", "accuracy_regression", "output_corruption"}));
}

TEST(Vocab, ValidationStatus)
{
  EXPECT_EQ(round_trip<ValidationStatus>(), (Names{"accepted", "validated_win", "validated_no_win",
                                                   "rejected", "flagged", "unknown", "phase_partial"}));
}

TEST(Vocab, AttemptOrigin)
{
  EXPECT_EQ(round_trip<AttemptOrigin>(),
            (Names{"integrate", "opbench", "sweep", "ledger", "accepted", "pending", "flagged"}));
}

TEST(Vocab, ReuseClass)
{
  EXPECT_EQ(round_trip<ReuseClass>(),
            (Names{"gemm", "moe", "attn", "elementwise", "unknown", "config", "method"}));
  // Every OpClass is a ReuseClass with the same spelling.
  for (const OpClass c : all_values<OpClass>()) {
    EXPECT_TRUE(parse<ReuseClass>(to_string(c))) << to_string(c);
  }
}

TEST(Vocab, ParseOrAndIs)
{
  EXPECT_EQ(parse_or("", Verdict::unknown), Verdict::unknown);
  EXPECT_EQ(parse_or("dead_end", Verdict::unknown), Verdict::dead_end);
  EXPECT_TRUE(is("accepted", Gate::accepted));
  EXPECT_FALSE(is("", Gate::accepted));
  EXPECT_FALSE(is("stack", Gate::accepted));
  static_assert(to_string(HeadroomClass::saturated) == "saturated");
  static_assert(parse<Stage>("C") == Stage::c);
}
