// Lexer: template source to tokens, as Jinja's lexer splits it with the
// settings transformers renders chat templates with (trim_blocks,
// lstrip_blocks, no trailing newline kept). Text between tags comes out with
// all whitespace control already applied; comments and `{% raw %}` markers
// are gone.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "llm/jinja/error.h"

namespace kiln::llm::jinja {

enum class TokenKind {
  Text,           ///< template text, printed as is
  VariableBegin,  ///< `{{`
  VariableEnd,    ///< `}}`
  BlockBegin,     ///< `{%`
  BlockEnd,       ///< `%}`
  Name,           ///< identifier or keyword (`if`, `not`, `true`...)
  String,         ///< string literal; `text` holds the unescaped value
  Integer,        ///< `text` holds the digits, underscores removed
  Float,
  Operator,  ///< `+`, `==`, `(`, `|`, ...
  End,       ///< end of the source
};

struct Token {
  TokenKind kind;
  std::string text;
  SourceLocation where;
};

/// The tokens of `source`. Throws TemplateError for an unclosed tag, comment
/// or string, an unbalanced bracket or a character no token starts with.
std::vector<Token> tokenize(std::string_view source);

/// How a token reads in an error message: `'%}'`, `name 'foo'`, `end of template`.
std::string describe(const Token& token);

}  // namespace kiln::llm::jinja
