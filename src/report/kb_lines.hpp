// GEAK kb records in the playbook (docs/playbook.md, "GEAK kb records"; issue 31).
//
// Rules (the tests in tests/unit/report/kb_lines_test.cpp pin each one):
// - Same implementation: an attempt of a What works line and a kb record are the same
//   implementation when the attempt's content_signature (csha:/asha:) equals the record's. The
//   record then joins that line as a source (KbSource: its id, ledger counters and the runs of
//   the line that carry the signature — each such run is a reproduction of the record).
// - Retired: a record retired by its own fields (`retained: false`, a retired_reason) or by the
//   ledger's retire rule (domain::record_retired_why: ≥ 2 negatives in the last 3 tested
//   outcomes) never makes or supports a What works line. It always gives a Cautions line
//   (kb_retired) with its negative history: ledger counters, the last tested outcomes and the
//   retired reason. When it matches an attempt of a What works line, the line stays (the run
//   measured it) but names the record as retired and is capped at ★★ (tiers.hpp).
// - Measured positive: a kernel or experience record whose isolated speedup is beyond the
//   isolated noise band (s > 1 + k_iso_noise), or an e2e record whose throughput against its
//   baseline (throughput_tok_s / baseline_tok_s, else its `speedup` ratio) is beyond the e2e
//   band (+k_e2e_noise_pct). A measured positive record that is not retired and matches no line
//   gives a kb-only line; records of one content signature share it.
// - Reuse key of a record: kernel and experience lanes — the op class its kernel name names
//   (domain::op_class_from_top_n), its gfx, regime unknown; e2e lane — class config, its gfx,
//   regime both. Lever text: its `direction`, else `strategy`, else its backend.
// - Date: verified_on, else the day of its last attestation; scoped like imported knowledge.
#pragma once

#include "report/findings.hpp"
#include "report/model.hpp"

#include <optional>
#include <string>

namespace rfdb::report {

// "gfx950 · fused_moe_kernel · triton · rocm 7.2" (kernel, experience lanes) or
// "qwen3-235b-a22b · gfx950 · vllm 0.11.2 · fp8" (e2e lane); empty parts left out.
std::string kb_identity(const KbRecordInfo& record);
// Its reuse key (rules above).
ReuseKey kb_reuse_key(const KbRecordInfo& record);
// Its e2e effect in percent (e2e lane only): throughput over baseline, else the speedup ratio.
std::optional<double> kb_e2e_pct(const KbRecordInfo& record);
// Whether it is a measured positive (rules above); retirement is not considered.
bool kb_measured_positive(const KbRecordInfo& record);
// "kb: 2 validated, 0 failed, 0 not reproduced, 0 inapplicable".
std::string kb_ledger_text(int validations, int failures, int not_reproduced, int inapplicable);

} // namespace rfdb::report
