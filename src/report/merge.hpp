// Imported knowledge in the playbook: the lines it merges onto (the rule:
// findings.hpp, "Imported merge"; detail::merge_imported in lines.hpp) and the
// "Methods and seams" notes.
#pragma once

#include "domain/knowledge_kind.hpp"
#include "report/findings.hpp"
#include "report/model.hpp"

#include <string>
#include <vector>

namespace rfdb::report {

// One line of "Methods and seams": imported methods, seam facts and routing
// notes (domain::KnowledgeKind), useful but no measured win. Findings of one
// kind with the same lever key under a compatible reuse key share a line.
struct MethodNote {
  domain::KnowledgeKind kind = domain::KnowledgeKind::method;
  ReuseKey key;
  std::string lever_key;
  std::string title;                   // imported_display of its first finding
  std::vector<std::string> identities; // sorted, unique
  int stars = 0;                       // self-rated, max
  std::string last_seen;               // newest date or ""
};

// Every method note of the scoped imported findings, in report order: kind
// (method, seam_fact, routing_note), key, title.
std::vector<MethodNote> build_method_notes(const ReportInput& scoped);

} // namespace rfdb::report
