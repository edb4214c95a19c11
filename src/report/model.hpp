// Input model of `rfdb report` (docs/playbook.md, issues 4 and 5).
//
// report/from_store (ReportInputBuilder) fills a ReportInput from the
// database (runs, attempts joined to their predictions, per-round rankings,
// head verdicts, imported legacy findings and the calibrated priors); the
// rest of report/ renders it without touching the database, files or the
// clock. Conventions: dates are "YYYY-MM-DD";
// an empty string means "absent"; std::nullopt means an absent number.
#pragma once

#include "calibrate/priors.hpp"
#include "calibrate/rescore.hpp"
#include "domain/knowledge_kind.hpp"
#include "domain/noise.hpp"
#include "domain/prediction.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rfdb::report {

class AttemptDigest; // report/digest.hpp
class HeadDigest;    // report/digest.hpp

// One ingested run (retracted runs are left out by the store query).
struct RunInfo {
  std::string run_id;
  std::string run_date; // YYYY-MM-DD
  std::string model;
  std::string gfx;
  std::string backend;
  std::optional<int> isl;
  std::optional<int> osl;
  std::optional<int> conc;
  std::string validation_class; // win | no_win | flagged | unknown
  std::string model_dtype;      // as the run's env report states it (int4, bf16, fp8 …); "" = unknown
  // The run's own measured e2e spread (percent; its widest reference bench
  // spread, migration 0015); nullopt when no bench summary states one.
  std::optional<double> measured_spread_pct;
};

// One lever attempt on one kernel, joined to the verdict that chose it.
struct AttemptInfo {
  std::string run_id;
  std::string run_date; // YYYY-MM-DD
  std::string gfx;
  std::string model;
  std::optional<int> isl;
  std::optional<int> osl;
  std::optional<int> conc;
  std::string short_name; // kernel
  std::string op_class;   // gemm | moe | attn | elementwise | unknown
  std::string regime;     // decode | prefill | … ; "" = unknown
  std::string lever;      // free text as the run recorded it
  std::string lever_kind; // config | backend | tuning | authored | fusion | precision | other
  std::string backend;
  std::optional<double> isolated_speedup;   // × over baseline
  std::optional<double> e2e_delta_pct;      // percent, signed
  std::string gate;                         // accepted | stack | rejected | incomplete | ""
  std::string verdict;                      // confirmed | partial | dead_end | flagged | incomplete | unknown
  std::string run_validation_class;         // the run's validation_class
  std::optional<double> validation_speedup; // × the run's Director throughput_speedup
  std::string attempt_key;                  // the attempt's id within its run (RUN#KEY)
  std::string kind = "kernel";              // kernel | config
  std::string candidate;                    // overlay candidate / sweep trial id
  std::string content_signature;            // GEAK csha:/asha: of its diff or tuned table; "" = unsigned
  bool measured = true;                     // false: a ledger row that recorded 0 / 0
  bool deployed = false;                    // the final overlay carries it
  std::string output_parity;                // pass | fail | n/a | ""
  std::string parity_kind;
  std::string reason;            // the integrate reason, verbatim
  std::string reject_reason;     // no_engagement | parity_regression | … | ""
  domain::Prediction prediction; // the verdict the attempt was made on
  // The band its e2e delta is judged against: the run's measured spread
  // when wider than the fixed k_e2e_noise_pct (domain::run_e2e_band).
  domain::E2eBand e2e_band = domain::run_e2e_band(std::nullopt);
  // The run's place in ReportInput::runs, a hint that spares a lookup of
  // run_id (UINT32_MAX: none given).
  std::uint32_t run_index = UINT32_MAX;
};

// The top kernel of one profiling round by pct_gpu_time and by expected gain.
struct RoundRanking {
  std::string run_id;
  int round = 0;           // sort key of the round (ingest round_order: 0 < config < head < 1 < 2 …)
  std::string round_label; // the R of profile/round_<R>, as shown; "" → the number
  std::string top_by_pct;  // short_name
  std::string top_by_gain; // short_name
  std::optional<double> top_by_pct_pct_gpu_time; // percent 0–100
  std::optional<double> top_by_pct_expected_gain_pct;
  std::optional<double> top_by_gain_pct_gpu_time;
  std::optional<double> top_by_gain_expected_gain_pct;
  // The run's place in ReportInput::runs, a hint that spares a lookup of
  // run_id (UINT32_MAX: none given).
  std::uint32_t run_index = UINT32_MAX;
};

// One roofline verdict on one head kernel in one round.
struct HeadVerdict {
  std::string run_id;
  std::string run_date;
  std::string gfx;
  int round = 0;           // sort key of the round (see RoundRanking)
  std::string round_label; // the R of profile/round_<R>
  std::string short_name;
  std::string op_class;
  double pct_gpu_time = 0.0;                   // percent 0–100
  std::optional<double> roofline_pct;          // fraction 0–1
  std::optional<double> target_eff;            // fraction 0–1
  std::optional<double> attainable_speedup;    // ×
  std::optional<double> expected_e2e_gain_pct; // percent
  std::string headroom_class;                  // saturated | moderate | underperforming | unknown
  std::vector<std::string> byte_reduction_levers;
  bool followed_by_byte_reduction = false; // a fusion/precision/byte-reducing attempt followed
  bool is_newest_run = false;
  std::string source_kind = "analytic"; // measured: a baseline roofline outranked the analytic verdict
  // measured: the engine's own figures beside rfdb's band (headroom_ratio ×
  // against its empirical ceiling, guidance, observed_limit), and whether it
  // disputes a saturated band (domain::is_disputed): then the head is listed
  // as disputed, never rerouted.
  std::optional<double> headroom_ratio;
  std::string guidance;
  std::string observed_limit;
  bool disputed = false;
  // The run's place in ReportInput::runs, a hint that spares a lookup of
  // run_id (UINT32_MAX: none given).
  std::uint32_t run_index = UINT32_MAX;
};

// A legacy card, playbook line or proposal, normalized by ingest (issue 5).
struct ImportedFinding {
  std::string origin;   // card | playbook | proposal
  std::string identity; // card file name or playbook line identity
  std::string name;
  std::string op_class = "unknown"; // gemm | moe | attn | elementwise | config | method | unknown
  std::string gfx;                  // "" = none named
  std::string regime = "unknown";   // decode | prefill | both | unknown
  std::string lever;
  std::string effect;
  std::optional<int> stars;      // 1..3
  std::optional<double> iso_min; // × over baseline
  std::optional<double> iso_max;
  std::optional<double> e2e_min_pct; // percent, signed
  std::optional<double> e2e_max_pct;
  std::optional<int> confirms;
  std::string last_seen;
  std::string lifecycle = "active"; // active | archived
  std::vector<std::string> sources_cited;
  std::vector<std::string> cautions;
  std::vector<std::string> dead_ends; // `- dead-end:` bullets (imported negatives)
  std::string generator;              // "rfdb" when `rfdb report --cards` wrote the card
  std::string key_raw;                // the card's `key` as written
  std::string type;                   // routing | lever | method | anti-pattern | …
  std::string apply;                  // `- apply:` text
  std::string description;            // card `description`
  std::string text;                   // card body / playbook line text
  std::string lever_key;              // stated by a card `rfdb report --cards` wrote, else ""
  // What it says (domain::classify_knowledge, docs/playbook.md): only a
  // measured positive may join What works; in_noise and negative become
  // Cautions; method, seam_fact and routing_note go to Methods and seams;
  // archived appears nowhere. iso_*/e2e_* are the figures it read.
  domain::KnowledgeKind kind = domain::KnowledgeKind::routing_note;
  std::string kind_reason;
  std::string title;  // a proposal card's `title` field
  std::string status; // a card's `status` field
};

// One current GEAK kb record (store::KbRecord, docs/kb.md) as the playbook reads it: its identity,
// measured metric, content signature and attestation ledger (rules in report/kb_lines.hpp).
struct KbRecordInfo {
  std::string record_key; // session id or exp id (`rfdb show --finding ID`)
  std::string lane;       // kernel | e2e | experience
  std::string gfx;
  std::string kernel_name, kernel_class, backend; // kernel and experience lanes
  std::string framework, framework_version;       // rocm 7.2, or vllm 0.11.2 (e2e)
  std::string model, precision;                   // e2e lane
  std::string direction;                          // the lever as GEAK states it
  std::string strategy;
  std::optional<double> speedup;          // isolated × (kernel lanes), throughput ratio (e2e)
  std::optional<double> throughput_tok_s; // e2e: tokens/s
  std::optional<double> baseline_tok_s;   // e2e: tokens/s
  std::string content_signature;          // csha:/asha:; "" = none
  int reproductions = 0;                  // GEAK's own count (repeated writes of the same signature)
  int validations = 0, failures = 0, not_reproduced = 0, inapplicable = 0;
  std::vector<std::string> last_outcomes; // the newest tested outcomes, oldest first (at most 3)
  bool retired = false;                   // retained false, retired_reason, or the ledger's retire rule
  std::string retired_why;
  std::string date; // YYYY-MM-DD: verified_on, else the last attestation's date; "" = undated
};

// Everything one `rfdb report` renders.
struct ReportInput {
  std::string as_of; // YYYY-MM-DD, resolved by ReportInputBuilder (domain::resolve_as_of)
  // True when the user gave --as-of: then imported knowledge dated after it
  // is left out too. By default as_of is the newest run date and newer
  // imported knowledge is shown with its own date.
  bool as_of_given = false;
  std::optional<std::string> since;
  std::optional<std::string> gfx_filter;
  std::vector<RunInfo> runs;
  calibrate::PriorsResult priors;
  std::vector<AttemptInfo> attempts;
  // Attempts already scoped and folded as they were read (the store path,
  // which holds no AttemptInfo per attempt); analyze folds `attempts` into
  // it as well. Null: only `attempts`.
  std::shared_ptr<AttemptDigest> attempt_digest;
  std::vector<RoundRanking> rankings;
  // Rounds in scope whose two rankings agreed on a named top kernel, counted
  // instead of listed in `rankings` (the store path).
  int agreed_rounds = 0;
  std::vector<HeadVerdict> heads;
  // Heads already scoped and folded as they were read (the store path);
  // analyze folds `heads` into it as well. Null: only `heads`.
  std::shared_ptr<HeadDigest> head_digest;
  std::vector<ImportedFinding> imported;
  // Current GEAK kb records (record_key order); scoped by gfx only (report/kb_lines.hpp).
  std::vector<KbRecordInfo> kb_records;
  // The routing replay of the newest day with a measured kernel win (calibrate::playbook_replay);
  // nullopt when no run in scope has one.
  std::optional<calibrate::RescoreResult> routing_replay;
};

} // namespace rfdb::report
