#!/usr/bin/env python3
"""Golden data for laya::decode's float32 numerics: numpy's np.exp / np.log on float32 arrays and
torch.softmax on [n, 2] float32 action logits, as the official decoder runs them.

Usage (the oracle venv, see tools/oracle/setup_venv.sh):
  ${LAYA_ORACLE_PYTHON:-/opt/laya-oracle/bin/python} tools/oracle/api_numerics_oracle.py | gzip -9n > tests/data/decode/numerics.txt.gz
Lines: "exp XIN XOUT", "log XIN XOUT" (float32 bit patterns in hex), "sm A B P0" (hex).
"""
import sys

import numpy as np
import torch


def hx(a):
    return ["%08x" % v for v in np.asarray(a, dtype=np.float32).view(np.uint32).tolist()]


def main():
    rng = np.random.default_rng(7)
    n = 6000
    x = np.concatenate([
        -rng.random(n // 2) * rng.choice([1, 10, 30, 110], n // 2),
        rng.standard_normal(n // 4) * 20,
        -np.abs(rng.standard_normal(n // 4)) * 1e-3,
    ]).astype(np.float32)
    e = np.exp(x)
    for a, b in zip(hx(x), hx(e)):
        print("exp", a, b)
    y = np.concatenate([rng.random(n // 2), rng.random(n // 2) ** 12, np.array([1e-12, 1.0, 0.5], np.float32)])
    y = np.clip(y.astype(np.float32), 1e-12, 1.0)
    lg = np.log(y)
    for a, b in zip(hx(y), hx(lg)):
        print("log", a, b)
    acts = (rng.standard_normal((n, 2)) * rng.choice([0.3, 3, 10, 40], size=(n, 1))).astype(np.float32)
    p = torch.softmax(torch.from_numpy(acts).float(), -1).numpy()
    for (a0, a1), p0 in zip(acts.tolist(), p[:, 0].tolist()):
        print("sm", *hx([a0, a1]), hx([p0])[0])


if __name__ == "__main__":
    main()
