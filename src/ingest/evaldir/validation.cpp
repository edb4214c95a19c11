// director_e2e_validation.json (FORMATS.md §2.13) → the run's headline
// outcome: baseline and final throughput tok/s, throughput_speedup ×, and
// the Director's validation class.
#include "ingest/evaldir/artifacts.hpp"
#include "ingest/evaldir/common.hpp"

namespace rfdb::ingest {

using detail::add_file;
using detail::k_root;
using detail::require_object;

namespace {

Result<RunOutcome> director_impl(const json& doc, std::string_view rel_path, std::vector<Warning>& warnings)
{
  RFDB_TRY(require_object(doc, k_root));
  RunOutcome o;
  RFDB_TRY_ASSIGN(o.model, get_string(doc, "model_name", k_root));
  RFDB_TRY_ASSIGN(o.baseline_throughput_tok_s,
                  detail::get_non_negative(doc, "baseline_throughput_tok_s", k_root));
  RFDB_TRY_ASSIGN(o.final_throughput_tok_s,
                  detail::get_non_negative(doc, "director_verified_throughput_tok_s", k_root));
  RFDB_TRY_ASSIGN(o.throughput_speedup,
                  detail::get_speedup(doc, "throughput_speedup", k_root, detail::ZeroSpeedup::reject));
  if (!o.throughput_speedup && o.baseline_throughput_tok_s && o.final_throughput_tok_s &&
      *o.baseline_throughput_tok_s > 0.0 && *o.final_throughput_tok_s > 0.0) {
    o.throughput_speedup = *o.final_throughput_tok_s / *o.baseline_throughput_tok_s;
  }
  RFDB_TRY(detail::read_validation(doc, rel_path, warnings, o));
  return o;
}

} // namespace

Result<RunOutcome> parse_director_validation(const json& doc, std::string_view rel_path,
                                             std::vector<Warning>& warnings)
{
  return director_impl(doc, rel_path, warnings).map_error(add_file(rel_path));
}

} // namespace rfdb::ingest
