// One attempt as the store holds it (an `attempts` row, docs/attempt-model.md):
// the record ingest fills, the run writer inserts and the report, calibration
// and `rfdb show` read back. Its members, and the SQL column lists of the
// queries that write and read it, come from one table:
// store/attempt_fields.def.
#pragma once

#include "domain/prediction.hpp"
#include "domain/vocab.hpp"
#include "store/database.hpp"
#include "util/result.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::store {

// The column types of store/attempt_fields.def.
namespace attempt_column {
using text = std::string;                    // NOT NULL text
using opt_text = std::optional<std::string>; // text or NULL
using real = std::optional<double>;          // REAL or NULL
using flag = bool;                           // INTEGER 0 / 1
using id = std::optional<std::int64_t>;      // INTEGER or NULL
// NOT NULL text, the stored spelling of E (CHECK constraint): the enum.
template <domain::Vocabulary E> using vocab = E;
} // namespace attempt_column

// Which query reads a member (the `readers` of store/attempt_fields.def).
enum class AttemptReader : unsigned {
  report = 1U,    // R: queries/report_attempts.sql
  calibrate = 2U, // C: queries/evidence_attempts.sql
  show = 4U,      // S: queries/run_attempts.sql
};

// Where an attempt's prediction came from: index into the run's docs and
// that doc's verdicts (the writer turns it into pred_verdict_id).
struct VerdictRef {
  std::size_t doc = 0;
  std::size_t verdict = 0;
};

// One file version (and JSON pointer) an attempt cites → `attempt_sources`.
struct Citation {
  std::int64_t source_id = 0;
  std::string json_pointer;
};

// One `attempts` row: every member of store/attempt_fields.def (named like
// its column), the prediction snapshot (the pred_* columns) and, as ingest
// fills it, what the run writer resolves (prediction_verdict) and the
// sources it cites. Speedups × over baseline, deltas and pct_gpu_time
// percent 0–100, roofline_pct / target_eff / post_efficiency fractions.
struct Attempt {
#define RFDB_ATTEMPT_COLUMN(member, type, init, readers) attempt_column::type member = init;
#define RFDB_ATTEMPT_PREDICTION(member, readers)
#include "store/attempt_fields.def"
#undef RFDB_ATTEMPT_COLUMN
#undef RFDB_ATTEMPT_PREDICTION
  domain::Prediction prediction;                // the pred_* columns
  std::optional<VerdictRef> prediction_verdict; // ingest: becomes pred_verdict_id
  std::vector<Citation> citations;              // ingest: the attempt_sources rows
};

// One member of store/attempt_fields.def: its column and the queries that
// read it (AttemptReader bits).
struct AttemptColumn {
  std::string_view column;
  unsigned readers = 0;
};

namespace detail {
constexpr unsigned R = static_cast<unsigned>(AttemptReader::report);
constexpr unsigned C = static_cast<unsigned>(AttemptReader::calibrate);
constexpr unsigned S = static_cast<unsigned>(AttemptReader::show);
} // namespace detail

// Every member, in table order (the order of the generated column lists).
inline constexpr auto k_attempt_columns = [] {
  using namespace detail;
  return std::array{
#define RFDB_ATTEMPT_COLUMN(member, type, init, readers) AttemptColumn{#member, readers},
#define RFDB_ATTEMPT_PREDICTION(member, readers) AttemptColumn{"pred_" #member, readers},
#include "store/attempt_fields.def"
#undef RFDB_ATTEMPT_COLUMN
#undef RFDB_ATTEMPT_PREDICTION
  };
}();

// Bind every member of `a` to its :column parameter (queries/attempt_insert.sql);
// pred_verdict_id is bound as a.pred_verdict_id.
void bind_attempt(Statement& s, const Attempt& a);

// Read the members `reader` selects from the current row of `s` into `a`,
// by position from column `first` (the query's select list starts with the
// generated /*@attempt_select:…*/ list at that position). Strings keep their
// buffers; members the reader does not select are left as they are.
// Errors: db when a vocab<E> column holds text outside E (see
// parse_attempt_vocab).
Result<void> read_attempt(const Statement& s, AttemptReader reader, Attempt& a, int first = 0);

// The error of parse_attempt_vocab: attempts.<column> holds '<text>'.
Error bad_attempt_vocab(std::string_view column, std::string_view text);

// The value of vocabulary E that `column` of an attempts row stores as
// `text` (its exact spelling, domain::parse<E>). Errors: db, naming the
// column and the text, for any other text (NULL is read as ""): the CHECK
// constraints keep such text out, so it means a damaged or foreign store.
template <domain::Vocabulary E> Result<E> parse_attempt_vocab(std::string_view column, std::string_view text)
{
  if (const auto value = domain::parse<E>(text)) {
    return *value;
  }
  return fail(bad_attempt_vocab(column, text));
}

} // namespace rfdb::store
