"""The official laya package timed on the same batch shapes as `laya-engine bench`.

Usage (needs the oracle virtualenv: tools/oracle/setup_venv.sh; python from $LAYA_ORACLE_PYTHON):
  $LAYA_ORACLE_PYTHON bench/backends/official_bench.py --model DIR [--device cpu|cuda]
      [--shapes 1x48,4x64,1x464,4x464,16x512] [--warmup N] [--iters N] [--threads N] [--json]

A shape RxT is one forward of R question rows of T tokens, built like `laya-engine bench` builds
them: [CLS] ... [SEP] with option markers at positions 10, 14, ... (2 + r % 4 of them, [MASK] ids
there), qtype r % 3, filler ids drawn from [100, 20000]. The filler ids are random (not the
engine's exact ids); shapes, markers and qtypes are identical, which is what the cost depends on.
The rows, their padded batch and the percentiles come from scripts/gpu/official_gpu_bench.py (the
same batches on the GPU machine). Each forward goes through `Agent._infer` — the official path
with its autocast policy (fp32 on CPU, the checkpoint's amp_dtype on CUDA sm>=80); on CUDA the
timer includes a synchronize. Host wall time per forward; p50/p95 over the measured iterations.
"""
import argparse
import json
import os
import resource
import sys
import time

ORACLE = os.environ.get("LAYA_ORACLE_PYTHON", "/opt/laya-oracle/bin/python")
try:
    import torch
    import laya
except ImportError:
    if os.path.realpath(sys.executable) != os.path.realpath(ORACLE) and os.path.exists(ORACLE):
        os.execv(ORACLE, [ORACLE] + sys.argv)
    sys.exit("official_bench.py: needs the oracle environment (tools/oracle/setup_venv.sh); set LAYA_ORACLE_PYTHON")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "gpu"))
from official_gpu_bench import bench_rows, collate, percentile as pct  # noqa: E402


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
    cuda = agent.device.type == "cuda"
    pad_id = agent.tok.pad_token_id if agent.tok.pad_token_id is not None else 0
    if not a.json:
        print("official laya %s, torch %s, device %s (amp %s %s), threads %d, load %.2f s" % (
            getattr(laya, "__version__", "?"), torch.__version__, agent.device, agent.amp_enabled,
            agent.dtype, torch.get_num_threads(), load_s))
        print("%8s %7s %10s %10s %10s %10s %12s" % ("shape", "iters", "p50 ms", "p95 ms", "mean ms", "req/s", "tokens/s"))
    for spec in a.shapes.split(","):
        r, t = (int(x) for x in spec.split("x"))
        b = collate(bench_rows(agent, r, t, 1234 + r * 7919 + t), pad_id)
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
