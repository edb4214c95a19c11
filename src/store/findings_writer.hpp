// Writing imported knowledge findings (learned_findings): one Finding per
// card, playbook line or proposal card, attached to the stored file version
// it was read from (store/sources.hpp), and superseding the findings of an
// older version. Statements are prepared once per knowledge ingest.
#pragma once

#include "store/database.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::store {

// Conventions: an empty string means "absent" (stored NULL); std::nullopt
// means an absent number.
// One imported finding; field names are the learned_findings column names.
struct Finding {
  std::string origin;               // "card" | "playbook" | "proposal"
  std::string identity;             // see parse_card / parse_legacy_playbook / parse_proposal
  std::string name;                 // card `name`, else file stem; playbook: bold lead, else first sentence
  std::string key_raw;              // card `key` as written
  std::string kernel_class_raw;     // `kernel_class`, else the key's <class> part
  std::string op_class = "unknown"; // gemm|moe|attn|elementwise|method|unknown
  std::string gfx;                  // e.g. "gfx942"; empty when none found
  std::string regime = "unknown";   // decode|prefill|both|unknown
  std::string regime_raw;           // `regime`, else the key's <regime> part
  std::string model;                // playbook lines only (HF-style id)
  std::string model_class;          // playbook lines only
  std::string type;                 // routing|lever|method|… as written
  std::optional<int> stars;         // 1..3 from ★ (U+2605) count
  std::string lever;                // body bullets; repeated bullets joined by "\n"
  std::string apply;
  std::string verify;
  std::vector<std::string>
      cautions; // every `- caution:`, then `- dead-end:` behind domain::k_dead_end_prefix
  std::vector<std::string> sources_cited; // every `- source:` bullet
  std::string effect;                     // raw, always kept
  std::optional<double> iso_min;          // × over baseline (isolated speedup)
  std::optional<double> iso_max;
  std::optional<double> e2e_min_pct; // percent, signed (+2.23 means +2.23 %)
  std::optional<double> e2e_max_pct;
  std::optional<int> confirms;       // counters: nullopt when absent,
  std::optional<int> confirms_cited; // 0 when present but not an integer
  std::optional<int> confirms_blind; // (kb.py's coercion)
  std::optional<int> losses;
  std::optional<int> attempts;
  std::string lifecycle = "active"; // "active" | "archived"
  std::string last_seen;            // YYYY-MM-DD or empty
  std::string text;                 // card body / playbook line text
  std::string fields;               // JSON object text: every front-matter key as read
  // What the finding says (domain::classify_knowledge): positive_measured |
  // in_noise | negative | method | seam_fact | routing_note | archived, and
  // which text and figure decided. iso_*/e2e_* above are the figures it read.
  std::string classification;
  std::string classification_reason;
};

class FindingsWriter {
public:
  // Prepare every statement. Errors: db.
  static Result<FindingsWriter> create(Database& db);
  FindingsWriter(FindingsWriter&&) noexcept;
  FindingsWriter& operator=(FindingsWriter&&) noexcept;
  ~FindingsWriter();

  // Insert `findings` as read from stored file version `source_id`
  // (cautions and sources_cited as JSON arrays). Errors: db.
  Result<void> insert(std::int64_t source_id, const std::vector<Finding>& findings);
  // Mark every finding read from file version `source_id` superseded.
  // Errors: db.
  Result<void> supersede(std::int64_t source_id);
  // Delete every finding read from file version `source_id`: a version made
  // current again is read anew, not added twice. Errors: db.
  Result<void> clear(std::int64_t source_id);

  // True when file version `source_id` holds findings stored without a
  // classification (by an rfdb before migration 0012). Errors: db.
  Result<bool> unclassified(std::int64_t source_id);

private:
  struct Statements;
  explicit FindingsWriter(std::unique_ptr<Statements> s);
  std::unique_ptr<Statements> m_s;
};

} // namespace rfdb::store
