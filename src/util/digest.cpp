// SHA-256 of in-memory bytes (see util/digest.hpp).
#include "util/digest.hpp"

#include <openssl/evp.h>

#include <array>

namespace rfdb::util {

std::string sha256(std::string_view data)
{
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md.data(), &len, EVP_sha256(), nullptr);
  return {reinterpret_cast<const char*>(md.data()), len};
}

} // namespace rfdb::util
