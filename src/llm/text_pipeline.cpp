#include "llm/text_pipeline.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <array>
#include <stdexcept>

#include "llm/tokenizer_json.h"
#include "llm/utf8.h"

namespace kiln::llm {

// ---------------------------------------------------------------- patterns

namespace {

std::string pcre2_message(int code) {
  std::array<PCRE2_UCHAR, 256> buffer{};
  pcre2_get_error_message(code, buffer.data(), buffer.size());
  return reinterpret_cast<const char*>(buffer.data());
}

struct MatchDataFree {
  void operator()(pcre2_match_data* data) const { pcre2_match_data_free(data); }
};

}  // namespace

Regex::Regex(std::string_view pattern) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  code_ = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), PCRE2_UTF | PCRE2_UCP, &error,
                        &offset, nullptr);
  if (code_ == nullptr) {
    throw std::invalid_argument(pcre2_message(error) + " at offset " + std::to_string(offset));
  }
  // Without JIT (unavailable on some targets) the interpreter runs the same pattern.
  pcre2_jit_compile(code_, PCRE2_JIT_COMPLETE);
}

Regex::Regex(Regex&& other) noexcept : code_(other.code_) { other.code_ = nullptr; }

Regex& Regex::operator=(Regex&& other) noexcept {
  std::swap(code_, other.code_);
  return *this;
}

Regex::~Regex() { pcre2_code_free(code_); }

std::vector<Regex::Match> Regex::find_all(std::string_view text) const {
  const std::unique_ptr<pcre2_match_data, MatchDataFree> data(pcre2_match_data_create_from_pattern(code_, nullptr));
  const auto subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  std::vector<Match> matches;
  size_t search_from = 0;
  std::optional<size_t> last_end;
  while (search_from <= text.size()) {
    int found = pcre2_match(code_, subject, text.size(), search_from, PCRE2_NO_UTF_CHECK, data.get(), nullptr);
    if (found == PCRE2_ERROR_JIT_STACKLIMIT) {
      found =
          pcre2_match(code_, subject, text.size(), search_from, PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT, data.get(), nullptr);
    }
    if (found == PCRE2_ERROR_NOMATCH) break;
    if (found < 0) throw TokenizerError("pattern match failed: " + pcre2_message(found));
    const PCRE2_SIZE* span = pcre2_get_ovector_pointer(data.get());
    if (span[0] == span[1] && last_end == span[1]) {
      search_from += search_from < text.size() ? utf8_step(text, search_from).length : 1;
      continue;
    }
    matches.push_back({span[0], span[1]});
    search_from = last_end.emplace(span[1]);
  }
  return matches;
}

std::string translate_onig_pattern(std::string_view pattern) {
  static constexpr std::string_view kWordClass = "\\p{L}\\p{M}\\p{N}\\p{Pc}";
  std::string out;
  bool in_class = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      const char escaped = pattern[++i];
      if (escaped == 's') {
        out += "\\p{White_Space}";
      } else if (escaped == 'S') {
        out += "\\P{White_Space}";
      } else if (escaped == 'w') {
        out += in_class ? std::string(kWordClass) : "[" + std::string(kWordClass) + "]";
      } else if (escaped == 'W' && !in_class) {
        out += "[^" + std::string(kWordClass) + "]";
      } else {
        out += c;
        out += escaped;
      }
      continue;
    }
    out += c;
    if (c == '[' && !in_class) {
      in_class = true;
      // A ']' first in a class (after an optional '^') is a literal.
      if (i + 1 < pattern.size() && pattern[i + 1] == '^') out += pattern[++i];
      if (i + 1 < pattern.size() && pattern[i + 1] == ']') out += pattern[++i];
    } else if (c == ']' && in_class) {
      in_class = false;
    }
  }
  return out;
}

TextPattern TextPattern::from_json(const JsonField& field) {
  TextPattern pattern;
  if (const auto literal = field.find("String")) {
    pattern.literal_ = literal->string();
  } else if (const auto regex = field.find("Regex")) {
    try {
      pattern.regex_ = std::make_shared<const Regex>(translate_onig_pattern(regex->string()));
    } catch (const std::invalid_argument& error) {
      regex->fail("the pattern " + quote_text(regex->string()) + " does not compile: " + error.what());
    }
  } else {
    field.fail("expected {\"String\": ...} or {\"Regex\": ...}");
  }
  return pattern;
}

std::vector<Regex::Match> TextPattern::find_all(std::string_view text) const {
  if (regex_) return regex_->find_all(text);
  std::vector<Regex::Match> matches;
  if (literal_.empty()) return matches;
  for (size_t at = text.find(literal_); at != std::string_view::npos; at = text.find(literal_, at + literal_.size())) {
    matches.push_back({at, at + literal_.size()});
  }
  return matches;
}

std::string replace_all(const TextPattern& pattern, std::string_view text, std::string_view content) {
  std::string out;
  size_t done = 0;
  for (const Regex::Match& match : pattern.find_all(text)) {
    out.append(text.substr(done, match.begin - done)).append(content);
    done = match.end;
  }
  return out.append(text.substr(done));
}

// ---------------------------------------------------------------- byte level

namespace {

struct ByteLevelTable {
  std::array<char32_t, 256> char_of_byte{};
  std::array<std::string, 256> utf8_of_byte;
  std::array<int16_t, 512> byte_of_char{};  // -1: not a byte-level character
};

// GPT-2's bytes_to_unicode: printable Latin-1 bytes stand for themselves, the
// others (controls, space, soft hyphen) for U+0100 onwards in byte order.
const ByteLevelTable& byte_level_table() {
  static const ByteLevelTable table = [] {
    ByteLevelTable t;
    t.byte_of_char.fill(-1);
    char32_t next = 0x100;
    for (int byte = 0; byte < 256; ++byte) {
      const bool printable = (byte >= '!' && byte <= '~') || (byte >= 0xA1 && byte <= 0xAC) || byte >= 0xAE;
      const char32_t character = printable ? static_cast<char32_t>(byte) : next++;
      t.char_of_byte[byte] = character;
      append_utf8(t.utf8_of_byte[byte], character);
      t.byte_of_char[character] = static_cast<int16_t>(byte);
    }
    return t;
  }();
  return table;
}

}  // namespace

std::string byte_level_chars(std::string_view bytes) {
  const ByteLevelTable& table = byte_level_table();
  std::string text;
  text.reserve(bytes.size() * 2);
  for (const char byte : bytes) text += table.utf8_of_byte[static_cast<unsigned char>(byte)];
  return text;
}

std::optional<unsigned char> byte_level_byte(char32_t character) {
  const ByteLevelTable& table = byte_level_table();
  if (character >= table.byte_of_char.size() || table.byte_of_char[character] < 0) return std::nullopt;
  return static_cast<unsigned char>(table.byte_of_char[character]);
}

// ---------------------------------------------------------------- pre-tokenizers

namespace {

// tokenizers' SplitDelimiterBehavior: what becomes of a match and its neighbours.
enum class Behavior { kRemoved, kIsolated, kMergedWithPrevious, kMergedWithNext, kContiguous };

struct Segment {
  size_t begin = 0, end = 0;
  bool is_match = false;
};

// tokenizers' NormalizedString::split: the matches and the text between them,
// grouped as `behavior` says; Removed drops the matches.
std::vector<Segment> split_segments(std::string_view text, const std::vector<Regex::Match>& matches, bool invert,
                                    Behavior behavior) {
  std::vector<Segment> all;
  size_t done = 0;
  for (const Regex::Match& match : matches) {
    if (match.begin != done) all.push_back({done, match.begin, invert});
    all.push_back({match.begin, match.end, !invert});
    done = match.end;
  }
  if (done != text.size()) all.push_back({done, text.size(), invert});

  std::vector<Segment> kept;
  bool previous_match = false;
  switch (behavior) {
    case Behavior::kIsolated:
      return all;
    case Behavior::kRemoved:
      for (const Segment& segment : all) {
        if (!segment.is_match) kept.push_back(segment);
      }
      return kept;
    case Behavior::kContiguous:
    case Behavior::kMergedWithPrevious:
      for (const Segment& segment : all) {
        const bool merge = behavior == Behavior::kContiguous ? segment.is_match == previous_match
                                                             : segment.is_match && !previous_match;
        if (merge && !kept.empty()) {
          kept.back().end = segment.end;
        } else {
          kept.push_back(segment);
        }
        previous_match = segment.is_match;
      }
      return kept;
    case Behavior::kMergedWithNext:
      for (auto it = all.rbegin(); it != all.rend(); ++it) {
        if (it->is_match && !previous_match && !kept.empty()) {
          kept.back().begin = it->begin;
        } else {
          kept.push_back(*it);
        }
        previous_match = it->is_match;
      }
      return {kept.rbegin(), kept.rend()};
  }
  return kept;
}

// Splits each piece at what `find` matches; empty pieces are dropped.
template <typename Find>
void split_pieces(std::vector<Piece>& pieces, const Find& find, bool invert, Behavior behavior) {
  std::vector<Piece> out;
  out.reserve(pieces.size());
  for (const Piece& piece : pieces) {
    for (const Segment& segment : split_segments(piece.text, find(piece.text), invert, behavior)) {
      if (segment.begin == segment.end) continue;
      out.push_back(
          {piece.text.substr(segment.begin, segment.end - segment.begin), piece.starts_input && segment.begin == 0});
    }
  }
  pieces = std::move(out);
}

class SequencePreTokenizer final : public PreTokenizer {
 public:
  explicit SequencePreTokenizer(std::vector<std::unique_ptr<PreTokenizer>> steps) : steps_(std::move(steps)) {}
  void split(std::vector<Piece>& pieces) const override {
    for (const auto& step : steps_) step->split(pieces);
  }

 private:
  std::vector<std::unique_ptr<PreTokenizer>> steps_;
};

class SplitPreTokenizer final : public PreTokenizer {
 public:
  SplitPreTokenizer(TextPattern pattern, Behavior behavior, bool invert)
      : pattern_(std::move(pattern)), behavior_(behavior), invert_(invert) {}
  void split(std::vector<Piece>& pieces) const override {
    split_pieces(
        pieces, [this](std::string_view text) { return pattern_.find_all(text); }, invert_, behavior_);
  }

 private:
  TextPattern pattern_;
  Behavior behavior_;
  bool invert_;
};

class RegexPreTokenizer final : public PreTokenizer {
 public:
  explicit RegexPreTokenizer(const Regex& regex) : regex_(regex) {}
  void split(std::vector<Piece>& pieces) const override {
    split_pieces(
        pieces, [this](std::string_view text) { return regex_.find_all(text); }, false, Behavior::kIsolated);
  }

 private:
  const Regex& regex_;
};

const Regex& gpt2_regex() {
  static const Regex regex(
      translate_onig_pattern(R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)"));
  return regex;
}

class ByteLevelPreTokenizer final : public PreTokenizer {
 public:
  ByteLevelPreTokenizer(bool add_prefix_space, bool use_regex)
      : add_prefix_space_(add_prefix_space), use_regex_(use_regex) {}
  void split(std::vector<Piece>& pieces) const override {
    if (add_prefix_space_) {
      for (Piece& piece : pieces) {
        if (piece.text.front() != ' ') piece.text.insert(0, " ");
      }
    }
    if (use_regex_) RegexPreTokenizer(gpt2_regex()).split(pieces);
    for (Piece& piece : pieces) piece.text = byte_level_chars(piece.text);
  }

 private:
  bool add_prefix_space_, use_regex_;
};

class MetaspacePreTokenizer final : public PreTokenizer {
 public:
  enum class Prepend { kAlways, kFirst, kNever };
  MetaspacePreTokenizer(std::string replacement, Prepend prepend, bool split)
      : replacement_(std::move(replacement)), prepend_(prepend), split_(split) {}
  void split(std::vector<Piece>& pieces) const override {
    for (Piece& piece : pieces) {
      std::string text;
      for (const char c : piece.text) {
        if (c == ' ') {
          text += replacement_;
        } else {
          text += c;
        }
      }
      const bool prepend = prepend_ == Prepend::kAlways || (prepend_ == Prepend::kFirst && piece.starts_input);
      if (prepend && !text.starts_with(replacement_)) text.insert(0, replacement_);
      piece.text = std::move(text);
    }
    if (!split_) return;
    const auto find = [this](std::string_view text) {
      std::vector<Regex::Match> matches;
      for (size_t at = text.find(replacement_); at != std::string_view::npos;
           at = text.find(replacement_, at + replacement_.size())) {
        matches.push_back({at, at + replacement_.size()});
      }
      return matches;
    };
    split_pieces(pieces, find, false, Behavior::kMergedWithNext);
  }

 private:
  std::string replacement_;
  Prepend prepend_;
  bool split_;
};

Behavior parse_behavior(const JsonField& field) {
  const std::string name = field.string();
  if (name == "Removed") return Behavior::kRemoved;
  if (name == "Isolated") return Behavior::kIsolated;
  if (name == "MergedWithPrevious") return Behavior::kMergedWithPrevious;
  if (name == "MergedWithNext") return Behavior::kMergedWithNext;
  if (name == "Contiguous") return Behavior::kContiguous;
  field.fail("unknown split behavior " + quote_text(name));
}

MetaspacePreTokenizer::Prepend parse_prepend_scheme(const JsonField& field) {
  // Files from before prepend_scheme say add_prefix_space: false for "never".
  if (!field.bool_or("add_prefix_space", true)) return MetaspacePreTokenizer::Prepend::kNever;
  const std::string scheme = field.string_or("prepend_scheme", "always");
  if (scheme == "always") return MetaspacePreTokenizer::Prepend::kAlways;
  if (scheme == "first") return MetaspacePreTokenizer::Prepend::kFirst;
  if (scheme == "never") return MetaspacePreTokenizer::Prepend::kNever;
  field.at("prepend_scheme").fail("unknown prepend_scheme " + quote_text(scheme));
}

std::unique_ptr<PreTokenizer> make_metaspace(const JsonField& field) {
  std::string replacement = field.at("replacement").string();
  size_t end = 0;
  if (!replacement.empty() && find_invalid_utf8(replacement) == std::string::npos) next_code_point(replacement, end);
  if (replacement.empty() || end != replacement.size()) {
    field.at("replacement").fail("expected one character, got " + quote_text(replacement));
  }
  return std::make_unique<MetaspacePreTokenizer>(std::move(replacement), parse_prepend_scheme(field),
                                                 field.bool_or("split", true));
}

}  // namespace

std::unique_ptr<PreTokenizer> make_pre_tokenizer(const JsonField& field) {
  if (field.value().is_null()) return nullptr;
  const std::string type = field.at("type").string();
  if (type == "Sequence") {
    std::vector<std::unique_ptr<PreTokenizer>> steps;
    for (const JsonField& step : field.at("pretokenizers").elements()) {
      if (auto pre_tokenizer = make_pre_tokenizer(step)) steps.push_back(std::move(pre_tokenizer));
    }
    return std::make_unique<SequencePreTokenizer>(std::move(steps));
  }
  if (type == "Split") {
    return std::make_unique<SplitPreTokenizer>(TextPattern::from_json(field.at("pattern")),
                                               parse_behavior(field.at("behavior")), field.bool_or("invert", false));
  }
  if (type == "ByteLevel") {
    return std::make_unique<ByteLevelPreTokenizer>(field.bool_or("add_prefix_space", true),
                                                   field.bool_or("use_regex", true));
  }
  if (type == "Digits") {
    static const Regex individual(R"(\p{N})");
    static const Regex runs(R"(\p{N}+)");
    return std::make_unique<RegexPreTokenizer>(field.bool_or("individual_digits", false) ? individual : runs);
  }
  if (type == "Metaspace") return make_metaspace(field);
  field.fail("pre-tokenizer '" + type +
             "' is not supported (Kiln implements Sequence, Split, ByteLevel, Digits, Metaspace)");
}

}  // namespace kiln::llm
