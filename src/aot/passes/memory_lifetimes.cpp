// compute_lifetimes: walks a program in the executable form in graph order,
// gives each tensor that owns memory a record, maps every node to the
// records it aliases, and stretches a record to each step where one of its
// aliases is used. Sizes take each symbolic dim at its upper bound, found by
// interval arithmetic over the program's range constraints.
#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

#include "aot/ir/error.h"
#include "aot/ir/exported_program.h"
#include "aot/ir/exec_kind.h"
#include "aot/ir/module_attribute.h"
#include "aot/ir/op_table/op_schema.h"
#include "aot/passes/memory_planning.h"

namespace kiln::aot {
namespace {

// An integer interval whose ends may be infinite; arithmetic that leaves
// int64 saturates to infinity and is remembered, so that "too big" and
// "unbounded" get different messages.
struct Interval {
  static constexpr int64_t kNegInf = std::numeric_limits<int64_t>::min();
  static constexpr int64_t kPosInf = std::numeric_limits<int64_t>::max();
  int64_t lo = kNegInf;
  int64_t hi = kPosInf;
};

class UpperBound {
 public:
  explicit UpperBound(const RangeConstraints& ranges) : ranges_(ranges) {}

  Interval of(const SymExpr& e) {
    const auto& args = e.args();
    switch (e.kind()) {
      case SymExpr::Kind::Constant: return {*e.constant_value(), *e.constant_value()};
      case SymExpr::Kind::Symbol: return symbol(e.symbol_name());
      case SymExpr::Kind::Add: return fold(args, [this](Interval a, Interval b) { return add(a, b); });
      case SymExpr::Kind::Mul: return fold(args, [this](Interval a, Interval b) { return mul(a, b); });
      case SymExpr::Kind::FloorDiv: return floordiv(of(args[0]), of(args[1]));
      case SymExpr::Kind::Mod: return mod(of(args[0]), of(args[1]));
      case SymExpr::Kind::Max:
        return fold(args, [](Interval a, Interval b) { return Interval{std::max(a.lo, b.lo), std::max(a.hi, b.hi)}; });
      case SymExpr::Kind::Min:
        return fold(args, [](Interval a, Interval b) { return Interval{std::min(a.lo, b.lo), std::min(a.hi, b.hi)}; });
    }
    return {};
  }

  bool overflowed() const { return overflowed_; }

 private:
  template <typename Op>
  Interval fold(const std::vector<SymExpr>& args, Op op) {
    Interval result = of(args.front());
    for (size_t i = 1; i < args.size(); ++i) result = op(result, of(args[i]));
    return result;
  }

  Interval symbol(const std::string& name) const {
    auto it = ranges_.find(name);
    if (it == ranges_.end()) return {};
    return {it->second.min, it->second.max.value_or(Interval::kPosInf)};
  }

  static bool infinite(int64_t v) { return v == Interval::kNegInf || v == Interval::kPosInf; }

  int64_t saturate(bool negative) {
    overflowed_ = true;
    return negative ? Interval::kNegInf : Interval::kPosInf;
  }

  int64_t add(int64_t a, int64_t b) {
    if (infinite(a)) return a;
    if (infinite(b)) return b;
    int64_t sum = 0;
    return __builtin_add_overflow(a, b, &sum) ? saturate(a < 0) : sum;
  }
  Interval add(Interval a, Interval b) { return {add(a.lo, b.lo), add(a.hi, b.hi)}; }

  int64_t mul(int64_t a, int64_t b) {
    if (a == 0 || b == 0) return 0;
    const bool negative = (a < 0) != (b < 0);
    if (infinite(a) || infinite(b)) return negative ? Interval::kNegInf : Interval::kPosInf;
    int64_t product = 0;
    return __builtin_mul_overflow(a, b, &product) ? saturate(negative) : product;
  }
  Interval mul(Interval a, Interval b) {
    const int64_t corners[] = {mul(a.lo, b.lo), mul(a.lo, b.hi), mul(a.hi, b.lo), mul(a.hi, b.hi)};
    return {*std::min_element(std::begin(corners), std::end(corners)),
            *std::max_element(std::begin(corners), std::end(corners))};
  }

  // Python's floor division of one end by another; the divisor is not 0.
  static int64_t floordiv(int64_t a, int64_t b) {
    const bool negative = (a < 0) != (b < 0);
    if (infinite(a)) return negative ? Interval::kNegInf : Interval::kPosInf;
    if (infinite(b)) return a == 0 || !negative ? 0 : -1;
    int64_t q = a / b;
    if (a % b != 0 && negative) --q;
    return q;
  }
  // a // b is monotonic in a and, for b of one sign, in b: the corners bound it.
  Interval floordiv(Interval a, Interval b) {
    if (b.lo <= 0 && b.hi >= 0) return {};
    const int64_t corners[] = {floordiv(a.lo, b.lo), floordiv(a.lo, b.hi), floordiv(a.hi, b.lo), floordiv(a.hi, b.hi)};
    return {*std::min_element(std::begin(corners), std::end(corners)),
            *std::max_element(std::begin(corners), std::end(corners))};
  }

  // Mod(a, b) takes the sign of b and is smaller than |b|.
  static Interval mod(Interval a, Interval b) {
    if (b.lo > 0) {
      if (a.lo >= 0 && a.hi < b.lo) return a;
      int64_t hi = infinite(b.hi) ? Interval::kPosInf : b.hi - 1;
      if (a.lo >= 0) hi = std::min(hi, a.hi);
      return {0, hi};
    }
    if (b.hi < 0) return {infinite(b.lo) ? Interval::kNegInf : b.lo + 1, 0};
    return {};
  }

  const RangeConstraints& ranges_;
  bool overflowed_ = false;
};

// The bytes of `meta` with each dim at its upper bound.
int64_t planned_bytes(const TensorMeta& meta, const Node& node, const RangeConstraints& ranges) {
  // Built only for a message: every tensor of large programs passes here.
  const auto where = [&] {
    return "cannot plan memory for node '" + node.name() + "' (" + node.target() + " " + meta.to_string() + "): ";
  };
  int64_t bytes = static_cast<int64_t>(runtime::element_size(meta.dtype));
  if (bytes == 0) throw AotError(where() + "its dtype has no element size");
  for (size_t d = 0; d < meta.sizes.size(); ++d) {
    UpperBound bound(ranges);
    const int64_t upper = bound.of(meta.sizes[d]).hi;
    if (upper == Interval::kPosInf) {
      throw AotError(where() + (bound.overflowed() ? "dim " + std::to_string(d) + " (" + meta.sizes[d].to_string() +
                                                       ") overflows int64 at its upper bound"
                                                 : "unbounded dynamic size: dim " + std::to_string(d) + " (" +
                                                       meta.sizes[d].to_string() +
                                                       ") has no upper bound in the range constraints"));
    }
    if (__builtin_mul_overflow(bytes, std::max<int64_t>(upper, 0), &bytes)) {
      throw AotError(where() + "its size in bytes overflows int64");
    }
  }
  return bytes;
}

using Aliases = std::vector<size_t>;  // record indices

class LifetimeBuilder {
 public:
  LifetimeBuilder(const ExportedProgram& program, const MemoryPlanOptions& options)
      : program_(program), options_(options) {
    for (const InputSpec& spec : program.graph_signature().input_specs) input_specs_[spec.arg.name] = &spec;
    for (const auto& [output, buffer] : program.graph_signature().buffers_to_mutate()) mutated_buffers_.insert(buffer);
  }

  std::vector<TensorLifetime> build() {
    aliases_.reserve(program_.graph().size());  // no rehash on large programs
    int64_t step = 0;
    for (const Node* node : program_.graph()) {
      use_inputs(*node, step);
      define(*node, step);
      ++step;
    }
    return finish();
  }

 private:
  size_t add_record(const Node& node, const TensorMeta& meta, int64_t first_step, int64_t output_index = -1) {
    TensorLifetime record;
    record.label = output_index < 0 ? node.name() : node.name() + "[" + std::to_string(output_index) + "]";
    record.first_step = first_step;
    record.last_step = first_step;
    record.node = &node;
    record.output_index = output_index;
    records_.push_back(record);
    metas_.push_back(&meta);
    return records_.size() - 1;
  }

  void use_inputs(const Node& node, int64_t step) {
    auto use = [&](Node* input) {
      auto it = aliases_.find(input);
      if (it == aliases_.end()) return;
      for (size_t r : it->second) records_[r].last_step = std::max(records_[r].last_step, step);
    };
    for (const Argument& arg : node.args()) for_each_node(arg, use);
    for (const auto& [name, arg] : node.kwargs()) for_each_node(arg, use);
  }

  void define(const Node& node, int64_t step) {
    switch (node.op()) {
      case OpKind::Placeholder: return define_placeholder(node);
      case OpKind::CallFunction: return define_call(node, step);
      case OpKind::Output: return mark_outputs(node);
      case OpKind::GetAttr: return;
    }
  }

  void define_placeholder(const Node& node) {
    const auto* meta = std::get_if<TensorMeta>(&node.meta.val);
    if (meta == nullptr) return;
    const InputSpec* spec = input_spec(node);
    if (spec == nullptr) return;
    if (spec->kind == InputKind::UserInput) {
      const size_t r = add_record(node, *meta, 0);
      records_[r].graph_input = true;
      aliases_[&node] = {r};
    } else if (spec->kind == InputKind::Buffer && mutated_buffers_.count(spec->target)) {
      const size_t r = add_record(node, *meta, 0);
      records_[r].whole_run = true;
      aliases_[&node] = {r};
    }
  }

  void define_call(const Node& node, int64_t step) {
    switch (exec_kind(node)) {
      case ExecKind::Alloc: {
        const auto* meta = std::get_if<TensorMeta>(&node.meta.val);
        if (meta == nullptr) throw AotError("memory.alloc node '" + node.name() + "' has no tensor meta.val");
        aliases_[&node] = {add_record(node, *meta, step)};
        return;
      }
      case ExecKind::View:
        // The same bytes as its base: uses of the view are uses of the base.
        if (node.args().empty() || !node.args()[0].is_node()) {
          throw AotError("memory.view node '" + node.name() + "' has no base");
        }
        if (auto base = aliases_.find(node.args()[0].node()); base != aliases_.end()) aliases_[&node] = base->second;
        return;
      case ExecKind::GetItem: define_getitem(node); return;
      case ExecKind::DelegateCall: define_delegate_outputs(node, step); return;
      case ExecKind::CopyInPlace:
      case ExecKind::SymSize:
      case ExecKind::KernelCall: break;
    }
    if (std::vector<Aliases> outs = out_arguments(node); !outs.empty()) {
      Aliases all;
      for (const Aliases& out : outs) all.insert(all.end(), out.begin(), out.end());
      aliases_[&node] = std::move(all);
      outs_[&node] = std::move(outs);
    } else if (std::holds_alternative<TensorMeta>(node.meta.val) ||
               std::holds_alternative<std::vector<TensorMeta>>(node.meta.val)) {
      throw AotError("cannot plan memory for node '" + node.name() + "' (" + node.target() +
                     "): it makes a tensor but writes no memory.alloc; memory planning reads the executable form "
                     "(out-variant calls, see aot/ir/memory_ops.h): run the lowering passes first");
    }
  }

  // The aliases of each argument the call writes, in the schema's order (in
  // the order given when the op has no schema): its out arguments, or for
  // the in-place write-back `aten::copy_(self, src)`, `self`.
  std::vector<Aliases> out_arguments(const Node& node) {
    std::vector<const Argument*> outs;
    const OpSchema* schema = find_op_schema(node.target());
    if (schema != nullptr) {
      for (size_t i = 0; i < schema->arguments.size(); ++i) {
        const SchemaArgument& arg = schema->arguments[i];
        if (!arg.is_out && !arg.is_write()) continue;
        if (const Argument* value = argument(node, i, arg.name)) outs.push_back(value);
      }
    } else {
      for (const auto& [name, arg] : node.kwargs()) {
        bool names_alloc = false;
        for_each_node(arg, [&](Node* input) { names_alloc = names_alloc || is_call_of(*input, ExecKind::Alloc); });
        if (names_alloc) outs.push_back(&arg);
      }
    }
    std::vector<Aliases> result;
    for (const Argument* out : outs) {
      for_each_node(*out, [&](Node* written) {
        auto it = aliases_.find(written);
        result.push_back(it == aliases_.end() ? Aliases{} : it->second);
      });
    }
    return result;
  }

  // Schema argument `index` (called `name`) as the call passes it, or null.
  static const Argument* argument(const Node& node, size_t index, const std::string& name) {
    if (index < node.args().size()) return &node.args()[index];
    return node.kwarg(name);
  }

  void define_getitem(const Node& node) {
    if (node.args().size() != 2 || !node.args()[0].is_node() || !node.args()[1].is_int()) return;
    const Node* base = node.args()[0].node();
    const int64_t index = node.args()[1].to_int();
    if (auto it = outs_.find(base); it != outs_.end() && index >= 0 &&
                                    static_cast<size_t>(index) < it->second.size()) {
      aliases_[&node] = it->second[index];
    } else if (auto all = aliases_.find(base); all != aliases_.end()) {
      aliases_[&node] = all->second;  // not knowing which element: all of them
    }
  }

  // The delegate writes its outputs during its call: each is a record from
  // the call's step, tied to the getitem that names it.
  void define_delegate_outputs(const Node& node, int64_t step) {
    if (const auto* meta = std::get_if<TensorMeta>(&node.meta.val)) {
      aliases_[&node] = {add_record(node, *meta, step)};
      return;
    }
    const auto* metas = std::get_if<std::vector<TensorMeta>>(&node.meta.val);
    if (metas == nullptr) return;
    std::vector<const Node*> getitems(metas->size(), nullptr);
    for (const Node* user : node.users()) {
      if (!is_tuple_item(*user)) continue;
      const int64_t index = user->args()[1].to_int();
      if (index >= 0 && static_cast<size_t>(index) < getitems.size() && getitems[index] == nullptr) {
        getitems[index] = user;
      }
    }
    std::vector<Aliases> outs;
    Aliases all;
    for (size_t i = 0; i < metas->size(); ++i) {
      const size_t r = getitems[i] != nullptr ? add_record(*getitems[i], (*metas)[i], step)
                                              : add_record(node, (*metas)[i], step, static_cast<int64_t>(i));
      outs.push_back({r});
      all.push_back(r);
    }
    aliases_[&node] = std::move(all);
    outs_[&node] = std::move(outs);
  }

  void mark_outputs(const Node& output) {
    if (output.args().empty() || !output.args()[0].is_list()) return;
    const ArgumentList& values = output.args()[0].list();
    const auto& specs = program_.graph_signature().output_specs;
    for (size_t i = 0; i < values.size() && i < specs.size(); ++i) {
      const OutputKind kind = specs[i].kind;
      if (kind != OutputKind::UserOutput && kind != OutputKind::LossOutput) continue;
      for_each_node(values[i], [&](Node* value) {
        auto it = aliases_.find(value);
        if (it == aliases_.end()) return;
        // A mutated buffer returned to the user still needs its own planned memory.
        for (size_t r : it->second) records_[r].graph_output = records_[r].graph_output || !records_[r].whole_run;
      });
    }
  }

  const InputSpec* input_spec(const Node& placeholder) const {
    auto it = input_specs_.find(placeholder.name());
    return it == input_specs_.end() ? nullptr : it->second;
  }

  std::vector<TensorLifetime> finish() {
    std::vector<TensorLifetime> kept;
    for (size_t r = 0; r < records_.size(); ++r) {
      if (!is_planned(records_[r], options_)) continue;
      records_[r].size = planned_bytes(*metas_[r], *records_[r].node, program_.range_constraints());
      kept.push_back(std::move(records_[r]));
    }
    return kept;
  }

  const ExportedProgram& program_;
  const MemoryPlanOptions& options_;
  std::vector<TensorLifetime> records_;
  std::vector<const TensorMeta*> metas_;
  std::unordered_map<const Node*, Aliases> aliases_;
  std::unordered_map<const Node*, std::vector<Aliases>> outs_;
  std::map<std::string, const InputSpec*> input_specs_;  // by placeholder name
  std::set<std::string> mutated_buffers_;                 // targets
};

}  // namespace

std::vector<TensorLifetime> compute_lifetimes(const ExportedProgram& program, const MemoryPlanOptions& options) {
  return LifetimeBuilder(program, options).build();
}

}  // namespace kiln::aot
