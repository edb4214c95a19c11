// Statement::bind_blob and Statement::get_blob on SQLite: BLOB values byte for byte (see database.hpp).
#include "store/database.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <limits>

namespace rfdb::store {

Statement& Statement::bind_blob(const char* name, std::string_view bytes)
{
  if (m_bind_error) {
    return *this;
  }
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    m_bind_error = make_error(ErrorCode::db, fmt::format("a BLOB of {} bytes is too large", bytes.size()))
                       .with_context(fmt::format("query {}: bind {}", m_name, name));
    return *this;
  }
  try {
    // SQLITE_TRANSIENT: SQLite copies the bytes, so `bytes` need not outlive the statement.
    m_stmt->bind(name, bytes.data(), static_cast<int>(bytes.size()));
  } catch (const std::exception& e) {
    m_bind_error = sqlite_error(e).with_context(fmt::format("bind {}", name));
  }
  return *this;
}

std::string Statement::get_blob(const char* col) const
{
  const SQLite::Column c = m_stmt->getColumn(index_of(col));
  const auto* data = static_cast<const char*>(c.getBlob());
  const int size = c.getBytes();
  if (data == nullptr || size <= 0) {
    return {};
  }
  return {data, static_cast<std::size_t>(size)};
}

} // namespace rfdb::store
