// UTF-8 as the tokenizer needs it: walking code points of valid text,
// finding where text stops being valid, and turning arbitrary bytes into
// text the way Rust's String::from_utf8_lossy does (Hugging Face's tokenizers
// decode with it), so that decoded text matches theirs byte for byte.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace kiln::llm {

/// The well-formed UTF-8 sequence at text[pos], or the maximal ill-formed
/// subpart there (Unicode's "substitution of maximal subparts").
struct Utf8Step {
  size_t length = 0;  ///< bytes the sequence (or the ill-formed subpart) takes
  bool valid = false;
};

/// Reads one sequence at text[pos] (pos < text.size()).
Utf8Step utf8_step(std::string_view text, size_t pos);

/// The offset of the first byte that is not part of well-formed UTF-8, or
/// std::string_view::npos when all of `text` is well-formed.
size_t find_invalid_utf8(std::string_view text);

/// `bytes` as UTF-8, each maximal ill-formed subpart replaced by U+FFFD.
std::string utf8_lossy(std::string_view bytes);

/// The code point at text[pos] of well-formed `text`; advances pos past it.
char32_t next_code_point(std::string_view text, size_t& pos);

/// Appends `code_point` encoded as UTF-8.
void append_utf8(std::string& out, char32_t code_point);

/// Unicode's White_Space property (what Rust's char::is_whitespace and its
/// regex `\s` test).
bool is_white_space(char32_t code_point);

/// U+FFFD, the replacement character, in UTF-8.
inline constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";

}  // namespace kiln::llm
