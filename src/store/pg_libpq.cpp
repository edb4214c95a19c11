// libpq through dlopen (see pg_libpq.hpp).
#include "store/pg_libpq.hpp"

#include <fmt/format.h>

#include <dlfcn.h>
#include <string>
#include <type_traits>

namespace rfdb::store::detail {

namespace {

Error load_error(const char* soname, const char* reason)
{
  return make_error(ErrorCode::db, fmt::format("cannot load the PostgreSQL client library {}: {}", soname,
                                               reason != nullptr ? reason : "unknown reason"))
      .with_hint("the PostgreSQL backend needs libpq 15 or newer: install the libpq5 package "
                 "(apt-get install libpq5)");
}

} // namespace

Result<Libpq> load_libpq(const char* soname)
{
  // RTLD_NOW: a missing function fails here, not on its first call.
  void* handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    return fail(load_error(soname, dlerror()));
  }
  Libpq lib;
  const char* missing = nullptr;
  std::string reason;
  const auto resolve = [&](auto& slot, const char* name) {
    if (missing != nullptr) {
      return;
    }
    dlerror(); // clear any earlier error, so the one read below is dlsym's
    void* symbol = dlsym(handle, name);
    if (symbol == nullptr) {
      missing = name;
      const char* why = dlerror();
      reason = why != nullptr ? why : fmt::format("no symbol {}", name);
      return;
    }
    // POSIX guarantees that a function's address survives the round trip through void*.
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(symbol);
  };
#define RFDB_LIBPQ_RESOLVE(name) resolve(lib.name, #name);
  RFDB_LIBPQ_FUNCTIONS(RFDB_LIBPQ_RESOLVE)
#undef RFDB_LIBPQ_RESOLVE
  if (missing != nullptr) {
    dlclose(handle);
    return fail(load_error(soname, reason.c_str()));
  }
  return lib; // the handle is never closed: libpq stays loaded until rfdb exits
}

const Result<Libpq>& libpq()
{
  static const Result<Libpq> loaded = load_libpq(k_libpq_soname);
  return loaded;
}

} // namespace rfdb::store::detail
