"""Compare `laya-engine decide` with a one-off golden of tools/oracle/model_goldens.py.

Usage (plain python3 with numpy, or the oracle python; see tools/oracle/setup_venv.sh):
  $LAYA_ORACLE_PYTHON tools/oracle/model_compare.py --engine build/release/bin/laya-engine \
      --model DIR --golden PREFIX [--backend cpu|cuda] [--threads N]

PREFIX.json / PREFIX.f32 come from `model_goldens.py --checkpoint DIR --out-prefix PREFIX` (the
official package on the same checkpoint). The engine answers every recorded request once through
`decide --dump`, and this script reports, per request: logits max |diff|, act logits relative diff,
the nRMS of every recorded intermediate, and whether the answers agree (numbers within one
4-decimal rounding step). Exit code 1 when a tolerance is exceeded (nRMS 1e-5, logits 1e-4,
act 1e-4 relative) or an answer differs.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np


def close(a, b, tol, path, errors):
    if isinstance(b, (int, float)) and isinstance(a, (int, float)) and not isinstance(b, bool):
        if abs(a - b) > tol:
            errors.append("%s: %r vs %r" % (path, a, b))
        return
    if type(a) is not type(b):
        errors.append("%s: type %s vs %s" % (path, type(a).__name__, type(b).__name__))
    elif isinstance(b, dict):
        if list(a) != list(b):
            errors.append("%s: keys %s vs %s" % (path, list(a), list(b)))
        else:
            for k in b:
                close(a[k], b[k], tol, path + "." + k, errors)
    elif isinstance(b, list):
        if len(a) != len(b):
            errors.append("%s: length" % path)
        else:
            for i, (x, y) in enumerate(zip(a, b)):
                close(x, y, tol, "%s[%d]" % (path, i), errors)
    elif a != b:
        errors.append("%s: %r vs %r" % (path, a, b))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default="build/release/bin/laya-engine")
    ap.add_argument("--model", required=True)
    ap.add_argument("--golden", required=True, help="prefix of the .json/.f32 pair")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--threads", type=int, default=0)
    a = ap.parse_args()
    g = json.load(open(a.golden + ".json", encoding="utf-8"))
    floats = np.fromfile(a.golden + ".f32", dtype="<f4")
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        req_file = os.path.join(tmp, "requests.jsonl")
        with open(req_file, "w", encoding="utf-8") as f:
            for rec in g["records"]:
                f.write(json.dumps(rec["request"], ensure_ascii=False) + "\n")
        dump = os.path.join(tmp, "dump")
        cmd = [a.engine, "decide", "--model", a.model, "--backend", a.backend, "--threads", str(a.threads),
               "--input", req_file, "--dump", dump]
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit("decide failed (%d): %s" % (out.returncode, out.stderr[-2000:]))
        lines = out.stdout.splitlines()
        for i, rec in enumerate(g["records"]):
            d = os.path.join(dump, str(i + 1))
            index = json.load(open(os.path.join(d, "index.json")))

            def load(name):
                r, c = index[name]
                return np.fromfile(os.path.join(d, name + ".f32"), dtype="<f4").reshape(r, c)

            ref_logits = np.array([v for row in rec["logits"] for v in row], dtype=np.float64)
            got_logits = load("logits").reshape(-1).astype(np.float64)
            ref_act = np.array(rec["act_logits"], dtype=np.float64).reshape(-1)
            got_act = load("act_logits").reshape(-1).astype(np.float64)
            dl = float(np.max(np.abs(ref_logits - got_logits)))
            da = float(np.max(np.abs(ref_act - got_act) / np.maximum(1.0, np.abs(ref_act))))
            worst = 0.0
            for name, t in rec.get("tensors", {}).items():
                ref = floats[t["offset"]: t["offset"] + t["rows"] * t["cols"]].astype(np.float64)
                got = load(name).reshape(-1).astype(np.float64)
                e = float(np.linalg.norm(got - ref) / max(np.linalg.norm(ref), 1e-30))
                worst = max(worst, e)
                if e > 1e-5:
                    ok = False
                    print("  request %d tensor %s nRMS %.3g" % (i, name, e))
            errors = []
            want = json.loads(rec["response"])
            got = json.loads(lines[i])
            close(got["answers"], want["answers"], 1.0001e-4, "answers", errors)
            if got["usage"]["input_tokens"] != want["usage"]["input_tokens"]:
                errors.append("usage.input_tokens")
            rows = len(rec["rows"])
            ntok = sum(len(r["ids"]) for r in rec["rows"])
            print("request %d: %d rows, %d tokens, %d options: logits max|d| %.3g, act rel %.3g, %d tensors worst nRMS %.3g, "
                  "answers %s" % (i, rows, ntok, len(ref_logits), dl, da, len(rec.get("tensors", {})), worst,
                                  "agree" if not errors else "DIFFER"))
            for e in errors[:5]:
                print("   ", e)
            ok = ok and dl <= 1e-4 and da <= 1e-4 and not errors
    print("OK" if ok else "FAILED")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
