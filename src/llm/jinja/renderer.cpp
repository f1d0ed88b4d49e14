#include "llm/jinja/renderer.h"

#include <algorithm>
#include <unordered_map>

#include "llm/jinja/builtins.h"
#include "llm/jinja/error.h"
#include "llm/jinja/operators.h"

namespace kiln::llm::jinja {
namespace {

// Calls nest at most this deep (a recursive macro without a base case).
constexpr int kMaxCallDepth = 64;

using Scope = std::unordered_map<std::string, Value>;

class Renderer {
 public:
  explicit Renderer(const ValueDict& variables) : globals_(builtin_globals()) {
    Scope& top = scopes_.emplace_back();
    for (const auto& [name, value] : variables) top[name] = value;
  }

  std::string run(const Body& body) {
    std::string out;
    execute(body, out);
    return out;
  }

 private:
  enum class Flow { Normal, Break, Continue };

  // ---- Scopes.

  Value lookup(const std::string& name) const {
    for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
      if (auto found = scope->find(name); found != scope->end()) return found->second;
    }
    for (const auto& [global_name, value] : globals_) {
      if (global_name == name) return value;
    }
    return Value::undefined(name);
  }

  void assign(const std::string& name, Value value) { scopes_.back()[name] = std::move(value); }

  // Binds `value` to `targets`, unpacking it when there are several.
  void assign_targets(const std::vector<std::string>& targets, const Value& value) {
    if (targets.size() == 1) {
      assign(targets[0], value);
      return;
    }
    const ValueList items = value.iterate();
    if (items.size() != targets.size()) {
      throw TemplateError(std::string(items.size() > targets.size() ? "too many" : "not enough") +
                          " values to unpack (expected " + std::to_string(targets.size()) + ", got " +
                          std::to_string(items.size()) + ")");
    }
    for (size_t i = 0; i < targets.size(); ++i) assign(targets[i], items[i]);
  }

  // Opens a scope for its lifetime.
  class ScopeGuard {
   public:
    explicit ScopeGuard(Renderer& renderer) : renderer_(renderer) { renderer_.scopes_.emplace_back(); }
    ~ScopeGuard() { renderer_.scopes_.pop_back(); }
    ScopeGuard(const ScopeGuard&) = delete;
    ScopeGuard& operator=(const ScopeGuard&) = delete;

   private:
    Renderer& renderer_;
  };

  // ---- Statements.

  Flow execute(const Body& body, std::string& out) {
    for (const Statement& statement : body) {
      const Flow flow = execute(statement, out);
      if (flow != Flow::Normal) return flow;
    }
    return Flow::Normal;
  }

  Flow execute(const Statement& statement, std::string& out) {
    try {
      return std::visit([&](const auto& node) { return execute_node(node, out); }, statement.node);
    } catch (TemplateError& error) {
      error.locate(statement.where);
      throw;
    }
  }

  Flow execute_node(const TextStatement& node, std::string& out) {
    append(out, node.text);
    return Flow::Normal;
  }

  Flow execute_node(const OutputStatement& node, std::string& out) {
    append(out, evaluate(*node.value).str());
    return Flow::Normal;
  }

  Flow execute_node(const IfStatement& node, std::string& out) {
    for (const IfStatement::Branch& branch : node.branches) {
      if (!branch.condition || evaluate(*branch.condition).truthy()) return execute(branch.body, out);
    }
    return Flow::Normal;
  }

  Flow execute_node(const ForStatement& node, std::string& out) {
    ValueList items = evaluate(*node.iterable).iterate();
    if (node.filter) {
      ValueList kept;
      for (const Value& item : items) {
        ScopeGuard scope(*this);
        assign_targets(node.targets, item);
        if (evaluate(*node.filter).truthy()) kept.push_back(item);
      }
      items = std::move(kept);
    }
    if (items.empty()) return execute(node.otherwise, out);
    for (size_t i = 0; i < items.size(); ++i) {
      ScopeGuard scope(*this);
      assign_targets(node.targets, items[i]);
      assign("loop", loop_variable(items, i));
      if (execute(node.body, out) == Flow::Break) break;
    }
    return Flow::Normal;
  }

  // Jinja's `loop`: where the iteration is, and `loop.cycle(a, b, ...)`.
  static Value loop_variable(const ValueList& items, size_t i) {
    const int64_t index = static_cast<int64_t>(i);
    const int64_t length = static_cast<int64_t>(items.size());
    ValueDict loop = {
        {"index", index + 1},
        {"index0", index},
        {"revindex", length - index},
        {"revindex0", length - index - 1},
        {"first", i == 0},
        {"last", index == length - 1},
        {"length", length},
        {"depth", 1},
        {"depth0", 0},
    };
    if (i > 0) loop.emplace_back("previtem", items[i - 1]);
    if (index + 1 < length) loop.emplace_back("nextitem", items[i + 1]);
    loop.emplace_back("cycle", Function{"loop.cycle", [index](const CallArguments& call) {
                                          if (call.positional.empty())
                                            throw TemplateError("no items for cycling given");
                                          return call.positional[index % call.positional.size()];
                                        }});
    return loop;
  }

  Flow execute_node(const SetStatement& node, std::string&) {
    Value value = evaluate(*node.value);
    if (node.attribute.empty()) {
      assign_targets(node.targets, value);
      return Flow::Normal;
    }
    const Value target = lookup(node.targets[0]);
    if (!target.is_namespace()) throw TemplateError("cannot assign attribute on non-namespace object");
    if (node.attribute[0] == '_') {
      throw TemplateError("chat templates cannot store underscore-prefixed attributes on a namespace, but got '" +
                          node.attribute + "'");
    }
    ValueDict& attributes = target.as_namespace().attributes;
    for (auto& [name, current] : attributes) {
      if (name == node.attribute) {
        current = std::move(value);
        return Flow::Normal;
      }
    }
    attributes.emplace_back(node.attribute, std::move(value));
    return Flow::Normal;
  }

  Flow execute_node(const SetBlockStatement& node, std::string&) {
    std::string text;
    {
      ScopeGuard scope(*this);
      execute(node.body, text);
    }
    assign(node.target, std::move(text));
    return Flow::Normal;
  }

  Flow execute_node(const MacroStatement& node, std::string&) {
    assign(node.name, Function{node.name, [this, &node](const CallArguments& call) { return call_macro(node, call); }});
    return Flow::Normal;
  }

  // A macro runs in a scope of its own above the template's top level: it
  // sees the template's variables and its parameters, not its caller's loop.
  Value call_macro(const MacroStatement& macro, const CallArguments& call) {
    if (call.positional.size() > macro.parameters.size()) {
      throw TemplateError("macro '" + macro.name + "' takes not more than " + std::to_string(macro.parameters.size()) +
                          " argument(s)");
    }
    std::vector<Scope> caller_scopes(std::make_move_iterator(scopes_.begin() + 1),
                                     std::make_move_iterator(scopes_.end()));
    scopes_.resize(1);
    std::string out;
    try {
      ScopeGuard scope(*this);
      bind_macro_arguments(macro, call);
      execute(macro.body, out);
    } catch (...) {
      restore_scopes(std::move(caller_scopes));
      throw;
    }
    restore_scopes(std::move(caller_scopes));
    return out;
  }

  void restore_scopes(std::vector<Scope> caller_scopes) {
    scopes_.resize(1);
    for (Scope& scope : caller_scopes) scopes_.push_back(std::move(scope));
  }

  void bind_macro_arguments(const MacroStatement& macro, const CallArguments& call) {
    std::vector<bool> bound(macro.parameters.size(), false);
    for (size_t i = 0; i < call.positional.size(); ++i) {
      assign(macro.parameters[i].first, call.positional[i]);
      bound[i] = true;
    }
    for (const auto& [name, value] : call.keywords) {
      const std::string& wanted = name;  // clang 14 cannot capture a structured binding
      const auto found = std::find_if(macro.parameters.begin(), macro.parameters.end(),
                                      [&](const auto& parameter) { return parameter.first == wanted; });
      if (found == macro.parameters.end()) {
        throw TemplateError("macro '" + macro.name + "' takes no keyword argument '" + name + "'");
      }
      const size_t index = found - macro.parameters.begin();
      if (bound[index])
        throw TemplateError("macro '" + macro.name + "' got multiple values for argument '" + name + "'");
      assign(name, value);
      bound[index] = true;
    }
    for (size_t i = 0; i < macro.parameters.size(); ++i) {
      if (bound[i]) continue;
      const auto& [name, default_value] = macro.parameters[i];
      assign(name, default_value ? evaluate(*default_value) : Value::undefined(name));
    }
  }

  Flow execute_node(const LoopControlStatement& node, std::string&) {
    return node.is_break ? Flow::Break : Flow::Continue;
  }

  Flow execute_node(const GenerationStatement& node, std::string& out) { return execute(node.body, out); }

  static void append(std::string& out, const std::string& text) {
    if (out.size() + text.size() > kMaxStringBytes) {
      throw TemplateError("rendered text longer than " + std::to_string(kMaxStringBytes) + " bytes");
    }
    out += text;
  }

  // ---- Expressions.

  Value evaluate(const Expression& expression) {
    try {
      return std::visit([&](const auto& node) { return evaluate_node(node); }, expression.node);
    } catch (TemplateError& error) {
      error.locate(expression.where);
      throw;
    }
  }

  Value evaluate_optional(const ExpressionPtr& expression) { return expression ? evaluate(*expression) : Value(); }

  CallArguments evaluate_arguments(const ArgumentList& arguments) {
    CallArguments call;
    for (const ExpressionPtr& argument : arguments.positional) call.positional.push_back(evaluate(*argument));
    for (const auto& [name, argument] : arguments.keywords) call.keywords.emplace_back(name, evaluate(*argument));
    return call;
  }

  Value evaluate_node(const Literal& node) { return node.value; }
  Value evaluate_node(const Name& node) { return lookup(node.name); }

  Value evaluate_node(const ListLiteral& node) {
    ValueList items;
    for (const ExpressionPtr& item : node.items) items.push_back(evaluate(*item));
    return node.is_tuple ? Value::tuple(std::move(items)) : Value(std::move(items));
  }

  Value evaluate_node(const DictLiteral& node) {
    ValueDict entries;
    for (const auto& [key_expression, value_expression] : node.entries) {
      const Value key = evaluate(*key_expression);
      if (!key.is_string()) throw TemplateError("dict keys must be strings, not " + key.type_name());
      Value value = evaluate(*value_expression);
      const auto existing = std::find_if(entries.begin(), entries.end(),
                                         [&](const auto& entry) { return entry.first == key.as_string(); });
      if (existing != entries.end()) {
        existing->second = std::move(value);
      } else {
        entries.emplace_back(key.as_string(), std::move(value));
      }
    }
    return entries;
  }

  Value evaluate_node(const Attribute& node) { return get_attribute(evaluate(*node.object), node.name); }
  Value evaluate_node(const Item& node) { return get_item(evaluate(*node.object), evaluate(*node.index)); }

  Value evaluate_node(const Slice& node) {
    const Value object = evaluate(*node.object);
    return get_slice(object, evaluate_optional(node.start), evaluate_optional(node.stop), evaluate_optional(node.step));
  }

  Value evaluate_node(const Call& node) {
    const Value callee = evaluate(*node.callee);
    if (callee.is_undefined()) throw TemplateError(callee.undefined_reason());
    if (!callee.is_function()) throw TemplateError("'" + callee.type_name() + "' object is not callable");
    if (++call_depth_ > kMaxCallDepth) {
      --call_depth_;
      throw TemplateError("calls nested deeper than " + std::to_string(kMaxCallDepth));
    }
    try {
      Value result = callee.as_function().call(evaluate_arguments(node.arguments));
      --call_depth_;
      return result;
    } catch (...) {
      --call_depth_;
      throw;
    }
  }

  Value evaluate_node(const Filter& node) {
    const Value subject = evaluate(*node.subject);
    return apply_filter(node.name, subject, evaluate_arguments(node.arguments));
  }

  Value evaluate_node(const Test& node) {
    const Value subject = evaluate(*node.subject);
    return apply_test(node.name, subject, evaluate_arguments(node.arguments)) != node.negated;
  }

  Value evaluate_node(const Unary& node) { return apply_unary(node.op, evaluate(*node.operand)); }

  Value evaluate_node(const Binary& node) {
    if (node.op == BinaryOperator::Or || node.op == BinaryOperator::And) {
      Value left = evaluate(*node.left);
      const bool decided = node.op == BinaryOperator::Or ? left.truthy() : !left.truthy();
      return decided ? left : evaluate(*node.right);
    }
    const Value left = evaluate(*node.left);
    return apply_binary(node.op, left, evaluate(*node.right));
  }

  Value evaluate_node(const Comparison& node) {
    Value left = evaluate(*node.first);
    for (const auto& [op, operand] : node.rest) {
      Value right = evaluate(*operand);
      if (!apply_binary(op, left, right).truthy()) return false;
      left = std::move(right);
    }
    return true;
  }

  Value evaluate_node(const Conditional& node) {
    if (evaluate(*node.condition).truthy()) return evaluate(*node.then);
    return node.otherwise ? evaluate(*node.otherwise) : Value::undefined("conditional expression without else");
  }

  ValueDict globals_;
  std::vector<Scope> scopes_;
  int call_depth_ = 0;
};

}  // namespace

std::string render(const Template& program, const ValueDict& variables) {
  return Renderer(variables).run(program.body);
}

}  // namespace kiln::llm::jinja
