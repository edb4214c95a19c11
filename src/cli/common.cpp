// Shared CLI plumbing: output-format resolution, database opening, run-id resolution and error reporting.
#include "cli/common.hpp"

#include "domain/normalize.hpp"
#include "domain/version.hpp"
#include "domain/vocab.hpp"
#include "store/admin.hpp"
#include "store/stack.hpp"
#include "util/text.hpp"
#include "util/time.hpp"
#include "util/utf8.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <signal.h>

namespace rfdb::cli {

namespace {

namespace fs = std::filesystem;

// Set by the stop handler (SIGINT, SIGTERM); lock-free so using them in a
// handler is defined. g_stops counts the signals received in a StopScope.
std::atomic<int> g_stops{0};
std::atomic<bool> g_terminated{false}; // one of them was SIGTERM
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free);

extern "C" void on_stop_signal(int signal)
{
  if (signal == SIGTERM) {
    g_terminated.store(true);
  }
  if (g_stops.fetch_add(1) + 1 >= 2) {
    // A third signal terminates as usual (sigaction is async-signal-safe).
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGINT, &dfl, nullptr);
    sigaction(SIGTERM, &dfl, nullptr);
  }
}

std::optional<double> parse_number(const std::string& text)
{
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end == nullptr || *end != '\0' || !std::isfinite(v)) {
    return std::nullopt;
  }
  return v;
}

std::string fixed(const std::optional<double>& x, int decimals)
{
  return x ? fmt::format("{:.{}f}", *x, decimals) : "-";
}

bool ends_with(const std::string& s, std::string_view suffix)
{
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

Result<store::Database> open_for_write(const Context& ctx, Create create)
{
  std::error_code ec;
  const bool pg = store::is_postgresql_url(ctx.db_path);
  if (create == Create::no && ctx.db_path != ":memory:" && (pg || !fs::exists(ctx.db_path, ec))) {
    // The reader's checks and messages: a missing file, a directory, …
    auto probe = store::Database::open_read_only(ctx.db_path);
    if (!probe) {
      return fail(std::move(probe).error().with_context(store::display_name(ctx.db_path)));
    }
  }
  auto db = store::Database::open(ctx.db_path);
  if (!db) {
    return fail(std::move(db).error().with_context(store::display_name(ctx.db_path)));
  }
  if (ctx.verbose) {
    fmt::print(ctx.err, "rfdb: opened {} for writing\n", store::display_name(ctx.db_path));
  }
  return db;
}

Result<store::Database> open_for_read(const Context& ctx, store::OlderSchema older)
{
  auto db = store::Database::open_read_only(ctx.db_path, older);
  if (!db) {
    return fail(std::move(db).error().with_context(store::display_name(ctx.db_path)));
  }
  if (ctx.verbose) {
    fmt::print(ctx.err, "rfdb: opened {} read-only\n", store::display_name(ctx.db_path));
  }
  return db;
}

Result<store::Database> open_for_dry_run(const Context& ctx)
{
  std::error_code ec;
  if (store::is_postgresql_url(ctx.db_path) ||
      (ctx.db_path != ":memory:" && fs::is_regular_file(ctx.db_path, ec) &&
       fs::file_size(ctx.db_path, ec) > 0)) {
    return open_for_write(ctx);
  }
  if (ctx.verbose) {
    fmt::print(ctx.err, "rfdb: {} does not exist: dry run against an empty database\n", ctx.db_path);
  }
  return store::Database::open(":memory:");
}

Result<std::string> resolve_format(const Context& ctx, const std::string& given,
                                   std::initializer_list<const char*> allowed)
{
  const std::string& chosen = !given.empty() ? given : ctx.format;
  // Only the table is human text: every other format passes stdout through
  // unescaped (JSON, CSV, markdown and python quote in their own way).
  const auto escape_if_table = [&ctx](const std::string& format) {
    if (ctx.out_escaper != nullptr) {
      ctx.out_escaper->set_escaping(domain::is(format, domain::OutputFormat::table));
    }
    return format;
  };
  if (chosen.empty()) {
    return escape_if_table(ctx.out_is_terminal ? "table" : "json");
  }
  for (const char* a : allowed) {
    if (chosen == a) {
      return escape_if_table(chosen);
    }
  }
  return fail(ErrorCode::usage, fmt::format("--format {} is not available here; choose one of {}", chosen,
                                            fmt::join(allowed, ", ")));
}

Result<void> refuse_database_target(const Context& ctx, const std::string& target, std::string_view option)
{
  const std::string& db = ctx.db_path;
  if (target.empty() || db.empty() || db == ":memory:" || db.rfind("postgresql://", 0) == 0 ||
      db.rfind("postgres://", 0) == 0) {
    return {};
  }
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    const std::string file = db + suffix;
    if (target == file || (fs::exists(target, ec) && fs::equivalent(target, file, ec))) {
      return fail(make_error(ErrorCode::usage,
                             fmt::format("{} {} names the database itself ({})", option,
                                         util::escape_for_display(target), util::escape_for_display(file)))
                      .with_hint("write the output to another file"));
    }
  }
  return {};
}

Result<std::string> resolve_run(store::Database& db, const std::string& prefix)
{
  if (prefix.empty()) {
    return fail(
        make_error(ErrorCode::usage, "the run id is empty")
            .with_hint("`rfdb runs --all` lists the stored runs; a unique prefix of a run id is enough"));
  }
  std::vector<std::string> ids;
  RFDB_TRY_ASSIGN(ids, store::runs_with_prefix(db, prefix));
  if (ids.empty()) {
    return fail(
        make_error(ErrorCode::not_found, "no run '" + util::escape_for_display(prefix) + "'")
            .with_hint("`rfdb runs --all` lists the stored runs; a unique prefix of a run id is enough"));
  }
  if (ids.size() == 1 || ids.front() == prefix) {
    return ids.front();
  }
  const bool more = ids.size() > store::k_prefix_candidates;
  if (more) {
    ids.resize(store::k_prefix_candidates);
  }
  return fail(make_error(ErrorCode::usage,
                         fmt::format("run id prefix '{}' is ambiguous", util::escape_for_display(prefix)))
                  .with_hint(fmt::format("it matches {}{}; give more of the id", fmt::join(ids, ", "),
                                         more ? ", …" : "")));
}

namespace {

Result<OpenedRun> resolve_in(Result<store::Database> db, const std::string& prefix)
{
  if (!db) {
    return fail(std::move(db).error());
  }
  auto run_id = resolve_run(*db, prefix);
  if (!run_id) {
    return fail(std::move(run_id).error());
  }
  return OpenedRun{std::move(*db), std::move(*run_id)};
}

} // namespace

Result<OpenedRun> open_run_for_write(const Context& ctx, const std::string& prefix)
{
  return resolve_in(open_for_write(ctx, Create::no), prefix);
}

Result<OpenedRun> open_run_for_read(const Context& ctx, const std::string& prefix)
{
  return resolve_in(open_for_read(ctx), prefix);
}

CLI::Validator iso_date_validator()
{
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (!util::parse_iso_date(value)) {
          return "expected a date YYYY-MM-DD, got '" + value + "'";
        }
        return {};
      },
      "DATE", "iso_date");
}

CLI::Validator stack_spec_validator()
{
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (value.empty()) {
          return {}; // `runs --stack` alone: the columns only (priors checks non_empty first)
        }
        auto spec = domain::parse_stack_spec(value);
        return spec ? std::string() : spec.error().message;
      },
      "SPEC", "stack_spec");
}

Result<void> warn_unstated_stack_packages(store::Database& db, const std::vector<domain::StackSpec>& specs,
                                          const Context& ctx)
{
  if (specs.empty()) {
    return {};
  }
  std::map<std::string, std::vector<store::StackRow>> stacks;
  RFDB_TRY_ASSIGN(stacks, store::all_run_stacks(db));
  const auto unstated = store::unstated_packages(stacks, specs);
  if (unstated.empty()) {
    return {};
  }
  const std::set<std::string> stated = store::stated_packages(stacks);
  for (const auto* spec : unstated) {
    fmt::print(ctx.err, "rfdb: warning: --stack '{}': no stored run states the package '{}'; {}\n",
               util::escape_for_display(spec->text), util::escape_for_display(spec->package),
               stated.empty() ? std::string("no stored run states a stack")
                              : fmt::format("the stored runs state: {}", fmt::join(stated, ", ")));
  }
  return {};
}

CLI::Validator non_empty(const std::string& expected)
{
  return CLI::Validator(
      [expected](std::string& value) -> std::string {
        return value.empty() ? "expected " + expected + ", got an empty string" : std::string();
      },
      "", "non_empty");
}

CLI::Validator gfx_validator()
{
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (value.empty()) {
          return "expected a GPU name such as gfx950, got an empty string";
        }
        // Stored runs carry the normalized gfx (env_report's "GFX950",
        // "gfx950:sramecc+:xnack-" and "MI355X" are all gfx950).
        auto gfx = domain::normalize_gfx(util::trim(value));
        if (!gfx) {
          return fmt::format("expected a gfx target such as gfx950 or a device name such as MI355X, got '{}'",
                             util::escape_for_display(value));
        }
        value = std::move(*gfx);
        return {};
      },
      "", "gfx");
}

CLI::Validator path_validator()
{
  return non_empty("a path");
}

Result<void> check_date_window(const std::string& from, std::string_view from_option, const std::string& to,
                               std::string_view to_option)
{
  if (from.empty() || to.empty() || from <= to) {
    return {};
  }
  return fail(make_error(ErrorCode::usage, fmt::format("{} {} is after {} {}: the window holds no run",
                                                       from_option, from, to_option, to))
                  .with_hint(fmt::format("give a {} on or before the {} date", from_option, to_option)));
}

CLI::Validator one_of(std::vector<std::string> values)
{
  const std::string names = fmt::format("{}", fmt::join(values, "|"));
  return CLI::Validator(
      [values = std::move(values)](std::string& value) -> std::string {
        for (const auto& v : values) {
          if (v == value) {
            return {};
          }
        }
        return fmt::format("'{}' is not one of {}", value, fmt::join(values, ", "));
      },
      names, "one_of");
}

CLI::Validator positive_number()
{
  return CLI::Validator(
      [](std::string& value) -> std::string {
        const auto v = parse_number(value);
        return v && *v > 0 ? std::string() : "expected a number greater than 0, got '" + value + "'";
      },
      "NUMBER > 0", "positive_number");
}

CLI::Validator non_negative_number()
{
  return CLI::Validator(
      [](std::string& value) -> std::string {
        const auto v = parse_number(value);
        return v && *v >= 0 ? std::string() : "expected a number of 0 or more, got '" + value + "'";
      },
      "NUMBER >= 0", "non_negative_number");
}

std::string today(const Context& ctx)
{
  return util::format_iso_date(ctx.now());
}

std::string fmt_speedup(const std::optional<double>& x)
{
  return fixed(x, 3);
}
std::string fmt_percent(const std::optional<double>& x)
{
  return fixed(x, 2);
}
std::string fmt_fraction(const std::optional<double>& x)
{
  return fixed(x, 4);
}

std::optional<int> decimals_for_column(const std::string& column)
{
  // Fractions first: roofline_pct is a fraction despite its suffix.
  if (ends_with(column, "roofline_pct") || ends_with(column, "target_eff") ||
      ends_with(column, "efficiency") || ends_with(column, "_util") || column == "statistic" ||
      column == "median_ratio") {
    return 4;
  }
  if (column.find("speedup") != std::string::npos || ends_with(column, "headroom_ratio")) {
    return 3;
  }
  if (ends_with(column, "_pct") || column == "pct_gpu_time" || ends_with(column, "_pct_gpu_time")) {
    return 2;
  }
  return std::nullopt;
}

std::string model_id(const std::optional<std::string>& model)
{
  if (!model || model->empty()) {
    return "-";
  }
  std::string m = *model;
  while (m.size() > 1 && m.back() == '/') {
    m.pop_back();
  }
  // Hugging Face cache layout: …/models--<org>--<name>[/snapshots/<hash>]
  if (const auto at = m.find("models--"); at != std::string::npos) {
    std::string rest = m.substr(at + 8);
    rest = rest.substr(0, rest.find('/'));
    if (const auto sep = rest.find("--"); sep != std::string::npos) {
      return rest.substr(0, sep) + "/" + rest.substr(sep + 2);
    }
    return rest;
  }
  const bool is_path = m.front() == '/' || m.front() == '.' || m.front() == '~';
  return is_path ? fs::path(m).filename().string() : m;
}

StopScope::StopScope(const Context& ctx)
{
  if (!ctx.handle_signals) {
    return;
  }
  g_stops.store(0);
  g_terminated.store(false);
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  // Without a handler (sigaction failed) the signal ends the process as before.
  (void)sigaction(SIGINT, &sa, nullptr);
  (void)sigaction(SIGTERM, &sa, nullptr);
}

// The handler stays until the process exits (unless a third signal reset
// it): a signal that comes while the command prints its report, or before
// the output is flushed, must not end the process and lose that report.
bool interrupted(const Context& ctx)
{
  return g_stops.load() >= 1 || (ctx.interrupted && ctx.interrupted());
}

bool aborted(const Context& ctx)
{
  return g_stops.load() >= 2 || (ctx.aborted && ctx.aborted());
}

int interrupted_exit_code()
{
  return g_terminated.load() ? 143 : 130;
}

} // namespace rfdb::cli
