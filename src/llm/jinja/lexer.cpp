#include "llm/jinja/lexer.h"

#include <algorithm>
#include <cstring>

#include "llm/jinja/unicode.h"

namespace kiln::llm::jinja {
namespace {

using unicode::is_digit;

bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }
int hex_digit(char c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Jinja splits the source on \r\n, \r and \n, joins the lines with \n and,
// without keep_trailing_newline, drops one final newline.
std::string normalize_newlines(std::string_view source) {
  std::string out;
  out.reserve(source.size());
  for (size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '\r') {
      if (i + 1 < source.size() && source[i + 1] == '\n') ++i;
      out += '\n';
    } else {
      out += source[i];
    }
  }
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// Python's unicode-escape decoding of a string literal's body.
std::string unescape(std::string_view body, SourceLocation where) {
  std::string out;
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '\\' || i + 1 == body.size()) {
      out += body[i];
      continue;
    }
    const char c = body[++i];
    const auto code_point = [&](size_t digits, char kind) {
      char32_t value = 0;
      for (size_t k = 0; k < digits; ++k) {
        const int digit = i + 1 + k < body.size() ? hex_digit(body[i + 1 + k]) : -1;
        if (digit < 0) throw TemplateError(std::string("truncated \\") + kind + " escape in a string literal", where);
        value = value * 16 + static_cast<char32_t>(digit);
      }
      if (value > 0x10FFFF) throw TemplateError("\\U escape out of range in a string literal", where);
      i += digits;
      unicode::append_utf8(out, value);
    };
    switch (c) {
      case '\n':
        break;
      case '\\':
        out += '\\';
        break;
      case '\'':
        out += '\'';
        break;
      case '"':
        out += '"';
        break;
      case 'a':
        out += '\a';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'v':
        out += '\v';
        break;
      case 'x':
        code_point(2, 'x');
        break;
      case 'u':
        code_point(4, 'u');
        break;
      case 'U':
        code_point(8, 'U');
        break;
      case 'N':
        throw TemplateError("\\N{...} escapes are not supported in string literals", where);
      default:
        if (c >= '0' && c <= '7') {
          char32_t value = c - '0';
          for (int k = 0; k < 2 && i + 1 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7'; ++k) {
            value = value * 8 + (body[++i] - '0');
          }
          unicode::append_utf8(out, value);
        } else {
          out += '\\';
          out += c;
        }
    }
  }
  return out;
}

class Lexer {
 public:
  explicit Lexer(std::string_view source) : source_(normalize_newlines(source)) {
    line_starts_.push_back(0);
    for (size_t i = 0; i < source_.size(); ++i) {
      if (source_[i] == '\n') line_starts_.push_back(i + 1);
    }
  }

  std::vector<Token> run() {
    while (pos_ < source_.size()) lex_text_and_tag();
    push(TokenKind::End, "", source_.size());
    return std::move(tokens_);
  }

 private:
  SourceLocation locate(size_t offset) const {
    const auto line = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset) - 1;
    const std::string_view before = std::string_view(source_).substr(*line, offset - *line);
    return {static_cast<int>(line - line_starts_.begin()) + 1, static_cast<int>(unicode::length(before)) + 1};
  }

  void push(TokenKind kind, std::string text, size_t offset) {
    tokens_.push_back({kind, std::move(text), locate(offset)});
  }

  bool at(size_t offset, std::string_view text) const { return source_.compare(offset, text.size(), text) == 0; }

  // Length of the whitespace character at `offset` (Python's \s), or 0.
  size_t space_at(size_t offset) const {
    if (offset >= source_.size()) return 0;
    if (static_cast<unsigned char>(source_[offset]) < 0x80) return unicode::is_space(source_[offset]) ? 1 : 0;
    const std::u32string c = unicode::decode(std::string_view(source_).substr(offset, 4));
    if (c.empty() || !unicode::is_space(c[0])) return 0;
    std::string encoded;
    unicode::append_utf8(encoded, c[0]);
    return encoded.size();
  }

  void skip_spaces() {
    while (size_t length = space_at(pos_)) pos_ += length;
  }

  // The position after `{% raw %}` if a raw block starts at `tag`, else 0.
  size_t raw_begin_end(size_t tag) const {
    size_t p = tag + 2;
    if (p < source_.size() && (source_[p] == '-' || source_[p] == '+')) ++p;
    while (size_t length = space_at(p)) p += length;
    if (!at(p, "raw") || (p + 3 < source_.size() && is_name_char(source_[p + 3]))) return 0;
    p += 3;
    while (size_t length = space_at(p)) p += length;
    if (at(p, "-%}")) {
      p += 3;
      while (size_t length = space_at(p)) p += length;
      return p;
    }
    return at(p, "%}") ? p + 2 : 0;
  }

  // Whitespace control on the text before a tag: `{%-` strips all whitespace,
  // lstrip_blocks strips the spaces between a line's start and a block or
  // comment tag, `{%+` keeps them.
  std::string strip_before_tag(std::string text, char sign, bool is_variable) const {
    if (sign == '-') {
      return unicode::strip(text, nullptr, false, true);
    }
    if (sign == '+' || is_variable) return text;
    const size_t line_start = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
    if (line_start == 0 && !line_starting_) return text;
    const std::string_view tail = std::string_view(text).substr(line_start);
    if (tail.empty() || !unicode::strip(tail, nullptr, true, false).empty()) return text;
    text.resize(line_start);
    return text;
  }

  // After `-%}` all whitespace goes, after `%}` one newline (trim_blocks),
  // after `+%}` nothing.
  void consume_block_end_suffix(char sign) {
    if (sign == '-') {
      skip_spaces();
    } else if (sign != '+' && pos_ < source_.size() && source_[pos_] == '\n') {
      ++pos_;
    }
  }

  void lex_text_and_tag() {
    size_t tag = pos_;
    while ((tag = source_.find('{', tag)) != std::string::npos) {
      const char next = tag + 1 < source_.size() ? source_[tag + 1] : 0;
      if (next == '{' || next == '%' || next == '#') break;
      ++tag;
    }
    if (tag == std::string::npos) {
      push(TokenKind::Text, source_.substr(pos_), pos_);
      pos_ = source_.size();
      return;
    }
    const char kind = source_[tag + 1];
    const char sign =
        tag + 2 < source_.size() && (source_[tag + 2] == '-' || source_[tag + 2] == '+') ? source_[tag + 2] : 0;
    const size_t raw_end = kind == '%' ? raw_begin_end(tag) : 0;
    std::string text = strip_before_tag(source_.substr(pos_, tag - pos_), sign, kind == '{');
    if (!text.empty()) push(TokenKind::Text, std::move(text), pos_);
    if (kind == '#') {
      lex_comment(tag);
    } else if (raw_end != 0) {
      lex_raw(tag, raw_end);
    } else {
      lex_tag(tag, kind == '{');
    }
  }

  void lex_comment(size_t tag) {
    size_t body = tag + 2;
    if (body < source_.size() && (source_[body] == '-' || source_[body] == '+')) ++body;
    const size_t end = source_.find("#}", body);
    if (end == std::string::npos) throw TemplateError("unclosed comment: '{#' without '#}'", locate(tag));
    const char sign = end > body && (source_[end - 1] == '-' || source_[end - 1] == '+') ? source_[end - 1] : 0;
    pos_ = end + 2;
    consume_block_end_suffix(sign);
    line_starting_ = source_[pos_ - 1] == '\n';
  }

  void lex_raw(size_t tag, size_t body_start) {
    line_starting_ = source_[body_start - 1] == '\n';
    for (size_t end = source_.find("{%", body_start); end != std::string::npos; end = source_.find("{%", end + 2)) {
      size_t p = end + 2;
      const char sign = p < source_.size() && (source_[p] == '-' || source_[p] == '+') ? source_[p++] : 0;
      while (size_t length = space_at(p)) p += length;
      if (!at(p, "endraw")) continue;
      p += 6;
      while (size_t length = space_at(p)) p += length;
      const char end_sign = p < source_.size() && (source_[p] == '-' || source_[p] == '+') ? source_[p] : 0;
      if (!at(end_sign ? p + 1 : p, "%}")) continue;
      std::string text = strip_before_tag(source_.substr(body_start, end - body_start), sign, false);
      if (!text.empty()) push(TokenKind::Text, std::move(text), body_start);
      pos_ = p + (end_sign ? 3 : 2);
      consume_block_end_suffix(end_sign);
      line_starting_ = source_[pos_ - 1] == '\n';
      return;
    }
    throw TemplateError("unclosed '{% raw %}': no '{% endraw %}' follows", locate(tag));
  }

  // The end of the tag at pos_, if one is there: `-%}`, `+%}`, `%}`, `-}}`, `}}`.
  bool lex_tag_end(bool is_variable) {
    const char* close = is_variable ? "}}" : "%}";
    char sign = 0;
    if ((source_[pos_] == '-' || (!is_variable && source_[pos_] == '+')) && at(pos_ + 1, close)) {
      sign = source_[pos_];
    } else if (!at(pos_, close)) {
      return false;
    }
    push(is_variable ? TokenKind::VariableEnd : TokenKind::BlockEnd, close, pos_);
    pos_ += sign ? 3 : 2;
    if (is_variable) {
      if (sign == '-') skip_spaces();
    } else {
      consume_block_end_suffix(sign);
    }
    line_starting_ = source_[pos_ - 1] == '\n';
    return true;
  }

  void lex_tag(size_t tag, bool is_variable) {
    push(is_variable ? TokenKind::VariableBegin : TokenKind::BlockBegin, is_variable ? "{{" : "{%", tag);
    pos_ = tag + 2;
    if (pos_ < source_.size() && (source_[pos_] == '-' || source_[pos_] == '+')) ++pos_;
    std::vector<std::pair<char, size_t>> open_brackets;
    for (;;) {
      skip_spaces();
      if (pos_ >= source_.size()) {
        if (!open_brackets.empty()) {
          throw TemplateError(std::string("unclosed '") + open_brackets.back().first + "'",
                              locate(open_brackets.back().second));
        }
        throw TemplateError(std::string("unclosed tag: '") + (is_variable ? "{{' without '}}'" : "{%' without '%}'"),
                            locate(tag));
      }
      if (open_brackets.empty() && lex_tag_end(is_variable)) return;
      lex_expression_token(open_brackets);
    }
  }

  void lex_expression_token(std::vector<std::pair<char, size_t>>& open_brackets) {
    const size_t start = pos_;
    const char c = source_[pos_];
    if (is_digit(c)) {
      lex_number();
    } else if (is_name_start(c)) {
      while (pos_ < source_.size() && is_name_char(source_[pos_])) ++pos_;
      push(TokenKind::Name, source_.substr(start, pos_ - start), start);
    } else if (c == '\'' || c == '"') {
      lex_string();
    } else {
      lex_operator(open_brackets);
    }
  }

  // Digits in groups joined by single underscores: `1_000`.
  size_t digits_end(size_t p) const {
    if (p >= source_.size() || !is_digit(source_[p])) return p;
    while (p < source_.size()) {
      if (is_digit(source_[p])) {
        ++p;
      } else if (source_[p] == '_' && p + 1 < source_.size() && is_digit(source_[p + 1])) {
        p += 2;
      } else {
        break;
      }
    }
    return p;
  }

  void lex_number() {
    const size_t start = pos_;
    size_t end = digits_end(start);
    bool is_float = false;
    const bool after_dot = start > 0 && source_[start - 1] == '.';
    if (!after_dot && end + 1 < source_.size() && source_[end] == '.' && is_digit(source_[end + 1])) {
      end = digits_end(end + 1);
      is_float = true;
    }
    if (!after_dot && end < source_.size() && (source_[end] == 'e' || source_[end] == 'E')) {
      size_t exponent = end + 1;
      if (exponent < source_.size() && (source_[exponent] == '+' || source_[exponent] == '-')) ++exponent;
      if (digits_end(exponent) > exponent) {
        end = digits_end(exponent);
        is_float = true;
      }
    }
    std::string text;
    for (size_t i = start; i < end; ++i) {
      if (source_[i] != '_') text += source_[i];
    }
    pos_ = end;
    push(is_float ? TokenKind::Float : TokenKind::Integer, std::move(text), start);
  }

  void lex_string() {
    const size_t start = pos_;
    const char quote = source_[pos_++];
    while (pos_ < source_.size() && source_[pos_] != quote) pos_ += source_[pos_] == '\\' ? 2 : 1;
    if (pos_ >= source_.size()) throw TemplateError("unclosed string literal", locate(start));
    const std::string_view body = std::string_view(source_).substr(start + 1, pos_ - start - 1);
    ++pos_;
    push(TokenKind::String, unescape(body, locate(start)), start);
  }

  void lex_operator(std::vector<std::pair<char, size_t>>& open_brackets) {
    static constexpr const char* kTwoCharacter[] = {"//", "**", "==", "!=", "<=", ">="};
    const size_t start = pos_;
    for (const char* op : kTwoCharacter) {
      if (at(pos_, op)) {
        pos_ += 2;
        push(TokenKind::Operator, op, start);
        return;
      }
    }
    const char c = source_[pos_];
    if (c == '\0' || !std::strchr("+-/*%~[](){}<>=.:|,;", c)) {
      const std::u32string character = unicode::decode(std::string_view(source_).substr(pos_, 4));
      throw TemplateError("unexpected character '" + unicode::encode(character.substr(0, 1)) + "'", locate(pos_));
    }
    if (c == '(' || c == '[' || c == '{') {
      open_brackets.emplace_back(c, pos_);
    } else if (c == ')' || c == ']' || c == '}') {
      const char expected = open_brackets.empty() ? 0
                                                  : (open_brackets.back().first == '('   ? ')'
                                                     : open_brackets.back().first == '[' ? ']'
                                                                                         : '}');
      if (expected != c) {
        throw TemplateError(
            std::string("unexpected '") + c + "'" + (expected ? std::string(", expected '") + expected + "'" : ""),
            locate(pos_));
      }
      open_brackets.pop_back();
    }
    ++pos_;
    push(TokenKind::Operator, std::string(1, c), start);
  }

  std::string source_;
  std::vector<size_t> line_starts_;
  size_t pos_ = 0;
  // Whether the text about to be read starts a line: lstrip_blocks strips
  // the indentation before a tag only at a line's start.
  bool line_starting_ = true;
  std::vector<Token> tokens_;
};

}  // namespace

std::vector<Token> tokenize(std::string_view source) { return Lexer(source).run(); }

std::string describe(const Token& token) {
  switch (token.kind) {
    case TokenKind::Text:
      return "template text";
    case TokenKind::VariableBegin:
    case TokenKind::VariableEnd:
    case TokenKind::BlockBegin:
    case TokenKind::BlockEnd:
    case TokenKind::Operator:
      return "'" + token.text + "'";
    case TokenKind::Name:
      return "'" + token.text + "'";
    case TokenKind::String:
      return "string literal";
    case TokenKind::Integer:
    case TokenKind::Float:
      return "number " + token.text;
    case TokenKind::End:
      return "end of template";
  }
  return "token";
}

}  // namespace kiln::llm::jinja
