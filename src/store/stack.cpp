// Reading run_stack back, the `--stack` filter, stack differences (see stack.hpp).
#include "store/stack.hpp"

#include "rfdb_sql.hpp"

#include <fmt/core.h>

#include <set>

namespace rfdb::store {

namespace {

StackRow read_row(const Statement& row)
{
  return StackRow{row.get_text("package"), row.get_text("raw"), row.get_opt_text("release"),
                  row.get_text("source"), row.get_opt_text("via")};
}

// The version a row is compared on: rocm its release, others their raw
// string, or the version in a tool's banner ("rocprofiler-compute version:
// 3.1.1"); none for a path.
std::optional<domain::Pep440Version> version_of(const StackRow& r)
{
  auto v = domain::parse_version(r.via && r.release ? *r.release : r.raw);
  if (v) {
    return std::move(*v);
  }
  return domain::find_version(r.raw);
}

} // namespace

std::string stack_version_text(const StackRow& row)
{
  return row.via && row.release ? *row.release : row.raw;
}

Result<std::vector<StackRow>> run_stack(Database& db, const std::string& run_id)
{
  auto prepared = db.prepare(sql::k_run_stack, "run_stack");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  prepared->bind(":run_id", run_id);
  std::vector<StackRow> out;
  RFDB_TRY(for_each_row(*prepared, [&](const Statement& row) { out.push_back(read_row(row)); }));
  return out;
}

Result<std::map<std::string, std::vector<StackRow>>> all_run_stacks(Database& db)
{
  auto prepared = db.prepare(sql::k_run_stack_all, "run_stack_all");
  if (!prepared) {
    return fail(std::move(prepared).error());
  }
  std::map<std::string, std::vector<StackRow>> out;
  RFDB_TRY(for_each_row(*prepared,
                        [&](const Statement& row) { out[row.get_text("run_id")].push_back(read_row(row)); }));
  return out;
}

const StackRow* find_package(std::span<const StackRow> stack, const std::string& package,
                             const std::optional<std::string>& backend)
{
  std::string name = package;
  if (name == "backend") {
    if (!backend) {
      return nullptr;
    }
    name = domain::normalize_package(*backend);
  }
  for (const auto& r : stack) {
    if (r.package == name) {
      return &r;
    }
  }
  return nullptr;
}

std::set<std::string> stated_packages(const std::map<std::string, std::vector<StackRow>>& stacks)
{
  std::set<std::string> stated;
  for (const auto& [run_id, rows] : stacks) {
    for (const auto& r : rows) {
      stated.insert(r.package);
    }
  }
  return stated;
}

std::vector<const domain::StackSpec*>
unstated_packages(const std::map<std::string, std::vector<StackRow>>& stacks,
                  std::span<const domain::StackSpec> specs)
{
  const std::set<std::string> stated = stated_packages(stacks);
  std::vector<const domain::StackSpec*> out;
  for (const auto& spec : specs) {
    const bool known = spec.package == "backend" ? !stated.empty() : stated.contains(spec.package);
    if (!known) {
      out.push_back(&spec);
    }
  }
  return out;
}

bool stack_matches(std::span<const StackRow> stack, const std::optional<std::string>& backend,
                   std::span<const domain::StackSpec> specs)
{
  for (const auto& spec : specs) {
    const StackRow* row = find_package(stack, spec.package, backend);
    if (row == nullptr) {
      return false;
    }
    const auto v = version_of(*row);
    if (!v || !domain::satisfies(*v, spec)) {
      return false;
    }
  }
  return true;
}

std::vector<std::string> stack_changes(std::span<const StackRow> before, std::span<const StackRow> after)
{
  std::set<std::string> packages;
  for (const auto& r : before) {
    packages.insert(r.package);
  }
  for (const auto& r : after) {
    packages.insert(r.package);
  }
  std::vector<std::string> out;
  for (const auto& p : packages) {
    const StackRow* a = find_package(before, p, std::nullopt);
    const StackRow* b = find_package(after, p, std::nullopt);
    const std::string x = a != nullptr ? stack_version_text(*a) : "(none)";
    const std::string y = b != nullptr ? stack_version_text(*b) : "(none)";
    if (x != y) {
      out.push_back(fmt::format("{} {} → {}", p, x, y));
    }
  }
  return out;
}

Result<std::vector<std::string>> stack_changes(Database& db, const std::string& run_before,
                                               const std::string& run_after)
{
  std::vector<StackRow> a, b;
  RFDB_TRY_ASSIGN(a, run_stack(db, run_before));
  RFDB_TRY_ASSIGN(b, run_stack(db, run_after));
  return stack_changes(a, b);
}

} // namespace rfdb::store
