#include "llm/jinja/parser.h"

#include <initializer_list>
#include <string>
#include <utility>

#include "llm/jinja/expression_parser.h"
#include "llm/jinja/lexer.h"
#include "llm/jinja/token_stream.h"

namespace kiln::llm::jinja {
namespace {

// Tags of Jinja that chat templates do not need and this parser refuses.
constexpr std::string_view kUnsupportedTags[] = {"include", "import", "from",       "extends", "block", "call",
                                                 "filter",  "with",   "autoescape", "do",      "trans"};

bool is_in(std::string_view name, std::initializer_list<std::string_view> names) {
  for (std::string_view candidate : names) {
    if (candidate == name) return true;
  }
  return false;
}

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)), expressions_(tokens_) {}

  Template parse_template() {
    Template result;
    parse_body(result.body, {}, nullptr);
    return result;
  }

 private:
  // An open block, for the error when its end tag never comes.
  struct Opening {
    std::string tag;
    std::string end_tag;
    SourceLocation where;
  };

  void expect_block_end() {
    if (tokens_.current().kind != TokenKind::BlockEnd) tokens_.fail_expected("'%}'");
    tokens_.advance();
  }

  // Parses statements into `body` up to a `{% tag` whose tag is one of
  // `end_tags`; consumes `{%` and the tag and returns the tag. At the end of
  // the template returns "", which is an error inside a block (`opening`).
  std::string parse_body(Body& body, std::initializer_list<std::string_view> end_tags, const Opening* opening) {
    for (;;) {
      const Token& token = tokens_.current();
      switch (token.kind) {
        case TokenKind::Text:
          body.push_back({TextStatement{token.text}, token.where});
          tokens_.advance();
          break;
        case TokenKind::VariableBegin: {
          tokens_.advance();
          ExpressionPtr value = expressions_.parse_tuple();
          if (tokens_.current().kind != TokenKind::VariableEnd) tokens_.fail_expected("'}}'");
          tokens_.advance();
          body.push_back({OutputStatement{std::move(value)}, token.where});
          break;
        }
        case TokenKind::BlockBegin: {
          const SourceLocation where = token.where;
          tokens_.advance();
          const std::string tag = tokens_.expect_identifier("a tag name");
          if (is_in(tag, end_tags)) return tag;
          if (opening != nullptr && (tag.starts_with("end") || tag == "elif" || tag == "else")) {
            throw TemplateError("unexpected '{% " + tag + " %}': the innermost open block is '{% " + opening->tag +
                                    " %}' at line " + std::to_string(opening->where.line) + ", closed by '{% " +
                                    opening->end_tag + " %}'",
                                where);
          }
          parse_statement(body, tag, where);
          break;
        }
        case TokenKind::End:
          if (opening != nullptr) {
            throw TemplateError("'{% " + opening->tag + " %}' is never closed: expected '{% " + opening->end_tag +
                                    " %}' before the end of the template",
                                opening->where);
          }
          return "";
        default:
          tokens_.fail_expected("template text, '{{' or '{%'");
      }
    }
  }

  void parse_statement(Body& body, const std::string& tag, SourceLocation where) {
    TokenStream::NestingGuard guard(tokens_, where);
    if (tag == "if") {
      body.push_back({parse_if(where), where});
    } else if (tag == "for") {
      body.push_back({parse_for(where), where});
    } else if (tag == "set") {
      body.push_back(parse_set(where));
    } else if (tag == "macro") {
      body.push_back({parse_macro(where), where});
    } else if (tag == "break" || tag == "continue") {
      if (loop_depth_ == 0) throw TemplateError("'{% " + tag + " %}' outside a loop", where);
      expect_block_end();
      body.push_back({LoopControlStatement{tag == "break"}, where});
    } else if (tag == "generation") {
      expect_block_end();
      GenerationStatement generation;
      const Opening opening{"generation", "endgeneration", where};
      parse_body(generation.body, {"endgeneration"}, &opening);
      expect_block_end();
      body.push_back({std::move(generation), where});
    } else {
      for (std::string_view unsupported : kUnsupportedTags) {
        if (tag == unsupported) {
          throw TemplateError("'{% " + tag + " %}' is outside the Jinja subset Kiln renders chat templates with",
                              where);
        }
      }
      throw TemplateError("unexpected tag '{% " + tag + " %}'", where);
    }
  }

  IfStatement parse_if(SourceLocation where) {
    const Opening opening{"if", "endif", where};
    IfStatement statement;
    ExpressionPtr condition = expressions_.parse_tuple(false);
    for (;;) {
      expect_block_end();
      IfStatement::Branch& branch = statement.branches.emplace_back(IfStatement::Branch{std::move(condition), {}});
      const bool is_else = branch.condition == nullptr;
      const std::string tag = is_else ? parse_body(branch.body, {"endif"}, &opening)
                                      : parse_body(branch.body, {"elif", "else", "endif"}, &opening);
      if (tag == "endif") break;
      condition = tag == "elif" ? expressions_.parse_tuple(false) : nullptr;
    }
    expect_block_end();
    return statement;
  }

  std::vector<std::string> parse_targets() {
    std::vector<std::string> targets;
    const bool parenthesized = tokens_.accept_operator("(");
    do {
      if (parenthesized && tokens_.is_operator(")")) break;
      targets.push_back(tokens_.expect_identifier("a variable name"));
    } while (tokens_.accept_operator(","));
    if (parenthesized) tokens_.expect_operator(")");
    return targets;
  }

  ForStatement parse_for(SourceLocation where) {
    const Opening opening{"for", "endfor", where};
    ForStatement statement;
    statement.targets = parse_targets();
    if (!tokens_.accept_name("in")) tokens_.fail_expected("'in'");
    statement.iterable = expressions_.parse_tuple(false);
    if (tokens_.accept_name("if")) statement.filter = expressions_.parse_expression();
    if (tokens_.is_name("recursive")) throw TemplateError("recursive loops are not supported", tokens_.current().where);
    expect_block_end();
    ++loop_depth_;
    const std::string tag = parse_body(statement.body, {"else", "endfor"}, &opening);
    --loop_depth_;
    if (tag == "else") {
      expect_block_end();
      parse_body(statement.otherwise, {"endfor"}, &opening);
    }
    expect_block_end();
    return statement;
  }

  Statement parse_set(SourceLocation where) {
    if (tokens_.current().kind == TokenKind::Name && TokenStream::is_operator(tokens_.peek(), ".")) {
      SetStatement statement;
      statement.targets.push_back(tokens_.advance().text);
      tokens_.advance();
      statement.attribute = tokens_.expect_identifier("an attribute name");
      tokens_.expect_operator("=");
      statement.value = expressions_.parse_tuple();
      expect_block_end();
      return {std::move(statement), where};
    }
    std::vector<std::string> targets = parse_targets();
    if (tokens_.accept_operator("=")) {
      SetStatement statement{std::move(targets), "", expressions_.parse_tuple()};
      expect_block_end();
      return {std::move(statement), where};
    }
    if (targets.size() != 1) tokens_.fail_expected("'='");
    if (tokens_.is_operator("|"))
      throw TemplateError("filtered '{% set %}' blocks are not supported", tokens_.current().where);
    expect_block_end();
    SetBlockStatement statement{targets[0], {}};
    const int loop_depth = std::exchange(loop_depth_, 0);
    const Opening opening{"set", "endset", where};
    parse_body(statement.body, {"endset"}, &opening);
    loop_depth_ = loop_depth;
    expect_block_end();
    return {std::move(statement), where};
  }

  MacroStatement parse_macro(SourceLocation where) {
    MacroStatement statement;
    statement.name = tokens_.expect_identifier("a macro name");
    tokens_.expect_operator("(");
    while (!tokens_.accept_operator(")")) {
      if (!statement.parameters.empty()) tokens_.expect_operator(",");
      if (tokens_.accept_operator(")")) break;
      std::string name = tokens_.expect_identifier("a parameter name");
      ExpressionPtr default_value = tokens_.accept_operator("=") ? expressions_.parse_expression() : nullptr;
      statement.parameters.emplace_back(std::move(name), std::move(default_value));
    }
    expect_block_end();
    const int loop_depth = std::exchange(loop_depth_, 0);
    const Opening opening{"macro", "endmacro", where};
    parse_body(statement.body, {"endmacro"}, &opening);
    loop_depth_ = loop_depth;
    expect_block_end();
    return statement;
  }

  TokenStream tokens_;
  ExpressionParser expressions_;
  int loop_depth_ = 0;
};

}  // namespace

Template parse(std::string_view source) { return Parser(tokenize(source)).parse_template(); }

}  // namespace kiln::llm::jinja
