// Helpers shared by the libFuzzer targets (tools/fuzz/README.md).
//
// A target feeds the fuzzer's bytes to one parser family exactly as ingest
// does, and reads every part of the result so that ASan sees each byte the
// result holds. rfdb's parsers return errors as values: a target only crashes
// on a sanitizer report, an uncaught exception, a leak, a timeout, or
// harness_error (a harness mistake, never a finding about the input).
#pragma once

#include "ingest/evaldir/derive.hpp"
#include "ingest/evaldir/files.hpp"
#include "ingest/knowledge/knowledge.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::fuzz {

// The fuzzer's input as text (any bytes, NUL included).
inline std::string_view as_text(const std::uint8_t* data, std::size_t size)
{
  return size == 0 ? std::string_view{} : std::string_view(reinterpret_cast<const char*>(data), size);
}

// Stop on a mistake of the harness itself (a fixed rel_path that is no artifact).
[[noreturn]] inline void harness_error(const char* what)
{
  std::fprintf(stderr, "fuzz harness error: %s\n", what);
  std::abort();
}

// Keep a value observable so reads of the result are not optimized away.
inline void consume(std::size_t n)
{
  static volatile std::size_t sink = 0;
  sink = sink + n;
}

inline std::size_t touch(const std::string& s)
{
  return s.size() + (s.empty() ? 0U : std::size_t(s.back()));
}

inline std::size_t touch(const std::vector<ingest::Warning>& warnings)
{
  std::size_t n = 0;
  for (const auto& w : warnings) {
    n += touch(w.file) + touch(w.pointer) + touch(w.message);
  }
  return n;
}

inline std::size_t touch(const std::vector<ingest::knowledge::Warning>& warnings)
{
  std::size_t n = 0;
  for (const auto& w : warnings) {
    n += touch(w.describe());
  }
  return n;
}

inline std::size_t touch(const store::Finding& f)
{
  std::size_t n = touch(f.identity) + touch(f.name) + touch(f.text) + touch(f.op_class) + touch(f.regime) +
                  touch(f.gfx) + touch(f.effect) + touch(f.fields) + touch(f.classification) +
                  touch(f.classification_reason);
  for (const auto& s : f.sources_cited) {
    n += touch(s);
  }
  return n;
}

// Parse `text` as the eval-dir artifact at `rel_path` (a fixed, valid path:
// classify_artifact decides its kind and labels) through the one-parse reader
// ingest uses (parse_artifact: parse_json_document, then the kind's parser),
// then, when it parses, derive a run from that one file (derive_run, given
// the parse as ingest gives it, so the JSON is not parsed twice).
inline void parse_artifact_as(std::string_view rel_path, std::string_view text)
{
  const auto kind = ingest::classify_artifact(rel_path);
  if (!kind) {
    harness_error("rel_path is not an artifact");
  }
  const std::string path(rel_path);
  std::vector<ingest::Warning> warnings;
  auto parsed = ingest::parse_artifact(*kind, path, text, warnings);
  std::size_t n = touch(warnings);
  if (!parsed) {
    consume(n + touch(parsed.error().describe()));
    return;
  }
  for (const auto& a : parsed->attempts) {
    n += touch(a.merge_key()) + touch(a.lever) + static_cast<std::size_t>(a.verdict);
  }
  std::vector<ingest::StoredSource> sources(1);
  sources[0].source_id = 1;
  sources[0].rel_path = path;
  sources[0].kind = *kind;
  sources[0].raw = std::string(text);
  ingest::ParsedFiles files;
  files.emplace(path, ingest::ParsedFile{sources[0].raw, std::move(*parsed), 1});
  const std::string run_id = "e2e_Fuzz-Model_20260101_000000_1_1";
  auto run = ingest::derive_run(run_id, run_id, sources, &files);
  if (!run) {
    consume(n + touch(run.error().describe()));
    return;
  }
  n += touch(run->warnings) + run->bench.size() + run->rounds.size() + run->docs.size();
  for (const auto& a : run->attempts) {
    n += touch(a.key) + touch(a.record.merge_key()) + a.sources.size();
  }
  consume(n);
}

} // namespace rfdb::fuzz
