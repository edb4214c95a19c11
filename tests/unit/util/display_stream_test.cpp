// util::DisplayEscaper: human output escaped line by line on its way to the terminal.
#include "util/display_stream.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace rfdb::util {
namespace {

TEST(DisplayEscaper, EscapesControlsButKeepsNewlines)
{
  std::ostringstream out;
  {
    DisplayEscaper escaper(out, true);
    out << "model \x1b]0;title\x07\x1b[2J\tend\n"
        << "next\r\n";
  }
  EXPECT_EQ(out.str(), "model \\x1B]0;title\\x07\\x1B[2J\\x09end\nnext\\x0D\n");
}

TEST(DisplayEscaper, PassesBytesThroughWhileNotEscaping)
{
  std::ostringstream out;
  {
    DisplayEscaper escaper(out, true);
    out << "a\x1b\n";
    escaper.set_escaping(false);
    out << "{\"m\": \"\x1b\"}\n";
    escaper.set_escaping(true);
    out << "b\x07";
  }
  EXPECT_EQ(out.str(), "a\\x1B\n{\"m\": \"\x1b\"}\nb\\x07");
}

TEST(DisplayEscaper, AUtf8SequenceCutByAFlushIsKeptWhole)
{
  std::ostringstream out;
  DisplayEscaper escaper(out, true);
  out << "\xE2\x98" << std::flush; // the first two bytes of U+2605
  EXPECT_EQ(out.str(), "");
  out << "\x85 ok" << std::flush;
  EXPECT_EQ(out.str(), "\u2605 ok");
}

TEST(DisplayEscaper, PutsTheStreamBufferBackAndFlushesWhatIsPending)
{
  std::ostringstream out;
  std::ostream& stream = out; // ostringstream::rdbuf() names its own buffer, not the stream's
  std::streambuf* const own = stream.rdbuf();
  {
    DisplayEscaper escaper(stream, true);
    EXPECT_EQ(stream.rdbuf(), static_cast<std::streambuf*>(&escaper));
    out << "tail without newline \xE2\x98";
  }
  EXPECT_EQ(stream.rdbuf(), own);
  EXPECT_EQ(out.str(), "tail without newline \\xE2\\x98");
}

} // namespace
} // namespace rfdb::util
