// Human output escaped on its way to the terminal (see util/display_stream.hpp).
#include "util/display_stream.hpp"

#include "util/utf8.hpp"

namespace rfdb::util {

namespace {

// Bytes at the end of `text` that begin a UTF-8 sequence not yet complete
// (a lead byte followed by fewer continuation bytes than it announces): 0–3.
std::size_t incomplete_utf8_tail(const std::string& text)
{
  const std::size_t n = text.size();
  for (std::size_t back = 1; back <= 3 && back <= n; ++back) {
    const auto c = static_cast<unsigned char>(text[n - back]);
    if ((c & 0xC0U) == 0x80U) {
      continue; // a continuation byte: look further back for its lead
    }
    const std::size_t need = (c & 0xE0U) == 0xC0U   ? 2
                             : (c & 0xF0U) == 0xE0U ? 3
                             : (c & 0xF8U) == 0xF0U ? 4
                                                    : 1;
    return need > back ? back : 0;
  }
  return 0;
}

} // namespace

DisplayEscaper::DisplayEscaper(std::ostream& stream, bool escaping)
    : m_stream(stream), m_dest(stream.rdbuf()), m_escaping(escaping)
{
  m_stream.rdbuf(this);
}

DisplayEscaper::~DisplayEscaper()
{
  drain(true, true);
  m_dest->pubsync();
  m_stream.rdbuf(m_dest);
}

void DisplayEscaper::set_escaping(bool on)
{
  drain(true, true);
  m_escaping = on;
}

DisplayEscaper::int_type DisplayEscaper::overflow(int_type ch)
{
  if (traits_type::eq_int_type(ch, traits_type::eof())) {
    return traits_type::not_eof(ch);
  }
  const char c = traits_type::to_char_type(ch);
  return xsputn(&c, 1) == 1 ? ch : traits_type::eof();
}

std::streamsize DisplayEscaper::xsputn(const char* s, std::streamsize n)
{
  if (m_failed) {
    return 0;
  }
  if (!m_escaping) {
    put_raw(s, static_cast<std::size_t>(n));
  } else {
    m_pending.append(s, static_cast<std::size_t>(n));
    drain(false, false);
  }
  return m_failed ? 0 : n;
}

int DisplayEscaper::sync()
{
  drain(true, false);
  return m_failed || m_dest->pubsync() != 0 ? -1 : 0;
}

void DisplayEscaper::drain(bool all, bool final)
{
  std::size_t begin = 0;
  for (std::size_t nl = m_pending.find('\n'); nl != std::string::npos; nl = m_pending.find('\n', begin)) {
    const std::string line = escape_for_display(std::string_view(m_pending).substr(begin, nl - begin)) + "\n";
    put_raw(line.data(), line.size());
    begin = nl + 1;
  }
  m_pending.erase(0, begin);
  if (all && !m_pending.empty()) {
    const std::size_t keep = final ? 0 : incomplete_utf8_tail(m_pending);
    const std::string text =
        escape_for_display(std::string_view(m_pending).substr(0, m_pending.size() - keep));
    put_raw(text.data(), text.size());
    m_pending.erase(0, m_pending.size() - keep);
  }
}

void DisplayEscaper::put_raw(const char* s, std::size_t n)
{
  if (!m_failed && n > 0 &&
      m_dest->sputn(s, static_cast<std::streamsize>(n)) != static_cast<std::streamsize>(n)) {
    m_failed = true;
  }
}

} // namespace rfdb::util
