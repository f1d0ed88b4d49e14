// tokenizer.json's normalizers. The Unicode normalization forms and the
// lowercase mapping come from utf8proc (Unicode 15 in Debian 12); tokenizers'
// own tables are older (Unicode 12 for the forms), so characters assigned
// since then may normalize where tokenizers leaves them as they are.
#include <utf8proc.h>

#include <cstdlib>
#include <memory>

#include "llm/text_pipeline.h"
#include "llm/tokenizer_json.h"
#include "llm/utf8.h"

namespace kiln::llm {

namespace {

class SequenceNormalizer final : public Normalizer {
 public:
  explicit SequenceNormalizer(std::vector<std::unique_ptr<Normalizer>> steps) : steps_(std::move(steps)) {}
  void normalize(std::string& text) const override {
    for (const auto& step : steps_) step->normalize(text);
  }

 private:
  std::vector<std::unique_ptr<Normalizer>> steps_;
};

class PrependNormalizer final : public Normalizer {
 public:
  explicit PrependNormalizer(std::string prefix) : prefix_(std::move(prefix)) {}
  void normalize(std::string& text) const override {
    if (!text.empty()) text.insert(0, prefix_);
  }

 private:
  std::string prefix_;
};

class ReplaceNormalizer final : public Normalizer {
 public:
  ReplaceNormalizer(TextPattern pattern, std::string content)
      : pattern_(std::move(pattern)), content_(std::move(content)) {}
  void normalize(std::string& text) const override { text = replace_all(pattern_, text, content_); }

 private:
  TextPattern pattern_;
  std::string content_;
};

class StripNormalizer final : public Normalizer {
 public:
  StripNormalizer(bool left, bool right) : left_(left), right_(right) {}
  void normalize(std::string& text) const override {
    size_t begin = 0, end = text.size();
    if (left_) {
      for (size_t pos = 0; pos < end;) {
        if (!is_white_space(next_code_point(text, pos))) break;
        begin = pos;
      }
    }
    if (right_) {
      // Walk back to each code point's lead byte.
      while (end > begin) {
        size_t lead = end - 1;
        while (lead > begin && (static_cast<unsigned char>(text[lead]) & 0xC0) == 0x80) --lead;
        size_t pos = lead;
        if (!is_white_space(next_code_point(text, pos))) break;
        end = lead;
      }
    }
    text = text.substr(begin, end - begin);
  }

 private:
  bool left_, right_;
};

class ByteLevelNormalizer final : public Normalizer {
 public:
  void normalize(std::string& text) const override { text = byte_level_chars(text); }
};

bool is_ascii(std::string_view text) {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

// `text` (well-formed UTF-8, NULs included) mapped by utf8proc with `options`.
std::string utf8proc_mapped(std::string_view text, utf8proc_option_t options) {
  utf8proc_uint8_t* mapped = nullptr;
  const utf8proc_ssize_t length = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                                               static_cast<utf8proc_ssize_t>(text.size()), &mapped, options);
  if (length < 0) throw TokenizerError(std::string("Unicode normalization failed: ") + utf8proc_errmsg(length));
  const std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> owned(mapped, &std::free);
  return {reinterpret_cast<const char*>(mapped), static_cast<size_t>(length)};
}

// NFC, NFD, NFKC or NFKD.
class UnicodeFormNormalizer final : public Normalizer {
 public:
  explicit UnicodeFormNormalizer(utf8proc_option_t options) : options_(options) {}
  void normalize(std::string& text) const override {
    if (is_ascii(text)) return;  // every form leaves ASCII as it is
    if ((options_ & UTF8PROC_COMPOSE) == 0) {
      text = utf8proc_mapped(text, options_);
      return;
    }
    // utf8proc before 2.9 composes a syllable of a leading and a vowel jamo
    // with U+11A7, which Unicode leaves apart. U+11A7 is a starter that
    // composes with nothing, so the stretches that begin at one normalize
    // on their own to the same text.
    static constexpr std::string_view kJamoOYae = "\u11A7";
    std::string out;
    size_t begin = 0;
    for (size_t at = text.find(kJamoOYae, 1); at != std::string::npos; at = text.find(kJamoOYae, at + 1)) {
      out += utf8proc_mapped(std::string_view(text).substr(begin, at - begin), options_);
      begin = at;
    }
    text = begin == 0 ? utf8proc_mapped(text, options_)
                      : out + utf8proc_mapped(std::string_view(text).substr(begin), options_);
  }

 private:
  utf8proc_option_t options_;
};

// Each character's lowercase, as Rust's char::to_lowercase gives it (no
// context: a final capital sigma becomes σ, not ς).
class LowercaseNormalizer final : public Normalizer {
 public:
  void normalize(std::string& text) const override {
    std::string out;
    out.reserve(text.size());
    for (size_t pos = 0; pos < text.size();) {
      const char32_t character = next_code_point(text, pos);
      // İ is the one character whose lowercase is two (SpecialCasing.txt);
      // utf8proc gives the one-character mapping, "i".
      if (character == 0x130) {
        out += "i\u0307";
      } else {
        append_utf8(out, static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(character))));
      }
    }
    text = std::move(out);
  }
};

std::optional<utf8proc_option_t> unicode_form(std::string_view type) {
  const auto stable = UTF8PROC_STABLE;
  if (type == "NFC") return static_cast<utf8proc_option_t>(stable | UTF8PROC_COMPOSE);
  if (type == "NFD") return static_cast<utf8proc_option_t>(stable | UTF8PROC_DECOMPOSE);
  if (type == "NFKC") return static_cast<utf8proc_option_t>(stable | UTF8PROC_COMPOSE | UTF8PROC_COMPAT);
  if (type == "NFKD") return static_cast<utf8proc_option_t>(stable | UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT);
  return std::nullopt;
}

}  // namespace

std::unique_ptr<Normalizer> make_normalizer(const JsonField& field) {
  if (field.value().is_null()) return nullptr;
  const std::string type = field.at("type").string();
  if (type == "Sequence") {
    std::vector<std::unique_ptr<Normalizer>> steps;
    for (const JsonField& step : field.at("normalizers").elements()) {
      if (auto normalizer = make_normalizer(step)) steps.push_back(std::move(normalizer));
    }
    return std::make_unique<SequenceNormalizer>(std::move(steps));
  }
  if (type == "Prepend") return std::make_unique<PrependNormalizer>(field.at("prepend").string());
  if (type == "Replace") {
    return std::make_unique<ReplaceNormalizer>(TextPattern::from_json(field.at("pattern")),
                                               field.at("content").string());
  }
  if (type == "Strip") {
    return std::make_unique<StripNormalizer>(field.bool_or("strip_left", true), field.bool_or("strip_right", true));
  }
  if (type == "ByteLevel") return std::make_unique<ByteLevelNormalizer>();
  if (const auto form = unicode_form(type)) return std::make_unique<UnicodeFormNormalizer>(*form);
  if (type == "Lowercase") return std::make_unique<LowercaseNormalizer>();
  field.fail("normalizer '" + type +
             "' is not supported (Kiln implements Sequence, Prepend, Replace, Strip, ByteLevel, NFC, NFD, NFKC, "
             "NFKD, Lowercase)");
}

}  // namespace kiln::llm
