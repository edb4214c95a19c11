// `rfdb tag` and `rfdb untag` (see cli/cmd_tag.hpp): parse the tags, resolve RUN, store::tag_run /
// store::untag_run, one line.
#include "cli/cmd_tag.hpp"

#include "cli/app.hpp"
#include "cli/common.hpp"
#include "domain/tags.hpp"
#include "store/tags.hpp"
#include "util/time.hpp"
#include "util/utf8.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <memory>

namespace rfdb::cli {

namespace {

constexpr const char* k_tag_rules =
    "A key is 1-64 letters, digits, '_', '-' or '.', starting with a letter or digit; a value\n"
    "is 1-256 bytes of UTF-8 without control characters (split at the first '=').";

} // namespace

Result<int> run_tag(const TagOptions& opts, Context& ctx)
{
  auto tags = domain::parse_tags(opts.tags);
  if (!tags) {
    return fail(std::move(tags).error().with_hint("e.g. rfdb tag RUN quant=fp8 tp=8"));
  }
  auto opened = open_run_for_write(ctx, opts.run_id);
  if (!opened) {
    return fail(opened.error());
  }
  auto changes = store::tag_run(opened->db, opened->run_id, *tags, util::format_iso_timestamp(ctx.now()));
  if (!changes) {
    return fail(changes.error());
  }
  std::string line;
  for (std::size_t i = 0; i < tags->size(); ++i) {
    line += fmt::format("{}{}={} ({})", i == 0 ? "" : ", ", (*tags)[i].key, (*tags)[i].value,
                        store::to_string((*changes)[i]));
  }
  fmt::print(ctx.out, "tagged {}: {}\n", util::escape_for_display(opened->run_id),
             util::escape_for_display(line));
  return 0;
}

Result<int> run_untag(const UntagOptions& opts, Context& ctx)
{
  for (std::size_t i = 0; i < opts.keys.size(); ++i) {
    const auto& key = opts.keys[i];
    if (auto why = domain::tag_key_problem(key)) {
      return fail(
          make_error(ErrorCode::usage, fmt::format("tag key '{}': {}", util::escape_for_display(key), *why))
              .with_hint("untag takes keys, not key=value: rfdb untag RUN quant tp"));
    }
    if (std::find(opts.keys.begin(), opts.keys.begin() + static_cast<std::ptrdiff_t>(i), key) !=
        opts.keys.begin() + static_cast<std::ptrdiff_t>(i)) {
      return fail(make_error(ErrorCode::usage, fmt::format("tag key '{}' is given twice", key)));
    }
  }
  auto opened = open_run_for_write(ctx, opts.run_id);
  if (!opened) {
    return fail(opened.error());
  }
  auto removed =
      store::untag_run(opened->db, opened->run_id, opts.keys, util::format_iso_timestamp(ctx.now()));
  if (!removed) {
    return fail(removed.error());
  }
  fmt::print(ctx.out, "untagged {}: {}\n", util::escape_for_display(opened->run_id),
             util::escape_for_display(domain::format_tags(*removed)));
  return 0;
}

void add_tag_command(CLI::App& app, Context& ctx, Runner& runner)
{
  auto opts = std::make_shared<TagOptions>();
  auto* cmd = app.add_subcommand("tag", "Tag a run with key=value labels (user metadata; undo with untag)");
  cmd->add_option("RUN", opts->run_id, "Run id or any unique prefix of it")->required();
  cmd->add_option("TAGS", opts->tags, "key=value, one or more")->required()->type_name("KEY=VALUE");
  cmd->footer(fmt::format(
      "{}\nTagging a key again replaces its value; the same value changes nothing. Tags group and\n"
      "filter runs (`rfdb runs --tag key=value`) and never change priors or the report;\n"
      "`rfdb show RUN` lists them with every tag and untag.\n\n"
      "Examples:\n  rfdb tag e2e_x_20260101_000000_1_a quant=fp8 tp=8 arch=moe\n"
      "  rfdb tag e2e_x quant=int4                # a unique prefix; replaces quant\n"
      "  rfdb runs --tag quant=fp8 --tag tp=8",
      k_tag_rules));
  cmd->final_callback([opts, &ctx, &runner] { runner = [opts, &ctx] { return run_tag(*opts, ctx); }; });
}

void add_untag_command(CLI::App& app, Context& ctx, Runner& runner)
{
  auto opts = std::make_shared<UntagOptions>();
  auto* cmd = app.add_subcommand("untag", "Remove tags from a run (kept in its tag history)");
  cmd->add_option("RUN", opts->run_id, "Run id or any unique prefix of it")->required();
  cmd->add_option("KEYS", opts->keys, "Tag keys, one or more")->required()->type_name("KEY");
  cmd->footer("A key the run does not carry fails the command, and nothing is removed.\n\n"
              "Examples:\n  rfdb untag e2e_x_20260101_000000_1_a quant\n"
              "  rfdb untag e2e_x quant tp");
  cmd->final_callback([opts, &ctx, &runner] { runner = [opts, &ctx] { return run_untag(*opts, ctx); }; });
}

} // namespace rfdb::cli
