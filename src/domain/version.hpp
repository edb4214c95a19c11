// PEP 440 versions of a run's stack (issue 30): parsing, ordering, ROCm
// read from a local version or an install path, and the `--stack` filter
// specifiers (`vllm>=0.26`). Pure functions, no I/O.
//
// Parsing follows PEP 440's permissive grammar (the `packaging` library's
// VERSION_PATTERN): an optional `v`, epoch `N!`, release `N(.N)*`, pre-release
// (a|b|rc, with alpha/beta/c/pre/preview as spellings), post (`.postN`,
// `-N`, rev/r), dev (`.devN`), local (`+label(.label)*`); case-insensitive,
// separators `.`, `-`, `_` accepted where PEP 440 allows them, surrounding
// whitespace ignored. The raw string is kept as given.
//
// Ordering (compare, operator<=>) is PEP 440's total order: epoch, release
// (trailing zeros ignored: 1.0 == 1.0.0), then dev builds of a release
// before its pre-releases, pre-releases (a < b < rc) before the release,
// post-releases after it, dev builds of a pre or post before it; the local
// segment last (none < any; numeric labels after alphanumeric ones).
#pragma once

#include "util/result.hpp"

#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rfdb::domain {

// Pre-release kinds in their PEP 440 order.
enum class PreKind { a, b, rc };

struct PreRelease {
  PreKind kind = PreKind::a;
  std::int64_t number = 0;
  bool operator==(const PreRelease&) const = default;
};

// One parsed PEP 440 version. `raw` is the string as given; the other fields
// are the normalized parts (`1.0-RC-1` → release {1, 0}, pre {rc, 1}).
struct Pep440Version {
  std::string raw;
  std::int64_t epoch = 0;
  std::vector<std::int64_t> release; // at least one component
  std::optional<PreRelease> pre;
  std::optional<std::int64_t> post;
  std::optional<std::int64_t> dev;
  std::vector<std::string> local; // lower-case labels, `+g9c1d2e4.rocm712` → {"g9c1d2e4", "rocm712"}

  // The release components joined by dots: "0.26.1" (no epoch).
  [[nodiscard]] std::string release_text() const;
  // The normalized public version (no local): "1!2.0rc1.post2.dev3".
  [[nodiscard]] std::string public_text() const;
  // The local segment joined by dots ("" when none).
  [[nodiscard]] std::string local_text() const;
  // True for a dev or pre-release build.
  [[nodiscard]] bool is_prerelease() const { return pre.has_value() || dev.has_value(); }

  // PEP 440 order and equality (raw is not compared: "1.0" == "1.0.0").
  friend std::strong_ordering operator<=>(const Pep440Version& a, const Pep440Version& b);
  friend bool operator==(const Pep440Version& a, const Pep440Version& b);
};

// The longest string parse_version reads (characters); longer is not a version.
inline constexpr std::size_t k_max_version_chars = 128;

// Parse a version string. Errors: invalid_input naming the text (its first 40
// characters when longer) when it is not a PEP 440 version ("", "abc", "1.0+",
// "rocprofiler-compute version: 3.1.1") or is longer than k_max_version_chars.
Result<Pep440Version> parse_version(std::string_view text);

// PEP 440 order of two versions (the same as a <=> b).
std::strong_ordering compare(const Pep440Version& a, const Pep440Version& b);

// The first PEP 440 version token in a free-text line, for tools that print
// a banner: "rocprofiler-compute version: 3.1.1" → 3.1.1. Tokens are split on
// whitespace and ':' ',' ';' '(' ')'; a token that starts with a letter is
// read after its last '-' ("rocprof-compute-3.1.1" → 3.1.1). nullopt when
// none parses.
std::optional<Pep440Version> find_version(std::string_view text);

// The profiler's own version in a banner or install record: the first version
// after "rocprofiler-compute" or "rocprof-compute" (ASCII case-insensitive)
// when the text names the tool, else find_version of the whole text. A banner
// that names ROCm first reads as the tool's version, not ROCm's:
// "ROCm 7.1.1 rocprofiler-compute 3.1.1" → 3.1.1, "rocprofiler-compute (3.4.2)"
// → 3.4.2, "rocprof-compute-3.5.0" → 3.5.0; "3.4.0" → 3.4.0; nullopt when the
// text holds no version after the name.
std::optional<Pep440Version> find_profiler_version(std::string_view text);

// The ROCm version a string names, as dotted text, or nullopt:
//  - a local version label `rocm7.1.2` (dotted) → "7.1.2", `rocm712` / `rocm702`
//    (compact: two or three digits, one per component) → "7.1.2" / "7.0.2";
//    given a whole version ("2.9.0+rocm7.1.2", "0.26.1.dev37+g9c1d2e4.rocm712")
//    its local labels are read;
//  - an install path with a `rocm-X.Y[.Z]` component: "/opt/rocm-7.1.1/bin/rocprof-compute" → "7.1.1".
// "/opt/rocm/bin/…" (no version), a compact label of another length, and
// anything else → nullopt (never guessed).
std::optional<std::string> rocm_from_local(std::string_view text);

// A package name normalized as PEP 503 does: lower case, runs of `-`, `_`, `.` → `-`.
std::string normalize_package(std::string_view name);

// A `--stack` specifier's comparison.
enum class SpecOp { lt, le, eq, ne, ge, gt };

// `--stack 'vllm>=0.26'`: a package and a PEP 440 comparison.
struct StackSpec {
  std::string text;    // as given
  std::string package; // normalize_package of the name
  SpecOp op = SpecOp::eq;
  Pep440Version version;
  bool wildcard = false; // `==0.26.*` / `!=0.26.*`: release prefix match
};

// Parse `<package><op><version>` with op one of < <= == != >= > (spaces
// around the op allowed); `==` and `!=` also take a `.*` prefix
// (`vllm==0.26.*`). Errors: invalid_input naming the spec and what is wrong
// (no operator, empty package, a version that is not PEP 440, `.*` with
// another operator).
Result<StackSpec> parse_stack_spec(std::string_view text);

// Does `installed` satisfy `spec`? Its local segment is ignored unless the
// spec names one. A spec on a plain release (`vllm>=0.26`) compares the
// installed build's release part only, so a dev, pre or post build counts
// as its release (GEAK's kb ids cut versions the same way): `vllm>=0.26`
// holds for 0.26.0.dev412 and 0.26.1.dev37, `vllm<0.26` does not hold for
// 0.26.0.dev412, `aiter==0.1.8` holds for 0.1.8.dev3. A spec naming a
// pre, post or dev build compares in full PEP 440 order, where a dev build
// sorts before its pre-releases and its release: `vllm>=0.26.0.dev400`
// holds for 0.26.0.dev412, `vllm<0.26.0` does not (0.26.0.dev412 is
// compared as 0.26.0). A wildcard `==0.26.*` holds for any build whose
// release starts with 0.26.
bool satisfies(const Pep440Version& installed, const StackSpec& spec);

} // namespace rfdb::domain
