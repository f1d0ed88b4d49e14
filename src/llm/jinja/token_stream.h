// TokenStream: the parser's cursor over the lexer's tokens, with the checks
// both the statement and the expression parser make, and the nesting bound
// that keeps a hostile template from exhausting the stack.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "llm/jinja/error.h"
#include "llm/jinja/lexer.h"

namespace kiln::llm::jinja {

class TokenStream {
 public:
  /// Deeper nesting of blocks and expressions than any real template has.
  static constexpr int kMaxNesting = 128;

  explicit TokenStream(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  /// The token at the cursor; the last token (End) stays current once reached.
  const Token& current() const { return tokens_[pos_]; }
  const Token& peek() const { return tokens_[std::min(pos_ + 1, tokens_.size() - 1)]; }
  const Token& advance() {
    const Token& token = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return token;
  }

  bool is_operator(std::string_view op) const { return is_operator(current(), op); }
  bool is_name(std::string_view name) const { return current().kind == TokenKind::Name && current().text == name; }
  static bool is_operator(const Token& token, std::string_view op) {
    return token.kind == TokenKind::Operator && token.text == op;
  }
  bool accept_operator(std::string_view op) {
    if (!is_operator(op)) return false;
    advance();
    return true;
  }
  bool accept_name(std::string_view name) {
    if (!is_name(name)) return false;
    advance();
    return true;
  }

  [[noreturn]] void fail_expected(const std::string& expected) const {
    throw TemplateError("expected " + expected + ", got " + describe(current()), current().where);
  }
  void expect_operator(std::string_view op) {
    if (!accept_operator(op)) fail_expected("'" + std::string(op) + "'");
  }
  std::string expect_identifier(const std::string& what) {
    if (current().kind != TokenKind::Name) fail_expected(what);
    return advance().text;
  }

  /// Counts one level of nesting for its lifetime; past kMaxNesting, a
  /// TemplateError at `where`.
  class NestingGuard {
   public:
    NestingGuard(TokenStream& tokens, SourceLocation where) : tokens_(tokens) {
      if (++tokens_.nesting_ > kMaxNesting) throw TemplateError("template nested too deeply", where);
    }
    ~NestingGuard() { --tokens_.nesting_; }
    NestingGuard(const NestingGuard&) = delete;
    NestingGuard& operator=(const NestingGuard&) = delete;

   private:
    TokenStream& tokens_;
  };

 private:
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int nesting_ = 0;
};

}  // namespace kiln::llm::jinja
