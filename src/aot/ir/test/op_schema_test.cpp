#include "aot/ir/op_table/op_schema.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "aot/ir/error.h"

namespace kiln::aot {
namespace {

using Kind = SchemaType::Kind;
using ::testing::HasSubstr;

SchemaType type(Kind kind, bool optional = false, bool is_list = false, std::optional<int> fixed_length = {},
                bool list_of_optional = false) {
  return SchemaType{kind, optional, is_list, fixed_length, list_of_optional};
}
SchemaType list(Kind kind, std::optional<int> fixed_length = {}) { return type(kind, false, true, fixed_length); }

std::string error_of(std::string_view text) {
  try {
    parse_op_schema(text);
  } catch (const AotError& error) {
    return error.what();
  }
  ADD_FAILURE() << "no error for: " << text;
  return "";
}

// ---- parsing -----------------------------------------------------------------

TEST(OpSchemaParseTest, Convolution) {
  const OpSchema s = parse_op_schema(
      "aten::convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, "
      "SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups) -> Tensor");
  EXPECT_EQ(s.name, "aten::convolution");
  EXPECT_EQ(s.overload, "");
  EXPECT_EQ(s.qualified_name(), "aten::convolution.default");
  ASSERT_EQ(s.arguments.size(), 9u);
  const std::vector<std::pair<std::string, SchemaType>> expected = {
      {"input", type(Kind::Tensor)},         {"weight", type(Kind::Tensor)},
      {"bias", type(Kind::Tensor, true)},    {"stride", list(Kind::SymInt)},
      {"padding", list(Kind::SymInt)},       {"dilation", list(Kind::SymInt)},
      {"transposed", type(Kind::Bool)},      {"output_padding", list(Kind::SymInt)},
      {"groups", type(Kind::SymInt)},
  };
  for (size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(expected[i].first);
    EXPECT_EQ(s.arguments[i].name, expected[i].first);
    EXPECT_EQ(s.arguments[i].type, expected[i].second);
    EXPECT_FALSE(s.arguments[i].default_value);
    EXPECT_FALSE(s.arguments[i].kwarg_only);
    EXPECT_FALSE(s.arguments[i].is_out);
    EXPECT_EQ(s.arguments[i].alias, "");
  }
  ASSERT_EQ(s.returns.size(), 1u);
  EXPECT_EQ(s.returns[0], (SchemaReturn{"", type(Kind::Tensor), ""}));
  EXPECT_FALSE(s.is_out_variant());
  EXPECT_EQ(s.num_out_arguments(), 0u);
}

TEST(OpSchemaParseTest, AddOutHasKeywordOnlyArgumentsAndAnOutArgument) {
  const std::string text =
      "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)";
  const OpSchema s = parse_op_schema(text);
  EXPECT_EQ(s.name, "aten::add");
  EXPECT_EQ(s.overload, "out");
  EXPECT_EQ(s.qualified_name(), "aten::add.out");
  ASSERT_EQ(s.arguments.size(), 4u);
  EXPECT_FALSE(s.arguments[1].kwarg_only);
  const SchemaArgument& alpha = s.arguments[2];
  EXPECT_EQ(alpha.name, "alpha");
  EXPECT_EQ(alpha.type, type(Kind::Scalar));
  EXPECT_TRUE(alpha.kwarg_only);
  EXPECT_FALSE(alpha.is_out);
  ASSERT_TRUE(alpha.default_value);
  EXPECT_EQ(*alpha.default_value, Argument(int64_t{1}));
  const SchemaArgument& out = s.arguments[3];
  EXPECT_EQ(out.name, "out");
  EXPECT_TRUE(out.kwarg_only);
  EXPECT_TRUE(out.is_out);
  EXPECT_TRUE(out.is_write());
  EXPECT_EQ(out.alias, "a!");
  ASSERT_EQ(s.returns.size(), 1u);
  EXPECT_EQ(s.returns[0].alias, "a!");
  EXPECT_TRUE(s.returns[0].is_write());
  EXPECT_TRUE(s.is_out_variant());
  EXPECT_EQ(s.num_out_arguments(), 1u);
  EXPECT_EQ(s.find_argument("out"), &s.arguments[3]);
  EXPECT_EQ(s.find_argument("beta"), nullptr);
  EXPECT_EQ(s.to_string(), text);
}

TEST(OpSchemaParseTest, MaxPoolBroadcastsAScalarDefaultOfASizedList) {
  const OpSchema s = parse_op_schema(
      "aten::max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
      "int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)");
  ASSERT_EQ(s.arguments.size(), 6u);
  EXPECT_EQ(s.arguments[1].type, list(Kind::Int, 2));
  EXPECT_FALSE(s.arguments[1].default_value);
  EXPECT_EQ(s.arguments[2].default_value, Argument(ArgumentList{}));
  EXPECT_EQ(s.arguments[3].default_value, Argument(ArgumentList{0, 0}));
  EXPECT_EQ(s.arguments[4].default_value, Argument(ArgumentList{1, 1}));
  EXPECT_EQ(s.arguments[5].type, type(Kind::Bool));
  EXPECT_EQ(s.arguments[5].default_value, Argument(false));
  ASSERT_EQ(s.returns.size(), 2u);
  EXPECT_EQ(s.returns[0], (SchemaReturn{"", type(Kind::Tensor), ""}));
  EXPECT_EQ(s.returns[1], (SchemaReturn{"", type(Kind::Tensor), ""}));
}

TEST(OpSchemaParseTest, NativeLayerNorm) {
  const OpSchema s = parse_op_schema(
      "aten::native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps) "
      "-> (Tensor, Tensor, Tensor)");
  ASSERT_EQ(s.arguments.size(), 5u);
  EXPECT_EQ(s.arguments[1].type, list(Kind::SymInt));
  EXPECT_EQ(s.arguments[2].type, type(Kind::Tensor, true));
  EXPECT_EQ(s.arguments[3].type, type(Kind::Tensor, true));
  EXPECT_EQ(s.arguments[4].type, type(Kind::Float));
  EXPECT_EQ(s.returns.size(), 3u);
}

TEST(OpSchemaParseTest, SplitWithSizesCopyOutWritesAListAndReturnsNothing) {
  const OpSchema s = parse_op_schema(
      "aten::split_with_sizes_copy.out(Tensor self, SymInt[] split_sizes, int dim=0, *, Tensor(a!)[] out) -> ()");
  ASSERT_EQ(s.arguments.size(), 4u);
  EXPECT_EQ(s.arguments[2].default_value, Argument(int64_t{0}));
  const SchemaArgument& out = s.arguments[3];
  EXPECT_EQ(out.type, list(Kind::Tensor));
  EXPECT_EQ(out.alias, "a!");
  EXPECT_TRUE(out.kwarg_only);
  EXPECT_TRUE(out.is_out);
  EXPECT_TRUE(s.returns.empty());
  EXPECT_EQ(out.to_string(), "Tensor(a!)[] out");
}

TEST(OpSchemaParseTest, ToCopyHasOptionalEnumsDefaultingToNone) {
  const OpSchema s = parse_op_schema(
      "aten::_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
      "bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor");
  const std::vector<std::pair<std::string, Kind>> optional_nones = {{"dtype", Kind::ScalarType},
                                                                     {"layout", Kind::Layout},
                                                                     {"device", Kind::Device},
                                                                     {"pin_memory", Kind::Bool},
                                                                     {"memory_format", Kind::MemoryFormat}};
  for (const auto& [name, kind] : optional_nones) {
    SCOPED_TRACE(name);
    const SchemaArgument* argument = s.find_argument(name);
    ASSERT_NE(argument, nullptr);
    EXPECT_EQ(argument->type, type(kind, true));
    EXPECT_TRUE(argument->kwarg_only);
    EXPECT_FALSE(argument->is_out);
    ASSERT_TRUE(argument->default_value);
    EXPECT_TRUE(argument->default_value->is_none());
  }
  EXPECT_EQ(s.find_argument("non_blocking")->default_value, Argument(false));
  EXPECT_FALSE(s.arguments[0].kwarg_only);
}

TEST(OpSchemaParseTest, GeluTakesAStringInEitherQuote) {
  const OpSchema single = parse_op_schema("aten::gelu(Tensor self, *, str approximate='none') -> Tensor");
  const OpSchema doubled = parse_op_schema("aten::gelu(Tensor self, *, str approximate=\"none\") -> Tensor");
  EXPECT_EQ(single, doubled);
  EXPECT_EQ(single.arguments[1].type, type(Kind::String));
  EXPECT_EQ(single.arguments[1].default_value, Argument("none"));
  EXPECT_TRUE(single.arguments[1].kwarg_only);
  EXPECT_EQ(single.to_string(), "aten::gelu(Tensor self, *, str approximate=\"none\") -> Tensor");
}

TEST(OpSchemaParseTest, SumDimIntListHasAnOptionalSizedList) {
  const OpSchema s = parse_op_schema(
      "aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor");
  EXPECT_EQ(s.overload, "dim_IntList");
  EXPECT_EQ(s.arguments[1].type, type(Kind::Int, true, true, 1));
  EXPECT_FALSE(s.arguments[1].default_value);
  EXPECT_FALSE(s.arguments[2].kwarg_only);
  EXPECT_TRUE(s.arguments[3].kwarg_only);
  EXPECT_EQ(s.arguments[1].type.to_string(), "int[1]?");
}

TEST(OpSchemaParseTest, VarCorrection) {
  const OpSchema s = parse_op_schema(
      "aten::var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor");
  EXPECT_EQ(s.arguments[1].type, type(Kind::Int, true, true, 1));
  EXPECT_TRUE(s.arguments[1].default_value->is_none());
  EXPECT_FALSE(s.arguments[1].kwarg_only);
  EXPECT_EQ(s.arguments[2].type, type(Kind::Scalar, true));
  EXPECT_TRUE(s.arguments[2].default_value->is_none());
  EXPECT_TRUE(s.arguments[2].kwarg_only);
  EXPECT_TRUE(s.arguments[3].kwarg_only);
}

TEST(OpSchemaParseTest, NamedReturnsWithAliases) {
  const std::string text =
      "aten::max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) "
      "-> (Tensor(a!) values, Tensor(b!) indices)";
  const OpSchema s = parse_op_schema(text);
  EXPECT_EQ(s.num_out_arguments(), 2u);
  ASSERT_EQ(s.returns.size(), 2u);
  EXPECT_EQ(s.returns[0], (SchemaReturn{"values", type(Kind::Tensor), "a!"}));
  EXPECT_EQ(s.returns[1], (SchemaReturn{"indices", type(Kind::Tensor), "b!"}));
  EXPECT_EQ(s.to_string(), text);
}

TEST(OpSchemaParseTest, InPlaceSelfIsWrittenButIsNotAnOutArgument) {
  const OpSchema s = parse_op_schema("aten::relu_(Tensor(a!) self) -> Tensor(a!)");
  EXPECT_TRUE(s.arguments[0].is_write());
  EXPECT_FALSE(s.arguments[0].is_out);
  EXPECT_FALSE(s.is_out_variant());
}

TEST(OpSchemaParseTest, AliasAnnotations) {
  const OpSchema view = parse_op_schema("aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a)");
  EXPECT_EQ(view.arguments[0].alias, "a");
  EXPECT_FALSE(view.arguments[0].is_write());
  const OpSchema split = parse_op_schema(
      "aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]");
  EXPECT_EQ(split.arguments[0].alias, "a -> *");
  EXPECT_EQ(split.returns[0].type, list(Kind::Tensor));
  EXPECT_EQ(split.returns[0].alias, "a");
  EXPECT_EQ(split.to_string(),
            "aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]");
  const OpSchema to = parse_op_schema("aten::to.prim_other(Tensor(a) self, bool copy=False) -> Tensor(b|a)");
  EXPECT_EQ(to.returns[0].alias, "b|a");
  const OpSchema optional_out = parse_op_schema("aten::f.out(Tensor self, *, Tensor(a!)? out) -> ()");
  EXPECT_EQ(optional_out.arguments[1].type, type(Kind::Tensor, true));
  EXPECT_TRUE(optional_out.arguments[1].is_out);
  EXPECT_EQ(optional_out.arguments[1].to_string(), "Tensor(a!)? out");
}

TEST(OpSchemaParseTest, ScalarDefaults) {
  const OpSchema s = parse_op_schema(
      "aten::f(int a=3, int b=-1, float c=1e-05, float d=-inf, float e=inf, float f=nan, float g=2, Scalar h=1, "
      "Scalar i=0.5, Scalar j=-2., bool k=True, str l=\"it's\", str m='a\\'b', str? n=None, "
      "ScalarType o=long, ScalarType p=float, ScalarType q=6, Layout r=strided, MemoryFormat s=contiguous_format, "
      "MemoryFormat t=0, int reduction=Mean, Device u=\"cuda:1\", Device v='cpu', SymInt w=-100, "
      "Generator? x=None, Tensor? y=None) -> ()");
  auto value = [&](const char* name) { return *s.find_argument(name)->default_value; };
  EXPECT_EQ(value("a"), Argument(int64_t{3}));
  EXPECT_EQ(value("b"), Argument(int64_t{-1}));
  EXPECT_EQ(value("c"), Argument(1e-05));
  EXPECT_EQ(value("d"), Argument(-INFINITY * 1.0));
  EXPECT_EQ(value("e"), Argument(static_cast<double>(INFINITY)));
  ASSERT_TRUE(value("f").is_double());
  EXPECT_TRUE(std::isnan(value("f").to_double()));
  EXPECT_EQ(value("g"), Argument(2.0));
  EXPECT_EQ(value("h"), Argument(int64_t{1}));
  EXPECT_EQ(value("i"), Argument(0.5));
  EXPECT_EQ(value("j"), Argument(-2.0));
  EXPECT_EQ(value("k"), Argument(true));
  EXPECT_EQ(value("l"), Argument("it's"));
  EXPECT_EQ(value("m"), Argument("a'b"));
  EXPECT_TRUE(value("n").is_none());
  EXPECT_EQ(value("o"), Argument(ScalarType::Long));
  EXPECT_EQ(value("p"), Argument(ScalarType::Float));
  EXPECT_EQ(value("q"), Argument(ScalarType::Float));
  EXPECT_EQ(value("r"), Argument(Layout::Strided));
  EXPECT_EQ(value("s"), Argument(MemoryFormat::Contiguous));
  EXPECT_EQ(value("t"), Argument(MemoryFormat::Contiguous));  // c10's number for contiguous_format
  EXPECT_EQ(value("reduction"), Argument(int64_t{1}));
  EXPECT_EQ(value("u"), Argument(Device{"cuda", 1}));
  EXPECT_EQ(value("v"), Argument(Device{"cpu", -1}));
  EXPECT_EQ(value("w"), Argument(int64_t{-100}));
  EXPECT_TRUE(value("x").is_none());
  EXPECT_TRUE(value("y").is_none());
}

TEST(OpSchemaParseTest, ListTypesAndDefaults) {
  const OpSchema s = parse_op_schema(
      "aten::f(Tensor?[] indices, bool[3] mask=True, float[]? scales=None, int[] dims=[0, 1], "
      "int[1] dim=[-2, -1], SymInt[2] stride=1, Scalar[] values=[1, 2.5], str[] names=[\"a\", 'b'], "
      "int?[] maybe=[1, None], Tensor[] tensors) -> Tensor[]");
  EXPECT_EQ(s.arguments[0].type, type(Kind::Tensor, false, true, {}, true));
  EXPECT_EQ(s.arguments[0].type.to_string(), "Tensor?[]");
  EXPECT_EQ(s.arguments[1].type, list(Kind::Bool, 3));
  EXPECT_EQ(s.arguments[1].default_value, Argument(ArgumentList{true, true, true}));
  EXPECT_EQ(s.arguments[2].type, type(Kind::Float, true, true));
  EXPECT_EQ(s.arguments[2].type.to_string(), "float[]?");
  EXPECT_TRUE(s.arguments[2].default_value->is_none());
  EXPECT_EQ(s.arguments[3].default_value, Argument(ArgumentList{0, 1}));
  EXPECT_EQ(s.arguments[4].default_value, Argument(ArgumentList{-2, -1}));  // the length is a hint only
  EXPECT_EQ(s.arguments[5].default_value, Argument(ArgumentList{1, 1}));
  EXPECT_EQ(s.arguments[6].default_value, Argument(ArgumentList{1, 2.5}));
  EXPECT_EQ(s.arguments[7].default_value, Argument(ArgumentList{"a", "b"}));
  EXPECT_EQ(s.arguments[8].default_value, Argument(ArgumentList{1, None{}}));
  EXPECT_EQ(s.arguments[9].type, list(Kind::Tensor));
  EXPECT_EQ(s.returns[0].type, list(Kind::Tensor));
}

TEST(OpSchemaParseTest, WhitespaceIsFree) {
  const OpSchema tight = parse_op_schema("aten::add.Tensor(Tensor self,Tensor other,*,Scalar alpha=1)->Tensor");
  const OpSchema loose =
      parse_op_schema("  aten::add.Tensor ( Tensor  self ,\n Tensor other , * , Scalar alpha = 1 ) ->  Tensor  ");
  EXPECT_EQ(tight, loose);
  EXPECT_EQ(tight.to_string(), "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
}

TEST(OpSchemaParseTest, AllArgumentsKeywordOnlyAndNoArguments) {
  const OpSchema s = parse_op_schema("aten::_make_dep_token(*, ScalarType? dtype=None) -> Tensor");
  EXPECT_TRUE(s.arguments[0].kwarg_only);
  EXPECT_EQ(s.to_string(), "aten::_make_dep_token(*, ScalarType? dtype=None) -> Tensor");
  const OpSchema none = parse_op_schema("aten::_use_cudnn_rnn_flatten_weight() -> bool");
  EXPECT_TRUE(none.arguments.empty());
  EXPECT_EQ(none.returns[0].type, type(Kind::Bool));
}

// ---- printing ----------------------------------------------------------------

TEST(OpSchemaPrintTest, TypeSpellings) {
  for (const char* spelling : {"Tensor", "Tensor?", "SymInt[]", "int[2]", "Tensor?[]", "Scalar", "ScalarType?",
                               "bool[3]", "float[]?", "int[1]?", "str", "Device?", "Layout", "MemoryFormat?",
                               "Generator?", "SymFloat", "SymBool", "Dimname[]", "Storage", "Any", "Scalar?[]"}) {
    const OpSchema s = parse_op_schema(std::string("aten::f(") + spelling + " x) -> ()");
    EXPECT_EQ(s.arguments[0].type.to_string(), spelling);
  }
}

TEST(OpSchemaPrintTest, CanonicalTextRoundTrips) {
  // As str(torch.ops.aten.X.Y._schema) prints them.
  for (const char* text : {
           "aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=[1, 1], "
           "SymInt[2] padding=[0, 0], SymInt[2] dilation=[1, 1], SymInt groups=1) -> Tensor",
           "aten::max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
           "int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)",
           "aten::pairwise_distance(Tensor x1, Tensor x2, float p=2., float eps=9.9999999999999995e-07, "
           "bool keepdim=False) -> Tensor",
           "aten::layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, "
           "float eps=1.0000000000000001e-05, bool cudnn_enable=True) -> Tensor",
           "aten::rrelu_with_noise(Tensor self, Tensor(b!) noise, Scalar lower=0.125, "
           "Scalar upper=0.33333333333333331, bool training=False, Generator? generator=None) -> Tensor",
           "aten::randint(SymInt high, SymInt[] size, *, ScalarType? dtype=4, Layout? layout=None, "
           "Device? device=None, bool? pin_memory=None) -> Tensor",
           "aten::contiguous(Tensor(a) self, *, MemoryFormat memory_format=0) -> Tensor(a)",
           "aten::fft_fft2(Tensor self, SymInt[1]? s=None, int[1] dim=[-2, -1], str? norm=None) -> Tensor",
           "aten::rot90(Tensor self, int k=1, int[] dims=[0, 1]) -> Tensor",
           "aten::mse_loss(Tensor self, Tensor target, int reduction=1) -> Tensor",
           "aten::f(float a=-inf, float b=inf, Scalar c=-0., str d=\"a\\\"b\\\\c\\n\", Device e=\"cuda:0\", "
           "bool[3] f=[True, False, True], Layout g=0, Tensor?[] h) -> (Tensor a, Tensor(b!)[] b)",
       }) {
    SCOPED_TRACE(text);
    const OpSchema parsed = parse_op_schema(text);
    EXPECT_EQ(parsed.to_string(), text);
    EXPECT_EQ(parse_op_schema(parsed.to_string()), parsed);
  }
}

TEST(OpSchemaPrintTest, NativeFunctionsSpellingPrintsAsTorchPrintsIt) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, SymInt[2] padding=0, "
       "SymInt[2] dilation=1, SymInt groups=1) -> Tensor",
       "aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=[1, 1], "
       "SymInt[2] padding=[0, 0], SymInt[2] dilation=[1, 1], SymInt groups=1) -> Tensor"},
      {"aten::layer_norm(Tensor input, SymInt[] normalized_shape, float eps=1e-05) -> Tensor",
       "aten::layer_norm(Tensor input, SymInt[] normalized_shape, float eps=1.0000000000000001e-05) -> Tensor"},
      {"aten::randint(SymInt high, *, ScalarType? dtype=long) -> Tensor",
       "aten::randint(SymInt high, *, ScalarType? dtype=4) -> Tensor"},
      {"aten::mse_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor",
       "aten::mse_loss(Tensor self, Tensor target, int reduction=1) -> Tensor"},
      {"aten::f(float p=1, int[2] x=[3, 3], bool[2] y=True) -> ()",
       "aten::f(float p=1., int[2] x=3, bool[2] y=[True, True]) -> ()"},
  };
  for (const auto& [input, printed] : cases) {
    SCOPED_TRACE(input);
    const OpSchema parsed = parse_op_schema(input);
    EXPECT_EQ(parsed.to_string(), printed);
    EXPECT_EQ(parse_op_schema(printed), parsed);
  }
}

// ---- errors ------------------------------------------------------------------

TEST(OpSchemaErrorTest, MessagesQuoteTheSchemaAndThePlace) {
  const std::string missing_paren = "aten::add(Tensor self, Tensor other -> Tensor";
  std::string message = error_of(missing_paren);
  EXPECT_THAT(message, HasSubstr("invalid op schema \"" + missing_paren + "\""));
  EXPECT_THAT(message, HasSubstr("expected ',' or ')' after argument 'other' at column 37, found '-'"));

  message = error_of("aten::add(Tenser self) -> Tensor");
  EXPECT_THAT(message, HasSubstr("unknown type 'Tenser'"));
  EXPECT_THAT(message, HasSubstr("at column 11"));
  EXPECT_THAT(message, HasSubstr("known: Tensor, int, SymInt"));

  message = error_of("aten::add(Tensor self, Scalar alpha=abc) -> Tensor");
  EXPECT_THAT(message, HasSubstr("bad default of Scalar alpha: expected a number at column 37, found 'abc'"));

  message = error_of("(Tensor self) -> Tensor");
  EXPECT_THAT(message, HasSubstr("expected an operator name such as 'aten::add' at column 1, found '('"));
  EXPECT_THAT(error_of(""), HasSubstr("found the end of the schema"));
}

TEST(OpSchemaErrorTest, EachMistakeIsNamed) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"add(Tensor self) -> Tensor", "expected '::' after the namespace 'add'"},
      {"aten::(Tensor self) -> Tensor", "expected an operator name after '::'"},
      {"aten::add.(Tensor self) -> Tensor", "expected an overload name after '.'"},
      {"aten::relu.default(Tensor self) -> Tensor", "'default' is reserved"},
      {"aten::add Tensor self) -> Tensor", "expected '(' to open the argument list"},
      {"aten::add(Tensor self) Tensor", "expected '->' before the returns"},
      {"aten::add(Tensor self) -> Tensor out extra", "expected the end of the schema"},
      {"aten::add(Tensor self) -> (Tensor, Tensor", "expected ',' or ')' in the returns"},
      {"aten::add(Tensor) -> Tensor", "expected an argument name after type 'Tensor'"},
      {"aten::add(Tensor self, Tensor self) -> Tensor", "argument 'self' appears twice"},
      {"aten::add(Tensor self, *, *, Tensor b) -> Tensor", "'*' appears twice"},
      {"aten::add(Tensor self, *) -> Tensor", "',' and a keyword-only argument after '*'"},
      {"aten::f(int x=None) -> ()", "bad default of int x: None, but the type is not optional"},
      {"aten::f(int x=1.5) -> ()", "bad default of int x: expected an integer"},
      {"aten::f(int x=99999999999999999999) -> ()", "expected an integer"},
      {"aten::f(bool x=true) -> ()", "expected True or False"},
      {"aten::f(float x=1e) -> ()", "expected a number"},
      {"aten::f(float x=1e999) -> ()", "out of range of a double"},
      {"aten::f(str x=none) -> ()", "expected a string in quotes"},
      {"aten::f(int x='1') -> ()", "expected no string"},
      {"aten::f(str x='abc) -> ()", "unterminated string"},
      {"aten::f(int[] x=0) -> ()", "bad default of int[] x: expected a list such as [0, 1]"},
      {"aten::f(int[] x=[1, 2) -> ()", "expected ',' or ']' in the default of int[] x"},
      {"aten::f(int[0] x) -> ()", "expected a positive list length"},
      {"aten::f(int[2 x) -> ()", "expected ']' to close the list type"},
      {"aten::f(int[][] x) -> ()", "lists of lists are not supported"},
      {"aten::f(Tensor[](a!) x) -> ()", "alias annotation after '[]' is not supported"},
      {"aten::f(Tensor(a! x) -> ()", "expected ')' to close the alias annotation"},
      {"aten::f(Tensor x=1) -> ()", "expected None (this type takes no other default)"},
      {"aten::f(ScalarType x=cheese) -> ()", "expected a dtype"},
      {"aten::f(ScalarType x=8) -> ()", "expected a dtype"},
      {"aten::f(Layout x=9) -> ()", "expected strided or a c10 layout number"},
      {"aten::f(MemoryFormat x=fast) -> ()", "expected contiguous_format"},
      {"aten::f(Device x=\"cuda:x\") -> ()", "expected a device such as"},
      {"aten::f(Tensor x) -> Tensor(a", "expected ')' to close the alias annotation"},
  };
  for (const auto& [text, expected] : cases) {
    SCOPED_TRACE(text);
    const std::string message = error_of(text);
    EXPECT_THAT(message, HasSubstr(expected));
    EXPECT_THAT(message, HasSubstr(text));
  }
}

// ---- the table ---------------------------------------------------------------

struct Row {
  unsigned tags;
  std::string functional;
  std::string out;
};

const std::vector<Row>& rows() {
  static const std::vector<Row> table = {
#define KILN_OP(tags, functional, out) {tags, functional, out},
#include "aot/ir/op_table/ops.def"
#include "aot/ir/op_table/kiln_ops.def"
#undef KILN_OP
  };
  return table;
}

TEST(OpTableTest, LooksUpByFullNameDefaultOverloadAndOutName) {
  const OpSchema* add = find_op_schema("aten::add.Tensor");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->qualified_name(), "aten::add.Tensor");
  EXPECT_TRUE(add->is_core);
  EXPECT_EQ(add->out_variant, "aten::add.out");

  const OpSchema* add_out = find_op_schema("aten::add.out");
  ASSERT_NE(add_out, nullptr);
  EXPECT_TRUE(add_out->is_out_variant());
  EXPECT_EQ(add_out->out_variant, "aten::add.out");
  EXPECT_FALSE(add_out->is_core);
  EXPECT_EQ(&get_op_schema(add->out_variant), add_out);

  const OpSchema* relu = find_op_schema("aten::relu.default");
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ(find_op_schema("aten::relu"), relu);
  EXPECT_EQ(relu->overload, "");
  EXPECT_EQ(relu->out_variant, "aten::relu.out");
  EXPECT_EQ(&get_op_schema("aten::relu"), relu);

  EXPECT_EQ(find_op_schema("aten::add"), nullptr);  // add has no default overload
  EXPECT_EQ(find_op_schema("relu"), nullptr);
  EXPECT_EQ(find_op_schema("aten::relu.Tensor"), nullptr);
  EXPECT_EQ(find_op_schema("getitem"), nullptr);
  EXPECT_EQ(find_op_schema(""), nullptr);
}

TEST(OpTableTest, UnknownOpsAreNamedWithCloseMatches) {
  auto message_for = [](const std::string& name) -> std::string {
    try {
      get_op_schema(name);
    } catch (const AotError& error) {
      return error.what();
    }
    ADD_FAILURE() << "no error for " << name;
    return "";
  };
  EXPECT_EQ(message_for("aten::foo.bar"), "unknown op 'aten::foo.bar'");
  EXPECT_THAT(message_for("aten::add.Tenser"),
              HasSubstr("unknown op 'aten::add.Tenser' (did you mean 'aten::add.Tensor', "));
  EXPECT_THAT(message_for("aten::rleu"), HasSubstr("did you mean 'aten::relu.default'"));
}

TEST(OpTableTest, TagsFollowTorch) {
  for (const char* core : {"aten::convolution", "aten::relu", "aten::tan", "aten::sin", "aten::cos",
                           "aten::div.Tensor", "aten::add.Tensor", "aten::mul.Tensor", "aten::sub.Tensor",
                           "aten::addmm", "aten::mm", "aten::clone", "aten::_to_copy", "aten::add.Scalar",
                           "aten::mul.Scalar", "aten::sub.Scalar", "aten::div.Scalar", "aten::sym_size.int",
                           "aten::view", "aten::permute"}) {
    EXPECT_TRUE(get_op_schema(core).is_core) << core;
    EXPECT_TRUE(get_op_schema(core).is_canonical()) << core;
  }
  for (const char* view_copy : {"aten::view_copy", "aten::permute_copy", "aten::alias_copy",
                                "aten::split_with_sizes_copy"}) {
    EXPECT_FALSE(get_op_schema(view_copy).is_core) << view_copy;
    EXPECT_TRUE(get_op_schema(view_copy).is_view_copy) << view_copy;
    EXPECT_TRUE(get_op_schema(view_copy).is_canonical()) << view_copy;
  }
  for (const char* training : {"aten::conv2d", "aten::linear", "aten::reshape", "aten::t", "aten::relu_",
                               "aten::dropout", "aten::flatten.using_ints"}) {
    EXPECT_FALSE(get_op_schema(training).is_canonical()) << training;
  }
  EXPECT_EQ(get_op_schema("aten::conv2d").out_variant, "");
  EXPECT_EQ(get_op_schema("aten::relu_").out_variant, "");
}

TEST(OpTableTest, HoldsEveryRowFunctionalThenOut) {
  const std::span<const OpSchema> schemas = all_op_schemas();
  size_t expected = 0;
  for (const Row& row : rows()) expected += row.out.empty() ? 1 : 2;
  ASSERT_EQ(schemas.size(), expected);
  std::set<std::string> names;
  size_t index = 0;
  for (const Row& row : rows()) {
    SCOPED_TRACE(row.functional);
    const OpSchema& functional = schemas[index++];
    // The table's text is PyTorch's printed text: printing reproduces it.
    EXPECT_EQ(functional.to_string(), row.functional);
    EXPECT_EQ(functional.is_core, (row.tags & kTagCore) != 0);
    EXPECT_EQ(functional.is_view_copy, (row.tags & kTagViewCopy) != 0);
    EXPECT_EQ(functional.is_pointwise, (row.tags & kTagPointwise) != 0);
    EXPECT_FALSE(functional.is_out_variant());
    EXPECT_TRUE(names.insert(functional.qualified_name()).second);
    EXPECT_EQ(find_op_schema(functional.qualified_name()), &functional);
    if (row.out.empty()) {
      EXPECT_EQ(functional.out_variant, "");
      continue;
    }
    const OpSchema& out = schemas[index++];
    EXPECT_EQ(out.to_string(), row.out);
    EXPECT_TRUE(names.insert(out.qualified_name()).second);
    EXPECT_EQ(functional.out_variant, out.qualified_name());
    EXPECT_EQ(out.out_variant, out.qualified_name());
    EXPECT_EQ(find_op_schema(functional.out_variant), &out);
  }
}

TEST(OpTableTest, OutVariantsMatchTheirFunctionalOps) {
  for (const OpSchema& functional : all_op_schemas()) {
    if (functional.is_out_variant() || functional.out_variant.empty()) continue;
    SCOPED_TRACE(functional.qualified_name());
    const OpSchema& out = get_op_schema(functional.out_variant);
    EXPECT_EQ(out.name, functional.name);
    std::vector<const SchemaArgument*> actual;
    for (const SchemaArgument& argument : out.arguments) {
      if (argument.is_out) {
        EXPECT_TRUE(argument.kwarg_only) << argument.name;
        EXPECT_TRUE(argument.is_write()) << argument.name;
        EXPECT_EQ(argument.type.kind, Kind::Tensor) << argument.name;
      } else {
        actual.push_back(&argument);
      }
    }
    // torchgen's autogenerated out variants of factory-like ops mostly drop
    // the TensorOptions (dtype, layout, device, pin_memory); some keep them.
    const bool has_tensor_options = functional.find_argument("dtype") && functional.find_argument("layout") &&
                                    functional.find_argument("device") && functional.find_argument("pin_memory");
    const bool dropped = has_tensor_options && actual.size() != functional.arguments.size();
    std::vector<const SchemaArgument*> expected;
    for (const SchemaArgument& argument : functional.arguments) {
      const bool option = argument.name == "dtype" || argument.name == "layout" || argument.name == "device" ||
                          argument.name == "pin_memory";
      if (!(dropped && option)) expected.push_back(&argument);
    }
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i) {
      EXPECT_EQ(actual[i]->name, expected[i]->name);
      EXPECT_EQ(actual[i]->type, expected[i]->type) << actual[i]->name;
      // An out variant may give a default the functional op lacks (bernoulli.float_out's p=0.5).
      if (expected[i]->default_value) {
        EXPECT_EQ(actual[i]->default_value, expected[i]->default_value) << actual[i]->name;
      }
      EXPECT_EQ(actual[i]->kwarg_only, expected[i]->kwarg_only) << actual[i]->name;
    }
    // One out tensor per returned tensor; a returned list becomes one out list.
    ASSERT_EQ(out.num_out_arguments(), functional.returns.size());
    size_t k = 0;
    for (const SchemaArgument& argument : out.arguments) {
      if (argument.is_out) {
        EXPECT_EQ(argument.type, functional.returns[k++].type) << argument.name;
      }
    }
  }
}

TEST(OpTableTest, SchemasAreParsedOnceAndStayPut) {
  const OpSchema* first = find_op_schema("aten::mm.default");
  EXPECT_EQ(all_op_schemas().data(), all_op_schemas().data());
  EXPECT_EQ(find_op_schema("aten::mm"), first);
}

}  // namespace
}  // namespace kiln::aot
