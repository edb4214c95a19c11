#include "ingest/files.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <iterator>
#include <sstream>

namespace rfdb::ingest {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> split_path(std::string_view rel)
{
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= rel.size()) {
    const auto end = rel.find('/', start);
    parts.emplace_back(rel.substr(start, end == std::string_view::npos ? rel.size() - start : end - start));
    if (end == std::string_view::npos) {
      break;
    }
    start = end + 1;
  }
  return parts;
}

bool starts_with(std::string_view s, std::string_view p)
{
  return s.substr(0, p.size()) == p;
}

std::optional<ArtifactKind> classify_bench(const std::vector<std::string>& p)
{
  const auto n = p.size();
  if (p[0] == "baseline" && n == 2) {
    return ArtifactKind{"bench_summary", "baseline", "baseline", ""};
  }
  if (p[0] == "validation" && n == 3) {
    const std::string role = p[1] == "base"    ? "validation_base"
                             : p[1] == "final" ? "validation_final"
                                               : "other";
    return ArtifactKind{"bench_summary", role, p[1], ""};
  }
  if (p[0] == "config" && n == 3) {
    return ArtifactKind{"bench_summary", "config", p[1], ""};
  }
  // overlay/cand_X/{ref,cand*}/ and final/overlay/cand_X/{ref,cand*}/
  const std::size_t o = p[0] == "final" ? 1 : 0;
  if (n == o + 4 && p[o] == "overlay" && starts_with(p[o + 1], "cand")) {
    const std::string role = p[o + 2] == "ref" ? "overlay_ref" : "overlay_cand";
    return ArtifactKind{"bench_summary", role, p[o + 1], ""};
  }
  if (p[0] == "final" && n == 3 && p[1] == "bench") {
    return ArtifactKind{"bench_summary", "final", "final", ""};
  }
  return std::nullopt;
}

// kernels/<TASK>/roofline/<phase>_roofline.json or
// kernels/_exp/…/<TASK>/roofline/<phase>/<phase>_roofline.json.
std::optional<ArtifactKind> classify_measured(const std::vector<std::string>& p)
{
  const std::string& file = p.back();
  std::string phase;
  if (file == "baseline_roofline.json") {
    phase = "baseline";
  } else if (file == "post_roofline.json") {
    phase = "post";
  } else {
    return std::nullopt;
  }
  for (std::size_t i = p.size(); i-- > 1;) {
    if (p[i] == "roofline" && p[0] == "kernels") {
      return ArtifactKind{"measured_roofline", "", p[i - 1], phase};
    }
  }
  return std::nullopt;
}

} // namespace

std::optional<ArtifactKind> classify_artifact(std::string_view rel_path)
{
  const auto p = split_path(rel_path);
  const std::string& file = p.back();
  if (p.size() == 1) {
    if (file == "env_report.json") {
      return ArtifactKind{"env_report", "", "", ""};
    }
    if (file == "director_e2e_validation.json") {
      return ArtifactKind{"director_validation", "", "", ""};
    }
    if (file == "workflow_return.json") {
      return ArtifactKind{"workflow_return", "", "", ""};
    }
    return std::nullopt;
  }
  if (file == "bench_summary.json") {
    return classify_bench(p);
  }
  if (p.size() == 3 && p[0] == "profile" && starts_with(p[1], "round_")) {
    const std::string round = p[1].substr(6);
    if (file == "profile_topN.json") {
      return ArtifactKind{"profile_topn", "", round, ""};
    }
    if (file == "profile_roofline.json") {
      return ArtifactKind{"profile_roofline", "", round, ""};
    }
    return std::nullopt;
  }
  if (p.size() == 2 && p[0] == "config" && file == "sweep_results.json") {
    return ArtifactKind{"sweep_results", "", "", ""};
  }
  if (file == "integrate_result.json") {
    const std::size_t o = p[0] == "final" ? 1 : 0;
    if (p.size() == o + 3 && p[o] == "overlay") {
      return ArtifactKind{"integrate_result", "", p[o + 1], ""};
    }
    return std::nullopt;
  }
  if (p[0] == "kernels" && p.size() == 3 && starts_with(file, "opbench_result") && file.ends_with(".json")) {
    return ArtifactKind{"opbench_result", "", p[1], ""};
  }
  if (p[0] == "kernels") {
    return classify_measured(p);
  }
  return std::nullopt;
}

std::string sha256_hex(std::string_view data)
{
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md.data(), &len, EVP_sha256(), nullptr);
  static constexpr char k_hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(len * 2);
  for (unsigned int i = 0; i < len; ++i) {
    out += k_hex[md[i] >> 4];
    out += k_hex[md[i] & 0xF];
  }
  return out;
}

Result<std::string> read_file(const fs::path& path)
{
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return fail(ErrorCode::io, "cannot open " + path.string());
  }
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) {
    return fail(ErrorCode::io, "cannot read " + path.string());
  }
  return content;
}

Result<std::vector<FileData>> read_eval_dir(const fs::path& dir)
{
  std::vector<FileData> files;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec);
  if (ec) {
    return fail(ErrorCode::io, "cannot list " + dir.string() + ": " + ec.message());
  }
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) {
      return fail(ErrorCode::io, "cannot list " + dir.string() + ": " + ec.message());
    }
    if (!it->is_regular_file(ec) || it->is_symlink(ec)) {
      continue;
    }
    const std::string rel = fs::relative(it->path(), dir, ec).generic_string();
    auto kind = classify_artifact(rel);
    if (!kind) {
      continue;
    }
    auto content = read_file(it->path());
    if (!content) {
      return fail(std::move(content).error());
    }
    FileData f{rel, std::move(*kind), std::move(*content), ""};
    f.sha256 = sha256_hex(f.content);
    files.push_back(std::move(f));
  }
  std::sort(files.begin(), files.end(),
            [](const FileData& a, const FileData& b) { return a.rel_path < b.rel_path; });
  return files;
}

std::string directory_name(const fs::path& dir)
{
  fs::path p = fs::absolute(dir).lexically_normal();
  if (p.filename().empty()) {
    p = p.parent_path();
  }
  return p.filename().string();
}

bool looks_like_eval_dir(const fs::path& dir)
{
  std::error_code ec;
  for (const char* marker : {"env_report.json", "profile", "overlay", "kernels", "workflow_return.json",
                             "director_e2e_validation.json", "baseline"}) {
    if (fs::exists(dir / marker, ec)) {
      return true;
    }
  }
  return false;
}

std::string relative_artifact_path(const fs::path& file)
{
  std::vector<std::string> parts;
  for (const auto& part : fs::absolute(file).lexically_normal()) {
    parts.push_back(part.string());
  }
  // Try every suffix, longest first, and keep the first the layout knows.
  for (std::size_t start = 0; start < parts.size(); ++start) {
    std::string rel;
    for (std::size_t i = start; i < parts.size(); ++i) {
      rel += (rel.empty() ? "" : "/") + parts[i];
    }
    if (!rel.empty() && rel[0] != '/' && classify_artifact(rel)) {
      return rel;
    }
  }
  return file.filename().string();
}

} // namespace rfdb::ingest
