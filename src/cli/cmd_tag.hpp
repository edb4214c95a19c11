// `rfdb tag RUN key=value …` and `rfdb untag RUN key …`: user tags on a run
// (domain/tags.hpp), kept with their history (store/tags.hpp).
#pragma once

#include "cli/context.hpp"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace rfdb::cli {

struct TagOptions {
  std::string run_id;            // or any unique prefix
  std::vector<std::string> tags; // key=value, at least one; a key at most once
};
void add_tag_command(CLI::App& app, Context& ctx, Runner& runner);
Result<int> run_tag(const TagOptions& opts, Context& ctx);

struct UntagOptions {
  std::string run_id;            // or any unique prefix
  std::vector<std::string> keys; // at least one; each must be set on the run
};
void add_untag_command(CLI::App& app, Context& ctx, Runner& runner);
Result<int> run_untag(const UntagOptions& opts, Context& ctx);

} // namespace rfdb::cli
