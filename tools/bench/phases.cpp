#include "phases.hpp"

#include "calibrate/from_store.hpp"
#include "calibrate/priors.hpp"
#include "ingest/evaldir/derive.hpp"
#include "ingest/evaldir/files.hpp"
#include "ingest/ingest.hpp"
#include "ingest/json_util.hpp"
#include "report/pipeline.hpp"
#include "store/database.hpp"
#include "store/evidence.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

namespace rfdb::bench {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double process_cpu_seconds()
{
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

} // namespace

Span& Span::operator+=(const Span& other)
{
  wall += other.wall;
  cpu += other.cpu;
  return *this;
}

Stopwatch::Stopwatch() : m_wall(Clock::now()), m_cpu(process_cpu_seconds()) {}

Span Stopwatch::elapsed() const
{
  return {std::chrono::duration<double>(Clock::now() - m_wall).count(), process_cpu_seconds() - m_cpu};
}

std::int64_t peak_rss_kib()
{
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss; // KiB on Linux
}

std::int64_t current_rss_kib()
{
  std::ifstream statm("/proc/self/statm");
  std::int64_t size = 0, resident = 0;
  if (!(statm >> size >> resident)) {
    return 0;
  }
  return resident * sysconf(_SC_PAGESIZE) / 1024;
}

namespace {

// Walk one eval dir the way ingest's read_eval_dir does (regular files,
// classify_artifact; the synthetic corpus has no symlinks), but without
// hashing: only what parsing needs.
Result<void> parse_dir(const fs::path& dir, ParseStats& stats)
{
  const Stopwatch watch;
  const Span parse_before = stats.parse;
  const Span validate_before = stats.validate;
  std::error_code ec;
  std::vector<ingest::Warning> warnings;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->is_symlink(ec)) {
      continue;
    }
    const std::string rel = fs::relative(it->path(), dir, ec).generic_string();
    const auto kind = ingest::classify_artifact(rel);
    if (!kind) {
      continue;
    }
    if (kind->kind == "env_info" || kind->kind == "patch" || kind->kind == "tuned_table") {
      continue; // free text or CSV: stored as read, never parsed as JSON
    }
    std::string text;
    RFDB_TRY_ASSIGN(text, ingest::read_file(it->path()));
    const Stopwatch parse_watch;
    if (kind->kind == "bench_runs") { // JSON Lines: one object a line
      std::string_view rest = text;
      while (!rest.empty()) {
        const std::size_t newline = rest.find('\n');
        const std::string_view line = rest.substr(0, newline);
        rest = newline == std::string_view::npos ? std::string_view{} : rest.substr(newline + 1);
        if (line.find_first_not_of(" \t\r") == std::string_view::npos) {
          continue;
        }
        auto parsed = ingest::parse_json_text(std::string(line));
        if (!parsed) {
          return fail(std::move(parsed).error().with_context(it->path().string()));
        }
      }
      stats.parse += parse_watch.elapsed();
      ++stats.files;
      continue;
    }
    auto parsed = ingest::parse_json_text(text);
    stats.parse += parse_watch.elapsed();
    if (!parsed) {
      return fail(std::move(parsed).error().with_context(it->path().string()));
    }
    const Stopwatch validate_watch;
    auto valid = ingest::validate_artifact(*kind, rel, text, warnings);
    stats.validate += validate_watch.elapsed();
    if (!valid) {
      return fail(std::move(valid).error().with_context(dir.string()));
    }
    ++stats.files;
    stats.bytes += static_cast<std::int64_t>(text.size());
  }
  if (ec) {
    return fail(ErrorCode::io, "cannot list " + dir.string() + ": " + ec.message());
  }
  stats.warnings += static_cast<std::int64_t>(warnings.size());
  // Everything not spent parsing or validating went to walking and reading.
  stats.list_read += watch.elapsed() - (stats.parse - parse_before) - (stats.validate - validate_before);
  return {};
}

// Ingest's stages, re-enacted on one dir (see BreakdownStats).
Result<void> breakdown_dir(const fs::path& dir, BreakdownStats& stats)
{
  std::vector<ingest::Warning> warnings;
  const Stopwatch read_watch;
  auto contents = ingest::read_eval_dir(dir);
  stats.read_hash += read_watch.elapsed();
  if (!contents) {
    return fail(std::move(contents).error());
  }
  auto& files = contents->files;
  const Stopwatch validate_watch;
  for (const auto& f : files) {
    RFDB_TRY(ingest::validate_artifact(f.kind, f.rel_path, f.content, warnings));
  }
  stats.validate += validate_watch.elapsed();
  std::vector<ingest::StoredSource> sources;
  std::int64_t id = 0;
  for (auto& f : files) {
    sources.push_back({++id, std::move(f.rel_path), std::move(f.kind), std::move(f.content), false});
  }
  const std::string name = dir.filename().string();
  const Stopwatch derive_watch;
  auto derived = ingest::derive_run(name, name, sources);
  stats.derive += derive_watch.elapsed();
  if (!derived) {
    return fail(std::move(derived).error());
  }
  return {};
}

// Ingest one eval dir with its own ingest() call, as `rfdb ingest DIR` does.
Result<void> ingest_dir(store::Database& db, const fs::path& dir, IngestStats& stats)
{
  ingest::IngestRequest req;
  req.now = "2026-09-01T00:00:00Z"; // fixed: the corpus is synthetic anyway
  req.paths = {dir.string()};
  // One coarse speedup factor per run (synth.hpp) lets two runs of a template
  // agree in every measured attempt: a copy by ingest's rule. Store it (the
  // check still runs and is timed); the corpus is synthetic anyway.
  req.allow_copy = ingest::AllowCopy::yes;
  const Stopwatch watch;
  const auto report = ingest::ingest(db, req, {});
  stats.total += watch.elapsed();
  const auto& path = report.paths.front();
  if (path.error) {
    return fail(make_error(ErrorCode::invalid_input, "ingest failed: " + path.error->describe()));
  }
  if (path.status != "added") {
    return fail(ErrorCode::internal, fmt::format("ingest of {} was {}, not added", path.path, path.status));
  }
  ++stats.runs;
  return {};
}

double median(std::vector<double> v)
{
  if (v.empty()) {
    return 0.0;
  }
  std::sort(v.begin(), v.end());
  const std::size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2.0;
}

std::int64_t file_size_or_zero(const fs::path& path)
{
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  return ec ? 0 : static_cast<std::int64_t>(size);
}

// One repeat of priors + report; every field is one sample.
struct QuerySample {
  double open_s = 0, load_s = 0, class_s = 0, regime_s = 0;
  double report_priors_s = 0, read_s = 0, replay_s = 0, analyze_s = 0, render_s = 0, report_total_s = 0;
};

Result<calibrate::PriorsResult> timed_priors(const std::vector<calibrate::Observation>& obs,
                                             calibrate::PriorsLevel level, double& seconds)
{
  calibrate::PriorsParams params; // the CLI defaults: 1000 bootstrap resamples, as_of = newest run
  params.level = level;
  const Stopwatch watch;
  auto result = calibrate::compute_priors(obs, params);
  seconds = watch.elapsed().wall;
  return result;
}

Result<QuerySample> query_once(const fs::path& db_path, QueryStats& stats)
{
  QuerySample s;
  const Stopwatch open_watch;
  auto db = store::Database::open(db_path.string());
  s.open_s = open_watch.elapsed().wall;
  if (!db) {
    return fail(std::move(db).error());
  }
  const Stopwatch load_watch;
  auto evidence = store::load_evidence(*db, store::EvidenceFilter{});
  s.load_s = load_watch.elapsed().wall;
  if (!evidence) {
    return fail(std::move(evidence).error());
  }
  // observations_from is part of both priors timings (each command maps once).
  const Stopwatch map_watch;
  const auto obs = calibrate::observations_from(*evidence);
  const double map_s = map_watch.elapsed().wall;
  calibrate::PriorsResult by_class;
  RFDB_TRY_ASSIGN(by_class, timed_priors(obs, calibrate::PriorsLevel::op_class, s.class_s));
  RFDB_TRY(timed_priors(obs, calibrate::PriorsLevel::op_class_gfx_regime, s.regime_s));
  s.class_s += map_s;
  s.regime_s += map_s;
  // `rfdb report` is the function the command calls (report/pipeline.hpp),
  // on a read-only connection as the command opens it; its phases are timed
  // inside, the whole from open to the rendered playbook.
  const Stopwatch report_watch;
  auto report_db = store::Database::open_read_only(db_path.string());
  if (!report_db) {
    return fail(std::move(report_db).error());
  }
  report::ReportPhases phases;
  report::ReportOutput report;
  RFDB_TRY_ASSIGN(report, report::generate(*report_db, db_path.string(), report::ReportRequest{}, &phases));
  s.report_total_s = report_watch.elapsed().wall;
  s.report_priors_s = phases.priors_s;
  s.read_s = phases.read_s;
  s.replay_s = phases.replay_s;
  s.analyze_s = phases.analyze_s;
  s.render_s = phases.render_s;
  stats.attempts = static_cast<std::int64_t>(evidence->attempts.size());
  stats.verdicts = static_cast<std::int64_t>(evidence->verdicts.size());
  stats.evidence_runs = static_cast<std::int64_t>(evidence->runs.size());
  stats.observations = by_class.observations;
  stats.playbook_bytes = static_cast<std::int64_t>(report.playbook.size());
  return s;
}

// Per run, in this order: the parse baseline, the breakdown, the ingest.
// RSS is sampled after the first tenth of the runs and at the end.
Result<void> measure_runs(store::Database& db, const std::vector<fs::path>& dirs, CorpusStats& stats)
{
  const auto n = static_cast<std::int64_t>(dirs.size());
  stats.ingest.first_runs = std::max<std::int64_t>(1, n / 10);
  for (std::int64_t i = 0; i < n; ++i) {
    const auto& dir = dirs[static_cast<std::size_t>(i)];
    RFDB_TRY(parse_dir(dir, stats.parse));
    RFDB_TRY(breakdown_dir(dir, stats.breakdown));
    RFDB_TRY(ingest_dir(db, dir, stats.ingest));
    if (i + 1 == stats.ingest.first_runs) {
      stats.ingest.first = stats.ingest.total;
      stats.ingest.peak_rss_first_kib = peak_rss_kib();
      stats.ingest.rss_first_kib = current_rss_kib();
    }
    if (n >= 100 && (i + 1) % (n / 10) == 0) {
      fmt::print(stderr, "  {}/{} runs (ingest {:.1f} s so far)\n", i + 1, n, stats.ingest.total.wall);
    }
  }
  stats.ingest.peak_rss_total_kib = peak_rss_kib();
  stats.ingest.rss_total_kib = current_rss_kib();
  return {};
}

} // namespace

Result<CorpusStats> measure_corpus(const std::vector<fs::path>& dirs, const fs::path& db_path)
{
  CorpusStats stats;
  {
    const Stopwatch watch;
    auto db = store::Database::open(db_path.string());
    stats.ingest.open = watch.elapsed();
    if (!db) {
      return fail(std::move(db).error());
    }
    RFDB_TRY(measure_runs(*db, dirs, stats));
  } // closing the last connection checkpoints the WAL into the file
  stats.ingest.db_bytes = file_size_or_zero(db_path) + file_size_or_zero(db_path.string() + "-wal");
  return stats;
}

Result<QueryStats> query_pass(const fs::path& db_path, int repeats)
{
  QueryStats stats;
  stats.repeats = std::max(1, repeats);
  std::vector<QuerySample> samples;
  for (int r = 0; r < stats.repeats; ++r) {
    QuerySample s;
    RFDB_TRY_ASSIGN(s, query_once(db_path, stats));
    samples.push_back(s);
  }
  auto med = [&](auto field) {
    std::vector<double> v;
    for (const auto& s : samples) {
      v.push_back(field(s));
    }
    return median(std::move(v));
  };
  stats.open_s = med([](const QuerySample& s) { return s.open_s; });
  stats.load_evidence_s = med([](const QuerySample& s) { return s.load_s; });
  stats.priors_class_s = med([](const QuerySample& s) { return s.class_s; });
  stats.priors_regime_s = med([](const QuerySample& s) { return s.regime_s; });
  stats.report_priors_s = med([](const QuerySample& s) { return s.report_priors_s; });
  stats.report_read_s = med([](const QuerySample& s) { return s.read_s; });
  stats.report_replay_s = med([](const QuerySample& s) { return s.replay_s; });
  stats.report_analyze_s = med([](const QuerySample& s) { return s.analyze_s; });
  stats.report_render_s = med([](const QuerySample& s) { return s.render_s; });
  stats.priors_cmd_class_s = med([](const QuerySample& s) { return s.open_s + s.load_s + s.class_s; });
  stats.priors_cmd_regime_s = med([](const QuerySample& s) { return s.open_s + s.load_s + s.regime_s; });
  stats.report_cmd_s = med([](const QuerySample& s) { return s.report_total_s; });
  return stats;
}

} // namespace rfdb::bench
