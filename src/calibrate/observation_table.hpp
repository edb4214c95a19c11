// The estimator's input in compact form (compute_priors_from_table, priors.hpp).
#pragma once

#include "calibrate/priors.hpp"
#include "domain/observation_row.hpp"

#include <cstddef>
#include <memory>
#include <string_view>

namespace rfdb::calibrate {

// The estimator's input in compact form, for histories of 10⁵ attempts and
// more: every field compute_priors reads, with strings interned (a run's id
// and date once per run, a row's texts as one id of their combination) and
// without --explain's text (round, lever, which come back empty). 64 bytes
// per attempt.
class ObservationTable {
public:
  ObservationTable();
  ObservationTable(ObservationTable&&) noexcept;
  ObservationTable& operator=(ObservationTable&&) noexcept;
  ~ObservationTable();

  // Append one attempt. Consecutive rows of one run share its strings.
  // A row's views are copied (gfx and regime as given: grouped by the caller).
  void add(const domain::ObservationRow& attempt);
  void add(const Observation& attempt);
  [[nodiscard]] std::size_t size() const;
  // Row i as an Observation, written into `out` (reuse it: once its strings
  // have grown, unpacking allocates nothing). round, lever and the
  // prediction's stage, bound_type, round, target_eff and
  // expected_e2e_gain_pct are left empty.
  void fill(std::size_t i, Observation& out) const;
  [[nodiscard]] std::string_view run_id(std::size_t i) const;   // stable while the table lives
  [[nodiscard]] std::string_view run_date(std::size_t i) const; // stable while the table lives
  [[nodiscard]] std::string_view op_class(std::size_t i) const; // stable while the table lives
  [[nodiscard]] std::string_view gfx(std::size_t i) const;      // stable while the table lives
  [[nodiscard]] std::string_view regime(std::size_t i) const;   // stable while the table lives

private:
  struct Data;
  std::unique_ptr<Data> m_data;
};

} // namespace rfdb::calibrate
