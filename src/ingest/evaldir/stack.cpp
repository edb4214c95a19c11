// The stack of a run from its files (see stack.hpp).
#include "ingest/evaldir/stack.hpp"

#include "domain/version.hpp"

#include <algorithm>
#include <map>

namespace rfdb::ingest {

namespace {

constexpr std::string_view k_profiler = k_stack_profiler;

std::optional<std::string> release_of(std::string_view raw)
{
  auto v = domain::parse_version(raw);
  return v ? std::optional(v->release_text()) : std::nullopt;
}

bool is_package_name(std::string_view s)
{
  if (s.empty() || std::isalnum(static_cast<unsigned char>(s.front())) == 0 ||
      std::isalnum(static_cast<unsigned char>(s.back())) == 0) {
    return false;
  }
  return std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.';
  });
}

std::vector<std::string_view> fields(std::string_view line)
{
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (true) {
    const auto b = line.find_first_not_of(" \t\r", i);
    if (b == std::string_view::npos) {
      break;
    }
    auto e = line.find_first_of(" \t\r", b);
    if (e == std::string_view::npos) {
      e = line.size();
    }
    out.push_back(line.substr(b, e - b));
    i = e;
  }
  return out;
}

std::optional<std::string> string_at(const json& obj, std::string_view key)
{
  if (!obj.is_object()) {
    return std::nullopt;
  }
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_string() || it->get_ref<const std::string&>().empty()) {
    return std::nullopt;
  }
  return it->get<std::string>();
}

} // namespace

StackClues stack_from_env_info(std::string_view text, const std::string& rel_path)
{
  StackClues out;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    const auto f = fields(text.substr(start, end - start));
    std::string_view name, version;
    if (f.size() == 2) {
      name = f[0];
      version = f[1];
    } else if (f.size() == 1) {
      if (const auto eq = f[0].find("=="); eq != std::string_view::npos) {
        name = f[0].substr(0, eq);
        version = f[0].substr(eq + 2);
      }
    }
    if (is_package_name(name) && domain::parse_version(version)) {
      const std::string package = domain::normalize_package(name);
      const bool seen = std::any_of(out.packages.begin(), out.packages.end(),
                                    [&](const store::StackRow& r) { return r.package == package; });
      if (!seen) {
        out.packages.push_back(
            store::StackRow{package, std::string(version), release_of(version), rel_path, {}});
      }
    }
    start = end + 1;
  }
  return out;
}

StackClues stack_from_roofline(const json& doc, const std::string& rel_path)
{
  StackClues out;
  if (!doc.is_object()) {
    return out;
  }
  const json* tool = doc.contains("tool") ? &doc.at("tool") : nullptr;
  std::optional<std::string> text = string_at(doc, "tool_version");
  if (!text && tool != nullptr && tool->is_object() && tool->contains("version")) {
    text = string_at(tool->at("version"), "text");
  }
  if (text) {
    if (auto v = domain::find_profiler_version(*text)) {
      out.packages.push_back(
          store::StackRow{std::string(k_profiler), *text, v->release_text(), rel_path, std::nullopt});
    }
  }
  if (tool != nullptr) {
    if (auto path = string_at(*tool, "path")) {
      out.profiler_paths.push_back(*path);
    }
  }
  return out;
}

StackClues stack_from_install(const json& doc, const std::string& rel_path)
{
  (void)rel_path;
  StackClues out;
  if (!doc.is_object()) {
    return out;
  }
  std::optional<std::string> path;
  if (const auto it = doc.find("attempts"); it != doc.end() && it->is_array()) {
    for (const auto& a : *it) {
      if (string_at(a, "status") == std::optional<std::string>("ok")) {
        if (auto p = string_at(a, "path")) {
          path = p; // the last ok attempt wins
        }
      }
    }
  }
  if (!path) {
    path = string_at(doc, "path");
  }
  if (path) {
    out.profiler_paths.push_back(*path);
  }
  return out;
}

std::vector<store::StackRow> assemble_stack(const store::EnvReport& env, const std::string& env_source,
                                            const std::vector<SourcedClues>& files)
{
  std::map<std::string, store::StackRow> rows;
  std::optional<std::string> backend;
  if (env.backend && !env.backend->empty()) {
    backend = domain::normalize_package(*env.backend);
    if (env.backend_version && !env.backend_version->empty()) {
      rows[*backend] = store::StackRow{*backend, *env.backend_version, release_of(*env.backend_version),
                                       env_source, std::nullopt};
    }
  }
  // Profiler paths with their file, in file order.
  std::vector<std::pair<std::string, std::string>> paths;
  for (const auto& f : files) {
    for (const auto& r : f.clues.packages) {
      rows.emplace(r.package, r); // the first file stating a package wins
    }
    for (const auto& p : f.clues.profiler_paths) {
      paths.emplace_back(p, f.rel_path);
    }
  }
  if (!rows.contains(std::string(k_profiler)) && !paths.empty()) {
    rows.emplace(std::string(k_profiler), store::StackRow{std::string(k_profiler), paths.front().first,
                                                          std::nullopt, paths.front().second, std::nullopt});
  }
  if (!rows.contains("rocm")) {
    std::vector<std::string> from = {"torch"};
    if (backend) {
      from.push_back(*backend);
    }
    for (const auto& name : from) {
      const auto it = rows.find(name);
      if (it == rows.end()) {
        continue;
      }
      if (auto r = domain::rocm_from_local(it->second.raw)) {
        rows.emplace("rocm", store::StackRow{"rocm", it->second.raw, *r, it->second.source, name});
        break;
      }
    }
  }
  if (!rows.contains("rocm")) {
    for (const auto& [path, file] : paths) {
      if (auto r = domain::rocm_from_local(path)) {
        rows.emplace("rocm", store::StackRow{"rocm", path, *r, file, "install path"});
        break;
      }
    }
  }
  std::vector<store::StackRow> out;
  out.reserve(rows.size());
  for (auto& [name, row] : rows) {
    out.push_back(std::move(row));
  }
  return out;
}

} // namespace rfdb::ingest
