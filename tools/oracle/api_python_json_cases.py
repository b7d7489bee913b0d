#!/usr/bin/env python3
"""Golden data for laya::api's Python-compatible JSON rendering (no packages needed).

Generates seeded random JSON documents (odd number spellings, unicode, escapes, control characters,
big integers, duplicate keys) and records what CPython's json module and repr() make of them:
    [input_text, json.dumps(x, ensure_ascii=False), json.dumps(x, ensure_ascii=False,
     separators=(",", ":")), repr(x), len(str(x))]
one JSON array per line.

Usage: python3 tools/oracle/api_python_json_cases.py [--n 3000] [--seed 1] | gzip -9n > tests/data/api/python_json_cases.jsonl.gz
(Plain CPython is enough; tools/oracle/setup_venv.sh is only needed for the laya oracles.)
"""
import argparse
import json
import random
import sys

CHARS = (list("abcXYZ 019_-'\"\\/{}[],:") + ["\n", "\r", "\t", "\b", "\f", "\x00", "\x01", "\x1f", "\x7f",
         "\x80", "\x9f", "\xa0", "\xad", "é", "ß", "İ", "\u2028", "\u2029", "\u200b", "\u3000", "日本", "🙂",
         "\U0001F600", "\ufeff", "\ue000", "\u0378", "[MASK]", "ع", "\u00a0x", "\U000E0001"])

def rand_str(r):
    return "".join(r.choice(CHARS) for _ in range(r.randint(0, 8)))

def esc_str(r, s):
    # Spell a string with random escaping choices.
    out = ['"']
    for ch in s:
        c = ord(ch)
        if ch == '"' or ch == "\\" or c < 0x20 or r.random() < 0.15:
            if c > 0xFFFF:
                c -= 0x10000
                out.append("\\u%04x\\u%04X" % (0xD800 + (c >> 10), 0xDC00 + (c & 0x3FF)))
            elif ch in "\"\\/\b\f\n\r\t" and r.random() < 0.5:
                out.append({'"': '\\"', "\\": "\\\\", "/": "\\/", "\b": "\\b", "\f": "\\f", "\n": "\\n",
                            "\r": "\\r", "\t": "\\t"}[ch])
            else:
                out.append("\\u%04x" % c if r.random() < 0.5 else "\\u%04X" % c)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)

def rand_number(r):
    k = r.randint(0, 9)
    if k == 0:
        return str(r.randint(-10**6, 10**6))
    if k == 1:
        return str(r.randint(-10**40, 10**40))  # big ints
    if k == 2:
        return r.choice(["0", "-0", "0.0", "-0.0", "1e5", "1E5", "1e+5", "1e-5", "1e16", "1e15", "1e-4",
                         "0.0001", "0.00001", "123456789012345678", "1.5e300", "5e-324", "2.2250738585072014e-308",
                         "1e-400", "-1e-400", "0.1", "0.30000000000000004", "100", "1.0", "1e0", "9007199254740993",
                         "1.7976931348623157e308", "4.9e-324", "1e22", "1e21", "123e-20", "0e10", "-0e-3"])
    if k == 3:
        return repr(r.uniform(-1e6, 1e6))
    if k == 4:
        m = r.randint(1, 10**r.randint(1, 17))
        e = r.randint(-340, 290)
        return "%s%de%d" % (r.choice(["", "-"]), m, e)
    if k == 5:
        return "%d.%0*d" % (r.randint(0, 999), r.randint(1, 20), r.randint(0, 10**6))
    if k == 6:
        return repr(r.random() * 10 ** r.randint(-20, 20))
    if k == 7:
        return "%de%+d" % (r.randint(0, 99), r.randint(-20, 20))
    if k == 8:
        return repr(float(r.randint(0, 2**53)) * 2.0 ** r.randint(-60, 60))
    return "%d.%de%d" % (r.randint(0, 9), r.randint(0, 99999), r.randint(-30, 30))

def rand_value(r, depth=0):
    k = r.randint(0, 9 if depth < 4 else 5)
    ws = lambda: r.choice(["", "", " ", "\n", "\t ", "\r\n"])
    if k <= 1:
        return rand_number(r)
    if k == 2:
        return esc_str(r, rand_str(r))
    if k == 3:
        return r.choice(["true", "false", "null"])
    if k in (4, 5):
        return esc_str(r, rand_str(r))
    if k in (6, 7):
        return "[" + ws() + ("," + ws()).join(rand_value(r, depth + 1) for _ in range(r.randint(0, 4))) + ws() + "]"
    keys = [rand_str(r) for _ in range(r.randint(0, 4))]
    if keys and r.random() < 0.2:
        keys.append(r.choice(keys))  # duplicate key
    return "{" + ws() + ("," + ws()).join(esc_str(r, kk) + ws() + ":" + ws() + rand_value(r, depth + 1)
                                        for kk in keys) + ws() + "}"

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    r = random.Random(a.seed)
    out = sys.stdout
    for _ in range(a.n):
        text = rand_value(r)
        # json.loads would accept a document whose first level repeats a key; so do we below the top.
        x = json.loads(text)
        row = [text, json.dumps(x, ensure_ascii=False), json.dumps(x, ensure_ascii=False, separators=(",", ":")),
               repr(x), len(str(x))]
        out.write(json.dumps(row, ensure_ascii=False) + "\n")

if __name__ == "__main__":
    main()
