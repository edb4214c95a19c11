// `rfdb ingest --format json`: the report document, its "paths" elements
// spooled as each path finishes (see JsonPathSpool).
#pragma once

#include "ingest/ingest.hpp"

#include <cstddef>
#include <cstdio>
#include <memory>
#include <ostream>
#include <string>

namespace rfdb::cli {

// The `--format json` report's "paths" elements, each written out as its path
// finishes: to an unlinked temporary file in $TMPDIR (else /tmp), so one call
// over thousands of runs keeps a flat memory footprint. Every element is
// flushed as it is added; when the file cannot be made or a write fails (a
// full disk), the elements already spooled are read back and the report goes
// on in memory, so nothing is lost. The printed document is byte-identical to
// dumping the whole report object with an indent of 2:
// {"ok", "dry_run", "interrupted", "paths"}.
class JsonPathSpool {
public:
  JsonPathSpool();

  // Add one path's element (written out and flushed at once).
  void add(const ingest::PathReport& p);

  // Print the whole report document (and a final newline) to `out`, the
  // spooled elements streamed from the file. Errors: false when they cannot
  // all be read back (the document printed is then incomplete).
  [[nodiscard]] bool print(std::ostream& out, bool ok, bool dry_run, bool stopped);

private:
  static std::FILE* open_temporary();
  // Read back the m_spooled bytes written so far (they precede m_memory) and
  // drop the file.
  void move_to_memory();

  std::unique_ptr<std::FILE, int (*)(std::FILE*)> m_file;
  std::size_t m_spooled = 0; // bytes written and flushed to m_file
  std::string m_memory;      // the elements after those in m_file
  std::size_t m_count = 0;
  bool m_lost = false; // the file could not be read back
};

} // namespace rfdb::cli
