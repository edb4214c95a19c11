// SHA-256 of in-memory bytes (OpenSSL's EVP one-shot digest).
#pragma once

#include <string>
#include <string_view>

namespace rfdb::util {

// The SHA-256 digest of `data`: its 32 raw bytes (util::hex_encode spells
// them in lower-case hex). Never fails.
std::string sha256(std::string_view data);

} // namespace rfdb::util
