// The run-copy rule: how `rfdb ingest` knows that a run is a copy (whole or
// trimmed) of a stored run (docs/artifacts.md, "Copies").
//
// A run that is a copy of a stored run is refused inside the ingest
// transaction, after its rows are derived, so two copies ingested at once
// cannot both land. A copy has the stored run's identity (model, gfx,
// backend, isl, osl, conc) and either the same multiset of measured attempts
// (short_name, isolated speedup to 4 decimals, e2e delta to 3) or, failing
// that, every current file stored under that run with the same path and
// sha256 (the only rule for a run without measured attempts). A partial copy
// shares any measured kernel attempt with it: same kernel, candidate dir or
// lever, isolated speedup to 4 decimals and e2e delta to 3; config trials
// never count.
//
// The parts of the rule: this file compares attempts at the producers'
// rounding steps (1e-4 ×, 1e-3 %); queries/run_copy_candidates.sql narrows
// the stored runs to candidates (tolerances twice those steps, a superset);
// store::RunWriter runs that query (copy_candidates), reads a candidate's
// measured attempts and finds a run holding every file (file_copy). Whether a
// copy is refused or stored with a note (--allow-copy) is ingest.cpp's.
#pragma once

#include "ingest/evaldir/derive.hpp"
#include "store/run_writer.hpp"

#include <optional>
#include <string>

namespace rfdb::ingest {

// The stored run a run copies, and what makes it a copy.
struct CopyOf {
  std::string run_id;
  std::string why;
  bool partial = false; // shares some measured kernel attempts, not all
};

// The stored run `derived` copies, if any (whole copy first, then every
// file shared, then a partial copy). Call it inside the write transaction,
// after the run's files are stored and derived, so a concurrent copy that
// committed first is seen. Errors: db.
Result<std::optional<CopyOf>> find_run_copy(store::RunWriter& writer, const DerivedRun& derived);

} // namespace rfdb::ingest
