"""The tables: a summary with one row per (model, threads) -- each runtime's
median latency and the ratios of Kiln to the peers that the issue's targets
are stated in -- then one row per runtime with every measured column. Both
are markdown; bench.py prints them and writes them to results/latest.md.
The int8 rows (bench.py --int8) have tables of their own: a summary with
Kiln's ratios to ExecuTorch, ONNX Runtime and OpenVINO, the files and
errors per model, and every row with its errors against PyTorch's int8
output and the float model's.
"""
import math

import models

# Kiln's target: the faster of these two (each model, each thread count).
TARGET_PEERS = ("executorch", "ort")
# The int8 summary's ratios: Kiln over each of these.
INT8_PEERS = ("executorch", "ort", "openvino")
NAMES = {"kiln": "Kiln", "executorch": "ExecuTorch", "ort": "ONNX Runtime", "openvino": "OpenVINO",
         "eager": "PyTorch eager"}

def fmt(value, digits=2, suffix=""):
    if value is None:
        return "-"
    if value >= 100:
        return f"{value:.0f}{suffix}"
    return f"{value:.{digits}f}{suffix}"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "-"
    value = a / b
    return f"{value:.3f}x" if value < 0.1 else f"{value:.2f}x"


def usable(row):
    """A row whose latency counts: it ran and its outputs matched PyTorch's."""
    return row is not None and row.error is None and row.median_ms is not None and row.passed


def gflops(row, flops):
    if row.median_ms is None or not flops:
        return None
    return flops / (row.median_ms * 1e-3) / 1e9


def over_base_mb(row):
    """Peak RSS less what the process held before loading the model (the
    Python interpreter and its imports, for the peers), in MB."""
    if row.peak_rss_kb is None or row.baseline_rss_kb is None:
        return None
    return (row.peak_rss_kb - row.baseline_rss_kb) / 1024


def markdown(header, lines):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(cell) for cell in line) + " |" for line in lines]
    return "\n".join(out)


def latency_cell(row):
    if row is None:
        return "-"
    if row.error:
        return "error"
    text = fmt(row.median_ms)
    return text if row.passed else text + " (wrong)"


def first_result_ms(row):
    """Load plus the first call: what a fresh process waits for its first output."""
    if row is None or row.error or row.load_ms is None or row.first_ms is None:
        return None
    return row.load_ms + row.first_ms


def target_ratios(rows, model_names, threads_list):
    """{threads: [(model, Kiln / the faster of ExecuTorch and ONNX Runtime)]}
    over the models where Kiln and a target peer both ran and matched PyTorch."""
    result = {}
    for threads in threads_list:
        for name in model_names:
            found = {r.runtime: r for r in rows if r.model == name and r.threads == threads}
            peers = [found[p] for p in TARGET_PEERS if usable(found.get(p))]
            if usable(found.get("kiln")) and peers:
                best = min(p.median_ms for p in peers)
                result.setdefault(threads, []).append((name, found["kiln"].median_ms / best))
    return result


def summary_table(rows, model_names, threads_list):
    """One row per (model, threads): latencies, the faster target peer,
    Kiln's ratios to it and to OpenVINO, and the time to a first result."""
    header = ["model", "threads", "Kiln ms", "ExecuTorch ms", "ONNX Runtime ms", "OpenVINO ms", "PyTorch ms",
              "best of ET, ORT", "Kiln / best", "Kiln / OpenVINO", "first result ms Kiln / ET",
              "RSS over base Kiln / ET", "lowering Kiln / ET"]
    lines = []
    for name in model_names:
        for threads in threads_list:
            found = {r.runtime: r for r in rows if r.model == name and r.threads == threads}
            if not found:
                continue
            kiln = found.get("kiln")
            peers = [found[p] for p in TARGET_PEERS if usable(found.get(p))]
            best = min(peers, key=lambda r: r.median_ms) if peers else None
            et, ov = found.get("executorch"), found.get("openvino")
            kiln_ok = usable(kiln)
            et_ok = et is not None and et.error is None
            kiln_cell = latency_cell(kiln) + (f" ({kiln.mode})" if kiln is not None and kiln.mode else "")
            first_kiln, first_et = first_result_ms(kiln), first_result_ms(et)
            lines.append([
                models.label(name), threads, kiln_cell, latency_cell(et), latency_cell(found.get("ort")),
                latency_cell(ov), latency_cell(found.get("eager")),
                f"{NAMES[best.runtime]} {fmt(best.median_ms)}" if best else "-",
                ratio(kiln.median_ms, best.median_ms) if kiln_ok and best else "-",
                ratio(kiln.median_ms, ov.median_ms) if kiln_ok and usable(ov) else "-",
                f"{fmt(first_kiln)} / {fmt(first_et)}" if first_kiln is not None or first_et is not None else "-",
                ratio(over_base_mb(kiln), over_base_mb(et)) if kiln_ok and et_ok else "-",
                ratio(kiln.lowering_s, et.lowering_s) if kiln is not None and et_ok and kiln.lowering_s else "-",
            ])
    text = markdown(header, lines)
    for threads, ratios in sorted(target_ratios(rows, model_names, threads_list).items()):
        worst = max(ratios, key=lambda r: r[1])
        geomean = math.exp(sum(math.log(r) for _, r in ratios) / len(ratios))
        ahead = sum(1 for _, r in ratios if r <= 1.0)
        text += (f"\n\n{threads} thread{'s' if threads > 1 else ''}: Kiln / the faster of ExecuTorch and ONNX Runtime "
                 f"over {len(ratios)} models: geometric mean {geomean:.2f}x, worst {worst[1]:.2f}x "
                 f"({models.label(worst[0])}), at or ahead on {ahead}")
    return text


def detail_table(rows, flops_by_model, peak_gflops_per_core):
    header = ["model", "threads", "runtime", "mode", "median ms", "runs", "GFLOP/s", "% peak", "load ms",
              "peak RSS MB", "RSS over base MB", "lowering s", "file MB", "max abs err", "check", "note"]
    lines = []
    for row in rows:
        flops = flops_by_model.get(row.model)
        rate = gflops(row, flops)
        peak = (rate / (peak_gflops_per_core * row.threads) * 100
                if rate is not None and peak_gflops_per_core else None)
        over = over_base_mb(row)
        check = "-" if row.passed is None else ("pass" if row.passed else "FAIL")
        note = row.error if row.error else row.note
        lines.append([
            models.label(row.model), row.threads, NAMES[row.runtime], row.mode or "-", fmt(row.median_ms),
            row.runs if row.runs is not None else "-", fmt(rate, 1), fmt(peak, 0, "%"), fmt(row.load_ms),
            fmt(row.peak_rss_kb / 1024 if row.peak_rss_kb else None, 0), fmt(over, 0),
            fmt(row.lowering_s, 2), fmt(row.size_bytes / 2**20 if row.size_bytes else None, 1),
            f"{row.max_abs_error:.2e}" if row.max_abs_error is not None else "-", check,
            (note or "").replace("|", "/"),
        ])
    return markdown(header, lines)



# ------------------------------------------------------------------ int8


def percent(value):
    return "-" if value is None else f"{value:.2%}"


def peer_ratios(rows, model_names, threads_list, peer):
    """{threads: [(model, Kiln / peer)]} over the models where both ran and
    passed their check."""
    result = {}
    for threads in threads_list:
        for name in model_names:
            found = {r.runtime: r for r in rows if r.model == name and r.threads == threads}
            if usable(found.get("kiln")) and usable(found.get(peer)):
                result.setdefault(threads, []).append((name, found["kiln"].median_ms / found[peer].median_ms))
    return result


def geomean_lines(rows, model_names, threads_list, peers):
    """Per thread count and peer: the geometric mean of Kiln / peer over the
    models, the worst, and on how many Kiln is at or ahead."""
    lines = []
    for peer in peers:
        for threads, ratios in sorted(peer_ratios(rows, model_names, threads_list, peer).items()):
            worst = max(ratios, key=lambda r: r[1])
            geomean = math.exp(sum(math.log(r) for _, r in ratios) / len(ratios))
            ahead = sum(1 for _, r in ratios if r <= 1.0)
            lines.append(f"{threads} thread{'s' if threads > 1 else ''}: int8 Kiln / {NAMES[peer]} over "
                         f"{len(ratios)} models: geometric mean {geomean:.2f}x, worst {worst[1]:.2f}x "
                         f"({models.label(worst[0])}), at or ahead on {ahead}")
    return lines


def int8_summary_table(rows, model_names, threads_list, quantized):
    """One row per (model, threads): each runtime's int8 median and Kiln's
    ratio to each of INT8_PEERS (where both passed); quantized[name] holds
    the model's scheme."""
    header = ["model", "int8", "threads", "Kiln ms", "ExecuTorch ms", "ONNX Runtime ms", "OpenVINO ms",
              "PyTorch ms"] + [f"Kiln / {NAMES[p]}" for p in INT8_PEERS]
    lines = []
    for name in model_names:
        for threads in threads_list:
            found = {r.runtime: r for r in rows if r.model == name and r.threads == threads}
            if not found:
                continue
            kiln = found.get("kiln")
            kiln_cell = latency_cell(kiln) + (f" ({kiln.mode})" if kiln is not None and kiln.mode else "")
            lines.append([
                models.label(name), quantized.get(name, {}).get("quantization") or "-", threads, kiln_cell,
                latency_cell(found.get("executorch")), latency_cell(found.get("ort")),
                latency_cell(found.get("openvino")), latency_cell(found.get("eager")),
            ] + [ratio(kiln.median_ms, found[p].median_ms) if usable(kiln) and usable(found.get(p)) else "-"
                 for p in INT8_PEERS])
    text = markdown(header, lines)
    extra = geomean_lines(rows, model_names, threads_list, ("executorch", "openvino"))
    return text + ("\n\n" + "\n\n".join(extra) if extra else "")


def int8_files_table(rows, model_names, quantized):
    """One row per model: PyTorch's int8 output against its float output,
    then per runtime its file's size and its largest error against PyTorch's
    int8 output over the thread counts (relative to max |int8 output|)."""
    runtimes = ("kiln", "executorch", "ort", "openvino")
    header = ["model", "int8", "PyTorch int8 vs float"] + [f"{NAMES[r]} MB / err" for r in runtimes]
    lines = []
    for name in model_names:
        info = quantized.get(name, {})
        reference = info.get("reference_error")
        line = [models.label(name), info.get("quantization") or "-",
                f"{reference[0]:.2e} ({percent(reference[1])})" if reference else "-"]
        for runtime in runtimes:
            found = [r for r in rows if r.model == name and r.runtime == runtime]
            if not found:
                line.append("-")
                continue
            size = next((r.size_bytes for r in found if r.size_bytes), None)
            errors = [r.relative_error for r in found if r.relative_error is not None]
            error = percent(max(errors)) if errors else ("error" if any(r.error for r in found) else "-")
            line.append(f"{fmt(size / 2**20 if size else None, 1)} / {error}")
        lines.append(line)
    return markdown(header, lines)


def int8_detail_table(rows):
    """Every int8 row: timings, memory, lowering, file size, and its errors
    against PyTorch's int8 output and against the float model's."""
    header = ["model", "threads", "runtime", "mode", "median ms", "runs", "load ms", "peak RSS MB",
              "RSS over base MB", "lowering s", "file MB", "max abs err", "err / max int8", "vs float: max abs err",
              "err / max float", "check", "note"]
    lines = []
    for row in rows:
        check = "-" if row.passed is None else ("pass" if row.passed else "FAIL")
        note = row.error if row.error else row.note
        lines.append([
            models.label(row.model), row.threads, NAMES[row.runtime], row.mode or "-", fmt(row.median_ms),
            row.runs if row.runs is not None else "-", fmt(row.load_ms),
            fmt(row.peak_rss_kb / 1024 if row.peak_rss_kb else None, 0), fmt(over_base_mb(row), 0),
            fmt(row.lowering_s, 2), fmt(row.size_bytes / 2**20 if row.size_bytes else None, 1),
            f"{row.max_abs_error:.2e}" if row.max_abs_error is not None else "-", percent(row.relative_error),
            f"{row.float_max_abs_error:.2e}" if row.float_max_abs_error is not None else "-",
            percent(row.float_relative_error), check, (note or "").replace("|", "/"),
        ])
    return markdown(header, lines)
