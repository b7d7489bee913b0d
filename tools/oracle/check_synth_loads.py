#!/usr/bin/env python3
"""Check that the official laya package loads every synthetic checkpoint `laya-engine synth` writes.

Usage:
  LAYA_ORACLE_PYTHON=/opt/laya-oracle/bin/python  (default; create it with tools/oracle/setup_venv.sh)
  $LAYA_ORACLE_PYTHON tools/oracle/check_synth_loads.py --engine build/release/bin/laya-engine \
      [--layouts tiny,english,typed-decisions,multilingual] [--workdir /tmp/laya-synth-check] [--keep]

For each layout it runs `laya-engine synth`, then `laya-engine check`, then loads the directory with
`laya.Agent(path, device="cpu")` (tokenizer through Hugging Face, configs through transformers,
weights with strict load_state_dict) and runs one `system_one` call with a choice, a score and a
noul question. Prints one `OK <layout>` line per layout and exits non-zero on the first failure.
"""
import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

CASES = {
    # name: (layout, seed, extra synth args)
    "tiny-seed1": ("tiny", 1, []),
    "tiny-odd-layers": ("tiny", 2, ["--layers", "5"]),
    "tiny-small-window": ("tiny", 3, ["--local-window", "4", "--layers", "4"]),
    "english": ("english", 7, []),
    "typed-decisions": ("typed-decisions", 8, []),
    "multilingual": ("multilingual", 9, []),
}

QUESTIONS = {
    "department": {"type": "choice", "instructions": "Which team should handle this?",
                   "criteria": {"billing": "Charges and refunds", "technical": "Software problems",
                                "shipping": "Where is my package"}},
    "urgency": {"type": "score", "instructions": "How urgent is the request?",
                "criteria": ["Not urgent", "Needs attention soon", "Needs attention immediately"]},
    "refund": {"type": "noul", "instructions": "Does the customer ask for a refund?"},
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default="build/release/bin/laya-engine")
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--fixtures", default=os.environ.get("LAYA_FIXTURES_DIR", "../shared/fixtures"))
    args = ap.parse_args()

    import laya  # noqa: E402  (the oracle venv)
    import torch
    import transformers
    import tokenizers
    print("laya %s, transformers %s, tokenizers %s, torch %s" % (
        getattr(laya, "__version__", "?"), transformers.__version__, tokenizers.__version__, torch.__version__))

    work = args.workdir or tempfile.mkdtemp(prefix="laya-synth-check-")
    os.makedirs(work, exist_ok=True)
    failed = 0
    for name in args.cases.split(","):
        layout, seed, extra = CASES[name]
        out = os.path.join(work, name)
        shutil.rmtree(out, ignore_errors=True)
        cmd = [args.engine, "synth", "--layout", layout, "--seed", str(seed)] + extra
        if layout in ("english", "typed-decisions"):
            cmd += ["--tokenizer", os.path.join(args.fixtures, "tokenizer-modernbert")]
        elif layout == "multilingual":
            cmd += ["--tokenizer", os.path.join(args.fixtures, "tokenizer-mmbert-standin")]
        t0 = time.time()
        subprocess.run(cmd + [out], check=True)
        t_synth = time.time() - t0
        chk = subprocess.run([args.engine, "check", "--no-hash", out], capture_output=True, text=True)
        if chk.returncode != 0:
            print("FAIL %s: laya-engine check rejected it:\n%s" % (name, chk.stdout + chk.stderr))
            failed += 1
            continue
        try:
            t0 = time.time()
            agent = laya.Agent(out, device="cpu")
            t_load = time.time() - t0
            res = agent.system_one("I was charged twice for my order. Please refund the duplicate today.", QUESTIONS)
            ans = res["answers"] if "answers" in res else res
            for v in (res.get("probabilities") or {}).values():
                vals = v.values() if isinstance(v, dict) else (v if isinstance(v, list) else [v])
                assert all(math.isfinite(float(x)) for x in vals), "non-finite probability"
            n_params = sum(p.numel() for p in agent.model.parameters()) + agent.model.temperature.numel()
            print("OK %s (layout %s, seed %d, %d parameters, synth %.1fs, load %.1fs): %s" % (
                name, layout, seed, n_params, t_synth, t_load, ans))
        except Exception as e:  # report and continue with the next layout
            print("FAIL %s: %s: %s" % (name, type(e).__name__, e))
            failed += 1
        finally:
            if not args.keep:
                shutil.rmtree(out, ignore_errors=True)
    if not args.keep and not args.workdir:
        shutil.rmtree(work, ignore_errors=True)
    print("%d of %d cases failed" % (failed, len(args.cases.split(","))))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
