// The one escaping path of human output: a stream buffer that passes what a
// command prints through escape_for_display before it reaches the terminal.
#pragma once

#include <ostream>
#include <streambuf>
#include <string>

namespace rfdb::util {

// Installed on an ostream for its lifetime (the stream's own buffer is put
// back, and what is pending written, by the destructor). While escaping,
// the text is written line by line through escape_for_display: every ASCII
// control character but '\n' (ESC, BEL, CR, TAB …), DEL and each byte of an
// ill-formed UTF-8 sequence shows as \xHH, so stored text cannot retitle,
// clear or otherwise drive the terminal, whichever command prints it. A
// UTF-8 sequence cut by a flush is held back until its next byte arrives.
// While not escaping, bytes pass through unchanged (JSON, CSV, markdown have
// their own quoting). Writes that fail downstream fail the stream (badbit).
class DisplayEscaper final : public std::streambuf {
public:
  DisplayEscaper(std::ostream& stream, bool escaping);
  ~DisplayEscaper() override;
  DisplayEscaper(const DisplayEscaper&) = delete;
  DisplayEscaper& operator=(const DisplayEscaper&) = delete;

  // Start or stop escaping from the next byte written; what is pending is
  // written first.
  void set_escaping(bool on);
  [[nodiscard]] bool escaping() const { return m_escaping; }

protected:
  int_type overflow(int_type ch) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

private:
  // Write the complete lines of m_pending, and with `all` the rest too but
  // for a UTF-8 sequence still incomplete at its end (unless `final`).
  void drain(bool all, bool final);
  void put_raw(const char* s, std::size_t n);

  std::ostream& m_stream;
  std::streambuf* m_dest;
  std::string m_pending;
  bool m_escaping = false;
  bool m_failed = false;
};

} // namespace rfdb::util
