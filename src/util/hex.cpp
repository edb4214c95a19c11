// Hex text of bytes and back (see hex.hpp).
#include "util/hex.hpp"

namespace rfdb::util {

namespace {

// The value of one hex digit, or -1.
int digit_value(char c)
{
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}

} // namespace

std::string hex_encode(std::string_view bytes)
{
  static constexpr char k_digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out += k_digits[b >> 4U];
    out += k_digits[b & 0xFU];
  }
  return out;
}

std::optional<std::string> hex_decode(std::string_view hex)
{
  if (hex.size() % 2 != 0) {
    return std::nullopt;
  }
  std::string out(hex.size() / 2, '\0');
  for (std::size_t i = 0; i < out.size(); ++i) {
    const int hi = digit_value(hex[2 * i]);
    const int lo = digit_value(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      return std::nullopt;
    }
    out[i] = static_cast<char>((hi << 4) | lo);
  }
  return out;
}

} // namespace rfdb::util
