"""Golden data for the fp32 CPU backend: the OFFICIAL laya package runs its own DecisionModel.

Usage (needs the oracle virtualenv: tools/oracle/setup_venv.sh):
  $LAYA_ORACLE_PYTHON tools/oracle/model_goldens.py --engine build/cpu/bin/laya-engine [--out tests/data/cpu]
      Makes the tiny synthetic checkpoints with the project binary (`laya-engine synth --layout tiny
      --seed N ...`), loads each with `laya.Agent(dir, device="cpu")` (fp32), runs a seeded request
      set and writes, per checkpoint, <out>/<name>.json (synth parameters, SHA-256 of
      model.safetensors, requests, the token rows the model saw, logits, act logits, response JSON)
      and <out>/<name>.f32 (little-endian float32 intermediates of a few requests, valid positions
      only, rows packed back to back as the engine packs them).
  $LAYA_ORACLE_PYTHON tools/oracle/model_goldens.py --checkpoint DIR --requests N --out-prefix P
      The same record for an existing checkpoint directory (e.g. a synthetic `english` one), for a
      one-off comparison (`laya-engine` side: tests/backends/cpu compare tool, see docs/cpu-backend.md).

$LAYA_ORACLE_PYTHON defaults to /opt/laya-oracle/bin/python; the script re-executes itself with it
when torch/laya are not importable by the current interpreter.
"""
import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile

ORACLE = os.environ.get("LAYA_ORACLE_PYTHON", "/opt/laya-oracle/bin/python")

try:
    import numpy as np
    import torch
    import laya
except ImportError:
    if os.path.realpath(sys.executable) != os.path.realpath(ORACLE) and os.path.exists(ORACLE):
        os.execv(ORACLE, [ORACLE] + sys.argv)
    sys.exit("model_goldens.py: needs the oracle environment (tools/oracle/setup_venv.sh); "
             "set LAYA_ORACLE_PYTHON")

# The checkpoints: different seeds, an odd and an even layer count, a narrow local window
# (window/2 = 4 tokens, far below the row lengths), a wider model (3 heads), and a long max_len so
# 50-option questions fit.
CHECKPOINTS = [
    {"name": "tiny_s11", "seed": 11, "synth": {}, "requests": 50, "dump_requests": 3},
    {"name": "tiny_s12_l4_len256", "seed": 12, "synth": {"layers": 4, "max_len": 256}, "requests": 50,
     "dump_requests": 2},
    {"name": "tiny_s13_l5_w8_d192", "seed": 13, "synth": {"layers": 5, "local_window": 8, "hidden": 192},
     "requests": 50, "dump_requests": 2},
]

WORDS = ("the a customer order refund charge twice billing account password reset login error "
         "shipping late package damaged please help urgent today tomorrow invoice price plan "
         "upgrade cancel subscription thanks hello support team issue problem question answer "
         "email phone address change update delivery tracking number missing item wrong size "
         "café naïve 日本 données über résumé ok yes no maybe [MASK] 42 3.14 — \"quoted\" {brace}").split()


def sentence(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


def make_question(rng, max_options):
    t = rng.choice(["choice", "score", "noul"])
    ins = sentence(rng, rng.choice([1, 3, 6, 12, 25]))
    if t == "choice":
        n = rng.choice([1, 2, 2, 3, 4, 5, 7, 10, 20, 35, 50])
        n = min(n, max_options)
        labels = []
        while len(labels) < n:
            lab = "%s_%d" % (rng.choice(WORDS[:40]), len(labels))
            labels.append(lab)
        if rng.random() < 0.3:
            crit = labels
        else:
            crit = {lab: (sentence(rng, rng.choice([1, 2, 5, 9])) if rng.random() < 0.8 else None) for lab in labels}
        return {"type": "choice", "instructions": ins, "criteria": crit}
    if t == "score":
        n = rng.choice([1, 2, 3, 4, 5, 6])
        return {"type": "score", "instructions": ins, "criteria": [sentence(rng, rng.choice([1, 3, 6])) for _ in range(n)]}
    q = {"type": "noul", "instructions": ins}
    r = rng.random()
    if r < 0.3:
        q["criteria"] = {"true": sentence(rng, 4), "false": sentence(rng, 3)}
    elif r < 0.45:
        q["criteria"] = {"true": sentence(rng, 2)}
    if rng.random() < 0.2:
        q["labels"] = {"false": "nope", "true": "yep"}
    return q


def make_request(rng, i, max_len, max_options):
    kind = rng.random()
    n_words = rng.choice([0, 1, 2, 5, 10, 20, 40, 80, 150, 300])
    if kind < 0.75:
        state = sentence(rng, n_words)
    elif kind < 0.9:
        state = {"ticket": sentence(rng, n_words), "priority": rng.choice([1, 2, 3]), "vip": rng.random() < 0.5}
    else:
        state = [{"role": rng.choice(["user", "agent"]), "text": sentence(rng, max(1, n_words // 3))} for _ in range(3)]
    nq = rng.choice([1, 1, 1, 2, 3, 4, 5, 8, 12, 16])
    questions = {}
    for j in range(nq):
        questions["q%d_%d" % (i, j)] = make_question(rng, max_options)
    return {"state": state, "questions": questions}


class Capture:
    """Forward hooks on the official modules; keeps valid positions only, rows packed."""

    def __init__(self, model):
        self.model = model
        self.on = False
        self.data = {}
        self.handles = []
        enc = model.encoder
        self.handles.append(model.register_forward_pre_hook(self._pre))
        self.handles.append(model.register_forward_hook(self._out))
        self.handles.append(enc.embeddings.register_forward_hook(self._named("embed")))
        for i, layer in enumerate(enc.layers):
            self.handles.append(layer.register_forward_hook(self._named("encoder.%d" % i)))
        self.handles.append(enc.final_norm.register_forward_hook(self._named("final_norm")))
        if model.head is not None:
            for i, layer in enumerate(model.head.layers):
                self.handles.append(layer.register_forward_hook(self._named("head.%d" % i)))

    def reset(self):
        self.data = {}

    def _pre(self, module, args):
        ids, att, mpos, mmask, qtype = args[:5]
        self.data["inputs"] = (ids.clone(), att.clone(), mpos.clone(), mmask.clone(), qtype.clone())

    def _out(self, module, args, out):
        logits, act = out
        self.data["logits"] = logits.detach().float().clone()
        self.data["act"] = act.detach().float().clone()

    def _named(self, name):
        def hook(module, args, out):
            t = out[0] if isinstance(out, tuple) else out
            if hasattr(t, "last_hidden_state"):
                t = t.last_hidden_state
            self.data[name] = t.detach().float().clone()
        return hook

    def packed(self, name):
        ids, att = self.data["inputs"][0], self.data["inputs"][1]
        lens = att.sum(1).tolist()
        t = self.data[name]
        return torch.cat([t[r, : lens[r]] for r in range(t.shape[0])], 0).numpy().astype("<f4")


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def synth(engine, seed, params, out):
    cmd = [engine, "synth", "--layout", "tiny", "--seed", str(seed)]
    for k, v in params.items():
        cmd += ["--" + k.replace("_", "-"), str(v)]
    cmd.append(out)
    subprocess.run(cmd, check=True)


def run_checkpoint(model_dir, n_requests, n_dump, seed, name, out_prefix, synth_record=None, dump_token_budget=160):
    torch.manual_seed(0)
    agent = laya.Agent(model_dir, device="cpu")
    agent.model.eval()
    cfg = agent.cfg
    max_len = cfg.get("max_len", 512)
    head_max_len = cfg.get("head_max_len", 192)
    max_options = 50
    cap = Capture(agent.model)
    rng = random.Random(seed * 7919 + 1)
    records = []
    blob = bytearray()
    n_made = 0
    while len(records) < n_requests:
        req = make_request(rng, n_made, max_len, max_options)
        n_made += 1
        cap.reset()
        try:
            resp = agent.system_one(req["state"], req["questions"])
        except ValueError as e:
            # options over head_max_len on this checkpoint: not what this set tests; draw again
            if "exceed head_max_len" in str(e):
                continue
            raise
        ids, att, mpos, mmask, qtype = cap.data["inputs"]
        lens = att.sum(1).tolist()
        rows = []
        for r in range(ids.shape[0]):
            k = int(mmask[r].sum())
            rows.append({"ids": ids[r, : lens[r]].tolist(), "markers": mpos[r, :k].tolist(), "qtype": int(qtype[r])})
        logits = cap.data["logits"]
        rec = {
            "request": req,
            "rows": rows,
            "logits": [[float(v) for v in logits[r, : len(rows[r]["markers"])].tolist()] for r in range(len(rows))],
            "act_logits": [[float(v) for v in row] for row in cap.data["act"].tolist()],
            "response": json.dumps(resp, ensure_ascii=False, separators=(",", ":")),
        }
        n_dumped = sum(1 for r in records if "tensors" in r)
        if n_dumped < n_dump and sum(lens) <= dump_token_budget:
            tensors = {}
            names = ["embed"] + ["encoder.%d" % i for i in range(len(agent.model.encoder.layers))] + ["final_norm"]
            names += ["head.%d" % i for i in range(len(agent.model.head.layers))] if agent.model.head is not None else []
            for nm in names:
                a = cap.packed(nm)
                tensors[nm] = {"offset": len(blob) // 4, "rows": int(a.shape[0]), "cols": int(a.shape[1])}
                blob += a.tobytes()
            # post-head hidden state at each marker, rows in order
            last = cap.data["head.%d" % (len(agent.model.head.layers) - 1)]
            mk = torch.cat([last[r, mpos[r, : len(rows[r]["markers"])]] for r in range(len(rows))], 0).numpy().astype("<f4")
            tensors["markers"] = {"offset": len(blob) // 4, "rows": int(mk.shape[0]), "cols": int(mk.shape[1])}
            blob += mk.tobytes()
            rec["tensors"] = tensors
        records.append(rec)
    meta = {
        "name": name,
        "generator": "tools/oracle/model_goldens.py",
        "laya": laya.__version__ if hasattr(laya, "__version__") else "?",
        "torch": torch.__version__,
        "transformers": __import__("transformers").__version__,
        "synth": synth_record,
        "model_safetensors_sha256": sha256(os.path.join(model_dir, "model.safetensors")),
        "max_len": max_len,
        "head_max_len": head_max_len,
        "tensor_file": os.path.basename(out_prefix) + ".f32",
        "records": records,
    }
    with open(out_prefix + ".json", "w", encoding="utf-8") as f:
        json.dump(meta, f, ensure_ascii=False, separators=(",", ":"))
    with open(out_prefix + ".f32", "wb") as f:
        f.write(bytes(blob))
    lengths = [len(r["ids"]) for rec in records for r in rec["rows"]]
    nq = [len(rec["rows"]) for rec in records]
    nopt = [len(r["markers"]) for rec in records for r in rec["rows"]]
    print("%s: %d requests, %d rows, row length %d..%d, questions %d..%d, options %d..%d, %d KB floats" % (
        name, len(records), len(lengths), min(lengths), max(lengths), min(nq), max(nq), min(nopt), max(nopt),
        len(blob) // 1024), file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default="build/release/bin/laya-engine")
    ap.add_argument("--out", default="tests/data/cpu")
    ap.add_argument("--checkpoint", help="existing checkpoint directory (one-off mode)")
    ap.add_argument("--requests", type=int, default=5)
    ap.add_argument("--dump-requests", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out-prefix", help="one-off mode: output path without extension")
    a = ap.parse_args()
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    if a.checkpoint:
        prefix = a.out_prefix or os.path.join(tempfile.gettempdir(), "laya_golden")
        run_checkpoint(a.checkpoint, a.requests, a.dump_requests, a.seed, os.path.basename(prefix), prefix,
                       dump_token_budget=1 << 30)
        return
    os.makedirs(a.out, exist_ok=True)
    for c in CHECKPOINTS:
        with tempfile.TemporaryDirectory() as tmp:
            d = os.path.join(tmp, c["name"])
            synth(a.engine, c["seed"], c["synth"], d)
            rec = {"layout": "tiny", "seed": c["seed"], **c["synth"]}
            run_checkpoint(d, c["requests"], c["dump_requests"], c["seed"], c["name"], os.path.join(a.out, c["name"]), rec)


if __name__ == "__main__":
    main()
