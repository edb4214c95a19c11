// The source finds its way to the docs (issue 29): comments cite only documents that are in
// the repository, and every file and function the "Where is it" table of docs/architecture.md
// names exists.
#include "support/helpers.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

namespace rfdb::test {
namespace {

namespace fs = std::filesystem;

const fs::path k_root = RFDB_SOURCE_DIR;

// The folders whose comments are checked, and the trees inside them that hold data, not code.
constexpr const char* k_checked[] = {"src", "queries", "migrations", "tools", "tests"};
bool skipped_dir(const fs::path& dir)
{
  const std::string name = dir.filename().string();
  return name == "fixtures" || name == "golden" || name == "node_modules" || name == "__pycache__" ||
         name == "build" || name == ".git";
}

// The comments of a C++ file: `//` to the end of the line and `/* … */`, outside string and
// character literals (raw strings included).
std::string cpp_comments(const std::string& s)
{
  std::string out;
  std::size_t i = 0;
  while (i < s.size()) {
    if (s.compare(i, 2, "//") == 0) {
      const std::size_t end = std::min(s.find('\n', i), s.size());
      out.append(s, i + 2, end - i - 2).push_back('\n');
      i = end;
    } else if (s.compare(i, 2, "/*") == 0) {
      const std::size_t end = std::min(s.find("*/", i + 2), s.size());
      out.append(s, i + 2, end - i - 2).push_back('\n');
      i = end + 2;
    } else if (s.compare(i, 2, "R\"") == 0) {
      const std::size_t open = s.find('(', i);
      const std::string close = ")" + s.substr(i + 2, open - i - 2) + "\"";
      i = std::min(s.find(close, open), s.size()) + close.size();
    } else if (s[i] == '"' || s[i] == '\'') {
      const char quote = s[i++];
      while (i < s.size() && s[i] != quote && s[i] != '\n') {
        i += s[i] == '\\' ? 2 : 1;
      }
      ++i;
    } else {
      ++i;
    }
  }
  return out;
}

// The comments of a file with line comments starting at `marker` (`--` for SQL, `#` for shell,
// CMake and Python) where the marker starts a word.
std::string line_comments(const std::string& s, const std::string& marker)
{
  std::string out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) {
    for (std::size_t at = line.find(marker); at != std::string::npos; at = line.find(marker, at + 1)) {
      if (at == 0 || line[at - 1] == ' ' || line[at - 1] == '\t') {
        out += line.substr(at + marker.size()) + "\n";
        break;
      }
    }
  }
  return out;
}

// What of `file` is prose: its comments, or all of a markdown file.
std::string prose_of(const fs::path& file)
{
  const std::string ext = file.extension().string();
  const std::string name = file.filename().string();
  if (ext == ".cpp" || ext == ".hpp" || ext == ".h") {
    return cpp_comments(read_bytes(file));
  }
  if (ext == ".sql") {
    return line_comments(read_bytes(file), "--");
  }
  if (ext == ".sh" || ext == ".cmake" || ext == ".py" || name == "CMakeLists.txt") {
    return line_comments(read_bytes(file), "#");
  }
  if (ext == ".md") {
    return read_bytes(file);
  }
  return {};
}

// Every file name in the repository (outside build trees), for a document cited by name alone.
std::set<std::string> repository_file_names()
{
  std::set<std::string> names;
  for (auto it = fs::recursive_directory_iterator(k_root); it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_directory() && (it->path().filename() == "build" || it->path().filename() == ".git" ||
                               it->path().filename() == "node_modules")) {
      it.disable_recursion_pending();
    } else if (it->is_regular_file()) {
      names.insert(it->path().filename().string());
    }
  }
  return names;
}

// The documents `prose` (found in `file`) cites that are not in the repository. A citation is a
// `*.md` path under one of the repository's folders (docs/playbook.md) or a document named in
// capitals (README.md, or a path ending in one); a lower-case name alone (playbook.md,
// backend_playbook.md) is a file rfdb reads or writes, not a citation.
std::vector<std::string> missing_citations(const std::string& prose, const fs::path& file,
                                           const std::set<std::string>& names)
{
  static const std::regex ref(R"((^|[^A-Za-z0-9_./$<>*{}-])((?:[A-Za-z0-9_.-]+/)*([A-Za-z0-9_.-]+)\.md)\b)");
  static const std::regex document(R"([A-Z][A-Z0-9_-]*)");
  static const std::set<std::string> folders{"docs", "src", "tests", "tools", "queries", "migrations"};
  std::vector<std::string> out;
  for (std::sregex_iterator it(prose.begin(), prose.end(), ref), end; it != end; ++it) {
    const std::string path = (*it)[2];
    const std::string stem = (*it)[3];
    const bool has_dir = path.find('/') != std::string::npos;
    const bool in_folder = has_dir && folders.count(path.substr(0, path.find('/'))) != 0;
    if (!in_folder && !std::regex_match(stem, document)) {
      continue;
    }
    const bool exists =
        has_dir ? fs::exists(k_root / path) || fs::exists(file.parent_path() / path) : names.count(path) != 0;
    if (!exists) {
      out.push_back(path);
    }
  }
  return out;
}

TEST(SourceRefs, TheScannerFindsACommentCitingAMissingDocument)
{
  const std::set<std::string> names = repository_file_names();
  const std::string missing = std::string("FOR") + "MATS" + ".md";
  const std::string code = "int x = 1; // the rule: " + missing + " §2, docs/playbook.md, docs/gone" +
                           ".md\nconst char* s = \"" + missing + "\"; /* README" + ".md */\n";
  const auto found = missing_citations(cpp_comments(code), k_root / "src" / "x.cpp", names);
  EXPECT_EQ(found, (std::vector<std::string>{missing, "docs/gone.md"}));
  // Lower-case names are files rfdb reads or writes; an SQL comment is read too.
  EXPECT_TRUE(
      missing_citations(line_comments("-- writes playbook.md and backend_playbook.md\nSELECT 1;", "--"),
                        k_root / "queries" / "x.sql", names)
          .empty());
  EXPECT_EQ(line_comments("echo ${#a[@]} # see " + missing, "#"), " see " + missing + "\n");
}

TEST(SourceRefs, CommentsCiteOnlyDocumentsInTheRepository)
{
  const std::set<std::string> names = repository_file_names();
  int files = 0;
  for (const char* top : k_checked) {
    for (auto it = fs::recursive_directory_iterator(k_root / top); it != fs::recursive_directory_iterator();
         ++it) {
      if (it->is_directory() && skipped_dir(it->path())) {
        it.disable_recursion_pending();
        continue;
      }
      if (!it->is_regular_file()) {
        continue;
      }
      const std::string prose = prose_of(it->path());
      ++files;
      for (const auto& missing : missing_citations(prose, it->path(), names)) {
        ADD_FAILURE() << fs::relative(it->path(), k_root).string() << " cites " << missing
                      << ", which is not in the repository (cite the docs/ page that states the rule)";
      }
    }
  }
  EXPECT_GT(files, 300);
}

// The rows of the "Where is it" table: behaviour, file, function.
struct WhereRow {
  std::string behaviour;
  std::string file;
  std::string function;
};

std::vector<WhereRow> where_is_it_rows()
{
  const std::string doc = read_bytes(k_root / "docs" / "architecture.md");
  const std::size_t start = doc.find("\n## Where is it\n");
  if (start == std::string::npos) {
    return {};
  }
  const std::size_t next = doc.find("\n## ", start + 1);
  std::istringstream in(doc.substr(start, next == std::string::npos ? std::string::npos : next - start));
  static const std::regex row(R"(^\| (.+) \| `([^`]+)` \| `([^`]+)` \|$)");
  std::vector<WhereRow> out;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, row)) {
      out.push_back({m[1], m[2], m[3]});
    }
  }
  return out;
}

TEST(SourceRefs, EveryFileAndFunctionOfTheWhereIsItTableExists)
{
  const auto rows = where_is_it_rows();
  EXPECT_GE(rows.size(), 20U) << "docs/architecture.md, \"Where is it\": the twenty behaviours asked first";
  for (const auto& r : rows) {
    const fs::path file = k_root / r.file;
    ASSERT_TRUE(fs::is_regular_file(file)) << r.behaviour << ": " << r.file << " does not exist";
    const std::string text = read_bytes(file);
    // The name as a whole word: `assign_tier` is not found in `reassign_tiers`.
    const std::regex word("(^|[^A-Za-z0-9_:])" + r.function + "([^A-Za-z0-9_]|$)");
    EXPECT_TRUE(std::regex_search(text, word))
        << r.behaviour << ": " << r.function << " is not in " << r.file;
  }
}

} // namespace
} // namespace rfdb::test
