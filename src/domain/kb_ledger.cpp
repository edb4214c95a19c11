// GEAK's attestation ledger and retire rule (see kb_ledger.hpp; docs/kb.md).
#include "domain/kb_ledger.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace rfdb::domain {

namespace {

bool blank(std::string_view s)
{
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; });
}

bool tested(const std::string& outcome)
{
  return outcome == "validated" || outcome == "failed" || outcome == "not_reproduced";
}

} // namespace

bool Ledger::any() const
{
  return recalls > 0 || validations > 0 || failures > 0 || not_reproduced > 0 || inapplicable > 0 ||
         !history.empty();
}

std::optional<std::string> ledger_retire_reason(const Ledger& ledger, int threshold)
{
  threshold = std::max(threshold, 1);
  const auto window_size = static_cast<std::size_t>(std::max(k_recent_window, threshold));
  std::vector<const LedgerEntry*> window; // newest first
  for (auto it = ledger.history.rbegin(); it != ledger.history.rend() && window.size() < window_size; ++it) {
    if (tested(it->outcome)) {
      window.push_back(&*it);
    }
  }
  if (!window.empty()) {
    const bool validated =
        std::any_of(window.begin(), window.end(), [](const auto* e) { return e->outcome == "validated"; });
    if (validated || window.size() < static_cast<std::size_t>(threshold)) {
      return std::nullopt;
    }
    return fmt::format("ledger: last {} attempts all negative", window.size());
  }
  const int negatives = ledger.failures + ledger.not_reproduced;
  if (ledger.validations == 0 && negatives >= threshold) {
    return fmt::format("ledger: {} negative attempts (failures + not_reproduced), no validation", negatives);
  }
  return std::nullopt;
}

std::optional<std::string> ledger_retire_reason_old(const Ledger& ledger)
{
  if (ledger.validations > 0) {
    return std::nullopt;
  }
  if (ledger.not_reproduced >= 2) {
    return fmt::format("ledger (old rule): {} not reproduced, no validation", ledger.not_reproduced);
  }
  const int tried = ledger.recalls - ledger.inapplicable;
  if (tried >= 3) {
    return fmt::format("ledger (old rule): {} tried, no validation", tried);
  }
  return std::nullopt;
}

bool is_retired(std::optional<bool> retained, std::string_view retired_reason)
{
  return (retained && !*retained) || !blank(retired_reason);
}

std::optional<std::string> record_retired_why(std::optional<bool> retained, std::string_view retired_reason,
                                              const Ledger& ledger)
{
  if (!blank(retired_reason)) {
    return std::string(retired_reason);
  }
  if (retained && !*retained) {
    return std::string("retained: false");
  }
  return ledger_retire_reason(ledger);
}

} // namespace rfdb::domain
