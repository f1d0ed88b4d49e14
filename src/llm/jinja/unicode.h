// The few Unicode facts the template interpreter needs to treat strings as
// Python does: UTF-8 to code points and back, Python's `str.isspace`, and
// simple case mapping.
#pragma once

#include <string>
#include <string_view>

namespace kiln::llm::jinja::unicode {

/// The code points of `utf8`. A byte that does not start a valid sequence
/// becomes U+DC80 + byte (Python's surrogateescape), so encode(decode(s)) == s
/// for every input.
std::u32string decode(std::string_view utf8);
/// The UTF-8 of `text`; the escaped bytes of `decode` become their bytes again.
std::string encode(std::u32string_view text);
void append_utf8(std::string& out, char32_t code_point);

/// Number of code points in `utf8` (Python's `len(str)`).
size_t length(std::string_view utf8);

/// An ASCII digit, 0 to 9.
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// Python's `str.isspace()` for one code point.
bool is_space(char32_t c);

/// Simple case mapping of Basic Latin, Latin-1, Latin Extended-A, Greek and
/// Cyrillic; other code points map to themselves (Python maps all of Unicode,
/// and a few characters, like ß, to two).
char32_t to_upper(char32_t c);
char32_t to_lower(char32_t c);

std::string upper(std::string_view utf8);
std::string lower(std::string_view utf8);

/// Python's `str.strip(chars)`, `lstrip`, `rstrip`: without `chars`, strips
/// whitespace as `is_space` defines it.
std::string strip(std::string_view utf8, const std::u32string* chars, bool left, bool right);

}  // namespace kiln::llm::jinja::unicode
