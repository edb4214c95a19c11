#include "synth.hpp"

#include "ingest/evaldir/files.hpp"
#include "ingest/json_util.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <fstream>
#include <string_view>

namespace rfdb::bench {

namespace fs = std::filesystem;

namespace {

// splitmix64: a tiny, portable generator, so a seed gives the same corpus
// on every standard library (std:: distributions are implementation-defined).
class Rng {
public:
  explicit Rng(std::uint64_t seed) : m_state(seed) {}
  std::uint64_t next()
  {
    std::uint64_t z = (m_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform integer in [0, n).
  std::uint64_t below(std::uint64_t n) { return next() % n; }

private:
  std::uint64_t m_state;
};

double round_to(double value, int dp)
{
  const double scale = std::pow(10.0, dp);
  return std::round(value * scale) / scale;
}

bool all_digits(std::string_view s)
{
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Position of "_YYYYmmdd_HHMMSS" followed by '_' or the end; npos if none.
std::size_t date_position(std::string_view name)
{
  constexpr std::size_t k_len = 16;
  for (std::size_t i = 0; i + k_len <= name.size(); ++i) {
    const auto cand = name.substr(i, k_len);
    const bool bounded = i + k_len == name.size() || name[i + k_len] == '_';
    if (cand[0] == '_' && cand[9] == '_' && bounded && all_digits(cand.substr(1, 8)) &&
        all_digits(cand.substr(10, 6))) {
      return i;
    }
  }
  return std::string_view::npos;
}

void replace_all(std::string& text, std::string_view from, std::string_view to)
{
  if (from.empty() || from == to) {
    return;
  }
  for (std::size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size())) {
    text.replace(pos, from.size(), to);
  }
}

// Rewrite every number (bare or quoted) that is the value of member `key`
// with fn(value), keeping its quoting; other values (null, text) stay.
template <typename Fn> void remap_numbers(std::string& text, std::string_view key, Fn fn)
{
  const std::string token = fmt::format("\"{}\"", key);
  for (std::size_t pos = text.find(token); pos != std::string::npos; pos = text.find(token, pos + 1)) {
    std::size_t i = pos + token.size();
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) {
      ++i;
    }
    if (i >= text.size() || text[i] != ':') {
      continue;
    }
    ++i;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n')) {
      ++i;
    }
    const bool quoted = i < text.size() && text[i] == '"';
    const std::size_t start = quoted ? i + 1 : i;
    std::size_t end = start;
    while (end < text.size() &&
           std::string_view("+-0123456789.eE").find(text[end]) != std::string_view::npos) {
      ++end;
    }
    if (end == start || (quoted && (end >= text.size() || text[end] != '"'))) {
      continue;
    }
    double value = 0.0;
    try {
      value = std::stod(text.substr(start, end - start));
    } catch (const std::exception&) {
      continue; // not a number after all ("-", "."): leave it as written
    }
    text.replace(start, end - start, fmt::format("{:.3f}", fn(value)));
  }
}

const nlohmann::ordered_json* member(const nlohmann::ordered_json& obj, const char* key)
{
  const auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

// Perturb one analytic verdict and recompute what follows from roofline_pct
// (docs/glossary.md, "Attainable speedup"): attainable = max(1, target_eff / roofline_pct) (3 dp),
// expected gain = pct_gpu_time × (1 − 1/attainable) (2 dp), headroom banded
// at 0.9 / 0.6 × target_eff. Rows without a verdict are left alone.
void perturb_entry(nlohmann::ordered_json& e, Rng& rng)
{
  const auto* rp = member(e, "roofline_pct");
  const auto* te = member(e, "target_eff");
  const auto* pct = member(e, "pct_gpu_time");
  const auto* hc = member(e, "headroom_class");
  const auto* raw = member(e, "roofline_pct_raw");
  const auto* suspect = member(e, "suspect");
  if (rp == nullptr || te == nullptr || pct == nullptr || hc == nullptr || !rp->is_number() ||
      !te->is_number() || !pct->is_number() || !hc->is_string()) {
    return;
  }
  const auto headroom = hc->get<std::string>();
  if (headroom != "saturated" && headroom != "moderate" && headroom != "underperforming") {
    return;
  }
  if ((suspect != nullptr && suspect->is_boolean() && suspect->get<bool>()) ||
      (raw != nullptr && (!raw->is_number() || raw->get<double>() != rp->get<double>()))) {
    return;
  }
  const double target = te->get<double>();
  const double r = std::clamp(round_to(rp->get<double>() * (0.8 + 0.4 * rng.uniform()), 3), 0.02, 0.98);
  const double attainable = round_to(std::max(1.0, target / r), 3);
  e["roofline_pct"] = r;
  if (raw != nullptr) {
    e["roofline_pct_raw"] = r;
  }
  e["attainable_speedup"] = attainable;
  e["expected_e2e_gain_pct"] = round_to(pct->get<double>() * (1.0 - 1.0 / attainable), 2);
  e["headroom_class"] =
      r >= 0.9 * target ? "saturated" : (r >= 0.6 * target ? "moderate" : "underperforming");
}

// Re-sort ranking_by_expected_gain by the recomputed gains (stable, so ties
// keep the template's order; names without an entry go last).
void rerank(nlohmann::ordered_json& doc)
{
  auto ranking = doc.find("ranking_by_expected_gain");
  const auto* entries = member(doc, "entries");
  if (ranking == doc.end() || !ranking->is_array() || entries == nullptr || !entries->is_array()) {
    return;
  }
  auto gain_of = [&](const nlohmann::ordered_json& name) {
    for (const auto& e : *entries) {
      const auto* sn = member(e, "short_name");
      const auto* gain = member(e, "expected_e2e_gain_pct");
      if (sn != nullptr && *sn == name && gain != nullptr && gain->is_number()) {
        return gain->get<double>();
      }
    }
    return -1.0;
  };
  std::vector<nlohmann::ordered_json> names(ranking->begin(), ranking->end());
  std::stable_sort(names.begin(), names.end(),
                   [&](const auto& a, const auto& b) { return gain_of(a) > gain_of(b); });
  *ranking = names;
}

std::string perturb_roofline(nlohmann::ordered_json doc, Rng& rng)
{
  auto entries = doc.find("entries");
  if (entries != doc.end() && entries->is_array()) {
    for (auto& e : *entries) {
      if (e.is_object()) {
        perturb_entry(e, rng);
      }
    }
  }
  rerank(doc);
  return doc.dump(2) + "\n";
}

// "e2e_<model>_<YYYYmmdd>_<HHMMSS>_<pid>_<tag>" for run `index` of `total`:
// dates spread evenly over two years ending 2026-08-31.
std::string run_basename(const TemplateRun& t, std::size_t index, std::size_t total, Rng& rng)
{
  using namespace std::chrono;
  constexpr long k_span_days = 730;
  const sys_days last = year{2026} / August / 31;
  const long offset = total <= 1 ? 0 : static_cast<long>(index) * k_span_days / static_cast<long>(total - 1);
  const year_month_day ymd{last - days{k_span_days - offset}};
  const auto secs = rng.below(86400);
  std::string tag;
  for (std::size_t v = index, i = 0; i < 4 || v != 0; ++i, v /= 36) {
    tag.insert(tag.begin(), "0123456789abcdefghijklmnopqrstuvwxyz"[v % 36]);
  }
  return fmt::format("{}_{:04d}{:02d}{:02d}_{:02d}{:02d}{:02d}_{}_{}", t.prefix, static_cast<int>(ymd.year()),
                     static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()), secs / 3600,
                     secs / 60 % 60, secs % 60, 1000 + rng.below(90000), tag);
}

Result<TemplateRun> load_template(const fs::path& dir)
{
  TemplateRun t;
  t.basename = dir.filename().string();
  const auto at = date_position(t.basename);
  if (at == std::string::npos) {
    return fail(ErrorCode::invalid_input, "template dir name has no _YYYYmmdd_HHMMSS date: " + t.basename);
  }
  t.prefix = t.basename.substr(0, at);
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->is_symlink(ec)) {
      continue;
    }
    TemplateFile f;
    f.rel_path = fs::relative(it->path(), dir, ec).generic_string();
    RFDB_TRY_ASSIGN(f.text, ingest::read_file(it->path()));
    const auto kind = ingest::classify_artifact(f.rel_path);
    if (kind && kind->kind == "profile_roofline") {
      auto doc = nlohmann::ordered_json::parse(f.text, nullptr, false, true);
      if (doc.is_discarded()) {
        return fail(ErrorCode::invalid_input, "template roofline is not JSON: " + it->path().string());
      }
      f.roofline = std::move(doc);
    } else if (kind && kind->kind == "env_report") {
      ingest::json env;
      RFDB_TRY_ASSIGN(env, ingest::parse_json_text(f.text));
      t.gfx = env.value("gfx", "");
      t.device = env.value("device_name", "");
    }
    t.files.push_back(std::move(f));
  }
  if (ec) {
    return fail(ErrorCode::io, "cannot list " + dir.string() + ": " + ec.message());
  }
  std::sort(t.files.begin(), t.files.end(),
            [](const TemplateFile& a, const TemplateFile& b) { return a.rel_path < b.rel_path; });
  return t;
}

Result<void> write_text(const fs::path& path, const std::string& text)
{
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (ec || !out) {
    return fail(ErrorCode::io, "cannot write " + path.string());
  }
  return {};
}

} // namespace

Result<std::vector<TemplateRun>> load_templates(const fs::path& fixtures_dir)
{
  std::vector<fs::path> dirs;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fixtures_dir, ec)) {
    if (entry.is_directory(ec) && ingest::looks_like_eval_dir(entry.path())) {
      dirs.push_back(entry.path());
    }
  }
  if (ec || dirs.empty()) {
    return fail(make_error(ErrorCode::invalid_input, "no eval dirs in " + fixtures_dir.string())
                    .with_hint("run from the repository root or pass --fixtures tests/fixtures/runs"));
  }
  std::sort(dirs.begin(), dirs.end());
  std::vector<TemplateRun> out;
  for (const auto& d : dirs) {
    TemplateRun t;
    RFDB_TRY_ASSIGN(t, load_template(d));
    out.push_back(std::move(t));
  }
  return out;
}

Result<SynthRun> synthesize_run(const std::vector<TemplateRun>& templates, std::size_t index,
                                std::size_t total, std::uint64_t seed, const fs::path& out_dir)
{
  const TemplateRun& t = templates[index % templates.size()];
  Rng rng(seed ^ (0xD1B54A32D192ED03ULL * (index + 1)));
  const std::string basename = run_basename(t, index, total, rng);
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 2> k_gpus = {
      {{"gfx942", "AMD Instinct MI300X"}, {"gfx950", "AMD Instinct MI355X"}}};
  const auto& gpu = k_gpus[rng.below(k_gpus.size())];
  const double f = 0.6 + 0.9 * rng.uniform();
  const auto remap = [f](double s) {
    return s <= 0.0 ? s : std::max(0.05, round_to(1.0 + (s - 1.0) * f, 3));
  };

  SynthRun run;
  run.dir = out_dir / basename;
  for (const auto& file : t.files) {
    std::string text = file.roofline ? perturb_roofline(*file.roofline, rng) : file.text;
    replace_all(text, t.basename, basename);
    if (!t.gfx.empty() && t.gfx != gpu.first) {
      replace_all(text, t.gfx, gpu.first);
      replace_all(text, t.device, gpu.second);
    }
    remap_numbers(text, "isolated_speedup", remap);
    remap_numbers(text, "isolated", remap);
    RFDB_TRY(write_text(run.dir / file.rel_path, text));
    run.bytes += text.size();
  }
  return run;
}

} // namespace rfdb::bench
