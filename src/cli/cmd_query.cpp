// `rfdb query`: run or list named queries; table, CSV or JSON output (see cli/cmd_query.hpp).
#include "cli/cmd_query.hpp"

#include "cli/app.hpp"
#include "cli/common.hpp"
#include "domain/vocab.hpp"
#include "util/csv.hpp"
#include "util/table.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <memory>

namespace rfdb::cli {

void print_table(const store::Table& t, const std::string& format, std::ostream& out)
{
  if (domain::is(format, domain::OutputFormat::json)) {
    auto arr = nlohmann::ordered_json::array();
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
      const auto& row = t.rows[r];
      nlohmann::ordered_json obj = nlohmann::ordered_json::object();
      for (std::size_t c = 0; c < t.columns.size(); ++c) {
        const bool json_column = c < t.json.size() && t.json[c];
        if (!row[c]) {
          obj[t.columns[c]] = nullptr;
        } else if (json_column && nlohmann::ordered_json::accept(*row[c])) {
          obj[t.columns[c]] = nlohmann::ordered_json::parse(*row[c]);
        } else if (t.numeric[r][c]) {
          // SQLite's own text of a number is valid JSON number text.
          obj[t.columns[c]] = nlohmann::ordered_json::parse(*row[c]);
        } else {
          obj[t.columns[c]] = *row[c];
        }
      }
      arr.push_back(std::move(obj));
    }
    fmt::print(out, "{}\n", arr.dump(2));
    return;
  }
  if (domain::is(format, domain::OutputFormat::csv)) {
    std::string line;
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      line += (c ? "," : "") + util::csv_field(t.columns[c]);
    }
    fmt::print(out, "{}\n", line);
    for (const auto& row : t.rows) {
      line.clear();
      for (std::size_t c = 0; c < row.size(); ++c) {
        line += (c ? "," : "") + (row[c] ? util::csv_field(*row[c]) : std::string());
      }
      fmt::print(out, "{}\n", line);
    }
    return;
  }
  std::vector<util::Column> cols;
  std::vector<std::optional<int>> decimals;
  for (const auto& c : t.columns) {
    cols.push_back({c});
    decimals.push_back(decimals_for_column(c));
  }
  std::vector<std::vector<std::string>> rows;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    std::vector<std::string> cells;
    for (std::size_t c = 0; c < t.rows[r].size(); ++c) {
      const auto& cell = t.rows[r][c];
      if (cell && t.numeric[r][c] && decimals[c] && cell->find_first_of(".eE") != std::string::npos) {
        cells.push_back(fmt::format("{:.{}f}", std::strtod(cell->c_str(), nullptr), *decimals[c]));
        cols[c].align = util::Align::right;
      } else {
        cells.push_back(cell.value_or("NULL"));
      }
    }
    rows.push_back(std::move(cells));
  }
  fmt::print(out, "{}", util::render_table(cols, rows));
}

namespace {

Result<int> list_queries(const std::string& format, Context& ctx)
{
  auto queries = store::named_queries();
  if (!queries) {
    return fail(queries.error());
  }
  if (domain::is(format, domain::OutputFormat::json)) {
    auto arr = nlohmann::ordered_json::array();
    for (const auto& q : *queries) {
      auto params = nlohmann::ordered_json::array();
      for (const auto& p : q.parameters) {
        const bool opt = std::find(q.optional.begin(), q.optional.end(), p) != q.optional.end();
        params.push_back({{"name", p}, {"required", !opt}});
      }
      arr.push_back({{"name", q.name}, {"description", q.description}, {"parameters", params}});
    }
    fmt::print(ctx.out, "{}\n", arr.dump(2));
    return 0;
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& q : *queries) {
    std::string params;
    for (const auto& p : q.parameters) {
      const bool opt = std::find(q.optional.begin(), q.optional.end(), p) != q.optional.end();
      params += (params.empty() ? "" : " ") + (opt ? "[" + p + "]" : p);
    }
    rows.push_back({q.name, params.empty() ? "-" : params, q.description});
  }
  if (domain::is(format, domain::OutputFormat::csv)) {
    store::Table t;
    t.columns = {"name", "parameters", "description"};
    for (const auto& row : rows) {
      t.rows.push_back({row[0], row[1], row[2]});
      t.numeric.push_back({false, false, false});
    }
    print_table(t, "csv", ctx.out);
    return 0;
  }
  fmt::print(ctx.out, "{}",
             util::render_table({{"name"}, {"parameters ([optional])"}, {"description"}}, rows));
  return 0;
}

} // namespace

Result<int> run_query(const QueryOptions& opts, Context& ctx)
{
  auto format = resolve_format(ctx, opts.format, {"table", "csv", "json"});
  if (!format) {
    return fail(format.error());
  }
  if (opts.list || opts.name.empty()) {
    return list_queries(*format, ctx);
  }
  std::vector<std::pair<std::string, std::string>> params;
  for (const auto& p : opts.params) {
    const auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0) {
      return fail(make_error(ErrorCode::usage, "--param expects key=value, got '" + p + "'"));
    }
    const std::string key = p.substr(0, eq);
    for (const auto& [given, value] : params) {
      if (given == key) {
        return fail(make_error(ErrorCode::usage, fmt::format("--param {} is given twice ('{}' and '{}')", key,
                                                             value, p.substr(eq + 1)))
                        .with_hint("a parameter binds one value; run the query once per value"));
      }
    }
    params.emplace_back(key, p.substr(eq + 1));
  }
  auto db = open_for_read(ctx);
  if (!db) {
    return fail(db.error());
  }
  auto table = store::run_named_query(*db, opts.name, params);
  if (!table) {
    return fail(table.error());
  }
  print_table(*table, *format, ctx.out);
  return 0;
}

void add_query_command(CLI::App& app, Context& ctx, Runner& runner)
{
  auto opts = std::make_shared<QueryOptions>();
  auto* cmd = app.add_subcommand("query", "Run a named read-only query from queries/ (--list shows them)");
  cmd->add_option("NAME", opts->name, "Query name (file stem in queries/)")->check(non_empty("a query name"));
  cmd->add_option("-p,--param", opts->params, "Bind a named parameter, e.g. -p run_id=e2e_x")
      ->type_name("KEY=VALUE");
  cmd->add_option("--format", opts->format, "table | csv | json (default: table on a terminal, else json)")
      ->check(one_of({"table", "csv", "json"}));
  cmd->add_flag("--list", opts->list, "List the queries with their parameters and what they return");
  cmd->footer("A query runs only when SQLite reports its statement read-only; the database is\n"
              "opened read-only as well. Parameters in [brackets] are optional.\n\n"
              "Examples:\n  rfdb query --list\n  rfdb query verdicts_all --format csv\n"
              "  rfdb query run_attempts -p run_id=e2e_Qwen-Qwen3.5-35B-A3B-FP8_20260612_101500_48213_k3xq");
  cmd->final_callback([opts, &ctx, &runner] { runner = [opts, &ctx] { return run_query(*opts, ctx); }; });
}

} // namespace rfdb::cli
