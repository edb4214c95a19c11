// `rfdb lookup`: the best known levers for one kernel on one GPU (issue 31, docs/lookup.md).
//
// The evidence is a list of LookupCandidate from two sources (lookup_store.cpp): the stored
// runs' measured attempts (run_lookup_candidates) and GEAK kb records (kb_lookup_candidates).
// Pure: no database, no clock.
//
// Rules (docs/lookup.md):
// - Key resolution, like GEAK's reads: the kernel names of the evidence equal to KERNEL
//   (exact); else those equal to it folded (lower case, `_`, `-`, `.` and spaces removed:
//   normalized); else a miss that names up to 5 nearest kernel names (smallest edit distance of
//   the folded names, then most shared `_`/`-`/`.`/space tokens, then name) — never an answer
//   for another kernel.
// - Filters: gfx equal (lower case); --backend equal to the lever's backend (any case; a lever
//   that states none matches); --dtype by GEAK's precision rule (precision_matches); --model a
//   part of the model name (any case), --workload isl/osl/conc equal (unstated kept); --shape /
//   --case match a candidate stating that shape / case, or stating none, and a note per source
//   says when the filter could not narrow it. Kb e2e-lane candidates only with --model/--workload.
// - A lever is one lever key (domain::lever_key) of the resolved kernel; a kb record joins the
//   lever of a run attempt with its content signature, else the kb records of one signature are
//   one lever. It is listed when one of its candidates wins (report::in_what_works for runs, a
//   speedup > 1 for kb records) or one of its kb records is retired.
// - Order: not retired, measured, tier (★★★ first), validated or reproduced (≥ 2), median
//   isolated speedup, median e2e gain, reproductions, lever key.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::report {

// One measured attempt as lookup sees it, whatever its source.
struct LookupCandidate {
  std::string source = "run"; // run | kb
  std::string kernel;         // the kernel's name as recorded (Top-N short_name)
  std::string gfx;            // lower case
  std::string backend;        // the lever's backend (triton, ck, aiter …); "" = not stated
  std::string dtype;          // the model's precision as recorded (fp8, int4 …); "" = not stated
  std::string model;
  std::optional<int> isl, osl, conc;
  std::vector<std::string> shapes; // "M,N,K" the evidence states; empty = not stated
  std::vector<std::string> cases;  // case names the evidence states; empty = not stated
  std::string lever;               // as recorded
  std::string lever_key;           // domain::lever_key
  std::string lever_kind;          // config | backend | tuning | authored | …
  // How to apply it: kind (env | flag | patch | tuned_table | other) and text (the env
  // binding, the flag, or the stored file's run-relative path).
  std::string apply_kind;
  std::string apply;
  std::vector<std::string> files; // stored files holding it (run-relative paths)
  // A patch signed by one section of a stored diff (report::signed_patch): the file that section
  // changes and its lines in files.front() (1-based); "" = the files whole.
  std::string apply_section;
  std::size_t apply_first_line = 0, apply_last_line = 0;
  std::optional<double> isolated_speedup; // × over baseline
  std::optional<double> e2e_delta_pct;    // percent, signed
  bool win = false;                       // a What works finding (report::in_what_works)
  bool clean = false;                     // its own A/B gate accepted an isolated and an e2e win
  bool verified_e2e = false;              // its run's Director validation won and includes it
  bool validation_lost = false;
  std::optional<double> validation_speedup; // × of that validation
  std::string content_signature;            // csha:/asha: or ""
  std::string run_id;                       // the source id (a run id)
  std::string attempt_key;                  // the attempt within it
  std::string date;                         // YYYY-MM-DD of the source
  std::string stack;                        // "vllm 0.26.1.dev37+g9c1d2e4.rocm712" of its run
  std::string rocm;                         // ROCm release of its run ("" = unknown)
  // Source "kb" (a GEAK kb record, store::KbRecord; run_id and attempt_key are ""):
  std::string kb_record;               // its record_key (session id or exp id)
  std::string kb_lane;                 // kernel | experience | e2e
  std::vector<std::string> techniques; // as written
  int kb_reproductions = 0;            // its own `reproductions` (absent = 1: the record itself)
  int validations = 0, failures = 0, not_reproduced = 0, inapplicable = 0; // its ledger counters
  bool kb_validated = false; // the record says `validated: true`
  bool retired = false;      // domain::record_retired_why: the ledger rule, retained: false, retired_reason
  std::string retired_why;   // why, when retired
  std::optional<double> throughput_tok_s, baseline_tok_s; // e2e lane: measured and baseline tokens/s
};

struct LookupQuery {
  std::string kernel;
  std::string gfx;
  std::optional<std::string> backend, dtype, shape, case_name, model;
  std::optional<int> isl, osl, conc;
};

// One lever in the answer.
struct LookupLever {
  std::string lever; // the newest winning attempt's lever text
  std::string lever_key;
  std::string lever_kind;
  std::string apply_kind;
  std::string apply;
  std::vector<std::string> files;
  std::string apply_section; // as LookupCandidate's
  std::size_t apply_first_line = 0, apply_last_line = 0;
  std::string export_command; // `rfdb export --raw RUN --out DIR` when files are stored
  std::string show_command;   // kb records: `rfdb show --finding ID` (the record, its ledger, its files)
  std::optional<double> iso_median, iso_min, iso_max; // ×, over its wins
  std::optional<double> e2e_median_pct, e2e_min_pct, e2e_max_pct;
  std::vector<std::string> refs;       // RUN#ATTEMPT of every win, newest first
  std::vector<std::string> runs;       // distinct runs of its wins, newest first
  int reproductions = 0;               // independent runs that measured a win of it
  std::vector<std::string> signatures; // its wins' csha:/asha:, sorted unique
  int stars = 1;
  std::string tier_reason;
  std::string freshness; // newest win date
  std::string stack;     // the stack of that newest run
  int attempts = 0;      // every attempt of this lever on the key (wins and not)
  // Its kb records (newest first) and their ledger counters summed.
  std::vector<std::string> kb_records; // record keys
  std::vector<std::string> sources;    // "run RUN#ATTEMPT" | "kb record KEY", newest first
  std::vector<std::string> techniques; // of its kb records, sorted unique
  int validations = 0, failures = 0, not_reproduced = 0, inapplicable = 0;
  bool retired = false;                                   // one of its kb records is retired: listed last
  std::string retired_why;                                // "KEY: why"
  bool measured = false;                                  // a win states an isolated or e2e figure
  std::optional<double> throughput_tok_s, baseline_tok_s; // e2e lane, its newest kb record
};

enum class KeyMatch { exact, normalized, miss };

struct LookupAnswer {
  KeyMatch match = KeyMatch::miss;
  std::vector<std::string> kernels;   // the names resolved (exact / normalized)
  std::vector<std::string> nearest;   // on a miss: up to 5 nearest kernel names
  std::vector<std::string> other_gfx; // gfx with evidence for the kernels, when none on the query's
  std::vector<LookupLever> levers;    // best first
  int attempts = 0;                   // run attempts on the key after the filters
  int kb_records = 0;                 // kb record candidates on the key after the filters
  // What a filter could not narrow: "kb records carry no shape; not narrowed" (one line per
  // source and filter, when none of that source's candidates on the key states it).
  std::vector<std::string> notes;
};

// GEAK's kernel-name fold: lower case, `_`, `-`, `.` and whitespace removed.
std::string fold_kernel_name(std::string_view name);
// GEAK's `_norm_precision` (GEAK-KB §3.4): lower case, runs of non-alphanumerics → `_`,
// the leading token aliased (float8, f8 → fp8; float16, f16, half → fp16; bfloat16, bf →
// bf16; float32, f32, float → fp32).
std::string normalize_precision(std::string_view dtype);
// The precision filter: unstated on either side matches; equal matches; a base dtype matches
// its refinements both ways on the `_` boundary (fp8 ~ fp8_w8a8, not fp8x nor fp16).
bool precision_matches(std::string_view wanted, std::string_view stated);

// A well-formed --shape (docs/lookup.md): 1 to 4 positive decimal integers (M,N,K) separated by
// `,` or `x` (any case; no spaces, no empty part), surrounding whitespace ignored; returned in
// the comma form the evidence states ("16x4096x4096" → "16,4096,4096", "016" → "16"). nullopt
// when malformed (a zero, a sign, a non-digit, more than 4 parts, a part beyond 2^31 − 1).
std::optional<std::string> normalize_shape(std::string_view shape);
// A well-formed --dtype (docs/lookup.md): a precision identifier as GEAK's precision filter reads
// it — a letter, then letters and digits, in runs joined by single `_` or `-` (fp8, bf16,
// FP8-w8a8, float8_e4m3fn, int4_w4a16), at most 32 characters.
bool well_formed_dtype(std::string_view dtype);

LookupAnswer lookup(const LookupQuery& query, const std::vector<LookupCandidate>& candidates);

} // namespace rfdb::report
