// `rfdb report`'s pipeline: connections, threads, snapshot checks, allocator
// tuning (see report/pipeline.hpp).
#include "report/pipeline.hpp"

#include "calibrate/from_store.hpp"
#include "calibrate/priors.hpp"
#include "calibrate/rescore.hpp"
#include "domain/normalize.hpp"
#include "report/analysis.hpp"
#include "report/findings.hpp"
#include "report/from_store.hpp"
#include "report/playbook.hpp"
#include "store/evidence.hpp"
#include "store/kb_records.hpp"
#include "store/report_evidence.hpp"
#include "store/runs.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <limits>
#include <malloc.h>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

namespace rfdb::report {

namespace {

// Wall seconds since `start` (steady clock).
double seconds_since(std::chrono::steady_clock::time_point start)
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The priors by class,gfx over every GPU (the numbers `rfdb priors --by
// class,gfx` prints).
Result<calibrate::PriorsResult>
compute_report_priors(store::Database& db, const store::EvidenceFilter& filter, const std::string& as_of)
{
  calibrate::PriorsParams params;
  params.as_of = as_of;
  params.since = filter.since;
  params.level = calibrate::PriorsLevel::op_class_gfx;
  return calibrate::compute_priors_from_store(db, filter, params);
}

// compute_report_priors, adding its wall time to `seconds`.
Result<calibrate::PriorsResult> timed_report_priors(store::Database& db, const store::EvidenceFilter& filter,
                                                    const std::string& as_of, double& seconds)
{
  const auto start = std::chrono::steady_clock::now();
  auto priors = compute_report_priors(db, filter, as_of);
  seconds += seconds_since(start);
  return priors;
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

// Each connection streams its tables once, so a small page cache serves it:
// three of SQLite's default size would take ~5 MiB of the memory budget at
// 30 000 runs (tools/bench/README.md).
constexpr int k_page_cache_kib = 512;

// Read the ranges this thread takes from `ranges` out of `db` into `add`.
Result<void> fold_attempt_ranges(store::Database& db, const store::EvidenceFilter& filter,
                                 AttemptRanges& ranges, const std::function<void(store::Attempt&&)>& add)
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
void keep_until_exit(std::unique_ptr<const Analysis> analysis)
{
  static std::mutex guard;
  static auto* const kept = new std::unique_ptr<const Analysis>();
  const std::lock_guard lock(guard);
  *kept = std::move(analysis);
}

// The helper connections of an SQLite file: the priors' and the verdicts'.
// Their read transactions begin before the main one's, so when one ends with
// no commit since, it read the main connection's snapshot.
struct Helpers {
  std::optional<store::Database> priors_db;
  std::optional<store::Database> verdicts_db;
};

Result<Helpers> open_helpers(const store::Database& db, const std::string& db_path)
{
  Helpers helpers;
  if (db.backend() != store::Backend::sqlite || db_path == ":memory:") {
    return helpers;
  }
  // The threads share the main heap (see tune_heap in main.cpp): the memory
  // the priors free is reused by the other two. With an arena per thread,
  // each kept its own peak: 97 instead of 73 MiB at 30 000 runs.
  (void)mallopt(M_ARENA_MAX, 1);
  for (auto* second : {&helpers.priors_db, &helpers.verdicts_db}) {
    auto opened = store::Database::open_read_only(db_path); // quietly: -v said which file is read
    if (!opened) {
      return fail(std::move(opened).error().with_context(store::display_name(db_path)));
    }
    *second = std::move(*opened);
    RFDB_TRY((*second)->limit_page_cache(k_page_cache_kib));
    RFDB_TRY((*second)->begin_read());
  }
  return helpers;
}

// The report's input, read from `db` (in a read transaction) with the help
// of `helpers`' connections when there are any.
Result<ReportInput> read_input(store::Database& db, Helpers& helpers, const ReportRequest& request,
                               ReportPhases& phases)
{
  // Evidence from every GPU: the priors pool all of it (the same numbers
  // `rfdb priors` prints) and the analysis narrows the rest to --gfx.
  store::EvidenceFilter filter;
  if (!request.since.empty()) {
    filter.since = request.since;
  }
  std::optional<std::string> gfx_scope;
  if (!request.gfx.empty()) {
    RFDB_TRY(check_gfx(db, request.gfx));
    gfx_scope = domain::gfx_key(request.gfx);
  }
  // The priors' evidence is released once used: at tens of thousands of
  // runs it is the bulk of the memory (in one thread, it is read before the
  // report's rows). The future's destructor waits for the thread, so no
  // early return leaves it reading.
  double priors_s = 0.0; // written by the priors' thread until it is joined
  std::optional<Result<calibrate::PriorsResult>> priors;
  std::future<Result<calibrate::PriorsResult>> pending;
  if (helpers.priors_db) {
    pending = std::async(std::launch::async, [&] {
      return timed_report_priors(*helpers.priors_db, filter, request.as_of, priors_s);
    });
  } else {
    priors = timed_report_priors(db, filter, request.as_of, priors_s);
    if (!*priors) {
      return fail(priors->error());
    }
  }
  const auto read_start = std::chrono::steady_clock::now();
  // The report's rows are streamed into the input: verdicts are kept one
  // run at a time and attempts are folded into what the sections show.
  // Default as-of: the newest run date. Imported knowledge newer than it is
  // shown with its own date and never moves as-of.
  ReportInputBuilder builder(request.as_of, filter.since, gfx_scope, request.cards);
  store::ReportEvidenceSink sink;
  sink.run = [&](store::RunSummary&& r) { builder.add_run(std::move(r)); };
  sink.finding = [&](store::ReportFinding&& f) { builder.add_finding(f); };
  const std::function<void(store::Attempt &&)> add_attempt = [&](store::Attempt&& a) {
    builder.add_attempt(std::move(a));
  };
  RFDB_TRY(store::read_report_evidence(db, filter, sink, store::ReportRows::runs));
  VerdictFold fold = builder.fold_verdicts();
  store::AttemptIdRange attempt_ids;
  RFDB_TRY_ASSIGN(attempt_ids, store::attempt_id_bounds(db));
  // With no second thread, the attempts are read in one range.
  AttemptRanges ranges(attempt_ids, helpers.verdicts_db ? k_attempt_ids_per_range
                                                        : std::numeric_limits<std::int64_t>::max());
  AttemptFold helped = builder.fold_attempts(); // the verdicts' thread's ranges
  // Declared after what it reads: its destructor waits for the thread.
  std::future<Result<void>> folding;
  if (helpers.verdicts_db) {
    folding = std::async(std::launch::async, [&]() -> Result<void> {
      RFDB_TRY(fold_report_verdicts(*helpers.verdicts_db, filter, fold));
      return fold_attempt_ranges(*helpers.verdicts_db, filter, ranges,
                                 [&](store::Attempt&& a) { helped.add(std::move(a)); });
    });
  } else {
    RFDB_TRY(fold_report_verdicts(db, filter, fold));
  }
  RFDB_TRY(fold_attempt_ranges(db, filter, ranges, add_attempt));
  RFDB_TRY(store::read_report_evidence(db, filter, sink, store::ReportRows::findings));
  {
    std::vector<store::KbRecord> kb;
    RFDB_TRY_ASSIGN(kb, store::list_kb_records_with_history(db));
    for (const auto& r : kb) {
      builder.add_kb_record(r);
    }
  }
  if (folding.valid()) {
    RFDB_TRY(folding.get());
    bool same_snapshot = false;
    RFDB_TRY_ASSIGN(same_snapshot, helpers.verdicts_db->end_read());
    if (same_snapshot) {
      builder.take_attempts(std::move(helped));
    } else {
      // A commit came between the two reads: what that thread read is of
      // another snapshot, so its verdicts and every attempt are read again.
      fold = builder.fold_verdicts();
      RFDB_TRY(fold_report_verdicts(db, filter, fold));
      builder.drop_attempts();
      RFDB_TRY(store::read_report_attempts(db, filter, attempt_ids, add_attempt));
    }
  }
  if (pending.valid()) {
    priors = pending.get();
    bool same_snapshot = false;
    RFDB_TRY_ASSIGN(same_snapshot, helpers.priors_db->end_read());
    if (!same_snapshot) {
      priors = timed_report_priors(db, filter, request.as_of, priors_s);
    }
  }
  phases.read_s = seconds_since(read_start);
  phases.priors_s = priors_s;
  if (!*priors) {
    return fail(priors->error());
  }
  return builder.finish(std::move(fold), std::move(**priors));
}

} // namespace

Result<ReportOutput> generate(store::Database& db, const std::string& db_path, const ReportRequest& request,
                              ReportPhases* phases)
{
  ReportPhases timings;
  RFDB_TRY(db.limit_page_cache(k_page_cache_kib));
  // SQLite: the priors are computed on a second connection and the verdicts
  // folded on a third, each in its own thread, while this one reads the
  // runs, the attempts and the imported findings; the third then reads
  // attempts too (AttemptRanges). Their read transactions begin first, so
  // when one ends with no commit since, it read this one's snapshot; else
  // its part is done again here.
  Helpers helpers;
  RFDB_TRY_ASSIGN(helpers, open_helpers(db, db_path));
  RFDB_TRY(db.begin_read());
  std::optional<ReportInput> input;
  {
    auto read = read_input(db, helpers, request, timings);
    if (!read) {
      return fail(std::move(read).error());
    }
    input = std::move(*read);
  }
  if (!input->as_of.empty()) {
    // In the same read transaction: the replay's rows are of the report's snapshot.
    const auto replay_start = std::chrono::steady_clock::now();
    calibrate::PlaybookReplayScope scope{input->as_of, request.since, std::nullopt};
    if (!request.gfx.empty()) {
      scope.gfx_key = domain::gfx_key(request.gfx);
    }
    RFDB_TRY_ASSIGN(input->routing_replay, calibrate::playbook_replay(db, input->priors, scope));
    timings.replay_s = seconds_since(replay_start);
  }
  RFDB_TRY(db.end_read());
  input->as_of_given = !request.as_of.empty();
  const auto analyze_start = std::chrono::steady_clock::now();
  auto analysis = std::make_unique<const Analysis>(analyze(std::move(*input)));
  timings.analyze_s = seconds_since(analyze_start);
  const auto render_start = std::chrono::steady_clock::now();
  ReportOutput out;
  out.playbook = render_playbook(*analysis);
  if (request.cards) {
    out.cards = render_cards(*analysis);
  }
  timings.render_s = seconds_since(render_start);
  out.runs = analysis->scoped.runs.size();
  out.as_of = analysis->as_of;
  keep_until_exit(std::move(analysis));
  if (phases != nullptr) {
    *phases = timings;
  }
  return out;
}

} // namespace rfdb::report
