// Text helpers for the games' str(): a state's text fits an 80-column terminal.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

namespace meeple {

inline constexpr size_t kTextWidth = 80;

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
