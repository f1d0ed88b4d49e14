#include "llm/jinja/python_string.h"

#include <algorithm>

#include "llm/jinja/error.h"
#include "llm/jinja/unicode.h"

namespace kiln::llm::jinja::python {
namespace {

bool has_case(char32_t c) { return unicode::to_upper(c) != c || unicode::to_lower(c) != c; }

bool is_line_break(char32_t c) {
  return c == '\n' || c == '\r' || c == 0x0B || c == 0x0C || (c >= 0x1C && c <= 0x1E) || c == 0x85 || c == 0x2028 ||
         c == 0x2029;
}

std::vector<std::string> split_on_whitespace(std::string_view text, int64_t max_split, bool from_right) {
  std::u32string characters = unicode::decode(text);
  if (from_right) std::reverse(characters.begin(), characters.end());
  std::vector<std::u32string> parts;
  size_t i = 0;
  while (i < characters.size()) {
    while (i < characters.size() && unicode::is_space(characters[i])) ++i;
    if (i == characters.size()) break;
    if (max_split >= 0 && static_cast<int64_t>(parts.size()) == max_split) {
      // The rest, with its trailing whitespace, is the last part.
      parts.push_back(characters.substr(i));
      break;
    }
    const size_t start = i;
    while (i < characters.size() && !unicode::is_space(characters[i])) ++i;
    parts.push_back(characters.substr(start, i - start));
  }
  std::vector<std::string> out;
  for (std::u32string& part : parts) {
    if (from_right) std::reverse(part.begin(), part.end());
    out.push_back(unicode::encode(part));
  }
  if (from_right) std::reverse(out.begin(), out.end());
  return out;
}

void check_separator(std::string_view separator) {
  if (separator.empty()) throw TemplateError("empty separator");
}

}  // namespace

std::vector<std::string> split(std::string_view text, std::optional<std::string_view> separator, int64_t max_split) {
  if (!separator) return split_on_whitespace(text, max_split, false);
  check_separator(*separator);
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t found; (max_split < 0 || static_cast<int64_t>(parts.size()) < max_split) &&
                     (found = text.find(*separator, start)) != std::string_view::npos;) {
    parts.emplace_back(text.substr(start, found - start));
    start = found + separator->size();
  }
  parts.emplace_back(text.substr(start));
  return parts;
}

std::vector<std::string> rsplit(std::string_view text, std::optional<std::string_view> separator, int64_t max_split) {
  if (!separator) return split_on_whitespace(text, max_split, true);
  check_separator(*separator);
  std::vector<std::string> parts;
  size_t end = text.size();
  while (max_split < 0 || static_cast<int64_t>(parts.size()) < max_split) {
    if (end < separator->size()) break;
    const size_t found = text.rfind(*separator, end - separator->size());
    if (found == std::string_view::npos) break;
    parts.emplace_back(text.substr(found + separator->size(), end - found - separator->size()));
    end = found;
  }
  parts.emplace_back(text.substr(0, end));
  std::reverse(parts.begin(), parts.end());
  return parts;
}

std::vector<std::string> splitlines(std::string_view text) {
  const std::u32string characters = unicode::decode(text);
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t i = 0; i < characters.size(); ++i) {
    if (!is_line_break(characters[i])) continue;
    lines.push_back(unicode::encode(std::u32string_view(characters).substr(start, i - start)));
    if (characters[i] == '\r' && i + 1 < characters.size() && characters[i + 1] == '\n') ++i;
    start = i + 1;
  }
  if (start < characters.size()) lines.push_back(unicode::encode(std::u32string_view(characters).substr(start)));
  return lines;
}

std::string replace(std::string_view text, std::string_view old, std::string_view replacement, int64_t count) {
  std::string out;
  if (old.empty()) {
    // Python inserts the replacement before every character and at the end.
    const std::u32string characters = unicode::decode(text);
    for (char32_t c : characters) {
      if (count != 0) {
        out += replacement;
        --count;
      }
      unicode::append_utf8(out, c);
    }
    if (count != 0) out += replacement;
    return out;
  }
  size_t start = 0;
  for (size_t found; count != 0 && (found = text.find(old, start)) != std::string_view::npos; --count) {
    out.append(text.substr(start, found - start));
    out.append(replacement);
    start = found + old.size();
  }
  out.append(text.substr(start));
  return out;
}

int64_t find(std::string_view text, std::string_view part) {
  const size_t found = text.find(part);
  if (found == std::string_view::npos) return -1;
  return static_cast<int64_t>(unicode::length(text.substr(0, found)));
}

int64_t count(std::string_view text, std::string_view part) {
  if (part.empty()) return static_cast<int64_t>(unicode::length(text)) + 1;
  int64_t matches = 0;
  for (size_t found = text.find(part); found != std::string_view::npos; found = text.find(part, found + part.size())) {
    ++matches;
  }
  return matches;
}

std::string capitalize(std::string_view text) {
  std::u32string characters = unicode::decode(text);
  for (size_t i = 0; i < characters.size(); ++i) {
    characters[i] = i == 0 ? unicode::to_upper(characters[i]) : unicode::to_lower(characters[i]);
  }
  return unicode::encode(characters);
}

std::string title(std::string_view text) {
  std::u32string characters = unicode::decode(text);
  bool after_cased = false;
  for (char32_t& c : characters) {
    c = after_cased ? unicode::to_lower(c) : unicode::to_upper(c);
    after_cased = has_case(c);
  }
  return unicode::encode(characters);
}

bool is_lower(std::string_view text) {
  bool any_cased = false;
  for (char32_t c : unicode::decode(text)) {
    if (unicode::to_lower(c) != c) return false;
    any_cased = any_cased || has_case(c);
  }
  return any_cased;
}

bool is_upper(std::string_view text) {
  bool any_cased = false;
  for (char32_t c : unicode::decode(text)) {
    if (unicode::to_upper(c) != c) return false;
    any_cased = any_cased || has_case(c);
  }
  return any_cased;
}

}  // namespace kiln::llm::jinja::python
