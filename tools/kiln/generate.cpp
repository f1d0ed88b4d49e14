// kiln generate: runs a language model's .pte token by token. Thin: the token
// loop, the sampler and the model's metadata are src/llm's; this parses flags,
// turns text into ids and back, and prints.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "command_line.h"
#include "llm/generate.h"
#include "llm/language_model.h"
#include "llm/chat_template.h"
#include "llm/tokenizer.h"
#include "llm/tokenizer_config.h"
#include "runtime/backend/backend_interface.h"

namespace kiln::cli {
namespace {

constexpr const char* kGenerateUsage = R"(Usage: kiln generate MODEL.pte (--prompt-ids IDS | --tokenizer tokenizer.json --prompt TEXT)
                     [--chat] [--max-new-tokens N] [--temperature T] [--top-p P] [--top-k K]
                     [--seed S] [--threads N] [--print-ids] [--max-context N] [--ignore-eos]

Runs a decoder-only language model lowered from transformers' export recipe
(tools/llm/export.py; see docs/llm.md): its method 'forward' takes token ids
[1, seq] and cache positions [seq] and returns logits, its KV cache kept in
the program's buffers from call to call. The prompt runs first (prefill, in
calls of at most the method's bound on seq), then one token per call
(decode), each chosen from the last position's logits, printed as it comes,
until an end-of-sequence id, --max-new-tokens, or the end of the cache.

BOS and EOS ids, the cache's length and the vocabulary come from the
program's constant methods (get_bos_id, get_eos_ids, get_max_seq_len,
get_vocab_size) when it has them; a program without them (lowered from a .pt2
without that metadata) takes them from tokenizer_config.json beside the
tokenizer, and --max-context, and says so.

Afterwards it prints the load time, the time to the first token, prefill and
decode tokens per second and the peak resident memory.

Options:
  --prompt TEXT         the prompt, encoded with --tokenizer (a BOS id is put
                        first when the model or the tokenizer's config has one)
  --tokenizer FILE      Hugging Face's tokenizer.json (byte-level BPE)
  --chat                format the prompt as a user message with the chat
                        template of tokenizer_config.json beside the tokenizer
  --prompt-ids IDS      the prompt as token ids, comma-separated (no tokenizer
                        needed; nothing is added to them)
  --print-ids           print the generated ids instead of text
  --max-new-tokens N    tokens to generate at most (default 256)
  --temperature T       0 (the default): greedy; above 0: sample from the
                        softmax of logits / T
  --top-k K             sample among the K likeliest tokens only (default 0: all)
  --top-p P             sample among the likeliest tokens whose probabilities
                        add up to P, in (0, 1] (default 1: all)
  --seed S              the sampler's seed (default 0): the same seed, the same text
  --threads N           threads for the backends and Kiln's own kernels (the
                        linears), 1 to 256 (default 1)
  --max-context N       positions the cache holds, for a program that does not
                        say (its get_max_seq_len)
  --ignore-eos          go on past an end-of-sequence id (for benchmarks)
)";

struct GenerateOptions {
  std::string model_path;
  std::optional<std::string> prompt;
  std::optional<std::string> prompt_ids;
  std::string tokenizer_path;
  bool chat = false;
  bool print_ids = false;
  int threads = 1;
  std::optional<int64_t> max_context;
  llm::GenerationOptions generation;
};

double parse_number(const std::string& flag, const std::string& text) {
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size()) throw UsageError(flag + " takes a number, got '" + text + "'");
  return value;
}

std::vector<int64_t> parse_ids(const std::string& text) {
  std::vector<int64_t> ids;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    ids.push_back(parse_integer("--prompt-ids", item, 0, INT32_MAX));
  }
  if (ids.empty()) throw UsageError("--prompt-ids is empty");
  return ids;
}

GenerateOptions parse(Args& args) {
  GenerateOptions options;
  while (!args.done()) {
    const std::string& arg = args.take();
    if (arg == "--help" || arg == "-h") {
      std::cout << kGenerateUsage;
      std::exit(0);
    } else if (arg == "--prompt") {
      options.prompt = args.value(arg);
    } else if (arg == "--prompt-ids") {
      options.prompt_ids = args.value(arg);
    } else if (arg == "--tokenizer") {
      options.tokenizer_path = args.value(arg);
    } else if (arg == "--chat") {
      options.chat = true;
    } else if (arg == "--print-ids") {
      options.print_ids = true;
    } else if (arg == "--max-new-tokens") {
      options.generation.max_new_tokens = parse_integer(arg, args.value(arg), 0, 1 << 24);
    } else if (arg == "--temperature") {
      options.generation.sampling.temperature = parse_number(arg, args.value(arg));
    } else if (arg == "--top-p") {
      options.generation.sampling.top_p = parse_number(arg, args.value(arg));
    } else if (arg == "--top-k") {
      options.generation.sampling.top_k = parse_integer(arg, args.value(arg), 0, INT32_MAX);
    } else if (arg == "--seed") {
      options.generation.sampling.seed = static_cast<uint64_t>(parse_integer(arg, args.value(arg), 0, INT64_MAX));
    } else if (arg == "--threads") {
      options.threads = static_cast<int>(parse_integer(arg, args.value(arg), 1, 256));
    } else if (arg == "--ignore-eos") {
      options.generation.stop_at_eos = false;
    } else if (arg == "--max-context") {
      options.max_context = parse_integer(arg, args.value(arg), 1, INT32_MAX);
    } else if (!arg.empty() && arg[0] == '-') {
      args.unknown(arg);
    } else if (options.model_path.empty()) {
      options.model_path = arg;
    } else {
      throw UsageError("generate takes one model, got '" + options.model_path + "' and '" + arg + "'");
    }
  }
  if (options.model_path.empty()) throw UsageError("generate needs a MODEL.pte");
  if (options.prompt.has_value() == options.prompt_ids.has_value()) {
    throw UsageError("generate needs either --prompt (with --tokenizer) or --prompt-ids");
  }
  if (options.prompt && options.tokenizer_path.empty()) throw UsageError("--prompt needs --tokenizer");
  if (options.chat && !options.prompt) throw UsageError("--chat formats a --prompt; --prompt-ids are used as they are");
  // Checked here so that a bad value is refused before the model loads.
  try {
    llm::Sampler check(options.generation.sampling);
  } catch (const llm::LlmError& error) {
    throw UsageError(error.what());
  }
  return options;
}

// On standard error, so that standard output is the text (or ids) alone.
void print_stats(const llm::LanguageModel& model, const llm::GenerationResult& result) {
  std::fprintf(stderr, "\nstopped: %s after %zu tokens\n", llm::to_string(result.stop), result.tokens.size());
  std::fprintf(stderr, "load: %.1f ms   time to first token: %.1f ms\n", model.load_ms(), result.first_token_ms);
  std::fprintf(stderr, "prefill: %lld tokens, %.1f tokens/s   decode: %lld tokens, %.1f tokens/s\n",
               static_cast<long long>(result.prompt_tokens), result.prefill_tokens_per_s(),
               static_cast<long long>(result.decode_calls), result.decode_tokens_per_s());
  std::fprintf(stderr, "peak RSS: %.1f MiB\n", static_cast<double>(llm::peak_rss_kib()) / 1024.0);
}

// What kiln generate reads beside tokenizer.json: tokenizer_config.json's EOS
// token, and for --chat its chat template (or transformers 5's
// chat_template.jinja beside it).
struct TokenizerConfig {
  std::string path;
  llm::SpecialTokens tokens;
};

TokenizerConfig read_tokenizer_config(const std::string& tokenizer_path) {
  TokenizerConfig config;
  config.path = (std::filesystem::path(tokenizer_path).parent_path() / "tokenizer_config.json").string();
  config.tokens = llm::read_special_tokens(config.path);
  return config;
}

std::string chat_prompt(const TokenizerConfig& config, const std::string& prompt) {
  if (!std::filesystem::exists(config.path)) {
    throw llm::LlmError("--chat needs a chat template: there is no " + config.path);
  }
  const llm::ChatConfig chat = llm::read_chat_config(config.path);
  return chat.chat_template.render({{"user", prompt}}, chat.context);
}

}  // namespace

int run_generate(Args args) {
  GenerateOptions options = parse(args);
  // The tokenizer first: a bad file is refused before the model loads.
  std::optional<llm::Tokenizer> tokenizer;
  TokenizerConfig config;
  if (!options.tokenizer_path.empty()) {
    tokenizer = llm::Tokenizer::from_file(options.tokenizer_path);
    config = read_tokenizer_config(options.tokenizer_path);
  }

  runtime::set_backend_threads(options.threads);
  llm::LanguageModel model(options.model_path);
  if (options.max_context) model.set_max_context(*options.max_context);
  std::vector<std::string> notes;
  if (model.info().constant_methods.empty()) notes.push_back("the program has no constant methods (get_eos_ids, get_max_seq_len, ...)");
  llm::EosIds eos = llm::choose_eos_ids(model.info().eos_ids, tokenizer ? &*tokenizer : nullptr, config.path,
                                        config.tokens);
  model.set_eos_ids(std::move(eos.ids));
  if (options.generation.stop_at_eos) notes.insert(notes.end(), eos.notes.begin(), eos.notes.end());
  if (!model.info().max_context) notes.push_back("the cache's length is unknown (--max-context sets it)");
  const llm::ModelInfo& info = model.info();
  if (tokenizer && info.vocab_size && static_cast<int64_t>(tokenizer->vocab_size()) > *info.vocab_size) {
    throw llm::LlmError(options.tokenizer_path + " has " + std::to_string(tokenizer->vocab_size()) +
                        " tokens; the model's vocabulary has " + std::to_string(*info.vocab_size) +
                        ": they do not belong together");
  }

  std::vector<int64_t> prompt;
  if (options.prompt_ids) {
    prompt = parse_ids(*options.prompt_ids);
  } else {
    const std::string text = options.chat ? chat_prompt(config, *options.prompt) : *options.prompt;
    // Plain text gets what the tokenizer's post-processor adds (a BOS or
    // not), as `tokenizer.encode` does in Python; a chat template writes
    // its own special tokens.
    for (int32_t id : tokenizer->encode(text, /*add_special_tokens=*/!options.chat)) prompt.push_back(id);
  }

  for (const std::string& note : notes) std::fprintf(stderr, "note: %s\n", note.c_str());
  std::fprintf(stderr, "%s: %zu prompt tokens, %s, cache %s, %d thread%s\n", options.model_path.c_str(), prompt.size(),
               options.generation.sampling.temperature == 0.0 ? "greedy" : "sampling",
               info.max_context ? (std::to_string(*info.max_context) + " positions").c_str() : "of unknown length",
               options.threads, options.threads == 1 ? "" : "s");

  std::optional<llm::TokenStream> stream;
  if (tokenizer && !options.print_ids) stream.emplace(*tokenizer, /*skip_special_tokens=*/true);
  bool first = true;
  const llm::GenerationResult result = llm::generate(model, prompt, options.generation, [&](int64_t token) {
    if (stream) {
      const bool eos = std::find(info.eos_ids.begin(), info.eos_ids.end(), token) != info.eos_ids.end();
      if (!eos) std::fputs(stream->push(static_cast<int32_t>(token)).c_str(), stdout);
    } else {
      std::printf("%s%lld", first ? "" : ",", static_cast<long long>(token));
    }
    first = false;
    std::fflush(stdout);
  });
  if (stream) std::fputs(stream->finish().c_str(), stdout);
  std::printf("\n");
  std::fflush(stdout);
  print_stats(model, result);
  if (result.stop == llm::StopReason::ContextFull) {
    std::fprintf(stderr, "kiln generate: the cache is full (%lld positions): generation stops there\n",
                 static_cast<long long>(*info.max_context));
  }
  return 0;
}

}  // namespace kiln::cli
