#!/usr/bin/env python3
"""Golden rows and responses from the OFFICIAL laya 0.3.20 code (no model weights needed).

Builds a `laya.agent.Agent` by hand (`Agent.__new__`) with the real ModernBERT tokenizer from the
shared fixtures and the English or typed-decisions configuration, replaces only the model forward
(`Agent._infer`) by seeded random logits, and runs seeded generated requests through the same steps
as laya.serve's POST /v1/systemone handler (json.loads of the body, the request checks, then
`system_one`: `_check_question`, `_to_internal`, `_encode_state`/`build_sequence`, `collate_items`,
`_forward` (torch softmax of the action logits) and `_decode_answers`).

Writes JSON lines to stdout:
  {"kind":"ok","cfg":..,"body":..,"rows":[[len,[markers],qtype,"fnv64 of ids"],...],
   "logits":[[...],...],"act":[[a,b],...],"response":"<exact bytes>"}
  {"kind":"error","cfg":..,"body":..,"status":N,"detail":"..."}
The response bytes are json.dumps(result, ensure_ascii=False, separators=(",", ":")) (what
Starlette's JSONResponse sends), without the Router's `routing` block.

Usage (needs the oracle venv; create it with tools/oracle/setup_venv.sh):
  ${LAYA_ORACLE_PYTHON:-/opt/laya-oracle/bin/python} tools/oracle/rows_decode_oracle.py \
      --fixtures ../shared/fixtures --n 560 --seed 4 | gzip -9n > tests/data/api/oracle_cases.jsonl.gz
  ... --n 150 --seed 9 --multilingual | gzip -9n > tests/data/api/oracle_cases_multilingual.jsonl.gz
"""
import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import warnings

import numpy as np
import torch

from laya.agent import Agent, _fix_tokenizer_config
from laya.common import clamp_temperature
from laya.serve import MAX_QUESTIONS, MAX_STATE_CHARS

WORDS = ("the customer was charged twice for an order please refund duplicate today invoice login error "
         "password reset shipping delayed package lost angry happy urgent cancel subscription upgrade plan "
         "bonjour merci beaucoup gracias por favor danke schön привет спасибо 你好 谢谢 こんにちは ありがとう "
         "مرحبا شكرا नमस्ते धन्यवाद 🙂 🚀 naïve café résumé Zürich [MASK] <mask> [CLS] [SEP] \\ \" ' \t \n").split(" ")


def fnv64(ids):
    h = 0xcbf29ce484222325
    for v in ids:
        for b in int(v).to_bytes(4, "little", signed=True):
            h ^= b
            h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def make_standin_tokenizer(fixtures):
    """The multilingual stand-in (no tokenizer_config.json ships with it): special tokens as in
    goldens/multilingual/meta.json."""
    from transformers import AutoTokenizer
    tmp = tempfile.mkdtemp(prefix="laya_oracle_tok_")
    os.makedirs(os.path.join(tmp, "tokenizer"))
    shutil.copy(os.path.join(fixtures, "tokenizer-mmbert-standin", "tokenizer.json"),
                os.path.join(tmp, "tokenizer", "tokenizer.json"))
    with open(os.path.join(tmp, "tokenizer", "tokenizer_config.json"), "w") as f:
        json.dump({"tokenizer_class": "TokenizersBackend", "mask_token": "<mask>", "cls_token": "<bos>",
                   "sep_token": "<eos>", "pad_token": "<pad>", "unk_token": "<unk>", "bos_token": "<bos>",
                   "eos_token": "<eos>"}, f)
    _fix_tokenizer_config(tmp)
    return AutoTokenizer.from_pretrained(os.path.join(tmp, "tokenizer"))


def make_tokenizer(fixtures):
    from transformers import AutoTokenizer
    tmp = tempfile.mkdtemp(prefix="laya_oracle_tok_")
    os.makedirs(os.path.join(tmp, "tokenizer"))
    src = os.path.join(fixtures, "tokenizer-modernbert")
    shutil.copy(os.path.join(src, "tokenizer.json"), os.path.join(tmp, "tokenizer", "tokenizer.json"))
    shutil.copy(os.path.join(src, "original", "tokenizer_config.json"),
                os.path.join(tmp, "tokenizer", "tokenizer_config.json"))
    sp = os.path.join(src, "original", "special_tokens_map.json")
    if os.path.exists(sp):
        shutil.copy(sp, os.path.join(tmp, "tokenizer", "special_tokens_map.json"))
    _fix_tokenizer_config(tmp)
    return AutoTokenizer.from_pretrained(os.path.join(tmp, "tokenizer"))


class Forward:
    """Replaces Agent._infer: seeded logits/act logits for the collated batch; records them."""

    def __init__(self):
        self.rng = np.random.default_rng(0)
        self.last = None

    def reseed(self, seed):
        self.rng = np.random.default_rng(seed)

    def __call__(self, b):
        n, kmax = b["marker_pos"].shape
        rng = self.rng
        mode = rng.integers(0, 6)
        if mode == 0:
            lg = rng.integers(-3, 4, size=(n, kmax)).astype(np.float32)  # many exact ties
        else:
            lg = (rng.standard_normal((n, kmax)) * rng.choice([0.05, 0.5, 2.0, 6.0])).astype(np.float32)
        lg = np.where(b["marker_mask"].numpy(), lg, np.float32(-1e4)).astype(np.float32)
        if rng.random() < 0.6:
            act = (rng.standard_normal((n, 2)) * 4000).astype(np.float32)
        else:
            act = (rng.standard_normal((n, 2)) * rng.choice([0.2, 1.0, 4.0])).astype(np.float32)
        self.last = (lg.copy(), act.copy(), b)
        return torch.from_numpy(lg), torch.from_numpy(act)


def make_agent(fixtures, meta_path, tok, fwd):
    meta = json.load(open(meta_path))
    cfg = meta["config"]
    a = Agent.__new__(Agent)
    a.cfg = cfg
    a.tok = tok
    a.device = torch.device("cpu")
    a.temperature_raw = list(cfg.get("temperature", [1.0, 1.0, 1.0]))
    a.temperature_by_options_raw = dict(cfg.get("temperature_by_options", {}))
    a.temperature = [clamp_temperature(t) for t in a.temperature_raw]
    a.temperature_by_options = {k: clamp_temperature(v) for k, v in a.temperature_by_options_raw.items()}
    a.lang_temperatures = {}
    a._infer = fwd
    return a


def serve_like(agent, body_bytes):
    """laya.serve.systemone minus HTTP/auth/Router: (status, detail_or_result)."""
    try:
        body = json.loads(body_bytes)
    except ValueError:
        return 400, "request body must be valid JSON"
    except Exception:
        return 500, "inference failed"
    if not isinstance(body, dict) or "questions" not in body:
        return 400, "request body must be an object with a 'questions' field"
    state = body.get("state")
    questions = body["questions"]
    if not isinstance(questions, dict):
        return 400, "'questions' must be an object"
    if len(questions) > MAX_QUESTIONS:
        return 413, "too many questions (%d > %d)" % (len(questions), MAX_QUESTIONS)
    try:
        state_len = len(state) if isinstance(state, str) else len(str(state))
    except Exception:
        state_len = MAX_STATE_CHARS + 1
    if state_len > MAX_STATE_CHARS:
        return 413, "state too large (%d > %d chars)" % (state_len, MAX_STATE_CHARS)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return 200, agent.system_one(state, questions)
    except ValueError as e:
        return 422, str(e)
    except Exception:
        return 500, "inference failed"


# ----------------------------------------------------------------------------- generation
NUM_SPELLINGS = ["1e5", "1E-7", "0.10", "-0", "-0.0", "1e16", "123456789012345678901234567890", "5e-324",
                 "0.1", "1e-05", "2.50", "100", "-17", "3.14159265358979323846", "1e+2", "0e0"]


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.raw = {}

    def num(self):
        key = "__RAWNUM_%d__" % len(self.raw)
        self.raw[key] = self.r.choice(NUM_SPELLINGS)
        return key

    def text(self, lo=1, hi=12):
        r = self.r
        words = [r.choice(WORDS) for _ in range(r.randint(lo, hi))]
        return " ".join(words)

    def long_text(self, n_words):
        return " ".join(self.r.choice(WORDS[:40]) for _ in range(n_words))

    def scalar(self):
        r = self.r
        k = r.randint(0, 5)
        return [self.text(1, 3), self.num(), True, False, None, r.randint(-5, 500)][k]

    def structured(self, depth=0):
        r = self.r
        if depth > 2 or r.random() < 0.4:
            return self.scalar()
        if r.random() < 0.5:
            return [self.structured(depth + 1) for _ in range(r.randint(0, 3))]
        return {self.text(1, 2): self.structured(depth + 1) for _ in range(r.randint(0, 3))}

    def state(self, long_ok=True):
        r = self.r
        k = r.randint(0, 9)
        if k <= 3:
            return self.text(3, 60)
        if k == 4 and long_ok and r.random() < 0.5:
            return self.long_text(r.choice([250, 600, 1200]))
        if k in (5, 6):
            d = {"ticket": self.text(2, 10), "meta": self.structured(), "n": self.num(), "id": r.randint(0, 10**6)}
            if r.random() < 0.3:
                d["body"] = self.long_text(r.choice([100, 400]))
            return d
        if k in (7, 8):
            turns = [{"role": r.choice(["user", "assistant"]), "content": self.text(2, 25)}
                     for _ in range(r.randint(1, 8))]
            if long_ok and r.random() < 0.4:
                turns += [{"role": "user", "content": self.long_text(150)} for _ in range(r.randint(1, 4))]
            return turns
        return r.choice([self.num(), True, r.randint(0, 99), [1, 2, 3], {}, [], ""])

    def instructions(self):
        r = self.r
        if r.random() < 0.8:
            return self.text(2, 20) + r.choice(["?", "", " [MASK]?", "."])
        return self.structured()

    def question(self, allow_many=True):
        r = self.r
        t = r.choice(["choice", "choice", "score", "noul"])
        q = {"type": t, "instructions": self.instructions()}
        if t == "choice":
            n = r.choice([1, 2, 2, 3, 4, 5, 6, 8, 11, 20]) if not allow_many or r.random() < 0.85 else \
                r.choice([30, 50, 77, 100])
            if r.random() < 0.3:
                labels = [self.text(1, 3) for _ in range(n)]
                if r.random() < 0.3 and labels:
                    labels.append(labels[0])  # duplicates collapse
                q["criteria"] = labels
            else:
                crit = {}
                for i in range(n):
                    label = self.text(1, 3) + ("" if r.random() < 0.7 else " %d" % i)
                    kind = r.randint(0, 9)
                    if kind <= 4:
                        crit[label] = self.text(1, r.choice([5, 10, 60 if n <= 20 else 10]))
                    elif kind == 5:
                        crit[label] = None
                    elif kind == 6:
                        crit[label] = ""
                    elif kind == 7:
                        crit[label] = r.choice([0, False, True, self.num()])
                    else:
                        crit[label] = self.structured(1)
                q["criteria"] = crit
        elif t == "score":
            n = r.randint(1, 12)
            q["criteria"] = [self.text(1, 8) if r.random() < 0.7 else self.structured(1) for _ in range(n)]
            if r.random() < 0.1:
                q["criteria"].append(None)
        else:
            k = r.randint(0, 5)
            if k == 1:
                q["criteria"] = {r.choice(["true", "True", "TRUE"]): self.text(2, 8)}
            elif k == 2:
                q["criteria"] = {"false": self.text(2, 8), "true": r.choice([self.text(2, 8), "", None])}
            elif k == 3:
                q["criteria"] = None
            if r.random() < 0.3:
                q["labels"] = r.choice([{"false": " no ", "true": "yes"}, {"false": "B", "true": "A"},
                                        {"false": "nein", "true": "ja\u3000"}, None])
        return q

    def request(self):
        r = self.r
        self.raw = {}
        nq = r.choice([1, 1, 1, 2, 3, 4, 6, 16])
        qs = {}
        for i in range(nq):
            qid = r.choice(["q%d" % i, "it's %d" % i, "Frage_%d" % i, "决定%d" % i, "q\"%d" % i])
            qs[qid] = self.question(allow_many=nq <= 2)
        body = {"state": self.state(), "questions": qs}
        if r.random() < 0.2:
            body["model"] = r.choice(["english", "jev-1", "typed-decisions"])
        if r.random() < 0.05:
            body["max_len"] = 64  # 0.3.20 ignores it
        text = json.dumps(body, ensure_ascii=r.random() < 0.3)
        for key, spelling in self.raw.items():
            text = text.replace('"%s"' % key, spelling)
        return text


ERROR_BODIES = [
    # (body, our_expected_status or None when we must match the official status+detail)
    ("not json", None),
    ("[1, 2]", None),
    ('{"state": "x"}', None),
    ('{"state": "x", "questions": []}', None),
    ('{"state": "x", "questions": {"q1": 5}}', None),
    ('{"state": "x", "questions": {"q1": {"type": "x", "instructions": "i"}}}', None),
    ('{"state": "x", "questions": {"q1": {"type": "choice"}}}', None),
    ('{"state": "x", "questions": {"q1": {"instructions": "i"}}}', None),
    ('{"state": "x", "questions": {"q1": {"type": "choice", "instructions": "i", "criteria": {}}}}', None),
    ('{"state": "x", "questions": {"q1": {"type": "choice", "instructions": "i", "criteria": "abc"}}}', None),
    ('{"state": "x", "questions": {"q1": {"type": "score", "instructions": "i", "criteria": {"a": 1}}}}', None),
    ('{"state": "x", "questions": {"q1": {"type": "score", "instructions": "i", "criteria": []}}}', None),
    ('{"state": "x", "questions": {"q1": {"type": "noul", "instructions": "i", "criteria": "t"}}}', None),
    ('{"state": "x", "questions": {"q1": {"type": "noul", "instructions": "i", "criteria": {"yes": "a", "TRUE": "b"}}}}', None),
    ('{"state": "x", "questions": {"q1": {"type": "choice", "instructions": "i", "criteria": ["a"], "labels": null}}}', None),
    ('{"state": "x", "questions": {"q1": {"type": "noul", "instructions": "i", "labels": {"false": "a", "true": "a"}}}}', None),
    ('{"state": "x", "questions": {"q1": {"type": "noul", "instructions": "i", "labels": {"false": " ", "true": "a"}}}}', None),
    ('{"state": "x", "questions": {"q1": {"type": "noul", "instructions": "i", "labels": {"false": "n", "true": "y", "x": "z"}}}}', None),
    ('{"state": "x", "questions": {"it\'s": {"type": "bool", "instructions": "i"}}}', None),
    ('{"state": "x", "questions": {"q\\"1": {"type": null, "instructions": "i"}}}', None),
    ('{"state": "x", "questions": {"q1": {"type": 3, "instructions": "i"}}}', None),
    ('{"state": "x", "questions": {"q1": {"type": "noul", "instructions": "i"}, "q2": {"type": "choice", "instructions": "i", "criteria": null}}}', None),
    # Documented divergences: the official server accepts these or fails with a 500.
    ('{"questions": {"q1": {"type": "noul", "instructions": "i"}}}', 400),               # missing state
    ('{"state": null, "questions": {"q1": {"type": "noul", "instructions": "i"}}}', 400),  # null state
    ('{"state": NaN, "questions": {}}', 400),
    ('{"state": [1e400], "questions": {}}', 400),
    ('{"state": "\\ud800", "questions": {"q1": {"type": "noul", "instructions": "i"}}}', 400),
    ('{"state": "a", "state": "b", "questions": {}}', 400),
    ('{"state": "x", "questions": {"q1": {"type": ["choice"], "instructions": "i"}}}', 422),
    ('{"state": "x", "questions": {"q1": {"type": "choice", "instructions": "i", "criteria": [["a"], "b"]}}}', 422),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fixtures", default=os.environ.get("LAYA_FIXTURES_DIR", "../shared/fixtures"))
    ap.add_argument("--n", type=int, default=600)
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--multilingual", action="store_true",
                    help="only the multilingual configuration with the stand-in mmBERT tokenizer (cfg 'multi')")
    args = ap.parse_args()
    torch.set_num_threads(1)
    fwd = Forward()
    goldens = os.path.join(args.fixtures, "goldens")
    if args.multilingual:
        mtok = make_standin_tokenizer(args.fixtures)
        assert mtok.mask_token == "<mask>" and mtok.cls_token_id == 2 and mtok.sep_token_id == 1, "special tokens"
        agents = {"multi": make_agent(args.fixtures, os.path.join(goldens, "multilingual", "meta.json"), mtok, fwd)}
    else:
        tok = make_tokenizer(args.fixtures)
        agents = {
            "english": make_agent(args.fixtures, os.path.join(goldens, "english", "meta.json"), tok, fwd),
            "typed": make_agent(args.fixtures, os.path.join(goldens, "typed-decisions", "meta.json"), tok, fwd),
        }
    cfg_names = sorted(agents)
    gen = Gen(args.seed)
    out = sys.stdout
    n_ok = n_err = 0

    def emit_error(cfg, body, status, detail, ours=None):
        rec = {"kind": "error", "cfg": cfg, "body": body, "status": status, "detail": detail}
        if ours is not None:
            rec["ours"] = ours
        out.write(json.dumps(rec, ensure_ascii=False) + "\n")

    for i in range(args.n):
        cfg = cfg_names[0] if len(cfg_names) == 1 else ("english" if i % 3 else "typed")
        body = gen.request()
        fwd.reseed(args.seed * 100003 + i)
        fwd.last = None
        status, res = serve_like(agents[cfg], body.encode("utf-8"))
        if status != 200:
            emit_error(cfg, body, status, res)
            n_err += 1
            continue
        if fwd.last is None:  # empty questions: no forward
            rows, logits, act = [], [], []
        else:
            lg, ac, b = fwd.last
            att = b["attention_mask"].numpy()
            ids = b["input_ids"].numpy()
            mm = b["marker_mask"].numpy()
            mp = b["marker_pos"].numpy()
            qt = b["qtype"].numpy()
            rows, logits, act = [], [], []
            for r_ in range(ids.shape[0]):
                L = int(att[r_].sum())
                k = int(mm[r_].sum())
                rows.append([L, [int(x) for x in mp[r_, :k]], int(qt[r_]), fnv64(ids[r_, :L].tolist())])
                logits.append([str(np.float32(x)) for x in lg[r_, :k]])
                act.append([str(np.float32(x)) for x in ac[r_]])
        resp = json.dumps(res, ensure_ascii=False, separators=(",", ":"))
        rec = {"kind": "ok", "cfg": cfg, "body": body, "rows": rows, "logits": logits, "act": act, "response": resp}
        out.write(json.dumps(rec, ensure_ascii=False) + "\n")
        n_ok += 1

    # Head-budget / max_len edge cases: many options with long descriptions.
    for n_opts in (40, 77, 100, 150):
        for desc_words in (1, 6, 20):
            crit = {"opt %d %s" % (j, gen.text(1, 2)): gen.long_text(desc_words) for j in range(n_opts)}
            body = json.dumps({"state": gen.long_text(50), "questions": {
                "wide": {"type": "choice", "instructions": gen.long_text(30), "criteria": crit}}})
            for cfg in cfg_names:
                fwd.reseed(n_opts * 31 + desc_words)
                fwd.last = None
                status, res = serve_like(agents[cfg], body.encode("utf-8"))
                if status != 200:
                    emit_error(cfg, body, status, res)
                    n_err += 1
                    continue
                lg, ac, b = fwd.last
                att = b["attention_mask"].numpy()
                ids = b["input_ids"].numpy()
                mm = b["marker_mask"].numpy()
                mp = b["marker_pos"].numpy()
                qt = b["qtype"].numpy()
                L = int(att[0].sum())
                k = int(mm[0].sum())
                rows = [[L, [int(x) for x in mp[0, :k]], int(qt[0]), fnv64(ids[0, :L].tolist())]]
                rec = {"kind": "ok", "cfg": cfg, "body": body, "rows": rows,
                       "logits": [[str(np.float32(x)) for x in lg[0, :k]]],
                       "act": [[str(np.float32(x)) for x in ac[0]]],
                       "response": json.dumps(res, ensure_ascii=False, separators=(",", ":"))}
                out.write(json.dumps(rec, ensure_ascii=False) + "\n")
                n_ok += 1

    if args.multilingual:
        print("oracle: %d ok, %d error cases" % (n_ok, n_err), file=sys.stderr)
        return
    for body, ours in ERROR_BODIES:
        status, res = serve_like(agents["english"], body.encode("utf-8"))
        if status == 200:
            res = json.dumps(res, ensure_ascii=False, separators=(",", ":"))
        emit_error("english", body, status, res, ours)
        n_err += 1
    # Too many questions / too large states.
    many = json.dumps({"state": "x", "questions": {"q%d" % i: {"type": "noul", "instructions": "i"}
                                                   for i in range(65)}})
    status, res = serve_like(agents["english"], many.encode())
    emit_error("english", many, status, res)
    big = json.dumps({"state": {"k": "x" * 49992}, "questions": {}})
    status, res = serve_like(agents["english"], big.encode())
    emit_error("english", big, status, res)
    print("oracle: %d ok, %d error cases" % (n_ok, n_err + 2), file=sys.stderr)


if __name__ == "__main__":
    main()
