// The implementation signature of an eval-dir candidate (see signature.hpp).
#include "ingest/evaldir/signature.hpp"

#include "domain/content_signature.hpp"

#include <algorithm>
#include <cctype>

namespace rfdb::ingest {

namespace {

std::vector<std::string_view> split_lines_keep_ends(std::string_view text)
{
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto nl = text.find('\n', start);
    const std::size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    out.push_back(text.substr(start, end - start));
    start = end;
  }
  return out;
}

std::string_view trim_line(std::string_view line)
{
  while (!line.empty() &&
         (line.back() == '\n' || line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) {
    line.remove_suffix(1);
  }
  return line;
}

// The path of a `--- a/x` / `+++ b/x` header ("" for /dev/null); a tab-separated timestamp is
// cut.
std::string header_path(std::string_view line)
{
  line = trim_line(line.substr(4));
  if (const auto tab = line.find('\t'); tab != std::string_view::npos) {
    line = line.substr(0, tab);
  }
  if (line == "/dev/null") {
    return {};
  }
  if (line.starts_with("a/") || line.starts_with("b/")) {
    line.remove_prefix(2);
  }
  return std::string(line);
}

std::string_view file_name(std::string_view path)
{
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool changes_path(std::string_view target, std::string_view path)
{
  if (target.empty()) {
    return false;
  }
  std::string_view without_final = path;
  if (without_final.starts_with("final/")) {
    without_final.remove_prefix(6);
  }
  if (target == path || target == without_final) {
    return true;
  }
  const auto name = file_name(path);
  return !name.empty() && (target == name || target.ends_with("/" + std::string(name)));
}

struct Section {
  std::string text;
  std::string target;
};

std::vector<Section> diff_sections(std::string_view diff)
{
  const auto lines = split_lines_keep_ends(diff);
  const bool git_style =
      std::any_of(lines.begin(), lines.end(), [](std::string_view l) { return l.starts_with("diff "); });
  std::vector<Section> out;
  std::string git_target;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto line = lines[i];
    const bool starts =
        git_style ? line.starts_with("diff ")
                  : (line.starts_with("--- ") && i + 1 < lines.size() && lines[i + 1].starts_with("+++ "));
    if (starts || out.empty()) {
      out.emplace_back();
      if (git_style && line.starts_with("diff --git ")) {
        // "diff --git a/x b/x": the b/ name, used when no +++ line names one.
        const auto t = trim_line(line);
        if (const auto b = t.rfind(" b/"); b != std::string_view::npos) {
          out.back().target = std::string(t.substr(b + 3));
        }
      }
    }
    Section& s = out.back();
    s.text.append(line);
    if (line.starts_with("+++ ")) {
      if (auto p = header_path(line); !p.empty()) {
        s.target = std::move(p);
      }
    } else if (line.starts_with("--- ") && s.target.empty()) {
      s.target = header_path(line);
    }
  }
  return out;
}

bool is_table_of(const ImplementationFile& f, std::string_view path)
{
  return f.rel_path == path ||
         (f.rel_path.size() > path.size() && f.rel_path.starts_with(path) && f.rel_path[path.size()] == '/');
}

bool is_patch(const ImplementationFile& f)
{
  return !f.tuned_table;
}

// Path values of an env change "A=1 B=/x/config/y.csv" (whitespace separated assignments).
std::vector<std::string> env_path_values(std::string_view env)
{
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < env.size()) {
    while (i < env.size() && std::isspace(static_cast<unsigned char>(env[i])) != 0) {
      ++i;
    }
    std::size_t j = i;
    while (j < env.size() && std::isspace(static_cast<unsigned char>(env[j])) == 0) {
      ++j;
    }
    const auto word = env.substr(i, j - i);
    if (const auto eq = word.find('='); eq != std::string_view::npos) {
      const auto value = word.substr(eq + 1);
      if (value.find('/') != std::string_view::npos) {
        out.emplace_back(value);
      }
    }
    i = j;
  }
  return out;
}

std::optional<CandidateSignature> sign_tables(const std::vector<const ImplementationFile*>& tables)
{
  if (tables.empty()) {
    return std::nullopt;
  }
  std::vector<domain::ArtifactFile> files;
  CandidateSignature out;
  for (const auto* f : tables) {
    files.push_back(domain::ArtifactFile{geak_safe_name(file_name(f->rel_path)), f->text});
    out.source_ids.push_back(f->source_id);
  }
  out.signature = domain::artifact_signature(std::move(files));
  if (out.signature.empty()) {
    return std::nullopt;
  }
  return out;
}

} // namespace

std::optional<std::string> run_relative_path(std::string_view path, std::string_view dir_name)
{
  if (path.empty()) {
    return std::nullopt;
  }
  if (!dir_name.empty()) {
    const std::string marker = "/" + std::string(dir_name) + "/";
    const std::string padded = path.starts_with('/') ? std::string(path) : "/" + std::string(path);
    if (const auto at = padded.rfind(marker); at != std::string::npos) {
      return padded.substr(at + marker.size());
    }
  }
  if (path.starts_with('/')) {
    return std::nullopt;
  }
  while (path.starts_with("./")) {
    path.remove_prefix(2);
  }
  return std::string(path);
}

std::string diff_sections_for(std::string_view diff, std::string_view path)
{
  std::string out;
  for (const auto& s : diff_sections(diff)) {
    if (changes_path(s.target, path)) {
      out += s.text;
    }
  }
  return out;
}

std::optional<CandidateSignature> candidate_signature(const AttemptRecord& candidate,
                                                      const std::vector<ImplementationFile>& files,
                                                      std::string_view dir_name)
{
  const std::string own_dir = candidate.candidate.value_or("");
  const auto patch_path =
      candidate.patch_ref ? run_relative_path(*candidate.patch_ref, dir_name) : std::optional<std::string>();
  // 1. the patch file it names.
  if (patch_path) {
    for (const auto& f : files) {
      if (is_patch(f) && f.rel_path == *patch_path) {
        auto sig = domain::content_signature(f.text);
        if (!sig.empty()) {
          return CandidateSignature{std::move(sig), {f.source_id}};
        }
      }
    }
    // 2. the sections of the stored diffs that change the file it names: its own dir's
    // diffs first, then the run's final diff.
    for (const bool own : {true, false}) {
      std::string joined;
      std::vector<std::int64_t> ids;
      for (const auto& f : files) {
        if (!is_patch(f) || (own ? f.label != own_dir || own_dir.empty() : f.label != "final")) {
          continue;
        }
        auto part = diff_sections_for(f.text, *patch_path);
        if (!part.empty()) {
          joined += part;
          ids.push_back(f.source_id);
        }
      }
      if (auto sig = domain::content_signature(joined); !sig.empty()) {
        return CandidateSignature{std::move(sig), std::move(ids)};
      }
    }
  }
  // 3. the diffs stored in its own candidate dir.
  if (!own_dir.empty()) {
    std::string joined;
    std::vector<std::int64_t> ids;
    for (const auto& f : files) {
      if (is_patch(f) && f.label == own_dir) {
        joined += f.text;
        if (!joined.empty() && joined.back() != '\n') {
          joined.push_back('\n');
        }
        ids.push_back(f.source_id);
      }
    }
    if (auto sig = domain::content_signature(joined); !sig.empty()) {
      return CandidateSignature{std::move(sig), std::move(ids)};
    }
  }
  // 4. its tuning table: the file or directory it names, else a path of its env change.
  std::vector<std::string> table_paths;
  if (candidate.table_ref) {
    if (auto p = run_relative_path(*candidate.table_ref, dir_name)) {
      table_paths.push_back(std::move(*p));
    }
  }
  for (const auto& value : env_path_values(candidate.apply_env.value_or(""))) {
    if (auto p = run_relative_path(value, dir_name)) {
      table_paths.push_back(std::move(*p));
    }
  }
  for (const auto& path : table_paths) {
    std::vector<const ImplementationFile*> tables;
    for (const auto& f : files) {
      if (!is_patch(f) && is_table_of(f, path)) {
        tables.push_back(&f);
      }
    }
    if (auto sig = sign_tables(tables)) {
      return sig;
    }
  }
  return std::nullopt;
}

} // namespace rfdb::ingest
