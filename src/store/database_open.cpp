// Opening a database: read-only inspection first, then a read-only, a
// read-write or a migrating connection (see database.hpp).
#include "rfdb_sql.hpp"

#include "store/database.hpp"
#include "store/pg_backend.hpp"
#include "store/sources.hpp"
#include "store/sqlite_backend.hpp"
#include "store/sqlite_error.hpp"
#include "util/zstd.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <array>
#include <cctype>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <sqlite3.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace rfdb::store {

// Refuse what this rfdb must not touch: a foreign file or a newer schema;
// and, unless `older` is accept, an older one (which `rfdb migrate` upgrades).
Result<void> detail::check_identity(const Identity& id, OlderSchema older)
{
  if (id.application_id != k_application_id && !id.fresh()) {
    return fail(ErrorCode::not_rfdb_db, fmt::format("not an rfdb database (application_id {:#x})",
                                                    static_cast<std::uint32_t>(id.application_id)));
  }
  if (id.version > newest_schema_version()) {
    return fail(make_error(ErrorCode::schema_too_new,
                           fmt::format("database schema is version {}, this rfdb supports up to {}",
                                       id.version, newest_schema_version()))
                    .with_hint("upgrade rfdb to read this database"));
  }
  if (older == OlderSchema::refuse && !id.fresh() && id.version < newest_schema_version()) {
    return fail(make_error(ErrorCode::needs_migration,
                           fmt::format("database schema is version {}, this rfdb uses version {}", id.version,
                                       newest_schema_version()))
                    .with_hint("run `rfdb migrate` to upgrade it (it writes a backup copy first); older rfdb "
                               "binaries cannot read the upgraded file"));
  }
  return {};
}

namespace {

using detail::check_identity;
using detail::from_sqlite;
using detail::Identity;
using detail::k_busy_timeout_ms;

namespace fs = std::filesystem;

// The first 100 bytes of a database file: the SQLite header.
struct FileHeader {
  bool sqlite = false; // starts with "SQLite format 3\0"
  bool wal = false;    // file format read/write versions are 2 (WAL)
};

void configure_sqlite();

// The file SQLite opens for `path`, and names its -wal and -shm after:
// symlinks resolved (`path` itself when it cannot be resolved).
std::string sqlite_path(const std::string& path)
{
  std::error_code ec;
  const fs::path real = fs::canonical(path, ec);
  return ec ? path : real.string();
}

// Read through SQLite's VFS, not a stream of our own: POSIX drops every lock
// a process holds on a file when any of its descriptors for that file
// closes, so closing a stream here released the locks of this process's
// open read transactions on the file (a writer closing next took itself for
// the last connection and removed the WAL under them: "database disk image
// is malformed"). The VFS keeps such a descriptor open while a connection
// of this process holds a lock on the file.
Result<FileHeader> read_header(const std::string& path)
{
  configure_sqlite(); // before SQLite initializes (sqlite3_vfs_find does)
  sqlite3_vfs* vfs = sqlite3_vfs_find(nullptr);
  if (vfs == nullptr) {
    return fail(ErrorCode::io, "cannot read " + path + ": no SQLite file system");
  }
  std::vector<std::max_align_t> space(
      (static_cast<std::size_t>(vfs->szOsFile) + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t));
  auto* file = reinterpret_cast<sqlite3_file*>(space.data());
  int flags = 0;
  // The VFS opens with O_NOFOLLOW: sqlite3_open resolves the name first.
  const std::string real = sqlite_path(path);
  const int opened = vfs->xOpen(vfs, real.c_str(), file, SQLITE_OPEN_READONLY | SQLITE_OPEN_MAIN_DB, &flags);
  std::array<char, 100> header{};
  int read = SQLITE_IOERR;
  if (opened == SQLITE_OK) {
    read = file->pMethods->xRead(file, header.data(), static_cast<int>(header.size()), 0);
  }
  if (file->pMethods != nullptr) {
    file->pMethods->xClose(file);
  }
  if (opened != SQLITE_OK) {
    return fail(ErrorCode::io, "cannot read " + path);
  }
  FileHeader h;
  h.sqlite =
      read == SQLITE_OK && std::string_view(header.data(), 16) == std::string_view("SQLite format 3\0", 16);
  h.wal = h.sqlite && header[18] == 2 && header[19] == 2;
  return h;
}

// Why `path` cannot be a database file, before SQLite sees it: a directory,
// or a file in a directory that does not exist.
std::optional<Error> unusable_path(const std::string& path)
{
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    return make_error(ErrorCode::io, "is a directory, not a database file")
        .with_hint("--db (or RFDB_DB) names the database file, e.g. --db " +
                   (fs::path(path) / "rfdb.sqlite").string());
  }
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec)) {
    return make_error(ErrorCode::not_found, "directory " + parent.string() + " does not exist")
        .with_hint("create it, or point --db (or RFDB_DB) at a file in an existing directory");
  }
  return std::nullopt;
}

// "file:" URI for `path`: everything but unreserved characters and '/' is
// percent-encoded, so '?', '#' and '%' in a name mean themselves.
std::string file_uri(const std::string& path, std::string_view query)
{
  std::string out = "file:";
  for (const unsigned char c : path) {
    if (std::isalnum(c) != 0 || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out + "?" + std::string(query);
}

Identity read_identity(SQLite::Database& db)
{
  // One statement reads all three from one snapshot: a concurrent creator
  // commits the schema and application_id together.
  SQLite::Statement probe(db, "SELECT (SELECT application_id FROM pragma_application_id()),"
                              " (SELECT user_version FROM pragma_user_version()),"
                              " (SELECT count(*) FROM sqlite_master)");
  probe.executeStep();
  return {probe.getColumn(0).getInt(), probe.getColumn(1).getInt(), probe.getColumn(2).getInt()};
}

// Process-wide SQLite settings, applied once before the first connection
// (sqlite3_config must precede SQLite's initialization; later it is a
// harmless SQLITE_MISUSE). No memory statistics: rfdb never reads them, and
// keeping them takes a global mutex on every SQLite malloc and free (~3 % of
// ingest's store thread).
void configure_sqlite()
{
  static const bool configured = [] {
    (void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    return true;
  }();
  (void)configured;
}

// Whether this reader should take `path` as never written: the file has no
// write bit (even for root, who may write anything), or this user cannot
// write the file (a colleague's file in a shared directory: a read-write
// open would fail) or create files in its directory (where SQLite could not
// create a -wal and -shm either).
bool read_only_archive(const std::string& path)
{
  std::error_code ec;
  const auto perms = fs::status(path, ec).permissions();
  constexpr auto k_write = fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write;
  if (!ec && (perms & k_write) == fs::perms::none) {
    return true;
  }
  const fs::path dir = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
  return ::access(path.c_str(), W_OK) != 0 || ::access(dir.c_str(), W_OK) != 0;
}

// A read-only connection (query_only) to an existing, non-empty SQLite
// file. A WAL file without a -wal is opened immutable only when it is a
// read-only archive (read_only_archive): SQLite would otherwise create -wal
// and -shm beside it, and there it cannot. Anywhere a writer may come, it
// is opened as a normal connection: an immutable reader assumes the file
// never changes, and reading while an ingest checkpoints into it failed
// with "database disk image is malformed".
// The connection is used by one thread only, so it
// takes no mutex (OPEN_NOMUTEX): in the default serialized mode every column
// read locked one, a tenth of the time of reading 10⁵ rows.
Result<std::unique_ptr<SQLite::Database>> connect_read_only(const std::string& path, const FileHeader& header)
{
  configure_sqlite();
  std::error_code ec;
  const std::string real = sqlite_path(path);
  const bool no_wal = header.wal && !fs::exists(real + "-wal", ec);
  const bool immutable = no_wal && read_only_archive(real);
  // A WAL file without its -wal that may be written: opened read-write (no
  // create) under query_only, so that the last connection to close removes
  // the -wal and -shm SQLite makes, as a writer does; mode=ro would leave them.
  const bool cleanup = no_wal && !immutable;
  try {
    auto db = std::make_unique<SQLite::Database>(file_uri(path, immutable ? "immutable=1"
                                                                : cleanup ? "mode=rw"
                                                                          : "mode=ro"),
                                                 (cleanup ? SQLite::OPEN_READWRITE : SQLite::OPEN_READONLY) |
                                                     SQLite::OPEN_URI | SQLite::OPEN_NOMUTEX);
    db->setBusyTimeout(k_busy_timeout_ms);
    db->exec("PRAGMA query_only = ON");
    return db;
  } catch (const SQLite::Exception& e) {
    return fail(from_sqlite(e, "open"));
  }
}

// True when `path` holds a database: a non-empty file, or an empty one whose
// -wal holds committed pages (a crashed writer's first transaction).
bool has_content(const std::string& path)
{
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    return false;
  }
  if (const auto size = fs::file_size(path, ec); !ec && size > 0) {
    return true;
  }
  const auto wal = fs::file_size(sqlite_path(path) + "-wal", ec);
  return !ec && wal > 0;
}

// The header of `path`; an empty main file with a -wal counts as SQLite in WAL mode.
Result<FileHeader> header_of(const std::string& path)
{
  std::error_code ec;
  if (fs::file_size(path, ec) == 0) {
    return FileHeader{true, true};
  }
  return read_header(path);
}

// Inspect `path` through a read-only connection. Returns nullopt for a
// missing or empty file (a new database).
Result<std::optional<Identity>> inspect(const std::string& path)
{
  if (!has_content(path)) {
    return std::optional<Identity>();
  }
  FileHeader header;
  RFDB_TRY_ASSIGN(header, header_of(path));
  if (!header.sqlite) {
    return fail(ErrorCode::not_rfdb_db, "not an rfdb database (not an SQLite file)");
  }
  std::unique_ptr<SQLite::Database> db;
  RFDB_TRY_ASSIGN(db, connect_read_only(path, header));
  try {
    return std::optional<Identity>(read_identity(*db));
  } catch (const SQLite::Exception& e) {
    return fail(from_sqlite(e, "open"));
  }
}

// Switch to WAL once per file. Changing the journal mode needs an exclusive
// lock and SQLite does not wait for it, so retry while another process holds
// the file, up to the busy timeout.
Result<void> enable_wal(SQLite::Database& db)
{
  for (int waited_ms = 0;; waited_ms += 20) {
    try {
      if (db.execAndGet("PRAGMA journal_mode").getString() == "wal") {
        return {};
      }
      db.execAndGet("PRAGMA journal_mode = WAL"); // "memory" stays for :memory:
      return {};
    } catch (const SQLite::Exception& e) {
      if (e.getErrorCode() != SQLITE_BUSY || waited_ms >= k_busy_timeout_ms) {
        return fail(from_sqlite(e, "open: journal_mode"));
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// rfdb_zstd(x): one zstd frame of x's bytes (BLOB), NULL for NULL. Migration
// 0008 compresses the stored file text with it; SQLite has no zstd.
void sql_rfdb_zstd(sqlite3_context* ctx, int /*argc*/, sqlite3_value** argv) noexcept
{
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
    sqlite3_result_null(ctx);
    return;
  }
  try {
    // blob before bytes (SQLite's rule); a TEXT value's bytes come unconverted.
    const auto* bytes = static_cast<const char*>(sqlite3_value_blob(argv[0]));
    const auto size = static_cast<std::size_t>(sqlite3_value_bytes(argv[0]));
    const std::string frame =
        util::zstd::compress(bytes == nullptr ? std::string_view() : std::string_view(bytes, size));
    sqlite3_result_blob64(ctx, frame.data(), frame.size(), SQLITE_TRANSIENT);
  } catch (const std::exception& e) {
    sqlite3_result_error(ctx, e.what(), -1);
  }
}

// rfdb_unhex(x): the bytes a hex text spells (BLOB), NULL for NULL; an error
// for text that is not hex. Migration 0010 stores each sha256 as its 32
// bytes with it; SQLite 3.40 has no unhex().
void sql_rfdb_unhex(sqlite3_context* ctx, int /*argc*/, sqlite3_value** argv) noexcept
{
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
    sqlite3_result_null(ctx);
    return;
  }
  const auto* text = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));
  const auto size = static_cast<std::size_t>(sqlite3_value_bytes(argv[0]));
  const std::string_view hex = text == nullptr ? std::string_view() : std::string_view(text, size);
  const std::string bytes = digest_bytes(hex);
  if (bytes.size() * 2 != hex.size()) {
    sqlite3_result_error(ctx, "rfdb_unhex: not a hex text", -1);
    return;
  }
  sqlite3_result_blob64(ctx, bytes.data(), bytes.size(), SQLITE_TRANSIENT);
}

} // namespace

int newest_schema_version()
{
  return static_cast<int>(sql::k_migrations.size());
}

namespace {

// A read-write connection with the connection PRAGMAs every writer uses.
// Like a read-only one it is used by one thread only (ingest's background
// threads list and read files, never the store), so it takes no mutex
// (OPEN_NOMUTEX): the serialized mode's locking was ~2.5 % of ingest CPU.
Result<std::unique_ptr<SQLite::Database>> connect_read_write(const std::string& path)
{
  configure_sqlite();
  try {
    auto db = std::make_unique<SQLite::Database>(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE |
                                                           SQLite::OPEN_NOMUTEX);
    db->setBusyTimeout(k_busy_timeout_ms);
    // 8 KiB pages for a new file (a no-op on an existing one): a stored file's
    // row (its zstd frame inline) packs into them with less slack than into
    // 4 KiB, 4 % less file for tools/bench's corpus.
    db->exec("PRAGMA page_size = 8192");
    RFDB_TRY(enable_wal(*db));
    db->exec("PRAGMA foreign_keys = ON");
    db->exec("PRAGMA synchronous = NORMAL");
    return db;
  } catch (const SQLite::Exception& e) {
    Error err = from_sqlite(e, "open");
    // "unable to open database file" where this user may not write: say so.
    std::error_code ec;
    const fs::path dir = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
    const bool unwritable =
        (fs::exists(path, ec) && ::access(path.c_str(), W_OK) != 0) || ::access(dir.c_str(), W_OK) != 0;
    detail::classify_sqlite(err, e.getErrorCode(), unwritable);
    return fail(std::move(err));
  }
}

} // namespace

Result<Database> Database::open(const std::string& path)
{
  if (is_postgresql_url(path)) {
    return detail::pg_open(path);
  }
  if (path != ":memory:") {
    if (auto bad = unusable_path(path)) {
      return fail(std::move(*bad));
    }
    // Read-only checks first, so a refused file is left exactly as it was.
    std::optional<Identity> id;
    RFDB_TRY_ASSIGN(id, inspect(path));
    if (id) {
      RFDB_TRY(check_identity(*id, OlderSchema::refuse));
    }
  }
  std::unique_ptr<SQLite::Database> db;
  RFDB_TRY_ASSIGN(db, connect_read_write(path));
  Database out(std::make_unique<detail::SqliteDatabase>(std::move(db)), path, false);
  RFDB_TRY(out.migrate(Upgrade::new_file_only));
  return out;
}

Result<Database> Database::open_read_only(const std::string& path, OlderSchema older)
{
  if (is_postgresql_url(path)) {
    return detail::pg_open_read_only(path, older);
  }
  if (path == ":memory:") {
    return open(path);
  }
  if (auto bad = unusable_path(path)) {
    return fail(std::move(*bad));
  }
  std::error_code ec;
  if (!has_content(path)) {
    return fail(make_error(ErrorCode::not_found,
                           fs::exists(path, ec) ? "the database file is empty" : "no database at this path")
                    .with_hint("`rfdb ingest EVAL_DIR…` creates it; --db PATH (or RFDB_DB) says which file "
                               "to read"));
  }
  FileHeader header;
  RFDB_TRY_ASSIGN(header, header_of(path));
  if (!header.sqlite) {
    return fail(ErrorCode::not_rfdb_db, "not an rfdb database (not an SQLite file)");
  }
  std::unique_ptr<SQLite::Database> db;
  RFDB_TRY_ASSIGN(db, connect_read_only(path, header));
  try {
    const auto id = read_identity(*db);
    if (id.fresh()) {
      // An SQLite file with no rfdb schema: a first ingest interrupted
      // before its migration committed, or a file made by other tools.
      return fail(make_error(ErrorCode::not_found, "the database holds no rfdb schema yet")
                      .with_hint("`rfdb ingest EVAL_DIR…` sets it up (a first ingest that was interrupted "
                                 "leaves it empty)"));
    }
    RFDB_TRY(check_identity(id, older));
    db->exec("PRAGMA foreign_keys = ON");
  } catch (const SQLite::Exception& e) {
    return fail(from_sqlite(e, "open"));
  }
  return Database(std::make_unique<detail::SqliteDatabase>(std::move(db)), path, true);
}

Result<void> Database::migrate(Upgrade upgrade)
{
  Transaction tx(*this);
  SQLite::Database& db = static_cast<detail::SqliteDatabase&>(*m_impl).raw();
  try {
    db.exec("BEGIN IMMEDIATE");
    // Re-read inside the write lock: another process may have migrated.
    const Identity id = read_identity(db);
    RFDB_TRY(check_identity(id, upgrade == Upgrade::any ? OlderSchema::accept : OlderSchema::refuse));
    // Functions the migrations call (prepared even when they touch no row).
    db.createFunction("rfdb_zstd", 1, true, nullptr, sql_rfdb_zstd);
    db.createFunction("rfdb_unhex", 1, true, nullptr, sql_rfdb_unhex);
    for (const auto& m : sql::k_migrations) {
      if (m.version > id.version) {
        db.exec(std::string(m.sql));
      }
    }
    if (id.version < newest_schema_version()) {
      // PRAGMAs take no parameters; the value is our own integer constant.
      db.exec(fmt::format("PRAGMA application_id = {}", k_application_id));
      db.exec(fmt::format("PRAGMA user_version = {}", newest_schema_version()));
    }
  } catch (const SQLite::Exception& e) {
    return fail(from_sqlite(e, "migrate"));
  }
  return tx.commit();
}

namespace {
std::function<Result<void>(const std::string&)> g_backup_hook; // set_migrate_backup_hook
} // namespace

void set_migrate_backup_hook(std::function<Result<void>(const std::string& partial)> hook)
{
  g_backup_hook = std::move(hook);
}

Result<MigrateReport> migrate_database(const std::string& path)
{
  if (is_postgresql_url(path)) {
    return detail::pg_migrate_database(path);
  }
  if (auto bad = unusable_path(path)) {
    return fail(std::move(*bad));
  }
  std::optional<Identity> id;
  RFDB_TRY_ASSIGN(id, inspect(path));
  if (id) {
    RFDB_TRY(check_identity(*id, OlderSchema::accept));
  }
  MigrateReport report;
  report.from_version = id ? id->version : 0;
  report.to_version = newest_schema_version();
  report.created = !id;
  if (id && !id->fresh() && id->version < newest_schema_version()) {
    // The backup comes from a read-only connection: VACUUM INTO writes a
    // consistent copy without touching the original.
    std::string backup = fmt::format("{}.v{}.bak", path, id->version);
    std::error_code ec;
    for (int i = 1; fs::exists(backup, ec); ++i) {
      backup = fmt::format("{}.v{}.{}.bak", path, id->version, i);
    }
    // Written under a temporary name and renamed when complete: a migrate
    // killed during its backup leaves no partial .bak (the next one takes
    // the same name), only the .partial, which the next one replaces.
    const std::string partial = backup + ".partial";
    fs::remove(partial, ec);
    FileHeader header;
    RFDB_TRY_ASSIGN(header, header_of(path));
    std::unique_ptr<SQLite::Database> ro;
    RFDB_TRY_ASSIGN(ro, connect_read_only(path, header));
    try {
      ro->exec("PRAGMA query_only = OFF"); // VACUUM INTO writes only the new file
      SQLite::Statement vacuum(*ro, "VACUUM INTO :file");
      vacuum.bind(":file", partial);
      vacuum.exec();
    } catch (const SQLite::Exception& e) {
      fs::remove(partial, ec);
      Error err = from_sqlite(e, "backup " + backup);
      return fail(err.hint.empty()
                      ? std::move(err).with_hint("free disk space or make the directory writable")
                      : std::move(err));
    }
    if (g_backup_hook) {
      if (auto stop = g_backup_hook(partial); !stop) {
        return fail(std::move(stop).error()); // as if killed here: the .partial stays
      }
    }
    fs::rename(partial, backup, ec);
    if (ec) {
      fs::remove(partial, ec);
      return fail(make_error(ErrorCode::io, fmt::format("backup {}: rename: {}", backup, ec.message()))
                      .with_hint("make the directory writable"));
    }
    report.backup = backup;
  }
  std::unique_ptr<SQLite::Database> db;
  RFDB_TRY_ASSIGN(db, connect_read_write(path));
  Database out(std::make_unique<detail::SqliteDatabase>(std::move(db)), path, false);
  RFDB_TRY(out.migrate(Database::Upgrade::any));
  if (!report.backup.empty()) {
    // Migrations that drop or compress columns (0008) leave free pages; the
    // backup holds the old file, so the upgraded one is rewritten compactly.
    RFDB_TRY(out.exec("VACUUM", "migrate: vacuum"));
  }
  return report;
}
} // namespace rfdb::store
