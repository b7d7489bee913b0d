#!/usr/bin/env python3
"""Time (and dump) the official laya 0.3.20 forward on CUDA: its stock path, bf16 autocast.

Usage (on the GPU machine; laya installed with `pip install --no-deps --target`, torch 2.11 and
transformers 5.17 from the image; elsewhere see tools/oracle/setup_venv.sh):

  official_gpu_bench.py --model DIR [--shapes 1x48,4x64,1x464,4x464,16x512] [--warmup 10] [--iters 50]
                        [--json] [--parity-out FILE [--parity-fp32-out FILE] --parity-requests N --seed S]

Shapes are R rows of T tokens, built like `laya-engine bench` builds them (CLS, option markers at
10, 14, 18.. carrying the mask id, SEP; qtypes cycle). Timing is host wall around Agent._infer on a
pre-collated batch plus the device->host copy of logits and action logits (the same span as
Backend::forward), after warm-up; p50/p95 over --iters samples.

--parity-fp32-out FILE also runs the same N batches with autocast off (fp32, TF32 off) and prints
the noise floor: official bf16 vs official fp32 (logits nRMS, max |dp|), the yardstick for the
CUDA engine's distance from fp32.

--parity-out writes N random padded batches and the official raw outputs as JSON lines
({"rows":[{"ids":..,"markers":..,"qtype":..}], "logits":[[..]], "act_logits":[[..]]}) for the
C++ GPU test (LAYA_GPU_OFFICIAL_PARITY) to compare against the CUDA engine.
"""
import argparse
import json
import math
import random
import sys
import time

import torch


def percentile(v, q):
    v = sorted(v)
    pos = q * (len(v) - 1)
    i = int(pos)
    f = pos - i
    return v[i] * (1 - f) + v[i + 1] * f if i + 1 < len(v) else v[i]


def collate(rows, pad_id):
    n, L = len(rows), max(len(r["ids"]) for r in rows)
    k = max(len(r["markers"]) for r in rows)
    ids = torch.full((n, L), pad_id, dtype=torch.long)
    att = torch.zeros((n, L), dtype=torch.long)
    mpos = torch.zeros((n, k), dtype=torch.long)
    mmask = torch.zeros((n, k), dtype=torch.bool)
    for i, r in enumerate(rows):
        ids[i, : len(r["ids"])] = torch.tensor(r["ids"])
        att[i, : len(r["ids"])] = 1
        mpos[i, : len(r["markers"])] = torch.tensor(r["markers"])
        mmask[i, : len(r["markers"])] = True
    qt = torch.tensor([r["qtype"] for r in rows], dtype=torch.long)
    return {"input_ids": ids, "attention_mask": att, "marker_pos": mpos, "marker_mask": mmask, "qtype": qt}


def bench_rows(agent, rows_n, tokens, seed):
    rng = random.Random(seed)
    tok = agent.tok
    vocab = agent.model.encoder.config.vocab_size
    rows = []
    for r in range(rows_n):
        ids = [rng.randint(min(vocab - 1, 100), min(vocab - 1, 20000)) for _ in range(tokens)]
        ids[0] = tok.cls_token_id
        ids[-1] = tok.sep_token_id
        n_opts = max(1, min(2 + r % 4, tokens - 2))
        markers = []
        for k in range(n_opts):
            pos = min(tokens - 1, 10 + 4 * k)
            markers.append(pos)
            ids[pos] = tok.mask_token_id
        rows.append({"ids": ids, "markers": markers, "qtype": r % 3})
    return rows


def row_probs(logits):
    out = []
    for row in logits:
        mx = max(row)
        e = [math.exp(v - mx) for v in row]
        s = sum(e)
        out.extend(v / s for v in e)
    return out


def compare(got, ref):
    num = sum((g - r) ** 2 for g, r in zip(got, ref))
    den = sum(r * r for r in ref)
    nrms = math.sqrt(num / den) if den > 0 else math.sqrt(num)
    rel = max(abs(g - r) for g, r in zip(got, ref)) / max(1.0, max(abs(r) for r in ref))
    return nrms, rel


def noise_floor(bf16, fp32, amp):
    """Official stock autocast (amp: its dtype, bf16 or fp16 by the checkpoint's amp_dtype) vs
    official fp32 on the same requests: the metrics the C++ parity tests print (worst per-request
    nRMS and max|d|/max(|ref|,1), max |dp| of the per-row softmax)."""
    w_nrms = w_rel = w_act = max_dp = 0.0
    num = den = 0.0
    for b, f in zip(bf16, fp32):
        gl = [v for row in b["logits"] for v in row]
        rl = [v for row in f["logits"] for v in row]
        n, r = compare(gl, rl)
        w_nrms, w_rel = max(w_nrms, n), max(w_rel, r)
        num += sum((g - x) ** 2 for g, x in zip(gl, rl))
        den += sum(x * x for x in rl)
        _, ra = compare([v for row in b["act_logits"] for v in row], [v for row in f["act_logits"] for v in row])
        w_act = max(w_act, ra)
        max_dp = max(max_dp, max(abs(p - q) for p, q in zip(row_probs(b["logits"]), row_probs(f["logits"]))))
    return ("noise floor (official %s autocast vs official fp32, %d requests): max |dp| %.3e, logits worst nRMS "
            "%.3e (pooled %.3e) worst max|d|/max(|ref|,1) %.3e, act logits worst max|d|/max(|ref|,1) %.3e"
            % (amp, len(bf16), max_dp, w_nrms, math.sqrt(num / den) if den else 0.0, w_rel, w_act))


def forward(agent, batch):
    logits, act = agent._infer(batch)
    return logits.float().cpu(), act.float().cpu()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--shapes", default="1x48,4x64,1x464,4x464,16x512")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--parity-out")
    ap.add_argument("--parity-requests", type=int, default=30)
    ap.add_argument("--parity-fp32-out")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()

    from laya.agent import Agent

    agent = Agent(a.model, device=a.device)
    pad_id = agent.tok.pad_token_id if agent.tok.pad_token_id is not None else 0
    dev = torch.cuda.get_device_name(0) if agent.device.type == "cuda" else str(agent.device)
    info = {"official": "laya 0.3.20 stock CUDA path", "device": dev, "amp": str(agent.dtype),
            "amp_enabled": agent.amp_enabled, "torch": torch.__version__}
    print(json.dumps(info) if a.json else info, flush=True)
    with torch.inference_mode():
        if a.parity_out:
            rng = random.Random(a.seed)
            vocab = agent.model.encoder.config.vocab_size
            max_len = agent.cfg.get("max_len", 512)
            requests = []
            for i in range(a.parity_requests):
                n = 1 + (i * 5) % 16
                rows = []
                for r in range(n):
                    L = rng.randint(1, max_len) if i % 3 else rng.randint(1, 48)
                    L = min(L, max(1, 8192 // n))
                    ids = [rng.randrange(vocab) for _ in range(L)]
                    k = rng.randint(1, min(L, 6))
                    markers = sorted(rng.sample(range(L), k))
                    rows.append({"ids": ids, "markers": markers, "qtype": rng.randrange(3)})
                requests.append(rows)
            outs = {}
            modes = [("bf16", a.parity_out)] + ([("fp32", a.parity_fp32_out)] if a.parity_fp32_out else [])
            for mode, path in modes:
                # fp32: the same model with autocast off and TF32 off (the noise-free reference);
                # "bf16": the stock path (autocast in the checkpoint's amp_dtype: bf16, or fp16).
                amp = agent.amp_enabled
                if mode == "fp32":
                    agent.amp_enabled = False
                    torch.backends.cuda.matmul.allow_tf32 = False
                    torch.backends.cudnn.allow_tf32 = False
                outs[mode] = []
                with open(path, "w") as f:
                    for rows in requests:
                        lg, act = forward(agent, collate(rows, pad_id))
                        rec = {"rows": rows,
                               "logits": [lg[j, : len(r["markers"])].tolist() for j, r in enumerate(rows)],
                               "act_logits": act.tolist()}
                        outs[mode].append(rec)
                        f.write(json.dumps(rec) + "\n")
                agent.amp_enabled = amp
                print(f"wrote {len(requests)} official parity requests ({mode}) to {path}", flush=True)
            if "fp32" in outs:
                print(noise_floor(outs["bf16"], outs["fp32"], str(agent.dtype)), flush=True)
        for item in a.shapes.split(","):
            r, t = (int(x) for x in item.split("x"))
            batch = collate(bench_rows(agent, r, t, 1234 + r * 7919 + t), pad_id)
            for _ in range(a.warmup):
                forward(agent, batch)
            if agent.device.type == "cuda":
                torch.cuda.synchronize()
            samples = []
            for _ in range(a.iters):
                t0 = time.perf_counter()
                forward(agent, batch)
                samples.append((time.perf_counter() - t0) * 1e3)
            res = {"shape": item, "impl": "official", "p50_ms": percentile(samples, 0.5),
                   "p95_ms": percentile(samples, 0.95), "mean_ms": sum(samples) / len(samples), "iters": a.iters}
            print(json.dumps(res) if a.json else "%8s p50 %.3f ms p95 %.3f ms" % (item, res["p50_ms"], res["p95_ms"]),
                  flush=True)
        if agent.device.type == "cuda":
            print(json.dumps({"peak_mem_mb": torch.cuda.max_memory_allocated() / 1e6}), flush=True)


if __name__ == "__main__":
    sys.exit(main())
