// The store: one SQLite file per engineer, or one PostgreSQL database per team.
//
// `--db` (or RFDB_DB) picks the backend: a `postgresql://` or `postgres://`
// URI (libpq's connection URI; the PG* environment variables and ~/.pgpass
// apply) selects PostgreSQL, anything else is an SQLite path. Callers see
// one API: they prepare the named SQL files of queries/ (Database::prepare
// picks the queries/postgresql/ text of the same name on PostgreSQL when one
// exists) and bind by parameter name. PostgreSQL is described in
// pg_backend.hpp; the rest of this comment is about SQLite.
//
// SQLite connections are made in exactly three places (database_open.cpp):
// - `Database::open_read_only` for commands that only read: SQLite's
//   `mode=ro` (or `immutable=1` for a WAL file without its `-wal` that
//   nobody may write: no write bit on the file, or a directory this user
//   cannot write; no `-wal`/`-shm` is created then), `query_only`, no
//   journal-mode switch and no migration. It works on a 444 file in a
//   read-only directory and leaves no file behind there; elsewhere SQLite
//   may leave an empty `-wal` and a `-shm`, and reads stay consistent while
//   another process writes.
// - `Database::open` for commands that write: creates a missing file, sets
//   busy_timeout, WAL and foreign_keys, and creates the schema of a new file.
// - `migrate_database` (`rfdb migrate`): writes a `VACUUM INTO` backup, then
//   applies the pending migrations in one BEGIN IMMEDIATE transaction keyed by
//   PRAGMA user_version (docs/architecture.md, "Conventions").
// Each inspects the file through a read-only connection first, so a foreign,
// newer or older file is refused byte-for-byte untouched (a pending WAL is
// neither checkpointed nor removed).
//
// SQLiteCpp and libpq types never leave store/. Errors surface as
// rfdb::Error with the query name and SQLite's primary and extended result
// codes (PostgreSQL: its SQLSTATE).
#pragma once

#include "util/result.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace rfdb::store {

namespace detail {
class StatementImpl;
class DatabaseImpl;
} // namespace detail

// Which engine a Database talks to.
enum class Backend { sqlite, postgresql };

// True when `db` (a --db / RFDB_DB value) names a PostgreSQL database: it
// starts with "postgresql://" or "postgres://".
[[nodiscard]] bool is_postgresql_url(std::string_view db);
// `db` as messages show it: a PostgreSQL URI's password replaced by "***".
[[nodiscard]] std::string display_name(std::string_view db);

// PRAGMA application_id stamped on every rfdb database ("RFDB"); on
// PostgreSQL the rfdb_meta row 'application_id'.
inline constexpr std::int32_t k_application_id = 0x52464442;

// What `Database::open_read_only` accepts besides the current schema.
enum class OlderSchema { refuse, accept };

// What SQLite says about a statement without running it.
struct StatementInfo {
  bool read_only = false;              // sqlite3_stmt_readonly
  std::vector<std::string> parameters; // named parameters without the ':' in order of appearance
};

// What `migrate_database` did.
struct MigrateReport {
  int from_version = 0;
  int to_version = 0;
  bool created = false; // the file did not exist and was created
  std::string backup;   // VACUUM INTO copy of the old file ("" when nothing was migrated, and
                        // always on PostgreSQL: back it up with pg_dump first)
};

// A prepared statement, reusable across rows: bind, exec (or step/read), and
// it resets itself for the next row. A failed bind is remembered and returned
// by the next exec/step, so call sites stay linear. Only Database::prepare
// makes one (there is no empty Statement: every handle is a prepared one).
class Statement {
public:
  Statement(std::unique_ptr<detail::StatementImpl> impl, std::string name);
  Statement(Statement&&) noexcept;
  Statement& operator=(Statement&&) noexcept;
  ~Statement();

  // Bind `value` to the named parameter (":name"); nullopt binds NULL.
  Statement& bind(const char* name, std::nullopt_t);
  Statement& bind(const char* name, std::int64_t value);
  Statement& bind(const char* name, int value);
  Statement& bind(const char* name, double value);
  Statement& bind(const char* name, bool value);
  Statement& bind(const char* name, std::string_view value);
  Statement& bind(const char* name, const std::string& value);
  Statement& bind(const char* name, const char* value);
  Statement& bind(const char* name, const std::optional<double>& value);
  Statement& bind(const char* name, const std::optional<std::int64_t>& value);
  Statement& bind(const char* name, const std::optional<std::string>& value);
  Statement& bind(const char* name, const std::optional<bool>& value);
  // Bind raw bytes (SQLite BLOB, PostgreSQL BYTEA); NUL bytes included.
  Statement& bind_blob(const char* name, std::string_view bytes);

  // Run to completion, then reset and clear bindings. Returns changed rows.
  Result<int> exec();
  // Advance one row: true while a row is available. Call reset() when done
  // early; after the last row the statement resets itself.
  Result<bool> step();
  void reset();

  // Column readers for the current row, by 0-based index or by result
  // column name (the name as the query's SELECT spells it or aliases it; an
  // unknown name is a programming error and throws).
  [[nodiscard]] bool is_null(int col) const;
  // True when the value is stored as INTEGER or REAL.
  [[nodiscard]] bool is_number(int col) const;
  [[nodiscard]] std::int64_t get_int(int col) const;
  [[nodiscard]] double get_double(int col) const;
  [[nodiscard]] std::string get_text(int col) const;
  [[nodiscard]] std::optional<std::int64_t> get_opt_int(int col) const;
  [[nodiscard]] std::optional<double> get_opt_double(int col) const;
  [[nodiscard]] std::optional<std::string> get_opt_text(int col) const;
  // The text without a copy, valid until the next step, reset or read of
  // the same column; nullopt for NULL.
  [[nodiscard]] std::optional<std::string_view> get_opt_text_view(int col) const;
  [[nodiscard]] bool is_null(const char* col) const;
  [[nodiscard]] bool is_number(const char* col) const;
  [[nodiscard]] std::int64_t get_int(const char* col) const;
  [[nodiscard]] double get_double(const char* col) const;
  [[nodiscard]] std::string get_text(const char* col) const;
  [[nodiscard]] std::optional<std::int64_t> get_opt_int(const char* col) const;
  [[nodiscard]] std::optional<double> get_opt_double(const char* col) const;
  [[nodiscard]] std::optional<std::string> get_opt_text(const char* col) const;
  // The bytes of a BLOB (BYTEA) column; of a text column, its bytes.
  [[nodiscard]] std::string get_blob(int col) const;
  [[nodiscard]] std::string get_blob(const char* col) const;
  [[nodiscard]] int column_count() const;
  [[nodiscard]] std::string column_name(int col) const;
  // Index of a named result column; -1 when absent.
  [[nodiscard]] int column_index(std::string_view name) const;

private:
  [[nodiscard]] int index_of(const char* col) const;
  Statement& remember(Result<void> bound);

  std::unique_ptr<detail::StatementImpl> m_impl;
  std::string m_name;
  std::optional<Error> m_bind_error;
};

// Step `s` through every remaining row, calling `fn(const Statement&)` on
// each; `fn` may return void or Result<void> (an error stops the walk and
// resets the statement). The statement is reset afterwards, ready for the
// next binding. Errors: db, or the first error `fn` returns.
template <typename Fn> Result<void> for_each_row(Statement& s, Fn&& fn)
{
  for (;;) {
    auto row = s.step();
    if (!row) {
      return fail(std::move(row).error());
    }
    if (!*row) {
      return {};
    }
    const Statement& current = s;
    if constexpr (std::is_void_v<std::invoke_result_t<Fn&, const Statement&>>) {
      fn(current);
    } else {
      if (auto r = fn(current); !r) {
        s.reset();
        return r;
      }
    }
  }
}

class Transaction;

class Database {
public:
  Database(Database&&) noexcept;
  Database& operator=(Database&&) noexcept;
  ~Database();

  // Open the database at `path` for writing (":memory:" allowed), creating
  // the file and its schema when it does not exist or is empty.
  // Errors: not_rfdb_db (foreign application_id, or not SQLite at all),
  // schema_too_new (user_version above the newest migration),
  // needs_migration (an older schema: hint `rfdb migrate`), not_found (the
  // directory does not exist), io (the path is a directory), db.
  // A PostgreSQL URI: connects, and creates the schema of a database that
  // holds no table (under an advisory lock, so concurrent first opens are
  // safe); the same errors, not_rfdb_db for tables without rfdb_meta, db
  // when the server cannot be reached.
  static Result<Database> open(const std::string& path);

  // Open an existing database for reading only (see the top of this file).
  // ":memory:" yields an empty database at the newest schema. A PostgreSQL
  // URI: every transaction of the session is READ ONLY and nothing is
  // created; a role with SELECT on the tables suffices (not_found for a
  // database without the rfdb schema).
  // Errors: not_found (no such file, or an empty one), io (a directory),
  // not_rfdb_db, schema_too_new, needs_migration (unless `older` is accept),
  // db.
  static Result<Database> open_read_only(const std::string& path, OlderSchema older = OlderSchema::refuse);

  // Prepare `sql`; `name` (the queries/ file stem) is used in error messages.
  Result<Statement> prepare(std::string_view sql, std::string_view name);
  // The text `prepare` runs for the queries/ file `name` whose SQLite text is
  // `sql`: on PostgreSQL its queries/postgresql/ twin when it has one.
  [[nodiscard]] std::string_view query_text(std::string_view sql, std::string_view name) const;
  // Execute one or more statements without results.
  Result<void> exec(std::string_view sql, std::string_view name);
  // Whether `sql` (one statement) is read-only and which named parameters it
  // takes, as SQLite's prepare reports them. Errors: db.
  Result<StatementInfo> describe(std::string_view sql, std::string_view name);
  // The write transaction of one unit of work (one run). SQLite: BEGIN
  // IMMEDIATE, taking the write lock now, waiting up to busy_timeout.
  // PostgreSQL: BEGIN ISOLATION LEVEL SERIALIZABLE plus a table lock that
  // queues writers (see pg_backend.hpp); a
  // statement in it may fail with ErrorCode::retry, and with_retry re-runs
  // the whole unit.
  Result<Transaction> begin_immediate();
  // A read transaction: every statement until end_read reads one snapshot
  // of the database. SQLite: BEGIN, and the snapshot is taken now (not at
  // the first read); PostgreSQL: BEGIN ISOLATION LEVEL REPEATABLE READ, READ
  // ONLY. Errors: db.
  Result<void> begin_read();
  // End the read transaction (COMMIT). True when the snapshot it read is
  // still the newest: on SQLite, no other connection committed since
  // begin_read (so another connection whose read transaction began after
  // this one's and before this call read the same snapshot); always true on
  // PostgreSQL. A read-only archive opened immutable (open_read_only) is
  // taken never to change. Errors: db.
  Result<bool> end_read();
  // Cap the page cache of this connection at `kib` KiB (SQLite's PRAGMA
  // cache_size, default 2000 KiB), for a reader that streams each table
  // once and needs little cache; PostgreSQL: nothing. Errors: db.
  Result<void> limit_page_cache(int kib);
  // A number naming the write transaction begin_immediate opened, while it
  // is open (0: none is); every begin_immediate gets a new one. Lets a
  // writer keep what it read earlier in the same transaction, which no
  // other connection can have changed.
  [[nodiscard]] std::uint64_t write_transaction() const { return m_write_tx; }

  // The key of the row the last insert wrote (PostgreSQL: the value of the
  // insert's RETURNING column, see queries/postgresql/).
  [[nodiscard]] std::int64_t last_insert_rowid() const;
  // PRAGMA user_version (the applied migration count); PostgreSQL:
  // rfdb_meta's 'schema_version'.
  [[nodiscard]] int schema_version() const;
  [[nodiscard]] Backend backend() const;
  [[nodiscard]] const std::string& path() const { return m_path; }
  // True for connections made by open_read_only.
  [[nodiscard]] bool read_only() const { return m_read_only; }

  // For the backends' open functions only.
  Database(std::unique_ptr<detail::DatabaseImpl> impl, std::string path, bool read_only);
  [[nodiscard]] detail::DatabaseImpl& impl() { return *m_impl; }

private:
  enum class Upgrade { new_file_only, any };
  Result<void> migrate(Upgrade upgrade);
  friend Result<MigrateReport> migrate_database(const std::string& path);

  std::unique_ptr<detail::DatabaseImpl> m_impl;
  std::string m_path;
  bool m_read_only = false;
  std::uint64_t m_write_tx = 0;    // the open write transaction (write_transaction)
  std::uint64_t m_write_txs = 0;   // write transactions begun
  std::int64_t m_read_version = 0; // SQLite's data_version when begin_read took its snapshot
  friend class Transaction;
};

// RAII write transaction: rolls back unless commit() succeeded.
class Transaction {
public:
  explicit Transaction(Database& db) : m_db(&db) {}
  Transaction(Transaction&& other) noexcept;
  Transaction& operator=(Transaction&&) = delete;
  ~Transaction();

  Result<void> commit();
  // Roll back now (also done by the destructor); never throws.
  void rollback() noexcept;

private:
  Database* m_db;
  bool m_open = true;
};

// One embedded query: its SQL text and the queries/ file stem (for errors).
struct NamedQuery {
  std::string_view sql;
  std::string_view name;
};

// Prepare every query in order (statements a writer reuses across rows).
// Errors: the first that fails to prepare (db).
Result<std::vector<Statement>> prepare_all(Database& db, std::initializer_list<NamedQuery> queries);

// Newest schema version this binary knows (the number of embedded migrations).
int newest_schema_version();

// `rfdb migrate`: bring the database at `path` to the newest schema. An
// older file is first copied with VACUUM INTO to "<path>.v<N>.bak" (a free
// name: ".v<N>.1.bak", …; written as "<backup>.partial" and renamed when
// complete, so a killed migrate leaves no partial .bak and the next one takes
// the same name), migrated in one transaction, then VACUUMed (the
// space dropped columns held is given back); a missing file is created. Nothing is written when
// the schema is current. Errors: as Database::open, io when the backup cannot
// be written. PostgreSQL: the pending migrations run in one transaction
// under the advisory lock; no backup is written (report.backup stays ""):
// take one with pg_dump before upgrading.
Result<MigrateReport> migrate_database(const std::string& path);

// How many times with_retry runs a unit of work.
inline constexpr int k_retry_attempts = 8;

// Run `fn()` (returning Result<T>) until it succeeds or fails with an error
// other than ErrorCode::retry (a PostgreSQL serialization failure or
// deadlock: the transaction rolled back and may simply be run again), at
// most k_retry_attempts times, sleeping a jittered, doubling backoff (5 ms,
// 10 ms, … up to 320 ms, times 0.5–1.5) between attempts. `fn` must redo
// the whole transaction (begin_immediate … commit) and reset whatever it
// reports. On SQLite the error never occurs (BEGIN IMMEDIATE serializes
// writers), so `fn` runs once.
template <typename Fn> auto with_retry(Fn&& fn) -> decltype(fn())
{
  thread_local std::minstd_rand jitter(std::random_device{}());
  for (int attempt = 1;; ++attempt) {
    auto r = fn();
    if (r || r.error().code != ErrorCode::retry || attempt >= k_retry_attempts) {
      return r;
    }
    const int base_ms = 5 << std::min(attempt - 1, 6);
    std::uniform_int_distribution<int> spread(base_ms / 2, base_ms + base_ms / 2);
    std::this_thread::sleep_for(std::chrono::milliseconds(spread(jitter)));
  }
}

// Test hook (fault injection, as util::set_write_fault_after): the write
// statement `after` writes from now (0: the next one) on any SQLite
// connection fails with SQLite's primary result `code` (SQLITE_FULL = 13,
// SQLITE_READONLY = 8, …) as SQLite reports it, then the hook disarms;
// nullopt disarms it. A write is a statement SQLite does not call read-only.
// Test hook: called with the complete backup's temporary name before
// migrate_database renames it into place; an error stops the migrate there,
// as a kill would (the .partial stays). An empty function removes the hook.
void set_migrate_backup_hook(std::function<Result<void>(const std::string& partial)> hook);

struct SqliteWriteFault {
  int code = 0;
  int after = 0;
};
void set_sqlite_write_fault(std::optional<SqliteWriteFault> fault);

} // namespace rfdb::store
