// `rfdb ingest --format json`'s report: path elements formatted and spooled (see cli/ingest_json.hpp).
#include "cli/ingest_json.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <string_view>
#include <unistd.h>
#include <vector>

namespace rfdb::cli {

namespace {

nlohmann::ordered_json path_json(const ingest::PathReport& p)
{
  auto warnings = nlohmann::ordered_json::array();
  for (const auto& w : p.warnings) {
    warnings.push_back({{"file", w.file},
                        {"pointer", w.pointer},
                        {"message", w.message},
                        {"severity", w.note ? "note" : "warning"}});
  }
  nlohmann::ordered_json j{
      {"path", p.path},
      {"kind", p.kind.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(p.kind)},
      {"target", p.target.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(p.target)},
      {"status", p.status},
      {"files",
       {{"added", p.new_files},
        {"superseded", p.superseded_files},
        {"unchanged", p.unchanged_files},
        {"skipped", p.skipped_files}}},
      {"rows",
       {{"kernels", p.kernels},
        {"verdicts", p.verdicts},
        {"verdicts_superseded", p.verdicts_superseded},
        {"attempts", p.attempts},
        {"findings", p.findings}}},
      {"warnings", warnings},
      {"error", p.error ? nlohmann::ordered_json(p.error->describe()) : nlohmann::ordered_json(nullptr)},
  };
  j["tagged"] = p.tagged; // --tag: "key=value (added | replaced | unchanged)"
  return j;
}

// True when nlohmann's dump writes `s` as itself between quotes: printable
// ASCII without '"' or '\\'.
bool plain_json_string(std::string_view s)
{
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; });
}

// The element of a path without warnings or error whose strings are all
// plain, formatted as path_json(p).dump(2) indented by four spaces (what
// JsonPathSpool::add writes), without building the JSON object: the common
// case of a re-ingest, one element per unchanged run. nullopt: any other
// report (format it with nlohmann).
std::optional<std::string> plain_path_element(const ingest::PathReport& p)
{
  if (!p.warnings.empty() || p.error || p.kind.empty() || p.target.empty() || !p.tagged.empty()) {
    return std::nullopt;
  }
  for (const std::string* s : {&p.path, &p.kind, &p.target, &p.status}) {
    if (!plain_json_string(*s)) {
      return std::nullopt;
    }
  }
  const auto plain = [](const std::vector<std::string>& v) {
    return std::all_of(v.begin(), v.end(), [](const std::string& s) { return plain_json_string(s); });
  };
  if (!plain(p.new_files) || !plain(p.superseded_files)) {
    return std::nullopt;
  }
  std::string out;
  out.reserve(640 + p.path.size() + p.target.size());
  auto it = std::back_inserter(out);
  fmt::format_to(it,
                 "    {{\n"
                 "      \"path\": \"{}\",\n"
                 "      \"kind\": \"{}\",\n"
                 "      \"target\": \"{}\",\n"
                 "      \"status\": \"{}\",\n"
                 "      \"files\": {{\n",
                 p.path, p.kind, p.target, p.status);
  const auto array = [&](std::string_view key, const std::vector<std::string>& v) {
    fmt::format_to(it, "        \"{}\": [", key);
    for (std::size_t i = 0; i < v.size(); ++i) {
      fmt::format_to(it, "{}\n          \"{}\"", i == 0 ? "" : ",", v[i]);
    }
    out += v.empty() ? "],\n" : "\n        ],\n";
  };
  array("added", p.new_files);
  array("superseded", p.superseded_files);
  fmt::format_to(it,
                 "        \"unchanged\": {},\n"
                 "        \"skipped\": {}\n"
                 "      }},\n"
                 "      \"rows\": {{\n"
                 "        \"kernels\": {},\n"
                 "        \"verdicts\": {},\n"
                 "        \"verdicts_superseded\": {},\n"
                 "        \"attempts\": {},\n"
                 "        \"findings\": {}\n"
                 "      }},\n"
                 "      \"warnings\": [],\n"
                 "      \"error\": null,\n"
                 "      \"tagged\": []\n"
                 "    }}",
                 p.unchanged_files, p.skipped_files, p.kernels, p.verdicts, p.verdicts_superseded, p.attempts,
                 p.findings);
  return out;
}

} // namespace

JsonPathSpool::JsonPathSpool() : m_file(open_temporary(), &std::fclose) {}

void JsonPathSpool::add(const ingest::PathReport& p)
{
  std::string out = m_count == 0 ? "\n" : ",\n";
  if (auto plain = plain_path_element(p)) {
    out += *plain;
  } else {
    // Each element sits two levels deep ("paths" inside the root object):
    // indent every line of its own dump by four spaces. Strings never hold
    // a raw newline in JSON text, so splitting on '\n' is safe.
    const std::string element =
        path_json(p).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    std::size_t begin = 0;
    while (begin <= element.size()) {
      const auto end = std::min(element.find('\n', begin), element.size());
      out.append("    ").append(element, begin, end - begin);
      if (end < element.size()) {
        out += '\n';
      }
      begin = end + 1;
    }
  }
  ++m_count;
  if (m_file && std::fwrite(out.data(), 1, out.size(), m_file.get()) == out.size() &&
      std::fflush(m_file.get()) == 0) {
    m_spooled += out.size();
    return;
  }
  if (m_file) {
    move_to_memory();
  }
  m_memory += out;
}

bool JsonPathSpool::print(std::ostream& out, bool ok, bool dry_run, bool stopped)
{
  fmt::print(out, "{{\n  \"ok\": {},\n  \"dry_run\": {},\n  \"interrupted\": {},\n  \"paths\": [", ok,
             dry_run, stopped);
  if (m_file) {
    if (std::fseek(m_file.get(), 0, SEEK_SET) != 0) {
      return false;
    }
    std::array<char, 65536> buf{};
    std::size_t left = m_spooled;
    while (left > 0) {
      const std::size_t n = std::fread(buf.data(), 1, std::min(left, buf.size()), m_file.get());
      if (n == 0) {
        return false;
      }
      out.write(buf.data(), static_cast<std::streamsize>(n));
      left -= n;
    }
  }
  if (m_lost) {
    return false;
  }
  out << m_memory;
  out << (m_count == 0 ? "]\n}\n" : "\n  ]\n}\n");
  return true;
}

std::FILE* JsonPathSpool::open_temporary()
{
  const char* dir = std::getenv("TMPDIR");
  std::string templ = (dir != nullptr && *dir != '\0' ? std::string(dir) : std::string("/tmp")) +
                      "/rfdb-ingest-report.XXXXXX";
  int fd = ::mkstemp(templ.data());
  if (fd < 0 && templ.rfind("/tmp/", 0) != 0) {
    templ = "/tmp/rfdb-ingest-report.XXXXXX";
    fd = ::mkstemp(templ.data());
  }
  if (fd < 0) {
    return nullptr;
  }
  ::unlink(templ.c_str());
  std::FILE* file = ::fdopen(fd, "w+b");
  if (file == nullptr) {
    ::close(fd);
  }
  return file;
}

void JsonPathSpool::move_to_memory()
{
  std::string spooled(m_spooled, '\0');
  if (std::fseek(m_file.get(), 0, SEEK_SET) != 0 ||
      std::fread(spooled.data(), 1, spooled.size(), m_file.get()) != spooled.size()) {
    m_lost = true;
  }
  m_memory.insert(0, spooled);
  m_spooled = 0;
  m_file.reset();
}

} // namespace rfdb::cli
