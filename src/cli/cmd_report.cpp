// `rfdb report`: load evidence, compute priors, analyze, render the playbook and cards.
#include "cli/cmd_report.hpp"

#include "calibrate/from_store.hpp"
#include "calibrate/observation_table.hpp"
#include "calibrate/priors.hpp"
#include "cli/app.hpp"
#include "cli/common.hpp"
#include "domain/as_of.hpp"
#include "domain/normalize.hpp"
#include "report/analysis.hpp"
#include "report/cards.hpp"
#include "report/findings.hpp"
#include "report/from_store.hpp"
#include "report/playbook.hpp"
#include "store/evidence.hpp"
#include "store/report_evidence.hpp"
#include "util/safe_file.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <future>
#include <limits>
#include <malloc.h>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

namespace rfdb::cli {

namespace {

namespace fs = std::filesystem;

// The files a cards sync reads and writes. Only regular *.md files are read
// (a symlink or FIFO is never followed or opened); every target of a write
// is checked before the first byte is written, so a refused target leaves
// the whole directory as it was.
Result<std::vector<report::CardFile>> read_cards_dir(const fs::path& dir)
{
  std::vector<report::CardFile> existing;
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(dir, ec))) {
    return existing;
  }
  if (!fs::is_directory(dir, ec)) {
    return fail(make_error(ErrorCode::io, "--cards names something that is not a directory")
                    .with_context(dir.string()));
  }
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".md" || entry.symlink_status(ec).type() != fs::file_type::regular) {
      continue;
    }
    std::optional<std::string> content;
    RFDB_TRY_ASSIGN(content, util::read_plain_file(entry.path()));
    if (content) {
      existing.push_back({entry.path().filename().string(), std::move(*content)});
    }
  }
  if (ec) {
    return fail(make_error(ErrorCode::io, "cannot list: " + ec.message()).with_context(dir.string()));
  }
  return existing;
}

// Plan the cards sync and check every target it would write.
Result<report::CardSyncPlan> plan_cards(const fs::path& dir, const std::vector<report::CardFile>& generated)
{
  std::vector<report::CardFile> existing;
  RFDB_TRY_ASSIGN(existing, read_cards_dir(dir));
  auto plan = report::plan_card_sync(generated, existing);
  for (const auto& f : plan.writes) {
    RFDB_TRY(util::check_plain_target(dir / f.file_name));
  }
  return plan;
}

// Write the planned cards: unchanged files are not touched, cards no longer
// backed by evidence are archived in place (never deleted), INDEX.md last.
Result<void> write_cards(const fs::path& dir, const report::CardSyncPlan& plan)
{
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    return fail(make_error(ErrorCode::io, "cannot create: " + ec.message()).with_context(dir.string()));
  }
  const report::CardFile* index = nullptr;
  for (const auto& f : plan.writes) {
    if (f.file_name == report::k_index_file) {
      index = &f;
      continue;
    }
    RFDB_TRY(util::write_file_atomically(dir / f.file_name, f.content));
  }
  if (index != nullptr) {
    RFDB_TRY(util::write_file_atomically(dir / index->file_name, index->content));
  }
  return {};
}

Result<void> write_output(const fs::path& path, const std::string& text)
{
  std::error_code ec;
  if (path.has_parent_path()) {
    fs::create_directories(path.parent_path(), ec);
  }
  return util::write_file_atomically(path, text);
}

// The priors by class,gfx over every GPU (the numbers `rfdb priors --by
// class,gfx` prints).
Result<calibrate::PriorsResult>
compute_report_priors(store::Database& db, const store::EvidenceFilter& filter, const std::string& as_of)
{
  calibrate::ObservationTable observations;
  RFDB_TRY_ASSIGN(observations, calibrate::load_observations(db, filter));
  calibrate::PriorsParams params;
  params.as_of = as_of;
  params.since = filter.since;
  params.level = calibrate::PriorsLevel::op_class_gfx;
  return calibrate::compute_priors_from_table(observations, params);
}

// A --gfx naming no stored run is an error that lists the GPUs that exist.
Result<void> check_gfx(store::Database& db, const std::string& gfx)
{
  std::vector<store::RunSummary> runs;
  RFDB_TRY_ASSIGN(runs, store::list_runs(db, store::IncludeRetracted::no));
  std::set<std::string> gpus;
  for (const auto& r : runs) {
    if (r.gfx) {
      gpus.insert(domain::gfx_key(*r.gfx));
    }
  }
  if (gpus.count(domain::gfx_key(gfx)) != 0) {
    return {};
  }
  return fail(make_error(ErrorCode::not_found, "no runs on " + gfx)
                  .with_hint(gpus.empty() ? "the database holds no runs yet"
                                          : fmt::format("GPUs with runs: {}", fmt::join(gpus, ", "))));
}

// The attempts' read is split into ranges of attempt_id, taken in turn by
// whichever thread is free: the main one from the start, the verdicts' once
// the verdicts are folded (then the main thread is the one still reading,
// and the second core would idle). Thread-safe.
class AttemptRanges {
public:
  // Ranges of at least `step` ids (> 0) over `bounds`, and at most
  // k_max_ranges + 1 of them: ids left sparse (rows deleted, or copied with
  // their ids) never make many empty reads.
  AttemptRanges(store::AttemptIdRange bounds, std::int64_t step) : m_first(bounds.first), m_last(bounds.last)
  {
    if (bounds.first > bounds.last) {
      return; // no range
    }
    // In unsigned arithmetic: the span of ids may be all of int64.
    const auto span = static_cast<std::uint64_t>(bounds.last) - static_cast<std::uint64_t>(bounds.first);
    m_step = std::max(static_cast<std::uint64_t>(step),
                      std::min<std::uint64_t>(span / k_max_ranges + 1, INT64_MAX));
    m_ranges = span / m_step + 1;
  }
  // The next range to read, or nullopt when every one is taken.
  std::optional<store::AttemptIdRange> next()
  {
    const std::uint64_t k = m_taken.fetch_add(1);
    if (k >= m_ranges) {
      return std::nullopt;
    }
    const auto first = static_cast<std::int64_t>(static_cast<std::uint64_t>(m_first) + k * m_step);
    const auto last = k + 1 == m_ranges
                          ? m_last
                          : static_cast<std::int64_t>(static_cast<std::uint64_t>(first) + m_step - 1);
    return store::AttemptIdRange{first, last};
  }

private:
  static constexpr std::uint64_t k_max_ranges = 256;
  std::int64_t m_first;
  std::int64_t m_last;
  std::uint64_t m_step = 1;
  std::uint64_t m_ranges = 0;
  std::atomic<std::uint64_t> m_taken{0};
};

// Attempt ids per range: ~600 runs of the bench corpus, a few milliseconds
// of reading; small enough for the two threads to end together.
constexpr std::int64_t k_attempt_ids_per_range = 4096;

// Read the ranges this thread takes from `ranges` out of `db` into `add`.
Result<void> fold_attempt_ranges(store::Database& db, const store::EvidenceFilter& filter,
                                 AttemptRanges& ranges,
                                 const std::function<void(store::ReportAttempt&&)>& add)
{
  while (const auto range = ranges.next()) {
    RFDB_TRY(store::read_report_attempts(db, filter, *range, add));
  }
  return {};
}

// The analysis of a long history is tens of thousands of small blocks, and
// freeing them one by one took ~4 % of the report's wall time at 10 000
// runs, just before the process ends and returns them all at once. So the
// newest analysis is kept: reachable from a holder that is never destroyed
// (a leak checker counts it as in use), and replaced (the one before freed)
// by the next report of the same process, as in the tests.
void keep_until_exit(std::unique_ptr<const report::Analysis> analysis)
{
  static std::mutex guard;
  static auto* const kept = new std::unique_ptr<const report::Analysis>();
  const std::lock_guard lock(guard);
  *kept = std::move(analysis);
}

} // namespace

Result<int> run_report(const ReportOptions& opts, Context& ctx)
{
  RFDB_TRY(check_date_window(opts.since, "--since", opts.as_of, "--as-of"));
  // The cards directory follows all the evidence as of the newest run: cards
  // from a narrowed report would archive the others (other GPUs, older runs)
  // and drop them from INDEX.md, and an --as-of moves which findings are
  // fresh enough to be shown, so the next plain run would flip them back.
  if (!opts.cards_dir.empty() && (!opts.gfx.empty() || !opts.since.empty() || !opts.as_of.empty())) {
    const char* narrowing = !opts.gfx.empty() ? "--gfx" : !opts.since.empty() ? "--since" : "--as-of";
    return fail(make_error(ErrorCode::usage, fmt::format("--cards cannot be combined with {}", narrowing))
                    .with_hint("the cards directory follows all the evidence as of the newest run: write it "
                               "with `rfdb report --cards DIR`, and narrow the playbook in a separate call"));
  }
  auto db = open_for_read(ctx);
  if (!db) {
    return fail(db.error());
  }
  // SQLite: the priors are computed on a second connection and the
  // verdicts folded on a third, each in its own thread, while this one reads
  // the runs, the attempts and the imported findings; the third then reads
  // attempts too (AttemptRanges). Their read transactions begin first, so
  // when one ends with no commit since, it read this one's snapshot; else
  // its part is done again here.
  // Each connection streams its tables once, so a small page cache serves
  // it: three of SQLite's default size would take ~5 MiB of the memory
  // budget at 30 000 runs (tools/bench/README.md).
  constexpr int k_page_cache_kib = 512;
  RFDB_TRY(db->limit_page_cache(k_page_cache_kib));
  std::optional<store::Database> priors_db;
  std::optional<store::Database> verdicts_db;
  if (db->backend() == store::Backend::sqlite && ctx.db_path != ":memory:") {
    // The threads share the main heap (see tune_heap in main.cpp): the
    // memory the priors free is reused by the other two. With an arena per
    // thread, each kept its own peak: 97 instead of 73 MiB at 30 000 runs.
    (void)mallopt(M_ARENA_MAX, 1);
    for (auto* second : {&priors_db, &verdicts_db}) {
      auto opened = store::Database::open_read_only(ctx.db_path); // quietly: -v said which file is read
      if (!opened) {
        return fail(std::move(opened).error().with_context(store::display_name(ctx.db_path)));
      }
      *second = std::move(*opened);
      RFDB_TRY((*second)->limit_page_cache(k_page_cache_kib));
      RFDB_TRY((*second)->begin_read());
    }
  }
  RFDB_TRY(db->begin_read());
  // Evidence from every GPU: the priors pool all of it (the same numbers
  // `rfdb priors` prints) and the analysis narrows the rest to --gfx.
  store::EvidenceFilter filter;
  if (!opts.since.empty()) {
    filter.since = opts.since;
  }
  std::optional<std::string> gfx_scope;
  if (!opts.gfx.empty()) {
    if (auto ok = check_gfx(*db, opts.gfx); !ok) {
      return fail(ok.error());
    }
    gfx_scope = domain::gfx_key(opts.gfx);
  }
  // The priors' evidence is released once used: at tens of thousands of
  // runs it is the bulk of the memory (in one thread, it is read before the
  // report's rows). The future's destructor waits for the thread, so no
  // early return leaves it reading.
  std::optional<Result<calibrate::PriorsResult>> priors;
  std::future<Result<calibrate::PriorsResult>> pending;
  if (priors_db) {
    pending =
        std::async(std::launch::async, [&] { return compute_report_priors(*priors_db, filter, opts.as_of); });
  } else {
    priors = compute_report_priors(*db, filter, opts.as_of);
    if (!*priors) {
      return fail(priors->error());
    }
  }
  // The report's rows are streamed into the input: verdicts are kept one
  // run at a time and attempts are folded into what the sections show.
  std::optional<report::ReportInput> input;
  {
    // Default as-of: the newest run date. Imported knowledge newer than it is
    // shown with its own date and never moves as-of.
    report::ReportInputBuilder builder(opts.as_of, filter.since, gfx_scope, !opts.cards_dir.empty());
    store::ReportEvidenceSink sink;
    sink.run = [&](store::RunSummary&& r) { builder.add_run(std::move(r)); };
    sink.finding = [&](store::ReportFinding&& f) { builder.add_finding(f); };
    const std::function<void(store::ReportAttempt &&)> add_attempt = [&](store::ReportAttempt&& a) {
      builder.add_attempt(std::move(a));
    };
    RFDB_TRY(store::read_report_evidence(*db, filter, sink, store::ReportRows::runs));
    report::VerdictFold fold = builder.fold_verdicts();
    store::AttemptIdRange attempt_ids;
    RFDB_TRY_ASSIGN(attempt_ids, store::attempt_id_bounds(*db));
    // With no second thread, the attempts are read in one range.
    AttemptRanges ranges(attempt_ids,
                         verdicts_db ? k_attempt_ids_per_range : std::numeric_limits<std::int64_t>::max());
    report::AttemptFold helped = builder.fold_attempts(); // the verdicts' thread's ranges
    // Declared after what it reads: its destructor waits for the thread.
    std::future<Result<void>> folding;
    if (verdicts_db) {
      folding = std::async(std::launch::async, [&]() -> Result<void> {
        RFDB_TRY(report::fold_report_verdicts(*verdicts_db, filter, fold));
        return fold_attempt_ranges(*verdicts_db, filter, ranges,
                                   [&](store::ReportAttempt&& a) { helped.add(std::move(a)); });
      });
    } else {
      RFDB_TRY(report::fold_report_verdicts(*db, filter, fold));
    }
    RFDB_TRY(fold_attempt_ranges(*db, filter, ranges, add_attempt));
    RFDB_TRY(store::read_report_evidence(*db, filter, sink, store::ReportRows::findings));
    if (folding.valid()) {
      RFDB_TRY(folding.get());
      bool same_snapshot = false;
      RFDB_TRY_ASSIGN(same_snapshot, verdicts_db->end_read());
      if (same_snapshot) {
        builder.take_attempts(std::move(helped));
      } else {
        // A commit came between the two reads: what that thread read is of
        // another snapshot, so its verdicts and every attempt are read again.
        fold = builder.fold_verdicts();
        RFDB_TRY(report::fold_report_verdicts(*db, filter, fold));
        builder.drop_attempts();
        RFDB_TRY(store::read_report_attempts(*db, filter, attempt_ids, add_attempt));
      }
    }
    if (pending.valid()) {
      priors = pending.get();
      bool same_snapshot = false;
      RFDB_TRY_ASSIGN(same_snapshot, priors_db->end_read());
      if (!same_snapshot) {
        priors = compute_report_priors(*db, filter, opts.as_of);
      }
    }
    if (!*priors) {
      return fail(priors->error());
    }
    input = builder.finish(std::move(fold), std::move(**priors));
  }
  RFDB_TRY(db->end_read());
  input->as_of_given = !opts.as_of.empty();
  auto kept = std::make_unique<const report::Analysis>(report::analyze(std::move(*input)));
  const report::Analysis& analysis = *kept;
  const std::string markdown = report::render_playbook(analysis);
  // Check every target before writing anything: a refused one writes nothing.
  if (!opts.output.empty()) {
    RFDB_TRY(refuse_database_target(ctx, opts.output, "-o"));
    if (auto ok = util::check_plain_target(opts.output); !ok) {
      return fail(ok.error());
    }
  }
  std::optional<report::CardSyncPlan> plan;
  if (!opts.cards_dir.empty()) {
    auto planned = plan_cards(opts.cards_dir, report::render_cards(analysis));
    if (!planned) {
      return fail(planned.error());
    }
    plan = std::move(*planned);
  }
  if (opts.output.empty()) {
    fmt::print(ctx.out, "{}", markdown);
  } else if (auto w = write_output(opts.output, markdown); !w) {
    return fail(w.error());
  } else {
    fmt::print(ctx.err, "playbook written to {} ({} runs, as of {})\n", opts.output,
               analysis.scoped.runs.size(), analysis.as_of.empty() ? "n/a" : analysis.as_of);
  }
  if (plan) {
    if (auto w = write_cards(opts.cards_dir, *plan); !w) {
      return fail(w.error());
    }
    fmt::print(
        ctx.err, "cards in {}: {} written, {} unchanged, {} archived{}\n", opts.cards_dir,
        plan->writes.size(), plan->unchanged.size(), plan->archived.size(),
        plan->conflicts.empty() ? "" : fmt::format(", {} name conflicts left alone", plan->conflicts.size()));
  }
  keep_until_exit(std::move(kept));
  return 0;
}

void add_report_command(CLI::App& app, Context& ctx, Runner& runner)
{
  auto opts = std::make_shared<ReportOptions>();
  auto* cmd =
      app.add_subcommand("report", "Generate the backend playbook (markdown) from the stored evidence");
  cmd->add_option("-o,--output", opts->output, "Write the playbook to FILE (default: stdout)")
      ->type_name("FILE")
      ->check(path_validator());
  cmd->add_option("--as-of", opts->as_of,
                  "Date the playbook is written for (default: the newest run date; imported knowledge "
                  "dated after it is shown with its own date)")
      ->check(iso_date_validator());
  cmd->add_option("--since", opts->since, "Only evidence from runs on or after DATE")
      ->check(iso_date_validator());
  cmd->add_option("--gfx", opts->gfx,
                  "Only runs on this GPU: a gfx target (gfx950) or a device name (MI355X)")
      ->type_name("GFX")
      ->transform(gfx_validator());
  cmd->add_option("--cards", opts->cards_dir,
                  "Also write one learned card per finding plus INDEX.md into DIR (all the evidence as of "
                  "the newest run: not with --gfx, --since or --as-of)")
      ->type_name("DIR")
      ->check(path_validator());
  cmd->footer(R"(Sections: target_eff priors, Calibration, Routing quality, What works (tiers ★/★★/★★★,
at most 40 lines), Cautions, Saturated heads, and a quadrant chart of the newest run. Every
section is capped, so the playbook stays small at any history size.
The same database and --as-of give byte-identical output. Files are written to a temporary
beside the target and renamed over it; a symlink, FIFO or other non-regular file at a target
is refused and nothing is written.

Examples:
  rfdb report -o playbook.md
  rfdb report --gfx gfx950 --as-of 2026-12-01
  rfdb report -o playbook.md --cards knowledge/learned)");
  cmd->final_callback([opts, &ctx, &runner] { runner = [opts, &ctx] { return run_report(*opts, ctx); }; });
}

} // namespace rfdb::cli
