// The text helpers the playbook and the cards share: fixed precision, never
// locale-dependent; stored text made safe for one markdown line.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rfdb::report {

// Shared formatting (fixed precision, never locale-dependent).
// Round to `dp` decimals (−0 → 0) and print with exactly `dp` decimals.
std::string fixed(double value, int dp);
// "1.047×" or "1.047–1.120×"; "not measured" when absent.
std::string iso_range_text(const std::optional<double>& lo, const std::optional<double>& hi);
// "+0.31 %" or "+0.31 % to +2.10 %"; "not measured" when absent.
std::string e2e_range_text(const std::optional<double>& lo, const std::optional<double>& hi);
// "isl/osl/conc 1024/1024/64" with "?" for an absent part; "" when all absent.
std::string workload_text(const std::optional<int>& isl, const std::optional<int>& osl,
                          const std::optional<int>& conc);
// Collapse whitespace (tabs, newlines) to single spaces and trim; any other
// control character or ill-formed UTF-8 byte is written as \xHH, so stored
// text can neither break a markdown line nor reach a terminal raw.
std::string one_line(std::string_view text);
// An imported finding's identity as shown: a legacy playbook line
// ("file#date|model|…|opening text") is cut to "file#date"; others as is.
std::string short_identity(std::string_view identity);
// Star glyphs, "★★".
std::string stars_text(int stars);
// Free text made safe for one markdown line: whitespace collapsed, markdown
// punctuation backslash-escaped (`_` only at word edges), bare URLs wrapped
// in <…>, so user text cannot trip markdownlint or start a structure.
std::string md_text(std::string_view text);
// An identifier in a code span (`fused_moe_kernel`); md_text when the text
// holds a backtick or '|', "-" when empty.
std::string md_code(std::string_view text);

} // namespace rfdb::report
