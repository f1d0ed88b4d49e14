// Finding added tokens in text, as tokenizers' AddedVocabulary does: at the
// leftmost place where one starts, the longest one there; the search goes on
// after it. A single_word token touching a word character is passed over;
// lstrip and rstrip widen a match over the whitespace beside it.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "llm/tokenizer.h"

namespace kiln::llm {

class AddedTokenMatcher {
 public:
  /// A pattern to find (a token's content, or its normalized content) and
  /// the index of its token in the tokens split() is given.
  struct Pattern {
    std::string text;
    size_t index = 0;
  };
  AddedTokenMatcher() = default;
  /// A pattern given twice keeps its first token; empty ones are never found.
  explicit AddedTokenMatcher(std::vector<Pattern> patterns);

  /// A stretch of text: an added token (token >= 0, an index into the
  /// tokens given to split) or text between them (token == -1).
  struct Segment {
    size_t begin = 0, end = 0;
    int64_t token = -1;
  };
  /// `text` cut into added tokens and the text around them; no segment is empty.
  std::vector<Segment> split(std::string_view text, const std::vector<AddedToken>& tokens) const;

  bool empty() const { return entries_.empty(); }

 private:
  const Pattern* longest_at(std::string_view text, size_t pos) const;

  std::vector<Pattern> entries_;
  std::array<std::vector<size_t>, 256> by_first_byte_;  // entries, longest first
};

}  // namespace kiln::llm
