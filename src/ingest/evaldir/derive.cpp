// Derive a run's rows from its parsed files: attempts, the prediction each was made on, deployment.
#include "ingest/evaldir/derive.hpp"

#include "domain/noise.hpp"
#include "domain/normalize.hpp"
#include "domain/roofline.hpp"
#include "domain/version.hpp"
#include "domain/vocab.hpp"
#include "ingest/evaldir/attempt_model.hpp"
#include "ingest/evaldir/signature.hpp"
#include "ingest/evaldir/stack.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace rfdb::ingest {

namespace {

std::string strip_suffix(std::string s, std::string_view suffix)
{
  if (s.size() > suffix.size() && s.ends_with(suffix)) {
    s.resize(s.size() - suffix.size());
  }
  return s;
}

// Names an attempt may use for its kernel: short_name, task dir, candidate.
std::vector<std::string> kernel_ids(const DerivedAttempt& d)
{
  const AttemptRecord& a = d.record;
  std::vector<std::string> ids{a.short_name};
  if (d.candidate_short_name) {
    ids.push_back(*d.candidate_short_name);
  }
  if (a.task_dir) {
    auto base = *a.task_dir;
    if (auto slash = base.find_last_of('/'); slash != std::string::npos) {
      base = base.substr(slash + 1);
    }
    ids.push_back(strip_suffix(base, "_task"));
  }
  if (a.candidate && a.candidate->starts_with("cand_")) {
    ids.push_back(a.candidate->substr(5));
  }
  return ids;
}

bool matches(const Verdict& v, const std::optional<std::string>& task, const std::vector<std::string>& ids)
{
  for (const auto& id : ids) {
    if (id == v.short_name || (v.name && id == *v.name) ||
        (task && (id == *task || id == strip_suffix(*task, "_task")))) {
      return true;
    }
  }
  return false;
}

domain::Prediction prediction_from(const Verdict& v)
{
  domain::Prediction s;
  s.source_kind = v.source_kind;
  s.stage = v.stage;
  s.headroom_class = v.headroom_class;
  s.bound_type = v.bound_type;
  s.confidence = v.confidence;
  s.roofline_pct = v.roofline_pct;
  s.target_eff = v.target_eff;
  s.attainable_speedup = v.attainable_speedup;
  s.expected_e2e_gain_pct = v.expected_e2e_gain_pct;
  s.pct_gpu_time = v.pct_gpu_time;
  s.suspect = v.suspect;
  s.round = v.round;
  s.case_mix = v.case_mix;
  return s;
}

const KernelSample* find_sample(const std::vector<std::pair<std::int64_t, TopN>>& rounds,
                                const std::vector<std::string>& ids, const std::optional<std::string>& round)
{
  const KernelSample* best = nullptr;
  int best_order = 0;
  for (const auto& [sid, topn] : rounds) {
    if (round && topn.round != *round) {
      continue;
    }
    for (const auto& row : topn.rows) {
      const bool hit = std::find(ids.begin(), ids.end(), row.short_name) != ids.end() ||
                       std::find(ids.begin(), ids.end(), row.name) != ids.end();
      if (hit && (best == nullptr || topn.round_order < best_order)) {
        best = &row;
        best_order = topn.round_order;
      }
    }
  }
  return best;
}

// Measured roofline verdicts (roofline-v1) of the attempt's kernel.
struct MeasuredRefs {
  std::optional<VerdictRef> baseline, post;
};

MeasuredRefs find_measured(const DerivedRun& run, const std::vector<std::string>& ids)
{
  MeasuredRefs m;
  for (std::size_t d = 0; d < run.docs.size(); ++d) {
    const auto& doc = run.docs[d];
    if (doc.superseded || !domain::is(doc.doc.source_kind, domain::SourceKind::measured)) {
      continue;
    }
    for (std::size_t i = 0; i < doc.doc.verdicts.size(); ++i) {
      if (matches(doc.doc.verdicts[i], doc.doc.task, ids)) {
        auto& slot = doc.doc.phase == std::optional<std::string>("post") ? m.post : m.baseline;
        slot = slot ? slot : VerdictRef{d, i};
      }
    }
  }
  return m;
}

// The analytic profile_roofline verdict for the kernel: latest at or before
// the attempt's stated round, else the earliest round with a verdict.
std::optional<VerdictRef> find_analytic(const DerivedRun& run, const std::vector<std::string>& ids,
                                        const std::optional<std::string>& round)
{
  std::optional<VerdictRef> best;
  int best_order = 0;
  const int limit = round ? domain::round_order(*round) : 1 << 30;
  for (std::size_t d = 0; d < run.docs.size(); ++d) {
    const auto& doc = run.docs[d];
    if (doc.superseded || !domain::is(doc.doc.source_kind, domain::SourceKind::analytic)) {
      continue;
    }
    for (std::size_t i = 0; i < doc.doc.verdicts.size(); ++i) {
      const auto& v = doc.doc.verdicts[i];
      const int order = v.round_order.value_or(0);
      if (!matches(v, doc.doc.task, ids) || order > limit) {
        continue;
      }
      if (!best || (round ? order > best_order : order < best_order)) {
        best = VerdictRef{d, i};
        best_order = order;
      }
    }
  }
  return best;
}

void join_prediction(DerivedRun& run, DerivedAttempt& att)
{
  auto ids = kernel_ids(att);
  auto verdict_at = [&](VerdictRef r) -> const Verdict& { return run.docs[r.doc].doc.verdicts[r.verdict]; };
  const MeasuredRefs measured = find_measured(run, ids);
  // The measured file names the device kernel it matched: that links a task
  // (decode_attention_task) to the profiled symbol.
  if (measured.baseline) {
    if (const auto& name = verdict_at(*measured.baseline).name) {
      ids.push_back(*name);
    }
  }
  const auto analytic = find_analytic(run, ids, att.record.round);
  domain::Prediction s;
  std::optional<VerdictRef> ref;
  // Precedence: a stage-C entry that is itself measured (what the pipeline
  // routed on), then a measured baseline roofline, then the analytic verdict.
  if (analytic && domain::is(verdict_at(*analytic).source_kind, domain::SourceKind::measured)) {
    s = prediction_from(verdict_at(*analytic));
    ref = *analytic;
  } else if (measured.baseline) {
    s = prediction_from(verdict_at(*measured.baseline));
    ref = *measured.baseline;
    if (analytic) {
      s.pct_gpu_time = verdict_at(*analytic).pct_gpu_time;
      s.round = verdict_at(*analytic).round;
    }
  } else if (analytic) {
    s = prediction_from(verdict_at(*analytic));
    ref = *analytic;
  }
  if (!s.pct_gpu_time) {
    const auto* row = find_sample(run.rounds, ids, s.round);
    s.pct_gpu_time = row != nullptr ? std::optional(row->pct_gpu_time) : att.record.pct_gpu_time;
  }
  if (ref && !s.expected_e2e_gain_pct && s.pct_gpu_time && s.attainable_speedup &&
      *s.attainable_speedup > 0) {
    s.expected_e2e_gain_pct = domain::amdahl_gain_pct(*s.pct_gpu_time, *s.attainable_speedup);
  }
  // op_class and regime follow the verdict; else the Top-N row's class.
  const Verdict* v =
      analytic ? &verdict_at(*analytic) : (measured.baseline ? &verdict_at(*measured.baseline) : nullptr);
  if (v != nullptr && !domain::is(v->op_class, domain::OpClass::unknown)) {
    att.record.op_class = domain::canonical<domain::OpClass>(v->op_class);
  } else if (att.record.op_class == domain::OpClass::unknown) {
    if (const auto* row = find_sample(run.rounds, ids, std::nullopt)) {
      att.record.op_class = domain::canonical<domain::OpClass>(
          domain::op_class_from_top_n(row->classification.value_or(""), row->name).value);
    }
  }
  // A multi-case measured prediction keys the regime of its time-weighted
  // case mix (a kernel whose prefill cases hold most of the time is not keyed
  // decode); otherwise the regime follows the verdict as above.
  const Verdict* mixed = ref ? &verdict_at(*ref) : nullptr;
  if (mixed != nullptr && !mixed->case_mix.empty() && mixed->regime && !att.record.regime) {
    att.record.regime = mixed->regime;
  } else if (v != nullptr && v->regime && !att.record.regime) {
    att.record.regime = v->regime;
  }
  if (!att.record.round) {
    att.record.round = s.round;
  }
  att.prediction = std::move(s);
  att.prediction_verdict = ref;
  att.profiler_hbm_undercount = ref && verdict_at(*ref).profiler_hbm_undercount;
}

// Every kernel the profile or a roofline names.
std::set<std::string> known_kernels(const DerivedRun& run)
{
  std::set<std::string> known;
  for (const auto& [sid, topn] : run.rounds) {
    for (const auto& row : topn.rows) {
      known.insert(row.short_name);
    }
  }
  for (const auto& doc : run.docs) {
    if (domain::is(doc.doc.source_kind, domain::SourceKind::analytic)) {
      for (const auto& v : doc.doc.verdicts) {
        known.insert(v.short_name);
      }
    }
  }
  return known;
}

// An attempt that states no round was decided in the round whose Top-N share
// of its kernel equals the share its integrate result quotes (docs/artifacts.md, "Attempts": pct_gpu_time is
// "% of the head" at decision time). Ambiguous or no share: left to the earliest-verdict rule of
// join_prediction.
void infer_round(const DerivedRun& run, DerivedAttempt& att)
{
  if (att.record.round || !att.record.pct_gpu_time || att.kind != domain::AttemptKind::kernel) {
    return;
  }
  const auto ids = kernel_ids(att);
  std::vector<std::string> rounds;
  for (const auto& [sid, topn] : run.rounds) {
    for (const auto& row : topn.rows) {
      const bool hit = std::find(ids.begin(), ids.end(), row.short_name) != ids.end();
      if (hit && std::fabs(row.pct_gpu_time - *att.record.pct_gpu_time) < 0.005) {
        rounds.push_back(topn.round);
        break;
      }
    }
  }
  if (rounds.size() == 1) {
    att.record.round = rounds.front();
  }
}

// The final overlay carries one candidate per kernel: of those that claim
// deployment (integrate accepted_overlay set, or an accepted list cites
// them), the one an accepted list cites, then the last in ledger order.
// A candidate stacked and then superseded on the same kernel is not
// deployed.
void choose_deployed(DerivedRun& run)
{
  const auto better = [](const DerivedAttempt& a, const DerivedAttempt& b) {
    if (a.in_accepted_list != b.in_accepted_list) {
      return a.in_accepted_list;
    }
    return a.ledger_order > b.ledger_order;
  };
  std::map<std::string, DerivedAttempt*> best;
  for (auto& att : run.attempts) {
    if (att.kind != domain::AttemptKind::kernel || !att.deployed) {
      continue;
    }
    auto& slot = best[att.record.short_name];
    if (slot == nullptr || better(att, *slot)) {
      slot = &att;
    }
  }
  for (auto& att : run.attempts) {
    att.deployed = att.kind == domain::AttemptKind::kernel && best[att.record.short_name] == &att;
  }
}

// "VAR=value" words of an env text (other words skipped), in order.
std::vector<std::pair<std::string, std::string>> env_assignments(std::string_view text)
{
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find_first_of(" \t\n", pos), text.size());
    const std::string_view word = text.substr(pos, end - pos);
    const std::size_t eq = word.find('=');
    const auto name = word.substr(0, eq);
    const bool is_name =
        eq != std::string_view::npos && eq > 0 && std::all_of(name.begin(), name.end(), [](char c) {
          return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
        });
    if (is_name) {
      out.emplace_back(std::string(name), std::string(word.substr(eq + 1)));
    }
    pos = end + 1;
  }
  return out;
}

// Two values of one variable agree: equal, or one path ends with the other
// at a '/' ("config/moe_tuned_int4" and "/wekafs/…/config/moe_tuned_int4").
bool env_value_agrees(std::string_view a, std::string_view b)
{
  if (a == b) {
    return true;
  }
  if (a.size() < b.size()) {
    std::swap(a, b);
  }
  return !b.empty() && a.ends_with(b) && (a[a.size() - b.size() - 1] == '/' || b.front() == '/');
}

bool env_has(const std::vector<std::pair<std::string, std::string>>& env,
             const std::pair<std::string, std::string>& kv)
{
  return std::any_of(env.begin(), env.end(), [&](const auto& e) {
    return e.first == kv.first && env_value_agrees(e.second, kv.second);
  });
}

// Every assignment of `part` is in `whole`.
bool env_within(const std::vector<std::pair<std::string, std::string>>& part,
                const std::vector<std::pair<std::string, std::string>>& whole)
{
  return std::all_of(part.begin(), part.end(), [&](const auto& kv) { return env_has(whole, kv); });
}

// Flag words, whitespace and '=' folded to one space, padded: " --a 1 --b ".
std::string flag_words(std::string_view text)
{
  std::string out = " ";
  for (const char c : text) {
    const bool space = c == ' ' || c == '\t' || c == '\n' || c == '=';
    if (!space) {
      out += c;
    } else if (out.back() != ' ') {
      out += ' ';
    }
  }
  if (out.back() != ' ') {
    out += ' ';
  }
  return out;
}

// Every "--flag [value]" of `flags` appears in the final flags.
bool flags_within(std::string_view flags, std::string_view final_flags)
{
  const std::string mine = flag_words(flags);
  const std::string theirs = flag_words(final_flags);
  std::size_t pos = mine.find(" --");
  if (pos == std::string::npos) {
    return false;
  }
  while (pos != std::string::npos) {
    const std::size_t next = mine.find(" --", pos + 1);
    const std::string group =
        mine.substr(pos, (next == std::string::npos ? mine.size() - 1 : next) - pos) + " ";
    if (theirs.find(group) == std::string::npos) {
      return false;
    }
    pos = next;
  }
  return true;
}

bool has_word(std::string_view text, std::string_view word)
{
  const auto ident = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  };
  for (std::size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    const std::size_t end = at + word.size();
    if ((at == 0 || !ident(text[at - 1])) && (end == text.size() || !ident(text[end]))) {
      return true;
    }
  }
  return false;
}

// The Director's note names the attempt: its candidate dir, every variable
// of its env change, or a part of the note ("stack = … + tuned MoE config +
// …", split at '+', ';' and ',') that names the same known lever
// (domain::known_lever) as the attempt's lever.
bool note_names(std::string_view note, const DerivedAttempt& att,
                const std::vector<std::pair<std::string, std::string>>& env)
{
  if (note.empty()) {
    return false;
  }
  if (att.record.candidate && att.record.candidate->starts_with("cand_") &&
      has_word(note, *att.record.candidate)) {
    return true;
  }
  if (!env.empty() &&
      std::all_of(env.begin(), env.end(), [&](const auto& kv) { return has_word(note, kv.first); })) {
    return true;
  }
  const std::string mine = domain::known_lever(att.record.lever, domain::to_string(att.record.op_class));
  if (mine.empty()) {
    return false;
  }
  std::size_t pos = 0;
  while (pos <= note.size()) {
    const std::size_t end = std::min(note.find_first_of("+;,", pos), note.size());
    if (domain::known_lever(note.substr(pos, end - pos), domain::to_string(att.record.op_class)) == mine) {
      return true;
    }
    pos = end + 1;
  }
  return false;
}

// A candidate is deployed too when the Director's final environment or
// config carries its env / flag change, or its note names it: a tune
// deployed by env beside the overlay (docs/attempt-model.md). Of candidates
// on one kernel whose env changes nest (a swap and the swap plus its tuned
// table), only the fuller change is deployed; of equal ones, the one already
// deployed, else the one an accepted list cites, else the last in ledger
// order.
void deploy_by_environment(DerivedRun& run, const DirectorFinal& final)
{
  const auto final_env = env_assignments(final.env);
  struct Named {
    DerivedAttempt* att;
    std::vector<std::pair<std::string, std::string>> env;
  };
  std::vector<Named> named;
  for (auto& att : run.attempts) {
    if (att.kind != domain::AttemptKind::kernel || !att.measured) {
      continue;
    }
    auto env = env_assignments(att.record.apply_env.value_or(""));
    const bool flags = att.record.apply_flags && !att.record.apply_flags->empty();
    const bool carried = (!env.empty() || flags) && (env.empty() || env_within(env, final_env)) &&
                         (!flags || flags_within(*att.record.apply_flags, final.flags));
    if (att.deployed || carried || note_names(final.note, att, env)) {
      named.push_back({&att, std::move(env)});
    }
  }
  const auto better = [](const DerivedAttempt& a, const DerivedAttempt& b) {
    if (a.deployed != b.deployed) {
      return a.deployed;
    }
    if (a.in_accepted_list != b.in_accepted_list) {
      return a.in_accepted_list;
    }
    return a.ledger_order > b.ledger_order;
  };
  for (const auto& n : named) {
    if (n.att->deployed) {
      continue;
    }
    const bool outranked = std::any_of(named.begin(), named.end(), [&](const Named& o) {
      if (o.att == n.att || o.att->record.short_name != n.att->record.short_name || n.env.empty() ||
          !env_within(n.env, o.env)) {
        return false;
      }
      return !env_within(o.env, n.env) || better(*o.att, *n.att); // a fuller change, or the same one
    });
    if (!outranked) {
      n.att->deployed = true;
    }
  }
}

// A post roofline measured the kernel as deployed: with one deployed attempt
// on that kernel its efficiency is that attempt's; with several (a stack:
// an overlay and a tune the final environment carries) it measured them
// together, so each is post_measured and cites it but none gets its
// efficiency ("post measured a stack of N levers", store/runs.cpp).
void credit_post_rooflines(DerivedRun& run)
{
  for (const auto& doc : run.docs) {
    if (doc.superseded || !domain::is(doc.doc.source_kind, domain::SourceKind::measured) ||
        doc.doc.phase != std::optional<std::string>("post")) {
      continue;
    }
    for (const auto& v : doc.doc.verdicts) {
      if (!v.roofline_efficiency_pct) {
        continue;
      }
      std::vector<DerivedAttempt*> deployed;
      for (auto& att : run.attempts) {
        if (att.deployed && att.measured && matches(v, doc.doc.task, kernel_ids(att))) {
          deployed.push_back(&att);
        }
      }
      for (DerivedAttempt* att : deployed) {
        if (deployed.size() == 1) {
          att->post_efficiency = *v.roofline_efficiency_pct / 100.0;
          att->profiler_hbm_undercount = att->profiler_hbm_undercount || v.profiler_hbm_undercount;
        }
        att->post_measured = true;
        att->sources.push_back({doc.source_id, v.json_pointer});
      }
    }
  }
}

// Flag the measured verdicts whose profiler under-counts HBM bytes on the
// run's gfx (domain::profiler_undercounts_hbm; an unknown gfx or profiler
// version flags none). A verdict whose document states no tool version takes
// the run's profiler: the first `rocprof-compute` row the stack clues state
// with a version (env_info.txt first, then the other roofline documents and
// the install record, in file order). The verdict's own profiler_version stays
// empty: the flag says which profiler decided, docs/playbook.md "Profiler".
void flag_profiler_bias(DerivedRun& run, const std::vector<SourcedClues>& stack_clues)
{
  const auto& gfx = run.run.env.gfx;
  std::optional<std::string> run_profiler;
  for (const auto& clue : stack_clues) {
    for (const auto& row : clue.clues.packages) {
      if (!run_profiler && row.package == k_stack_profiler && domain::find_profiler_version(row.raw)) {
        run_profiler = row.raw;
      }
    }
  }
  for (auto& doc : run.docs) {
    if (!domain::is(doc.doc.source_kind, domain::SourceKind::measured)) {
      continue;
    }
    for (auto& v : doc.doc.verdicts) {
      const auto& version = v.profiler_version ? v.profiler_version : run_profiler;
      v.profiler_hbm_undercount =
          gfx && version && domain::profiler_undercounts_hbm(domain::gfx_key(*gfx), *version);
    }
  }
}

// Identity that env_report.json lacks, from workflow_return.json (with a note).
void fill_identity(DerivedRun& run, const EnvReport& wf)
{
  auto& env = run.run.env;
  std::vector<std::string> taken;
  const auto take = [&](auto& into, const auto& from, const char* name) {
    if (!into && from) {
      into = from;
      taken.emplace_back(name);
    }
  };
  take(env.model, wf.model, "model");
  take(env.backend, wf.backend, "backend");
  take(env.isl, wf.isl, "isl");
  take(env.osl, wf.osl, "osl");
  take(env.conc, wf.conc, "conc");
  take(env.tp, wf.tp, "tp");
  if (!taken.empty()) {
    std::string names;
    for (const auto& t : taken) {
      names += (names.empty() ? "" : ", ") + t;
    }
    run.warnings.push_back(
        Warning{"workflow_return.json", "",
                fmt::format("env_report.json lacks {}; taken from workflow_return.json", names), true});
  }
}

// Each candidate's implementation signature (signature.hpp), and a citation
// of every stored file it was computed from.
void sign_candidates(DerivedRun& run, const std::vector<ImplementationFile>& files, std::string_view dir_name)
{
  if (files.empty()) {
    return;
  }
  for (auto& att : run.attempts) {
    auto sig = candidate_signature(att.record, files, dir_name);
    if (!sig) {
      continue;
    }
    att.record.content_signature = std::move(sig->signature);
    for (const auto id : sig->source_ids) {
      const bool cited = std::any_of(att.sources.begin(), att.sources.end(), [&](const Citation& c) {
        return c.source_id == id && c.json_pointer.empty();
      });
      if (!cited) {
        att.sources.push_back({id, ""});
      }
    }
  }
}

// The directory part of a '/'-separated rel_path ("" at the top).
std::string parent_dir(std::string_view rel_path)
{
  const auto slash = rel_path.rfind('/');
  return slash == std::string_view::npos ? std::string() : std::string(rel_path.substr(0, slash));
}

// A bench summary that lists no samples takes them from the bench_runs.jsonl
// in its directory (the rounds' throughputs on its metric_basis), and its
// spread is decided again from them (decide_spread; warnings on the summary).
void samples_from_rounds(
    DerivedRun& run, const std::vector<std::string>& bench_paths,
    const std::map<std::string, std::pair<std::string, std::vector<BenchRound>>, std::less<>>& rounds)
{
  for (std::size_t i = 0; i < run.bench.size(); ++i) {
    auto& b = run.bench[i].second;
    if (!b.throughput_samples.empty()) {
      continue;
    }
    const auto it = rounds.find(parent_dir(bench_paths[i]));
    if (it == rounds.end()) {
      continue;
    }
    b.throughput_samples = bench_round_samples(it->second.second, b.metric_basis);
    b.throughput_spread_pct = decide_spread(b.throughput_spread_pct, b.spread_pointer, b.throughput_samples,
                                            bench_paths[i], run.warnings);
  }
}

// The validated parse of `src` when `files` holds one for the same path and
// content (moved out: each is derived once).
std::optional<ParsedArtifact> take_parsed(ParsedFiles* files, const StoredSource& src)
{
  if (files == nullptr) {
    return std::nullopt;
  }
  const auto it = files->find(src.rel_path);
  if (it == files->end() || !it->second.parsed) {
    return std::nullopt;
  }
  // A known source_id identifies the stored version (found or stored by
  // this file's sha256) without comparing the text.
  if (it->second.source_id != 0 ? it->second.source_id != src.source_id : it->second.text != src.raw) {
    return std::nullopt;
  }
  std::optional<ParsedArtifact> out = std::move(it->second.parsed);
  it->second.parsed.reset();
  return out;
}

} // namespace

Result<ParsedArtifact> parse_artifact(const ArtifactKind& kind, const std::string& rel_path,
                                      std::string_view text, std::vector<Warning>& warnings)
{
  if (domain::is(kind.kind, domain::Artifact::env_info)) {
    ParsedArtifact p; // free text: never fails
    p.stack = stack_from_env_info(text, rel_path);
    return p;
  }
  if (domain::is(kind.kind, domain::Artifact::patch) ||
      domain::is(kind.kind, domain::Artifact::tuned_table)) {
    ParsedArtifact p; // bytes as they are: never fails
    p.implementation_text = std::string(text);
    return p;
  }
  if (domain::is(kind.kind, domain::Artifact::bench_runs)) {
    ParsedArtifact p; // one JSON object a line; a malformed line is skipped with a warning
    std::vector<BenchRound> rounds;
    RFDB_TRY_ASSIGN(rounds, parse_bench_runs(text, rel_path, warnings));
    p.bench_rounds = std::move(rounds);
    return p;
  }
  auto parsed_json = parse_json_document(text);
  if (!parsed_json) {
    return fail(std::move(parsed_json).error().with_context(rel_path));
  }
  const json& doc = parsed_json->doc;
  ParsedArtifact p;
  p.duplicates = std::move(parsed_json->duplicates);
  const auto& k = kind.kind;
  auto take = [&](auto result, auto& slot) -> Result<void> {
    if (!result) {
      return fail(std::move(result).error());
    }
    slot = std::move(*result);
    return {};
  };
  if (domain::is(k, domain::Artifact::env_report)) {
    RFDB_TRY(take(parse_env_report(doc, rel_path, warnings), p.env));
  } else if (domain::is(k, domain::Artifact::bench_summary)) {
    RFDB_TRY(take(parse_bench_summary(doc, rel_path, warnings), p.bench));
    p.bench->role = kind.role;
    p.bench->label = kind.label;
  } else if (domain::is(k, domain::Artifact::profile_topn)) {
    RFDB_TRY(take(parse_profile_topn(doc, rel_path, warnings), p.topn));
    p.topn->round = kind.label;
    p.topn->round_order = domain::round_order(kind.label);
  } else if (domain::is(k, domain::Artifact::profile_roofline)) {
    RFDB_TRY(take(parse_profile_roofline(doc, rel_path, warnings), p.doc));
    p.doc->round = kind.label;
    for (auto& v : p.doc->verdicts) {
      v.round = kind.label;
      v.round_order = domain::round_order(kind.label);
    }
  } else if (domain::is(k, domain::Artifact::measured_roofline)) {
    RFDB_TRY(take(parse_measured_roofline(doc, rel_path, warnings), p.doc));
    p.stack = stack_from_roofline(doc, rel_path);
  } else if (domain::is(k, domain::Artifact::roofline_install)) {
    p.stack = stack_from_install(doc, rel_path);
  } else if (domain::is(k, domain::Artifact::integrate_result)) {
    RFDB_TRY(take(parse_integrate_result(doc, rel_path, warnings), p.attempts));
  } else if (domain::is(k, domain::Artifact::opbench_result)) {
    RFDB_TRY(take(parse_opbench_result(doc, rel_path, warnings), p.attempts));
  } else if (domain::is(k, domain::Artifact::sweep_results)) {
    RFDB_TRY(take(parse_sweep_results(doc, rel_path, warnings), p.attempts));
  } else if (domain::is(k, domain::Artifact::workflow_return)) {
    std::optional<WorkflowReturn> wr;
    RFDB_TRY(take(parse_workflow_return(doc, rel_path, warnings), wr));
    p.outcome = std::move(wr->outcome);
    p.attempts = std::move(wr->attempts);
    p.identity = std::move(wr->identity);
  } else if (domain::is(k, domain::Artifact::director_validation)) {
    RFDB_TRY(take(parse_director_validation(doc, rel_path, warnings), p.outcome));
    p.outcome_is_director = true;
    p.director_final = read_director_final(doc);
  }
  return p;
}

Result<void> validate_artifact(const ArtifactKind& kind, const std::string& rel_path, const std::string& text,
                               std::vector<Warning>& warnings)
{
  auto parsed = parse_artifact(kind, rel_path, text, warnings);
  if (!parsed) {
    return fail(std::move(parsed).error());
  }
  return {};
}

Result<std::vector<AttemptRecord>> attempt_records(const ArtifactKind& kind, const std::string& rel_path,
                                                   const std::string& text)
{
  std::vector<Warning> ignored;
  auto parsed = parse_artifact(kind, rel_path, text, ignored);
  if (!parsed) {
    return fail(std::move(parsed).error());
  }
  return std::move(parsed->attempts);
}

Result<DerivedRun> derive_run(const std::string& run_id, const std::string& dir_basename,
                              const std::vector<StoredSource>& sources, ParsedFiles* parsed_files)
{
  DerivedRun run;
  run.run.run_id = run_id;
  run.run.run_date = run_date_from_dir_name(run_id);
  if (!run.run.run_date) {
    run.run.run_date = run_date_from_dir_name(dir_basename);
  }
  std::optional<RunOutcome> workflow_outcome, director_outcome;
  std::optional<EnvReport> workflow_identity;
  std::optional<DirectorFinal> director_final;
  std::vector<RecordIn> records;
  std::vector<Warning> file_warnings;
  std::vector<SourcedClues> stack_clues;
  std::string env_source = "env_report.json";
  std::vector<ImplementationFile> implementation_files;
  std::vector<std::string> bench_paths; // rel_path of each run.bench entry
  std::map<std::string, std::pair<std::string, std::vector<BenchRound>>, std::less<>>
      bench_rounds; // by directory: (rel_path, rounds) of its bench_runs.jsonl
  for (const auto& src : sources) {
    // Files were validated (and their warnings reported) when they were
    // stored; only what the run as a whole yields is run.warnings.
    ParsedArtifact p;
    if (auto cached = take_parsed(parsed_files, src)) {
      p = std::move(*cached);
    } else if (src.text_elided) {
      return fail(ErrorCode::internal, fmt::format("{} (source_id {}): text not loaded and no parse kept",
                                                   src.rel_path, src.source_id));
    } else {
      auto parsed = parse_artifact(src.kind, src.rel_path, src.raw, file_warnings);
      if (!parsed) {
        return fail(std::move(parsed).error());
      }
      p = std::move(*parsed);
    }
    if (src.superseded && !domain::is(src.kind.kind, domain::Artifact::profile_roofline)) {
      continue; // only the current version of other kinds is derived
    }
    if (p.env) {
      run.run.env = std::move(*p.env);
      env_source = src.rel_path;
    }
    if (!p.stack.packages.empty() || !p.stack.profiler_paths.empty()) {
      stack_clues.push_back(SourcedClues{src.rel_path, std::move(p.stack)});
    }
    if (p.outcome) {
      (p.outcome_is_director ? director_outcome : workflow_outcome) = std::move(*p.outcome);
    }
    if (p.bench) {
      run.bench.emplace_back(src.source_id, std::move(*p.bench));
      bench_paths.push_back(src.rel_path);
    }
    if (p.bench_rounds) {
      bench_rounds[parent_dir(src.rel_path)] = {src.rel_path, std::move(*p.bench_rounds)};
    }
    if (p.topn) {
      run.rounds.emplace_back(src.source_id, std::move(*p.topn));
    }
    if (p.doc) {
      run.docs.push_back(DerivedDoc{src.source_id, std::move(*p.doc), src.superseded});
    }
    if (p.identity) {
      workflow_identity = std::move(*p.identity);
    }
    if (p.director_final) {
      director_final = std::move(*p.director_final);
    }
    for (auto& a : p.attempts) {
      records.push_back(RecordIn{std::move(a), src.source_id, src.rel_path});
    }
    if (p.implementation_text) {
      implementation_files.push_back(
          ImplementationFile{src.source_id, src.rel_path, src.kind.label, std::move(*p.implementation_text),
                             domain::is(src.kind.kind, domain::Artifact::tuned_table)});
    }
  }
  samples_from_rounds(run, bench_paths, bench_rounds);
  {
    // env_info.txt first: the file that lists packages outranks the profiler's own records.
    std::stable_partition(stack_clues.begin(), stack_clues.end(),
                          [](const SourcedClues& c) { return c.rel_path == "env_info.txt"; });
    flag_profiler_bias(run, stack_clues);
  }
  run.attempts = build_attempts(std::move(records), known_kernels(run), run.warnings);
  for (auto& att : run.attempts) {
    infer_round(run, att);
    join_prediction(run, att);
  }
  choose_deployed(run);
  if (director_final) {
    deploy_by_environment(run, *director_final);
  }
  credit_post_rooflines(run);
  sign_candidates(run, implementation_files, dir_basename.empty() ? std::string_view(run_id) : dir_basename);
  RunOutcome outcome = workflow_outcome.value_or(RunOutcome{});
  if (director_outcome) {
    outcome = overlay_outcome(std::move(outcome), *director_outcome);
  }
  for (const auto& [sid, b] : run.bench) {
    if (domain::is(b.role, domain::BenchRole::baseline) && !outcome.baseline_throughput_tok_s) {
      outcome.baseline_throughput_tok_s = b.throughput_tok_s_median;
    }
    if (domain::is(b.role, domain::BenchRole::validation_final) && !outcome.final_throughput_tok_s) {
      outcome.final_throughput_tok_s = b.throughput_tok_s_median;
    }
  }
  if (!run.run.env.model && outcome.model) {
    run.run.env.model = outcome.model;
  }
  if (workflow_identity) {
    fill_identity(run, *workflow_identity);
  }
  if (!run.run.env.tp && director_final && director_final->tp) {
    run.run.env.tp = director_final->tp;
    run.warnings.push_back(Warning{"director_e2e_validation.json", "/serving_config/tp",
                                   "env_report.json states no tp; taken from the Director's serving_config",
                                   true});
  }
  for (auto& att : run.attempts) {
    att.validation_class = domain::canonical<domain::ValidationClass>(outcome.validation_class);
    att.validation_speedup = outcome.throughput_speedup;
  }
  run.run.outcome = std::move(outcome);
  run.stack = assemble_stack(run.run.env, env_source, stack_clues);
  return run;
}

} // namespace rfdb::ingest
