#!/usr/bin/env python3
"""HF tokenizers side of the tokenizer benchmark (same corpus and inputs as bench_tokenizer.cpp).

Usage: $LAYA_ORACLE_PYTHON bench/tokenizer/hf_bench.py [FIXTURES_DIR]
(python with `tokenizers`; create one with tools/oracle/setup_venv.sh)
"""
import gzip
import json
import os
import sys
import time
from pathlib import Path

import tokenizers
from tokenizers import Tokenizer

ROOT = Path(__file__).resolve().parents[2]
fixtures = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "fixtures"
print(f"| measurement (HF tokenizers {tokenizers.__version__}) | value |\n|---|---|")
for name in ["tokenizer-modernbert", "tokenizer-mmbert-standin"]:
    t0, c0 = time.perf_counter(), time.process_time()
    Tokenizer.from_file(str(fixtures / name / "tokenizer.json"))
    print(f"| load {name} | {(time.perf_counter() - t0) * 1e3:.1f} ms wall, {(time.process_time() - c0) * 1e3:.0f} ms CPU |")
tok = Tokenizer.from_file(str(fixtures / "tokenizer-modernbert" / "tokenizer.json"))
rows = [json.loads(l) for l in gzip.open(ROOT / "tests/data/tokenizer/corpus-modernbert.jsonl.gz", "rt")][1:]
texts = [r["t"] for r in rows if r["k"] != "long_word"]
nbytes = sum(len(t.encode()) for t in texts)
for label, fn in [("encode loop, 1 thread", lambda: [tok.encode(t, add_special_tokens=False) for t in texts]),
                  (f"encode_batch, {os.cpu_count()} cores", lambda: tok.encode_batch(texts, add_special_tokens=False))]:
    fn()  # warm the cache
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    s, c = time.perf_counter() - t0, time.process_time() - c0
    ntok = sum(len(e.ids) for e in out)
    print(f"| corpus ({len(texts)} strings, {nbytes / 1e6:.2f} MB, {ntok} tokens), {label} | {nbytes / 1e6 / s:.1f} MB/s, "
          f"{ntok / 1e6 / s:.2f} M tokens/s wall; {nbytes / 1e6 / c:.1f} MB/s per CPU-second (incl. Python loop) |")
req = ("choice question: Which department should handle this customer request about a double charge on invoice 88213, "
       "and should we refund it today or escalate?")
n = 20000
t0, c0 = time.perf_counter(), time.process_time()
for _ in range(n):
    tok.encode(req, add_special_tokens=False)
warm = (time.perf_counter() - t0) / n * 1e6
warm_cpu = (time.process_time() - c0) / n * 1e6
reqs = [f"{req[:100]} ticket {i * 7919} user{i * 31} code{i * 131}" for i in range(2000)]
t0, c0 = time.perf_counter(), time.process_time()
for r in reqs:
    tok.encode(r, add_special_tokens=False)
cold = (time.perf_counter() - t0) / len(reqs) * 1e6
cold_cpu = (time.process_time() - c0) / len(reqs) * 1e6
print(f"| 48-token request: {len(tok.encode(req, add_special_tokens=False).ids)} tokens | {warm:.2f} µs wall, {warm_cpu:.2f} µs CPU (same text); "
      f"{cold:.2f} µs wall, {cold_cpu:.2f} µs CPU (distinct texts), incl. Python call overhead |")
x = 7
lcg = []
for _ in range(1 << 20):
    x = (x * 6364136223846793005 + 1442695040888963407) % (1 << 64)
    lcg.append(chr(ord("a") + (x >> 33) % 26))
for name, text in [("'a' x 1 MiB", "a" * (1 << 20)), ("'abc' x 1 MiB", ("abc" * (1 << 19))[: 1 << 20]),
                   ("digits 1 MiB", ("0123456789" * (1 << 17))[: 1 << 20]), ("random letters 1 MiB", "".join(lcg))]:
    t0, c0 = time.perf_counter(), time.process_time()
    ids = tok.encode(text, add_special_tokens=False).ids
    print(f"| {name} (one word) | {(time.perf_counter() - t0) * 1e3:.0f} ms wall, {(time.process_time() - c0) * 1e3:.0f} ms CPU, {len(ids)} tokens |")
