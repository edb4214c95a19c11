// Terminal escapes in stored text (issue 34, item 3): a model name holding
// OSC (ESC ] 0 ; title BEL) and CSI (ESC [ 2 J) sequences is stored as
// written, and no command's table or text output lets a control byte reach
// the terminal: every one shows as \xHH (util::DisplayEscaper on stdout and
// stderr, util::render_table for the cells).
#include "support/helpers.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace rfdb::test {

namespace {

namespace fs = std::filesystem;

const std::string k_hostile_model = "Evil/\x1b]0;pwned\x07\x1b[2J\x1b[31mModel\x7f";
const std::string k_hostile_arch = "moe\x1b[5m\u009b"; // CSI, and the 8-bit CSI (U+009B)
const std::string k_hostile_device = "MI355X\r\x1b[K"; // CR + erase line

void replace_all(std::string& text, const std::string& from, const std::string& to)
{
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

// The canonical fixture run with the model, its architecture class and the
// device named by hostile text (JSON escapes: the file itself is valid JSON).
fs::path hostile_run(const fs::path& dir)
{
  const fs::path run = copy_run(k_canonical_run, dir);
  auto json_escaped = [](const std::string& s) {
    std::string out;
    for (unsigned char c : s) {
      if (c < 0x20 || c == 0x7f) {
        out += fmt::format("\\u{:04x}", c);
      } else {
        out += static_cast<char>(c);
      }
    }
    return out;
  };
  for (const char* file : {"env_report.json", "workflow_return.json"}) {
    std::string text = read_bytes(run / file);
    replace_all(text, "\"Qwen/Qwen3.5-35B-A3B-FP8\"", "\"" + json_escaped(k_hostile_model) + "\"");
    replace_all(text, "\"hybrid_linear_attention_moe\"", "\"" + json_escaped(k_hostile_arch) + "\"");
    replace_all(text, "\"AMD Instinct MI355X\"", "\"" + json_escaped(k_hostile_device) + "\"");
    write_bytes(run / file, text);
  }
  return run;
}

// The first byte of `text` a terminal would act on (a control other than
// '\n', DEL, or a C1 control such as U+009B), as "offset: 0xHH"; "" when none.
std::string terminal_hazard(const std::string& text)
{
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const bool c1 = c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) <= 0x9f;
    if ((c < 0x20 && c != '\n') || c == 0x7f || c1) {
      return fmt::format("{}: {:#04x}", i, c);
    }
  }
  return "";
}

} // namespace

TEST(TerminalOutput, NoCommandLetsStoredControlBytesReachTheTerminal)
{
  TempDir tmp;
  const fs::path run = hostile_run(tmp.path());
  const std::string db = (tmp / "rfdb.sqlite").string();
  const CliEnv terminal{true, "", false, {}, {}};
  const auto ingest = run_cli_with({"--db", db, "ingest", run.string()}, terminal);
  ASSERT_EQ(ingest.code, 0) << ingest.err;
  EXPECT_EQ(terminal_hazard(ingest.out), "") << ingest.out;
  EXPECT_EQ(terminal_hazard(ingest.err), "") << ingest.err;
  // Stored as written: JSON carries the exact text (escaped the JSON way).
  const auto shown = run_cli({"--db", db, "show", k_canonical_run, "--format", "json"});
  ASSERT_EQ(shown.code, 0) << shown.err;
  const auto j = nlohmann::json::parse(shown.out);
  ASSERT_EQ(j["model"], k_hostile_model);
  const std::string attempt = j["attempts"].at(0)["attempt"];

  const std::vector<std::vector<std::string>> commands = {
      {"show", k_canonical_run},
      {"show", k_canonical_run, "--format", "table"},
      {"show", k_canonical_run, "--attempt", attempt},
      {"runs"},
      {"runs", "--all", "--format", "table"},
      {"runs", "--model", "Evil"},
      {"priors", "--format", "table"},
      {"query", "run_attempts", "-p", "run_id=" + k_canonical_run},
      {"query", "verdicts_all"},
      {"export", "--format", "table"},
      {"check"},
      {"ingest", "--format", "table", run.string()}};
  for (auto args : commands) {
    const std::string name = fmt::format("{}", fmt::join(args, " "));
    args.insert(args.begin(), {"--db", db});
    const auto r = run_cli_with(args, terminal);
    ASSERT_EQ(r.code, 0) << name << ": " << r.err;
    EXPECT_EQ(terminal_hazard(r.out), "") << name << " printed:\n" << r.out;
    EXPECT_EQ(terminal_hazard(r.err), "") << name << " printed on stderr:\n" << r.err;
  }
  // The model is shown, escaped, where a person reads it.
  const auto show = run_cli_with({"--db", db, "show", k_canonical_run}, terminal);
  EXPECT_NE(show.out.find("Evil/\\x1B]0;pwned\\x07\\x1B[2J\\x1B[31mModel\\x7F"), std::string::npos)
      << show.out;
  EXPECT_NE(show.out.find("moe\\x1B[5m\\xC2\\x9B"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("MI355X\\x0D\\x1B[K"), std::string::npos) << show.out;
  const auto one = run_cli_with({"--db", db, "show", k_canonical_run, "--attempt", attempt}, terminal);
  EXPECT_NE(one.out.find("Evil/\\x1B]0;pwned\\x07"), std::string::npos) << one.out;
  const auto runs = run_cli_with({"--db", db, "runs"}, terminal);
  EXPECT_NE(runs.out.find("Evil/\\x1B]0;pwned\\x07"), std::string::npos) << runs.out;
}

// Machine formats stay exact: JSON escapes in its own way, CSV quotes.
TEST(TerminalOutput, MachineFormatsAreNotEscapedTwice)
{
  TempDir tmp;
  const fs::path run = hostile_run(tmp.path());
  const std::string db = (tmp / "rfdb.sqlite").string();
  ASSERT_EQ(run_cli({"--db", db, "-q", "ingest", run.string()}).code, 0);
  const auto runs = run_cli_with({"--db", db, "runs", "--format", "json"}, CliEnv{true, "", false, {}, {}});
  ASSERT_EQ(runs.code, 0) << runs.err;
  EXPECT_EQ(nlohmann::json::parse(runs.out).at(0)["model"], k_hostile_model);
  const auto csv = run_cli({"--db", db, "query", "export_attempts", "--format", "csv"});
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_NE(csv.out.find(k_hostile_model), std::string::npos);
}

} // namespace rfdb::test
