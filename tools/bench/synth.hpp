// Synthetic corpus for rfdb_bench: N eval dirs cloned from the sample runs
// (tests/fixtures/runs) with new run ids and dates, a rotated gfx and
// perturbed isolated speedups and roofline_pct, every file still valid.
//
// Variation rules (deterministic for a given seed and run index):
// - run id: the template's "e2e_<model>_" prefix, a date spread evenly over
//   two years (so priors/report see a long history), a random time, pid and
//   a base-36 tag of the index; every mention of the old id is rewritten.
// - gfx: gfx942 or gfx950 at random (the device name follows).
// - isolated speedups: s' = 1 + (s − 1) × f with one f ∈ [0.6, 1.5] per run,
//   applied by value so the files that describe one attempt still agree.
// - roofline_pct of each analytic verdict (modeled, not suspect, with a
//   headroom class): × [0.8, 1.2], clamped to [0.02, 0.98]; attainable,
//   expected gain, headroom and ranking_by_expected_gain are recomputed
//   with the formulas of docs/glossary.md ("Attainable speedup", "Expected e2e gain").
#pragma once

#include "util/result.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace rfdb::bench {

// One file of a template run, as read from the fixtures.
struct TemplateFile {
  std::string rel_path; // '/'-separated, relative to the eval dir
  std::string text;
  std::optional<nlohmann::ordered_json> roofline; // profile_roofline.json, parsed
};

// One fixture eval dir.
struct TemplateRun {
  std::string basename; // e2e_<model>_<YYYYmmdd>_<HHMMSS>_<pid>_<tag>
  std::string prefix;   // "e2e_<model>" (everything before the date)
  std::string gfx;      // gfx of its env_report ("gfx950")
  std::string device;   // device_name of its env_report
  std::vector<TemplateFile> files;
};

// Load every eval dir under `fixtures_dir`. Errors: io (unreadable), invalid_input
// (no eval dir, a basename without a date, a roofline file that is not JSON).
Result<std::vector<TemplateRun>> load_templates(const std::filesystem::path& fixtures_dir);

// What one synthesized run came to.
struct SynthRun {
  std::filesystem::path dir;
  std::uint64_t bytes = 0; // every file written
};

// Write run `index` of the corpus into `out_dir/<new basename>`, cloned from
// templates[index % size]. Errors: io.
Result<SynthRun> synthesize_run(const std::vector<TemplateRun>& templates, std::size_t index,
                                std::size_t total, std::uint64_t seed, const std::filesystem::path& out_dir);

} // namespace rfdb::bench
