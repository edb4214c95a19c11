// The whole `rfdb report` pipeline behind one call: read the evidence, compute
// the priors, analyze, render the playbook (and the learned cards). The CLI
// and tools/bench call the same function, so the benchmark times what ships.
//
// On an SQLite file it reads on three connections at once (the priors and the
// verdicts each in their own thread), checks that the helper threads read the
// main connection's snapshot (else their part is done again), keeps the page
// caches small and the threads on one malloc arena, and keeps the analysis
// until the process ends instead of freeing it. A PostgreSQL URL or
// ":memory:" reads everything on the given connection, in this thread.
#pragma once

#include "report/cards.hpp"
#include "store/database.hpp"
#include "util/result.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace rfdb::report {

// What the playbook is written for; the caller has checked the dates'
// shape and order (the CLI's validators).
struct ReportRequest {
  std::string as_of;  // YYYY-MM-DD; "" = the newest run date
  std::string since;  // YYYY-MM-DD; "" = all the history
  std::string gfx;    // a gfx target or device name; "" = every GPU
  bool cards = false; // also render the learned cards (ReportOutput::cards)
};

// Wall seconds of each phase of one generate(), for tools/bench. The priors
// run alongside the read on SQLite files, so the phases may sum to more than
// the call took.
struct ReportPhases {
  double read_s = 0.0;    // runs, verdicts, attempts, findings, waiting for the threads
  double priors_s = 0.0;  // the priors by class,gfx (on their own thread when there is one)
  double analyze_s = 0.0; // report::analyze
  double render_s = 0.0;  // the playbook's markdown and the cards
  double replay_s = 0.0;  // the routing replay (calibrate::playbook_replay), after the read
};

// What the command prints or writes.
struct ReportOutput {
  std::string playbook;        // markdown
  std::vector<CardFile> cards; // render_cards; empty unless ReportRequest::cards
  std::size_t runs = 0;        // runs in the playbook's scope
  std::string as_of;           // the date it is written for; "" when no run is stored
};

// The playbook of the evidence in `db` (opened read-only by the caller, with
// no transaction open). `db_path` is the path `db` was opened from: on an
// SQLite file the helper connections open it read-only too. Fills `phases`
// when given. Errors: not_found for a --gfx no stored run is on (the hint
// lists the GPUs with runs), and the store's and the priors' errors.
Result<ReportOutput> generate(store::Database& db, const std::string& db_path, const ReportRequest& request,
                              ReportPhases* phases = nullptr);

} // namespace rfdb::report
