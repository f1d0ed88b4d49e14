// The text side of encoding, as Hugging Face's tokenizers defines it: the
// normalizer rewrites each stretch of text between added tokens, and the
// pre-tokenizer cuts it into the words the model encodes one by one.
//
// Only the text is kept, not the offsets into the input that tokenizers also
// tracks; the one thing an offset decides (Metaspace's prepend_scheme
// "first": whether a word starts the input) travels as a flag on the piece.
// Patterns are written in Oniguruma's dialect (tokenizers' engine) and run on
// PCRE2 after translate_onig_pattern.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct pcre2_real_code_8;

namespace kiln::llm {

class JsonField;

/// A pattern compiled by PCRE2 in UTF mode with Unicode properties.
class Regex {
 public:
  /// Throws std::invalid_argument with PCRE2's message and the offset.
  explicit Regex(std::string_view pattern);
  Regex(Regex&& other) noexcept;
  Regex& operator=(Regex&& other) noexcept;
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;
  ~Regex();

  struct Match {
    size_t begin = 0;
    size_t end = 0;
  };
  /// The matches in well-formed UTF-8 `text` as Oniguruma's find_iter
  /// yields them: left to right, empty matches included except one right
  /// where the previous match ended.
  std::vector<Match> find_all(std::string_view text) const;

 private:
  pcre2_real_code_8* code_ = nullptr;
};

/// Oniguruma's `\s`, `\S` and `\w` in PCRE2's terms: PCRE2 counts U+180E as
/// a space and leaves marks and connector punctuation out of `\w`.
std::string translate_onig_pattern(std::string_view pattern);

/// A Split or Replace pattern: {"String": literal} or {"Regex": pattern}.
class TextPattern {
 public:
  static TextPattern from_json(const JsonField& field);
  std::vector<Regex::Match> find_all(std::string_view text) const;

 private:
  std::string literal_;
  std::shared_ptr<const Regex> regex_;
};

/// Every occurrence of `pattern` in `text` replaced by `content`.
std::string replace_all(const TextPattern& pattern, std::string_view text, std::string_view content);

/// One stretch of text on its way to the model.
struct Piece {
  std::string text;
  bool starts_input = false;  ///< begins at the first byte of the encoded text
};

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  virtual void normalize(std::string& text) const = 0;
};

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  /// Replaces `pieces` by the words they split into (never empty ones).
  virtual void split(std::vector<Piece>& pieces) const = 0;
};

/// The `normalizer` of tokenizer.json; nullptr for null. Throws
/// TokenizerError for a type Kiln does not implement. (normalizers.cpp)
std::unique_ptr<Normalizer> make_normalizer(const JsonField& field);
/// The `pre_tokenizer` of tokenizer.json; nullptr for null.
std::unique_ptr<PreTokenizer> make_pre_tokenizer(const JsonField& field);

/// GPT-2's byte-to-character table: each byte of `bytes` as the printable
/// character that stands for it.
std::string byte_level_chars(std::string_view bytes);
/// The byte a byte-level character stands for, or nothing for a character
/// outside the table.
std::optional<unsigned char> byte_level_byte(char32_t character);

}  // namespace kiln::llm
