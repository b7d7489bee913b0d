"""The official laya package timed on the same batch shapes as `laya-engine bench`.

Usage (needs the oracle virtualenv: tools/oracle/setup_venv.sh; python from $LAYA_ORACLE_PYTHON):
  $LAYA_ORACLE_PYTHON bench/backends/official_bench.py --model DIR [--device cpu|cuda]
      [--shapes 1x48,4x64,1x464,4x464,16x512] [--warmup N] [--iters N] [--threads N] [--json]

A shape RxT is one forward of R question rows of T tokens, built like `laya-engine bench` builds
them: [CLS] ... [SEP] with option markers at positions 10, 14, ... (2 + r % 4 of them, [MASK] ids
there), qtype r % 3, filler ids drawn from [100, 20000). The filler ids are random (not the
engine's exact ids); shapes, markers and qtypes are identical, which is what the cost depends on.
Each forward goes through `Agent._infer` — the official path with its autocast policy (fp32 on CPU,
bf16 autocast on CUDA sm>=80) — on the padded batch `collate_items` makes; on CUDA the timer
includes a synchronize. Host wall time per forward; p50/p95 over the measured iterations.
"""
import argparse
import json
import os
import random
import resource
import sys
import time

ORACLE = os.environ.get("LAYA_ORACLE_PYTHON", "/opt/laya-oracle/bin/python")
try:
    import torch
    import laya
    from laya.common import collate_items
except ImportError:
    if os.path.realpath(sys.executable) != os.path.realpath(ORACLE) and os.path.exists(ORACLE):
        os.execv(ORACLE, [ORACLE] + sys.argv)
    sys.exit("official_bench.py: needs the oracle environment (tools/oracle/setup_venv.sh); set LAYA_ORACLE_PYTHON")


def rows_for(shape, tok, vocab, seed):
    r_count, t = shape
    rng = random.Random(seed)
    items = []
    for r in range(r_count):
        ids = [rng.randrange(100, min(vocab, 20000)) for _ in range(t)]
        ids[0] = tok.cls_token_id
        ids[-1] = tok.sep_token_id
        n_opts = max(1, min(2 + r % 4, t - 2))
        markers = []
        for k in range(n_opts):
            pos = min(t - 1, 10 + 4 * k)
            markers.append(pos)
            ids[pos] = tok.mask_token_id
        items.append({"ids": ids, "markers": markers, "qtype": r % 3})
    return collate_items([items], tok.pad_token_id)


def pct(v, q):
    v = sorted(v)
    pos = q * (len(v) - 1)
    i = int(pos)
    f = pos - i
    return v[i] * (1 - f) + v[i + 1] * f if i + 1 < len(v) else v[i]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--shapes", default="1x48,4x64,1x464,4x464,16x512")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch default)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    t0 = time.perf_counter()
    agent = laya.Agent(a.model, device=a.device)
    load_s = time.perf_counter() - t0
    vocab = agent.model.encoder.config.vocab_size
    cuda = agent.device.type == "cuda"
    if not a.json:
        print("official laya %s, torch %s, device %s (amp %s %s), threads %d, load %.2f s" % (
            getattr(laya, "__version__", "?"), torch.__version__, agent.device, agent.amp_enabled,
            agent.dtype, torch.get_num_threads(), load_s))
        print("%8s %7s %10s %10s %10s %10s %12s" % ("shape", "iters", "p50 ms", "p95 ms", "mean ms", "req/s", "tokens/s"))
    for spec in a.shapes.split(","):
        r, t = (int(x) for x in spec.split("x"))
        b = rows_for((r, t), agent.tok, vocab, 1234 + r * 7919 + t)
        samples = []
        with torch.no_grad():
            for i in range(a.warmup + a.iters):
                s = time.perf_counter()
                logits, act = agent._infer(b)
                logits.float().cpu()
                act.float().cpu()
                if cuda:
                    torch.cuda.synchronize()
                e = (time.perf_counter() - s) * 1000.0
                if i >= a.warmup:
                    samples.append(e)
        mean = sum(samples) / len(samples)
        rps = 1000.0 / mean
        if a.json:
            print(json.dumps({"shape": spec, "rows": r, "tokens": t, "backend": "official-" + agent.device.type,
                              "warmup": a.warmup, "iters": a.iters, "p50_ms": pct(samples, 0.5),
                              "p95_ms": pct(samples, 0.95), "mean_ms": mean, "requests_per_s": rps,
                              "tokens_per_s": rps * r * t, "samples_ms": samples}))
        else:
            print("%8s %7d %10.2f %10.2f %10.2f %10.2f %12.0f" % (spec, a.iters, pct(samples, 0.5), pct(samples, 0.95),
                                                               mean, rps, rps * r * t))
        sys.stdout.flush()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(json.dumps({"peak_rss_mb": rss, "load_s": load_s}) if a.json else "peak RSS %.0f MB" % rss)


if __name__ == "__main__":
    main()
