#include "llm/jinja/operators.h"

#include <algorithm>
#include <cmath>

#include "llm/jinja/error.h"

namespace kiln::llm::jinja {
namespace {

[[noreturn]] void unsupported(BinaryOperator op, const Value& a, const Value& b) {
  throw TemplateError(std::string("unsupported operand type(s) for ") + spelling(op) + ": '" + a.type_name() +
                      "' and '" + b.type_name() + "'");
}

void check_defined(const Value& value) {
  if (value.is_undefined()) throw TemplateError(value.undefined_reason());
}

void check_string_size(size_t bytes) {
  if (bytes > kMaxStringBytes) throw TemplateError("string longer than " + std::to_string(kMaxStringBytes) + " bytes");
}

void check_list_size(size_t length) {
  if (length > kMaxListLength) throw TemplateError("list longer than " + std::to_string(kMaxListLength) + " elements");
}

void check_overflow(bool overflowed) {
  if (overflowed) throw TemplateError("integer overflow");
}

// Python's floor division and modulo: the quotient rounds down, the
// remainder takes the divisor's sign.
int64_t floor_divide(int64_t a, int64_t b) {
  const int64_t quotient = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? quotient - 1 : quotient;
}
int64_t floor_modulo(int64_t a, int64_t b) {
  const int64_t remainder = a % b;
  return (remainder != 0 && ((remainder < 0) != (b < 0))) ? remainder + b : remainder;
}

Value arithmetic(BinaryOperator op, const Value& a, const Value& b) {
  const bool integers = !a.is_float() && !b.is_float();
  if ((op == BinaryOperator::Divide || op == BinaryOperator::FloorDivide || op == BinaryOperator::Modulo) &&
      b.as_float() == 0.0) {
    throw TemplateError(integers ? "integer division or modulo by zero" : "float division by zero");
  }
  if (integers) {
    const int64_t x = a.as_int(), y = b.as_int();
    int64_t result = 0;
    switch (op) {
      case BinaryOperator::Add:
        check_overflow(__builtin_add_overflow(x, y, &result));
        return result;
      case BinaryOperator::Subtract:
        check_overflow(__builtin_sub_overflow(x, y, &result));
        return result;
      case BinaryOperator::Multiply:
        check_overflow(__builtin_mul_overflow(x, y, &result));
        return result;
      case BinaryOperator::Divide:
        return static_cast<double>(x) / static_cast<double>(y);
      case BinaryOperator::FloorDivide:
        return floor_divide(x, y);
      case BinaryOperator::Modulo:
        return floor_modulo(x, y);
      case BinaryOperator::Power:
        if (y < 0) return std::pow(static_cast<double>(x), static_cast<double>(y));
        if (x == 0 || x == 1) return y == 0 ? 1 : x;
        if (x == -1) return y % 2 == 0 ? 1 : -1;
        // |x| >= 2 overflows within 63 steps.
        result = 1;
        for (int64_t i = 0; i < y; ++i) {
          check_overflow(__builtin_mul_overflow(result, x, &result));
        }
        return result;
      default:
        break;
    }
  }
  const double x = a.as_float(), y = b.as_float();
  switch (op) {
    case BinaryOperator::Add:
      return x + y;
    case BinaryOperator::Subtract:
      return x - y;
    case BinaryOperator::Multiply:
      return x * y;
    case BinaryOperator::Divide:
      return x / y;
    case BinaryOperator::FloorDivide:
      return std::floor(x / y);
    case BinaryOperator::Modulo: {
      const double remainder = std::fmod(x, y);
      return (remainder != 0.0 && ((remainder < 0) != (y < 0))) ? remainder + y : remainder;
    }
    case BinaryOperator::Power:
      return std::pow(x, y);
    default:
      unsupported(op, a, b);
  }
}

Value repeat(const Value& sequence, int64_t times) {
  const size_t count = static_cast<size_t>(std::max<int64_t>(0, times));
  if (sequence.is_string()) {
    const std::string& text = sequence.as_string();
    if (!text.empty()) check_string_size(text.size() * std::min(count, kMaxStringBytes + 1));
    std::string out;
    for (size_t i = 0; i < count; ++i) out += text;
    return out;
  }
  const ValueList& items = sequence.as_list();
  if (!items.empty()) check_list_size(items.size() * std::min(count, kMaxListLength + 1));
  ValueList out;
  for (size_t i = 0; i < count; ++i) out.insert(out.end(), items.begin(), items.end());
  return out;
}

Value add(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) return arithmetic(BinaryOperator::Add, a, b);
  if (a.is_string() && b.is_string()) {
    check_string_size(a.as_string().size() + b.as_string().size());
    return a.as_string() + b.as_string();
  }
  if (a.is_list() && b.is_list()) {
    check_list_size(a.as_list().size() + b.as_list().size());
    ValueList items = a.as_list();
    items.insert(items.end(), b.as_list().begin(), b.as_list().end());
    return items;
  }
  if (a.is_string()) throw TemplateError("can only concatenate str (not \"" + b.type_name() + "\") to str");
  if (a.is_list()) throw TemplateError("can only concatenate list (not \"" + b.type_name() + "\") to list");
  unsupported(BinaryOperator::Add, a, b);
}

}  // namespace

Value apply_binary(BinaryOperator op, const Value& a, const Value& b) {
  switch (op) {
    case BinaryOperator::Equal:
      return a == b;
    case BinaryOperator::NotEqual:
      return !(a == b);
    case BinaryOperator::Less:
      return compare(a, b) < 0;
    case BinaryOperator::LessEqual:
      return compare(a, b) <= 0;
    case BinaryOperator::Greater:
      return compare(a, b) > 0;
    case BinaryOperator::GreaterEqual:
      return compare(a, b) >= 0;
    case BinaryOperator::In:
      return contains(b, a);
    case BinaryOperator::NotIn:
      return !contains(b, a);
    case BinaryOperator::Concat: {
      std::string text = a.str() + b.str();
      check_string_size(text.size());
      return text;
    }
    default:
      break;
  }
  check_defined(a);
  check_defined(b);
  if (op == BinaryOperator::Add) return add(a, b);
  if (op == BinaryOperator::Multiply) {
    if ((a.is_string() || a.is_list()) && (b.is_int() || b.is_bool())) return repeat(a, b.as_int());
    if ((b.is_string() || b.is_list()) && (a.is_int() || a.is_bool())) return repeat(b, a.as_int());
  }
  if (op == BinaryOperator::Modulo && a.is_string()) {
    throw TemplateError("printf-style string formatting ('...' % values) is not supported");
  }
  if (!a.is_number() || !b.is_number()) unsupported(op, a, b);
  return arithmetic(op, a, b);
}

Value apply_unary(UnaryOperator op, const Value& a) {
  if (op == UnaryOperator::Not) return !a.truthy();
  check_defined(a);
  if (!a.is_number()) {
    throw TemplateError(std::string("bad operand type for unary ") + (op == UnaryOperator::Negate ? "-" : "+") + ": '" +
                        a.type_name() + "'");
  }
  if (a.is_float()) return op == UnaryOperator::Negate ? -a.as_float() : a.as_float();
  int64_t result = a.as_int();
  if (op == UnaryOperator::Negate && __builtin_sub_overflow(int64_t{0}, a.as_int(), &result)) {
    throw TemplateError("integer overflow");
  }
  return result;
}

}  // namespace kiln::llm::jinja
