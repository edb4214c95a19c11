// Producer-label normalizers and small vocabulary rules (declared in domain/normalize.hpp).
#include "domain/normalize.hpp"

#include "util/text.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <string>
#include <utility>

namespace rfdb::domain {

namespace {

using Alias = std::pair<std::string_view, std::string_view>;

// Comparison key: lower-case ASCII, every run of non-alphanumerics folded to
// one '_', no leading/trailing '_' ("Moe Grouped-GEMM" → "moe_grouped_gemm").
std::string canonical_key(std::string_view raw)
{
  std::string out;
  out.reserve(raw.size());
  for (const char c : raw) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (alnum) {
      out += c;
    } else if (c >= 'A' && c <= 'Z') {
      out += static_cast<char>(c - 'A' + 'a');
    } else if (!out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  if (!out.empty() && out.back() == '_') {
    out.pop_back();
  }
  return out;
}

template <std::size_t N> Normalized lookup(std::string_view raw, const std::array<Alias, N>& table)
{
  const std::string key = canonical_key(raw);
  for (const auto& [alias, canonical] : table) {
    if (key == alias) {
      return {canonical, true};
    }
  }
  return {"unknown", false};
}

bool contains_any(std::string_view haystack, std::initializer_list<std::string_view> needles)
{
  for (const auto needle : needles) {
    if (haystack.find(needle) != std::string_view::npos) {
      return true;
    }
  }
  return false;
}

constexpr std::array<Alias, 50> k_op_class_aliases{{
    {"gemm", "gemm"},
    {"dense_gemm", "gemm"},
    {"library_gemm", "gemm"},
    {"quantized_gemm", "gemm"},
    {"scaled_mm", "gemm"},
    {"fp8_gemm", "gemm"},
    {"matmul", "gemm"},
    {"mm", "gemm"},
    {"bmm", "gemm"},
    {"gemv", "gemm"},
    {"linear", "gemm"},
    {"moe", "moe"},
    {"grouped_gemm", "moe"},
    {"moe_grouped_gemm", "moe"},
    {"fused_moe", "moe"},
    {"moe_gemm", "moe"},
    {"attn", "attn"},
    {"attention", "attn"},
    {"paged_attention", "attn"},
    {"paged_attn", "attn"},
    {"library_attn", "attn"},
    {"attention_decode", "attn"},
    {"attention_prefill", "attn"},
    {"decode_attention", "attn"},
    {"prefill_attention", "attn"},
    {"flash_attention", "attn"},
    {"fmha", "attn"},
    {"mha", "attn"},
    {"mla", "attn"},
    {"sdpa", "attn"},
    {"linear_attention", "attn"}, // the roofline skill classes gated-delta / FLA kernels attn (seed 0.50)
    {"elementwise", "elementwise"},
    {"elementwise_overhead", "elementwise"},
    {"norm", "elementwise"},
    {"rmsnorm", "elementwise"},
    {"rms_norm", "elementwise"},
    {"layernorm", "elementwise"},
    {"layer_norm", "elementwise"},
    {"reduction_norm", "elementwise"},
    {"quant", "elementwise"},
    {"quantize", "elementwise"},
    {"quantize_cast", "elementwise"},
    {"cast", "elementwise"},
    {"activation", "elementwise"},
    {"rope", "elementwise"},
    {"softmax", "elementwise"},
    {"memory_movement", "elementwise"},
    {"unknown", "unknown"},
    {"other", "unknown"},
    {"none", "unknown"},
}};

constexpr std::array<Alias, 13> k_bound_type_aliases{{
    {"memory", "memory"},
    {"memory_bound", "memory"},
    {"mem", "memory"},
    {"memory_side", "memory"},
    {"bandwidth", "memory"},
    {"bandwidth_bound", "memory"},
    {"compute", "compute"},
    {"compute_bound", "compute"},
    {"compute_side", "compute"},
    {"latency", "latency"},
    {"latency_bound", "latency"},
    {"unknown", "unknown"},
    {"none", "unknown"},
}};

constexpr std::array<Alias, 5> k_headroom_aliases{{
    {"underperforming", "underperforming"},
    {"under_performing", "underperforming"},
    {"moderate", "moderate"},
    {"saturated", "saturated"},
    {"unknown", "unknown"},
}};

constexpr std::array<Alias, 4> k_confidence_aliases{{
    {"low", "low"},
    {"medium", "medium"},
    {"med", "medium"},
    {"high", "high"},
}};

constexpr std::array<Alias, 6> k_stage_aliases{{
    {"a", "A"},
    {"b", "B"},
    {"c", "C"},
    {"stage_a", "A"},
    {"stage_b", "B"},
    {"stage_c", "C"},
}};

constexpr std::array<Alias, 10> k_validation_aliases{{
    {"accepted", "win"},
    {"validated_win", "win"},
    {"win", "win"},
    {"validated_no_win", "no_win"},
    {"rejected", "no_win"},
    {"no_win", "no_win"},
    {"flagged", "flagged"},
    {"unknown", "unknown"},
    {"phase_partial", "unknown"},
    {"error", "unknown"},
}};

constexpr std::array<Alias, 11> k_ledger_verdict_aliases{{
    {"confirmed", "confirmed"},
    {"confirmed_corrective", "confirmed"},
    {"candidate_passed", "confirmed"},
    {"partial", "partial"},
    {"dead_end", "dead_end"},
    {"deadend", "dead_end"},
    {"candidate_rejected", "dead_end"},
    {"flagged", "flagged"},
    {"incomplete", "incomplete"},
    {"candidate_incomplete", "incomplete"},
    {"unknown", "unknown"},
}};

// Device names whose gfx is known (AMD Instinct), lower-case.
constexpr std::array<std::pair<std::string_view, std::string_view>, 8> k_device_gfx{{
    {"mi300x", "gfx942"},
    {"mi300a", "gfx942"},
    {"mi325x", "gfx942"},
    {"mi350x", "gfx950"},
    {"mi355x", "gfx950"},
    {"mi250x", "gfx90a"},
    {"mi250", "gfx90a"},
    {"mi210", "gfx90a"},
}};

bool gfx_shaped(std::string_view g)
{
  return g.size() > 3 && g.starts_with("gfx") &&
         std::all_of(g.begin() + 3, g.end(), [](unsigned char c) { return std::isalnum(c) != 0; });
}

} // namespace

Normalized normalize_op_class(std::string_view raw)
{
  return lookup(raw, k_op_class_aliases);
}

Normalized op_class_from_top_n(std::string_view classification, std::string_view name)
{
  const std::string n = util::lower_ascii(name);
  if (contains_any(n, {"moe", "expert"})) {
    return {"moe", true};
  }
  if (contains_any(n, {"attn", "attention", "fmha", "flash", "_mha", "mha_", "paged", "sdpa"})) {
    return {"attn", true};
  }
  if (contains_any(n, {"gemm", "matmul", "gemv", "cijk"})) {
    return {"gemm", true};
  }
  if (contains_any(n, {"norm", "silu", "gelu", "act_and_mul", "quant", "rope", "rotary", "softmax",
                       "elementwise", "cast"})) {
    return {"elementwise", true};
  }
  const std::string c = canonical_key(classification);
  if (c == "library_gemm") {
    return {"gemm", true};
  }
  if (c == "library_attn") {
    return {"attn", true};
  }
  if (c == "elementwise_overhead" || c == "reduction_norm") {
    return {"elementwise", true};
  }
  return {"unknown", false};
}

Normalized normalize_bound_type(std::string_view raw)
{
  return lookup(raw, k_bound_type_aliases);
}

std::string_view bound_type_from_observed_limit(std::string_view observed_limit)
{
  const std::string key = util::lower_ascii(observed_limit);
  if (key == "compute" || key == "balanced") {
    return "compute";
  }
  if (key == "hbm" || key == "cache" || key == "lds") {
    return "memory";
  }
  if (key == "latency_occupancy" || key == "overhead") {
    return "latency";
  }
  return "unknown";
}

Normalized normalize_headroom_class(std::string_view raw)
{
  return lookup(raw, k_headroom_aliases);
}

Normalized normalize_confidence(std::string_view raw)
{
  return lookup(raw, k_confidence_aliases);
}

Normalized normalize_stage(std::string_view raw)
{
  return lookup(raw, k_stage_aliases);
}

std::string_view confidence_for_stage(std::string_view stage)
{
  if (stage == "C") {
    return "high";
  }
  return stage == "B" ? "medium" : "low";
}

Normalized validation_class(std::string_view validation_status)
{
  const Normalized n = lookup(validation_status, k_validation_aliases);
  if (!n.recognized) {
    const std::string key = canonical_key(validation_status);
    constexpr std::string_view k_carried = "_no_number_used_carried_ab";
    if (key.size() > k_carried.size() &&
        key.compare(key.size() - k_carried.size(), k_carried.size(), k_carried) == 0) {
      return {"unknown", true};
    }
  }
  return n;
}

Normalized attempt_verdict_from_ledger(std::string_view verdict)
{
  return lookup(verdict, k_ledger_verdict_aliases);
}

Normalized attempt_verdict_from_gate(std::string_view gate, std::optional<double> e2e_delta_pct)
{
  const std::string key = canonical_key(gate);
  if (key == "accepted" || key == "stack") {
    const bool gained = e2e_delta_pct && *e2e_delta_pct > 0.0;
    return {gained ? "confirmed" : "partial", true};
  }
  if (key == "rejected") {
    return {"dead_end", true};
  }
  if (key == "incomplete") {
    return {"incomplete", true};
  }
  return {"unknown", false};
}

std::string_view attempt_verdict_from_opbench_gate(std::string_view gate)
{
  const std::string g = util::lower_ascii(gate);
  if (g == "have_winner") {
    return to_string(Verdict::incomplete);
  }
  if (g == "no_win") {
    return to_string(Verdict::dead_end);
  }
  return to_string(g == "tamper" ? Verdict::flagged : Verdict::unknown);
}

bool parity_failed(std::string_view output_parity, std::string_view reject_reason)
{
  const auto reject = parse<RejectReason>(reject_reason);
  return is(output_parity, OutputParity::fail) || (reject && (*reject == RejectReason::parity_regression ||
                                                              *reject == RejectReason::accuracy_regression ||
                                                              *reject == RejectReason::output_corruption));
}

int round_order(std::string_view round)
{
  // Not canonical_key: that would fold "-1" into "1".
  std::string key = util::lower_ascii(round);
  while (!key.empty() && key.front() == ' ') {
    key.erase(0, 1);
  }
  while (!key.empty() && key.back() == ' ') {
    key.pop_back();
  }
  if (key.rfind("round_", 0) == 0) {
    key.erase(0, 6);
  }
  if (key == "config") {
    return 10;
  }
  if (key == "head") {
    return 20;
  }
  if (key == "fusion_capture") {
    return 30;
  }
  constexpr int k_unknown_round = 5000;
  constexpr int k_max_round = 1'000'000;
  int n = 0;
  const auto [ptr, ec] = std::from_chars(key.data(), key.data() + key.size(), n);
  if (key.empty() || ec != std::errc() || ptr != key.data() + key.size() || n < 0 || n > k_max_round) {
    return k_unknown_round;
  }
  return n * 100;
}

std::string_view lever_kind_for(const LeverFacts& facts)
{
  const std::string kind = canonical_key(facts.winner_kind);
  const std::string text = util::lower_ascii(facts.text);
  if (canonical_key(facts.origin) == "sweep_results" || kind == "flag" || kind == "flags" ||
      kind == "config") {
    return "config";
  }
  if (kind == "fusion" || contains_any(text, {"fusion", "fuse "})) {
    return "fusion";
  }
  if (kind == "precision" ||
      contains_any(text, {"precision", "kv-cache-dtype", "kv_cache_dtype", "quantiz"})) {
    return "precision";
  }
  if (kind == "env" || kind == "tuning" || kind == "tuned" || contains_any(text, {"tuned", "tuning"})) {
    return "tuning";
  }
  if (kind == "patch" || kind == "authored" || kind == "rewrite" || kind == "author") {
    return "authored";
  }
  if (!facts.backend.empty() || kind == "backend") {
    return "backend";
  }
  return "other";
}

std::optional<std::string> normalize_gfx(std::string_view text)
{
  // rocminfo appends target features: "gfx950:sramecc+:xnack-" is gfx950.
  const std::string g = util::lower_ascii(util::trim(text.substr(0, text.find(':'))));
  for (const auto& [device, gfx] : k_device_gfx) {
    if (g == device || (g.size() > device.size() && g.starts_with(device))) {
      return std::string(gfx);
    }
  }
  return gfx_shaped(g) ? std::optional(g) : std::nullopt;
}

std::string op_class_key(std::string_view text)
{
  const std::string op = util::lower_ascii(util::collapse_spaces(text));
  return op.empty() ? std::string(to_string(OpClass::unknown)) : op;
}

std::string gfx_key(std::string_view text)
{
  const std::string g = util::lower_ascii(util::collapse_spaces(text));
  if (g.empty()) {
    return "unknown";
  }
  return normalize_gfx(g).value_or(g);
}

} // namespace rfdb::domain
