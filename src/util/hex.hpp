// Hex text of bytes and back: sha256 digests shown, bound and stored
// (SQLite BLOB, PostgreSQL bytea's "\x…" text).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rfdb::util {

// `bytes` as lower-case hex, two digits per byte ("" for no bytes).
std::string hex_encode(std::string_view bytes);

// The bytes that `hex` spells (either case, two digits per byte); nullopt
// when its length is odd or a character is not a hex digit.
std::optional<std::string> hex_decode(std::string_view hex);

} // namespace rfdb::util
