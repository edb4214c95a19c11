// rfdb's command line: parse, run one command, report its error once (see cli/app.hpp).
#include "cli/app.hpp"

#include "cli/cmd_check.hpp"
#include "cli/cmd_copy.hpp"
#include "cli/cmd_diff.hpp"
#include "cli/cmd_export.hpp"
#include "cli/cmd_ingest.hpp"
#include "cli/cmd_lookup.hpp"
#include "cli/cmd_migrate.hpp"
#include "cli/cmd_priors.hpp"
#include "cli/cmd_query.hpp"
#include "cli/cmd_report.hpp"
#include "cli/cmd_rescore.hpp"
#include "cli/cmd_restore.hpp"
#include "cli/cmd_retract.hpp"
#include "cli/cmd_runs.hpp"
#include "cli/cmd_tag.hpp"
#include "cli/common.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <unistd.h>

namespace rfdb::cli {

namespace {

constexpr const char* k_footer = R"(Global options go before or after the command:
  --db PATH      the database (default: $RFDB_DB, else ./rfdb.sqlite)
  --format FMT   output format of commands that print data (default: table on a
                 terminal, json otherwise)
  -q, --quiet    no progress or summary lines on stderr
  -v, --verbose  say which database is opened and how

Examples:
  rfdb ingest exp/e2e_Qwen-Qwen3.5-35B-A3B-FP8_20260612_101500_48213_k3xq
  rfdb runs
  rfdb show e2e_Qwen                 # any unique prefix of a run id
  rfdb priors --format md
  rfdb report -o playbook.md

Exit codes: 0 ok, 1 runtime or input error, 2 usage error,
3 database written by a newer rfdb or not an rfdb database, 130 interrupted
(Ctrl-C), 143 stopped by SIGTERM.
Read commands open the database read-only and never create it.
Documentation: docs/README.md in the rfdb repository.)";

// The options every command accepts, bound to one set of variables so they
// work before or after the command name.
struct GlobalOptions {
  std::string db;
  std::string format;
  bool quiet = false;
  bool verbose = false;
};

void add_global_options(CLI::App& app, GlobalOptions& g, bool with_format)
{
  app.add_option("--db", g.db, "SQLite database (default: $RFDB_DB, else ./rfdb.sqlite)")
      ->type_name("PATH")
      ->check(path_validator());
  if (with_format) {
    app.add_option("--format", g.format,
                   "Output format of the command (default: table on a terminal, else json)")
        ->type_name("FMT");
  }
  app.add_flag("-q,--quiet", g.quiet, "No progress or summary lines on stderr");
  app.add_flag("-v,--verbose", g.verbose, "Say which database is opened and how");
}

// Levenshtein distance, for "did you mean".
std::size_t edit_distance(const std::string& a, const std::string& b)
{
  std::vector<std::size_t> prev(b.size() + 1);
  std::vector<std::size_t> cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) {
    prev[j] = j;
  }
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t subst = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// The candidates nearest to `typed`: within a third of its length (at least
// 2 edits), or starting with it. Empty when nothing is close.
std::vector<std::string> nearest(const std::string& typed, const std::vector<std::string>& candidates)
{
  const std::string key = typed.substr(0, typed.find('='));
  const std::size_t limit = std::max<std::size_t>(2, key.size() / 3);
  std::size_t best = limit + 1;
  std::vector<std::string> out;
  for (const auto& c : candidates) {
    std::size_t d = edit_distance(key, c);
    if (key.size() >= 3 && c.rfind(key, 0) == 0) {
      d = std::min<std::size_t>(d, 1);
    }
    if (d < best) {
      best = d;
      out.clear();
    }
    if (d == best && std::find(out.begin(), out.end(), c) == out.end()) {
      out.push_back(c);
    }
  }
  return best <= limit ? out : std::vector<std::string>{};
}

std::vector<std::string> command_names(const CLI::App& app)
{
  std::vector<std::string> names;
  for (const auto* sub : app.get_subcommands({})) {
    names.push_back(sub->get_name());
  }
  return names;
}

std::vector<std::string> option_names(const CLI::App& app)
{
  std::vector<std::string> names;
  for (const auto* opt : app.get_options()) {
    for (const auto& l : opt->get_lnames()) {
      names.push_back("--" + l);
    }
    for (const auto& s : opt->get_snames()) {
      names.push_back("-" + s);
    }
  }
  return names;
}

std::string did_you_mean(const std::vector<std::string>& near, const std::string& help)
{
  if (near.empty()) {
    return help;
  }
  return fmt::format("did you mean {}? ({})", fmt::join(near, " or "), help);
}

// The usage error for arguments CLI11 left over: an unknown command, an
// unknown option or a surplus argument.
Error leftover_error(const CLI::App& app, const CLI::App* cmd, const std::vector<std::string>& left)
{
  const std::string& arg = left.front();
  const bool is_option = arg.size() > 1 && arg[0] == '-';
  if (cmd == nullptr) {
    if (is_option) {
      return make_error(ErrorCode::usage, "unknown option '" + arg + "'")
          .with_hint(did_you_mean(nearest(arg, option_names(app)), "rfdb --help lists the options"));
    }
    return make_error(ErrorCode::usage, "unknown command '" + arg + "'")
        .with_hint(did_you_mean(nearest(arg, command_names(app)),
                                fmt::format("the commands: {}", fmt::join(command_names(app), ", "))));
  }
  if (is_option) {
    return make_error(ErrorCode::usage, "unknown option '" + arg + "'")
        .with_hint(
            did_you_mean(nearest(arg, option_names(*cmd)), "rfdb " + cmd->get_name() + " --help lists them"));
  }
  return make_error(ErrorCode::usage, "unexpected argument '" + arg + "'")
      .with_hint("see rfdb " + cmd->get_name() + " --help");
}

// A CLI11 parse error in rfdb's words.
Error parse_error(const CLI::App& app, const CLI::App* cmd, const CLI::ParseError& e)
{
  std::string message = e.what();
  const std::string help = cmd != nullptr ? "see rfdb " + cmd->get_name() + " --help" : "see rfdb --help";
  if (e.get_name() == "RequiredError" && cmd == nullptr) {
    return make_error(ErrorCode::usage, "a command is required")
        .with_hint(
            fmt::format("the commands: {} (rfdb --help explains them)", fmt::join(command_names(app), ", ")));
  }
  if (e.get_name() == "ArgumentMismatch") {
    // "--db: 1 required TEXT missing" → "--db needs a value"
    message = message.substr(0, message.find(':')) + " needs a value";
  } else if (e.get_name() == "ConversionError") {
    message = "a value could not be read: " + message.substr(message.find(':') + 1);
  }
  return make_error(ErrorCode::usage, message).with_hint(help);
}

const CLI::App* active_command(const CLI::App& app)
{
  for (const auto* sub : app.get_subcommands({})) {
    if (sub->parsed()) {
      return sub;
    }
  }
  return nullptr;
}

} // namespace

int report_error(Context& ctx, const std::string& command, const Error& e)
{
  fmt::print(ctx.err, "rfdb: error: {}{}\n", command.empty() ? "" : command + ": ", e.describe());
  if (!e.hint.empty()) {
    fmt::print(ctx.err, "hint: {}\n", e.hint);
  }
  ctx.err.flush();
  return exit_code_for(e.code);
}

int run_with(const std::vector<std::string>& args, Context& ctx, const std::string& env_db)
{
  CLI::App app{"rfdb — experience and calibration store for roofline-guided GPU kernel "
               "optimization",
               "rfdb"};
  app.footer(k_footer);
  app.require_subcommand(1);
  app.allow_extras(); // leftovers become rfdb's own usage errors (did you mean …)
  app.set_version_flag("--version", std::string("rfdb ") + RFDB_VERSION);
  GlobalOptions globals;
  add_global_options(app, globals, true);

  // The command list, in the order --help shows it (docs/architecture.md, "Conventions").
  Runner runner;
  add_ingest_command(app, ctx, runner);
  add_priors_command(app, ctx, runner);
  add_rescore_command(app, ctx, runner);
  add_report_command(app, ctx, runner);
  add_runs_command(app, ctx, runner);
  add_show_command(app, ctx, runner);
  add_diff_command(app, ctx, runner);
  add_retract_command(app, ctx, runner);
  add_restore_command(app, ctx, runner);
  add_tag_command(app, ctx, runner);
  add_untag_command(app, ctx, runner);
  add_query_command(app, ctx, runner);
  add_export_command(app, ctx, runner);
  add_check_command(app, ctx, runner);
  add_lookup_command(app, ctx, runner);
  add_migrate_command(app, ctx, runner);
  add_copy_command(app, ctx, runner);
  for (auto* sub : app.get_subcommands({})) {
    sub->allow_extras();
    const bool has_format = sub->get_option_no_throw("--format") != nullptr;
    add_global_options(*sub, globals, false);
    if (!has_format) {
      // Accepted (and refused with a clear message below) after the name too.
      sub->add_option("--format", globals.format, "Not used: this command prints no data")
          ->type_name("FMT")
          ->group("");
    }
  }

  // Everything printed is human text, escaped (util::DisplayEscaper), until
  // a command chooses a machine format; stderr always is.
  util::DisplayEscaper escaped_out(ctx.out, true);
  util::DisplayEscaper escaped_err(ctx.err, true);
  ctx.out_escaper = &escaped_out;
  struct Forget {
    Context& ctx;
    ~Forget() { ctx.out_escaper = nullptr; }
  } forget{ctx};

  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::Success& e) {
    return app.exit(e, ctx.out, ctx.err); // --help, --version
  } catch (const CLI::ParseError& e) {
    const CLI::App* cmd = active_command(app);
    if (cmd == nullptr && !app.remaining().empty()) {
      return report_error(ctx, "", leftover_error(app, nullptr, app.remaining()));
    }
    return report_error(ctx, cmd != nullptr ? cmd->get_name() : "", parse_error(app, cmd, e));
  }
  const CLI::App* cmd = active_command(app);
  if (!app.remaining().empty() || (cmd != nullptr && !cmd->remaining().empty())) {
    const bool top = !app.remaining().empty() && (cmd == nullptr || cmd->remaining().empty());
    const auto& left = top ? app.remaining() : cmd->remaining();
    return report_error(ctx, top || cmd == nullptr ? "" : cmd->get_name(),
                        leftover_error(app, top ? nullptr : cmd, left));
  }
  ctx.db_path = !globals.db.empty() ? globals.db : (!env_db.empty() ? env_db : "rfdb.sqlite");
  ctx.format = globals.format;
  ctx.quiet = globals.quiet;
  ctx.verbose = globals.verbose;
  if (cmd != nullptr && !globals.format.empty()) {
    const auto* own = cmd->get_option_no_throw("--format");
    if (own != nullptr && own->get_group().empty()) {
      return report_error(ctx, cmd->get_name(),
                          make_error(ErrorCode::usage, "--format: this command prints no data to format")
                              .with_hint("see rfdb " + cmd->get_name() + " --help"));
    }
  }
  if (!runner) {
    return 0;
  }
  try {
    // The one place a command's error is reported.
    const Result<int> code = runner();
    return code ? *code : report_error(ctx, cmd != nullptr ? cmd->get_name() : "", code.error());
  } catch (const std::exception& e) {
    return report_error(ctx, "", make_error(ErrorCode::internal, e.what()));
  }
}

int run(int argc, char** argv)
{
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    args.emplace_back(argv[i]);
  }
  Context ctx{"", std::cout, std::cerr, [] { return std::chrono::system_clock::now(); },
              isatty(STDOUT_FILENO) != 0};
  ctx.handle_signals = true;
  const char* env = std::getenv("RFDB_DB");
  int code = 0;
  try {
    code = run_with(args, ctx, env != nullptr ? env : "");
  } catch (const std::exception& e) {
    code = report_error(ctx, "", make_error(ErrorCode::internal, e.what()));
  }
  // Output that never reached standard output (a full disk, a closed
  // descriptor) is an error: a truncated export must not exit 0.
  errno = 0;
  std::cout.flush();
  if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
    const int err = errno;
    std::cout.clear();
    const int write_code =
        report_error(ctx, "",
                     make_error(ErrorCode::io, fmt::format("writing standard output: {}",
                                                           err != 0 ? std::strerror(err) : "write failed")));
    return code != 0 ? code : write_code;
  }
  return code;
}

} // namespace rfdb::cli
