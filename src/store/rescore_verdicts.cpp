// Reading the profile-round verdicts `rfdb rescore` re-bands (declared in store/rescore_verdicts.hpp).
#include "store/rescore_verdicts.hpp"

#include "rfdb_sql.hpp"

namespace rfdb::store {

Result<std::vector<RescoreVerdict>> load_rescore_verdicts(Database& db,
                                                          const std::optional<std::string>& run_id)
{
  auto prepared = db.prepare(sql::k_rescore_verdicts, "rescore_verdicts");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  Statement& s = *prepared;
  s.bind(":run_id", run_id);
  std::vector<RescoreVerdict> out;
  RFDB_TRY(for_each_row(s, [&](const Statement& row) {
    RescoreVerdict v;
    v.run_id = row.get_text("run_id");
    v.run_date = row.get_opt_text("run_date").value_or("");
    v.gfx = row.get_opt_text("gfx").value_or("");
    v.round = row.get_opt_text("round").value_or("");
    v.round_order = static_cast<int>(row.get_opt_int("round_order").value_or(0));
    v.short_name = row.get_text("short_name");
    v.op_class = row.get_text("op_class");
    v.regime = row.get_opt_text("regime").value_or("");
    v.source_kind = row.get_text("source_kind");
    v.confidence = row.get_text("confidence");
    v.pct_gpu_time = row.get_opt_double("pct_gpu_time");
    v.roofline_pct = row.get_opt_double("roofline_pct");
    v.target_eff = row.get_opt_double("target_eff");
    v.attainable_speedup = row.get_opt_double("attainable_speedup");
    v.expected_e2e_gain_pct = row.get_opt_double("expected_e2e_gain_pct");
    v.headroom_class = row.get_text("headroom_class");
    v.suspect = row.get_int("suspect") != 0;
    v.dispatch_bound = row.get_int("dispatch_bound") != 0;
    out.push_back(std::move(v));
  }));
  return out;
}

Result<std::vector<ReplayRunRef>> list_replay_win_runs(Database& db, const std::string& as_of,
                                                       const std::string& since)
{
  auto prepared = db.prepare(sql::k_replay_win_runs, "replay_win_runs");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  Statement& s = *prepared;
  s.bind(":as_of", as_of);
  if (since.empty()) {
    s.bind(":since", std::nullopt);
  } else {
    s.bind(":since", since);
  }
  std::vector<ReplayRunRef> out;
  RFDB_TRY(for_each_row(s, [&](const Statement& row) {
    out.push_back({row.get_text("run_id"), row.get_opt_text("run_date").value_or(""),
                   row.get_opt_text("gfx").value_or("")});
  }));
  return out;
}

Result<std::vector<Attempt>> load_replay_attempts(Database& db, const std::string& run_id)
{
  auto prepared = db.prepare(sql::k_replay_attempts, "replay_attempts");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  Statement& s = *prepared;
  s.bind(":run_id", run_id);
  std::vector<Attempt> out;
  RFDB_TRY(for_each_row(s, [&](const Statement& row) {
    Attempt a;
    a.run_id = row.get_text("run_id");
    a.short_name = row.get_text("short_name");
    a.round = row.get_opt_text("round");
    a.e2e_delta_pct = row.get_opt_double("e2e_delta_pct");
    a.output_parity = row.get_opt_text("output_parity");
    a.reject_reason = row.get_opt_text("reject_reason");
    out.push_back(std::move(a));
  }));
  return out;
}

} // namespace rfdb::store
