// Text helpers for the games' str(): a state's text fits an 80-column terminal.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

namespace meeple {

inline constexpr size_t kTextWidth = 80;

// `text` in single quotes, its control characters, quote and backslash escaped as in a Python
// string literal ('a\x00b', as repr writes most texts): a user's text in an error message.
// Copied in as it is, a NUL would end the message (Python reads it as a C string) and a control
// character would reach the terminal.
inline std::string quoted(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "'";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\\' || c == '\'') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (byte < 0x20 || byte == 0x7f) {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    } else {
      out += c;  // UTF-8 bytes of other characters as they are
    }
  }
  return out + "'";
}

// `text` (one line) broken at spaces into lines of at most `width` columns, each line after the
// first starting with `indent`; its own leading spaces are kept, and a word longer than a line
// stands alone. Ends with a newline.
inline std::string wrapped(std::string_view text, std::string_view indent, size_t width = kTextWidth) {
  const size_t lead = std::min(text.find_first_not_of(' '), text.size());
  std::string out(text.substr(0, lead));
  size_t column = lead;  // of the line being written
  bool line_empty = true;
  for (size_t start = lead; start <= text.size();) {
    size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(start, end - start);
    start = end + 1;
    if (word.empty()) continue;
    if (!line_empty && column + 1 + word.size() > width) {
      out += '\n';
      out += indent;
      column = indent.size();
      line_empty = true;
    }
    if (!line_empty) out += ' ', ++column;
    out += word;
    column += word.size();
    line_empty = false;
  }
  return out + '\n';
}

}  // namespace meeple
