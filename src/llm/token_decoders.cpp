#include "llm/token_decoders.h"

#include <optional>

#include "llm/text_pipeline.h"
#include "llm/tokenizer_json.h"
#include "llm/utf8.h"

namespace kiln::llm {

namespace {

std::optional<unsigned char> hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return std::nullopt;
}

// "<0x41>" -> 0x41, as tokenizers reads it (Rust's from_str_radix, which
// also takes "+4").
std::optional<unsigned char> byte_token(std::string_view token) {
  if (token.size() != 6 || !token.starts_with("<0x") || !token.ends_with('>')) return std::nullopt;
  const auto high = hex_digit(token[3]), low = hex_digit(token[4]);
  if (token[3] == '+' && low) return low;
  if (!high || !low) return std::nullopt;
  return static_cast<unsigned char>(*high * 16 + *low);
}

// Each token's characters back to the bytes they stand for (a token with a
// character outside the table, such as an added token, as its own bytes),
// all of it then read as UTF-8.
class ByteLevelDecoder final : public Decoder {
 public:
  void decode(std::vector<std::string>& tokens) const override {
    std::string bytes;
    for (const std::string& token : tokens) {
      const size_t start = bytes.size();
      for (size_t pos = 0; pos < token.size();) {
        const auto byte = byte_level_byte(next_code_point(token, pos));
        if (!byte) {
          bytes.resize(start);
          bytes += token;
          break;
        }
        bytes += static_cast<char>(*byte);
      }
    }
    tokens = {utf8_lossy(bytes)};
  }
};

class SequenceDecoder final : public Decoder {
 public:
  explicit SequenceDecoder(std::vector<std::unique_ptr<Decoder>> steps) : steps_(std::move(steps)) {}
  void decode(std::vector<std::string>& tokens) const override {
    for (const auto& step : steps_) step->decode(tokens);
  }

 private:
  std::vector<std::unique_ptr<Decoder>> steps_;
};

class ReplaceDecoder final : public Decoder {
 public:
  ReplaceDecoder(TextPattern pattern, std::string content)
      : pattern_(std::move(pattern)), content_(std::move(content)) {}
  void decode(std::vector<std::string>& tokens) const override {
    for (std::string& token : tokens) token = replace_all(pattern_, token, content_);
  }

 private:
  TextPattern pattern_;
  std::string content_;
};

// Runs of byte tokens ("<0xE2>") become the text they spell, or one U+FFFD
// per byte when the run is not UTF-8.
class ByteFallbackDecoder final : public Decoder {
 public:
  void decode(std::vector<std::string>& tokens) const override {
    std::vector<std::string> out;
    std::string run;
    const auto flush = [&] {
      if (run.empty()) return;
      if (find_invalid_utf8(run) == std::string::npos) {
        out.push_back(run);
      } else {
        out.insert(out.end(), run.size(), std::string(kReplacementCharacter));
      }
      run.clear();
    };
    for (std::string& token : tokens) {
      if (const auto byte = byte_token(token)) {
        run += static_cast<char>(*byte);
        continue;
      }
      flush();
      out.push_back(std::move(token));
    }
    flush();
    tokens = std::move(out);
  }
};

class FuseDecoder final : public Decoder {
 public:
  void decode(std::vector<std::string>& tokens) const override {
    std::string text;
    for (const std::string& token : tokens) text += token;
    tokens = {std::move(text)};
  }
};

// Up to `start` leading and `stop` trailing copies of `content` cut from each token.
class StripDecoder final : public Decoder {
 public:
  StripDecoder(std::string content, int64_t start, int64_t stop)
      : content_(std::move(content)), start_(start), stop_(stop) {}
  void decode(std::vector<std::string>& tokens) const override {
    for (std::string& token : tokens) {
      std::string_view rest = token;
      for (int64_t i = 0; i < start_ && rest.starts_with(content_); ++i) rest.remove_prefix(content_.size());
      for (int64_t i = 0; i < stop_ && rest.ends_with(content_); ++i) rest.remove_suffix(content_.size());
      token = std::string(rest);
    }
  }

 private:
  std::string content_;
  int64_t start_, stop_;
};

// The replacement character back to a space, except in the first token,
// which loses it when the pre-tokenizer would have prepended one.
class MetaspaceDecoder final : public Decoder {
 public:
  MetaspaceDecoder(std::string replacement, bool drop_in_first)
      : replacement_(std::move(replacement)), drop_in_first_(drop_in_first) {}
  void decode(std::vector<std::string>& tokens) const override {
    for (size_t i = 0; i < tokens.size(); ++i) {
      std::string text;
      const std::string_view token = tokens[i];
      for (size_t pos = 0; pos < token.size();) {
        if (token.substr(pos).starts_with(replacement_)) {
          if (i != 0 || !drop_in_first_) text += ' ';
          pos += replacement_.size();
        } else {
          text += token[pos++];
        }
      }
      tokens[i] = std::move(text);
    }
  }

 private:
  std::string replacement_;
  bool drop_in_first_;
};

// The end-of-word suffix becomes a space, or nothing in the last token.
class BpeSuffixDecoder final : public Decoder {
 public:
  explicit BpeSuffixDecoder(std::string suffix) : suffix_(std::move(suffix)) {}
  void decode(std::vector<std::string>& tokens) const override {
    if (suffix_.empty()) return;
    for (size_t i = 0; i < tokens.size(); ++i) {
      std::string text;
      size_t done = 0;
      for (size_t at = tokens[i].find(suffix_); at != std::string::npos; at = tokens[i].find(suffix_, done)) {
        text.append(tokens[i], done, at - done).append(i + 1 == tokens.size() ? "" : " ");
        done = at + suffix_.size();
      }
      tokens[i] = text.append(tokens[i], done);
    }
  }

 private:
  std::string suffix_;
};

std::string one_character(const JsonField& field) {
  std::string text = field.string();
  size_t end = 0;
  if (!text.empty()) next_code_point(text, end);
  if (text.empty() || end != text.size()) field.fail("expected one character, got " + quote_text(text));
  return text;
}

}  // namespace

std::unique_ptr<Decoder> make_decoder(const JsonField& field) {
  if (field.value().is_null()) return nullptr;
  const std::string type = field.at("type").string();
  if (type == "ByteLevel") return std::make_unique<ByteLevelDecoder>();
  if (type == "Sequence") {
    std::vector<std::unique_ptr<Decoder>> steps;
    for (const JsonField& step : field.at("decoders").elements()) {
      if (auto decoder = make_decoder(step)) steps.push_back(std::move(decoder));
    }
    return std::make_unique<SequenceDecoder>(std::move(steps));
  }
  if (type == "Replace") {
    return std::make_unique<ReplaceDecoder>(TextPattern::from_json(field.at("pattern")), field.at("content").string());
  }
  if (type == "ByteFallback") return std::make_unique<ByteFallbackDecoder>();
  if (type == "Fuse") return std::make_unique<FuseDecoder>();
  if (type == "Strip") {
    return std::make_unique<StripDecoder>(one_character(field.at("content")), field.at("start").integer(),
                                          field.at("stop").integer());
  }
  if (type == "Metaspace") {
    const bool prepends =
        field.bool_or("add_prefix_space", true) && field.string_or("prepend_scheme", "always") != "never";
    return std::make_unique<MetaspaceDecoder>(one_character(field.at("replacement")), prepends);
  }
  if (type == "BPEDecoder") return std::make_unique<BpeSuffixDecoder>(field.string_or("suffix", "</w>"));
  field.fail("decoder '" + type +
             "' is not supported (Kiln implements ByteLevel, Sequence, Replace, ByteFallback, Fuse, Strip, "
             "Metaspace, BPEDecoder)");
}

}  // namespace kiln::llm
