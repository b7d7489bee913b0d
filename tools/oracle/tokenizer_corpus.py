#!/usr/bin/env python3
"""Seeded tokenizer parity corpus: Hugging Face `tokenizers` is the oracle.

Writes tests/data/tokenizer/<name>.jsonl.gz (one {"k": kind, "t": text, "ids": [...]} per line, ids
of encode(text, add_special_tokens=False)) for the ModernBERT tokenizer (>= 20,000 strings) and the
mmBERT stand-in (5,000). The C++ test tests/tokenizer/parity_test.cpp requires zero mismatches.

Usage:
  $LAYA_ORACLE_PYTHON tools/oracle/tokenizer_corpus.py               # regenerate the committed data
  $LAYA_ORACLE_PYTHON tools/oracle/tokenizer_corpus.py --live [--seed N] [--n N] [--engine BIN]
      # fresh corpus, HF and `laya-engine tokenize` side by side, prints mismatches
The python must have `tokenizers` (default $LAYA_ORACLE_PYTHON or /opt/laya-oracle/bin/python;
create one with tools/oracle/setup_venv.sh).
"""
import argparse
import gzip
import json
import os
import random
import subprocess
import sys
import unicodedata
from pathlib import Path

from tokenizers import Tokenizer, __version__ as tokenizers_version

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(os.environ.get("LAYA_FIXTURES_DIR", ROOT.parent / "shared" / "fixtures"))

WORDS = """the of and to in is was for that on as with by he at from his an were are which this be
or has had not first one their its new after who they have her she two been other when there all
during into school time may years more most only over city some world would where later up such used
many can state about national out known university united then made department question billing
refund account password shipping order customer support please thanks hello world quick brown fox
jumps lazy dog I'm don't it's we're you've they'll she'd can't won't isn't O'Neil rock'n'roll
naïve café résumé coöperate façade jalapeño Zürich São Paulo Ελληνικά русский язык""".split()
ADDED_MB = ["[MASK]", "[CLS]", "[SEP]", "[PAD]", "[UNK]", "<|endoftext|>", "<|padding|>", "|||IP_ADDRESS|||",
            "|||EMAIL_ADDRESS|||", "|||PHONE_NUMBER|||", "[unused0]", "[unused17]", "[unused82]",
            "[MAS", "MASK]", "[[MASK]]", "|||IP_ADDRESS||", "<|endoftext", "[unused83]", "[mask]"]
ADDED_GEMMA = ["<mask>", "<bos>", "<eos>", "<pad>", "<unk>", "<2mass>", "[@BOS@]", "<unused0>", "<unused5>",
               "</s>", "</code>", "<start_of_turn>", "<end_of_turn>", "<mas", "<<mask>>", "<MASK>", "</sub>", "<sup>"]
WHITESPACE = [" ", "\t", "\n", "\r", "\x0b", "\x0c", "\x85", "\xa0", "\u1680", "\u2000", "\u2001", "\u2002",
              "\u2003", "\u2004", "\u2005", "\u2006", "\u2007", "\u2008", "\u2009", "\u200a", "\u2028", "\u2029",
              "\u202f", "\u205f", "\u3000", "\x1c", "\x1d", "\x1e", "\x1f", "\u180e", "\u200b", "\ufeff", "\r\n"]
CONTROLS = [chr(c) for c in list(range(0, 32)) + [127] + list(range(0x80, 0xA0))] + [
    "\u200b", "\u200c", "\u200d", "\u200e", "\u200f", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e",
    "\u2066", "\u2067", "\u2068", "\u2069", "\ufeff", "\ufffe"[:0] or "\ufffd", "\u00ad", "\u061c"]
EMOJI = ["😀", "😂", "🥲", "👍", "👍🏽", "❤️", "❤", "🇫🇷", "🇯🇵", "🏳️‍🌈", "👩‍💻", "👨‍👩‍👧‍👦", "🧑🏿‍🚀", "✌️", "☕",
         "🫠", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "#️⃣", "1️⃣", "🤷‍♀️", "\u200d", "\ufe0f", "🔥", "💯", "🙏🏻"]


def rand_scalar(rng, bmp=False):
    while True:
        c = rng.randrange(0x10000 if bmp else 0x110000)
        if not 0xD800 <= c < 0xE000:
            return chr(c)


def rand_from_ranges(rng, ranges, n):
    out = []
    for _ in range(n):
        lo, hi = rng.choice(ranges)
        out.append(chr(rng.randint(lo, hi)))
    return "".join(out)


COMBINING = [c for c in range(0x300, 0x20000) if unicodedata.combining(chr(c))]
PRECOMPOSED = [c for c in range(0xC0, 0x2000) if unicodedata.decomposition(chr(c)) and not unicodedata.decomposition(chr(c)).startswith("<")]


def prose(rng, n_words=None):
    n = n_words or rng.randint(1, 40)
    words = []
    for i in range(n):
        w = rng.choice(WORDS)
        r = rng.random()
        if r < 0.1:
            w = w.capitalize()
        elif r < 0.13:
            w = w.upper()
        elif r < 0.18:
            w = str(rng.randint(0, 10 ** rng.randint(1, 9)))
        elif r < 0.2:
            w = f"{rng.uniform(-1e4, 1e4):.{rng.randint(0, 6)}f}"
        words.append(w)
        if rng.random() < 0.15:
            words.append(rng.choice([",", ".", "!", "?", ";", ":", " -", "...", "'s", "'S", "'ll", "'re", "'ve", "'d", "'m", "'t", "’s", "\"", "(", ")"]))
    s = " ".join(words)
    if rng.random() < 0.3:
        s = s.replace(" , ", ", ").replace(" . ", ". ")
    return s


def json_text(rng):
    def val(d):
        r = rng.random()
        if d > 1 or r < 0.3:
            return rng.choice([prose(rng, rng.randint(1, 6)), rng.randint(-10**6, 10**6), rng.random() * 10 ** rng.randint(-6, 17),
                               True, False, None, "", "line1\nline2\t\"q\"", "ünïcödé 中文 😀", "[MASK]"])
        if r < 0.65:
            return {rng.choice(WORDS) + str(i): val(d + 1) for i in range(rng.randint(0, 5))}
        return [val(d + 1) for _ in range(rng.randint(0, 5))]
    v = val(0)
    mode = rng.random()
    if mode < 0.4:
        return json.dumps(v, ensure_ascii=False)
    if mode < 0.6:
        return json.dumps(v, ensure_ascii=True)
    if mode < 0.8:
        return json.dumps(v, ensure_ascii=False, indent=rng.choice([1, 2, 4, "\t"]))
    return json.dumps(json.dumps(v, ensure_ascii=rng.random() < 0.5))  # escaped JSON in a string


CODE_SNIPPETS = [
    "def f(x):\n    return x ** 2  # square\n",
    "for (int i = 0; i < n; ++i) {\n\tsum += a[i];\n}\n",
    "if __name__ == '__main__':\n    main()\n",
    "SELECT id, name FROM users WHERE age >= 21 ORDER BY name DESC;",
    "const x = {a: 1, 'b': [2, 3], \"c\": null};  // comment",
    "#include <stdio.h>\nint main(void) { printf(\"%d\\n\", 42); return 0; }",
    "    \n\n        x = y  \n\t\t\n",
    "$ ls -la /tmp && echo \"done\" | grep -v '^#' > out.txt 2>&1",
    "<div class=\"a\"><span>Hi&nbsp;there</span></div>",
    "fn main() { let v: Vec<u32> = (0..10).map(|x| x * 2).collect(); }",
    "x += 1\ny -= 2\nz *= 3\nw //= 4\n",
    "lambda s: s.strip().lower()[::-1]",
]


def code(rng):
    parts = [rng.choice(CODE_SNIPPETS) for _ in range(rng.randint(1, 4))]
    s = "".join(parts)
    if rng.random() < 0.3:
        s = s.replace("    ", "\t")
    if rng.random() < 0.3:
        s = " " * rng.randint(1, 12) + s
    return s


def cjk(rng):
    ranges = [(0x4E00, 0x9FFF), (0x3040, 0x309F), (0x30A0, 0x30FF), (0xAC00, 0xD7A3), (0x3000, 0x303F), (0xFF01, 0xFF5E), (0x3400, 0x4DBF), (0x20000, 0x2A6DF)]
    s = rand_from_ranges(rng, ranges, rng.randint(1, 60))
    if rng.random() < 0.4:
        s = prose(rng, 3) + " " + s + "。" + prose(rng, 2)
    return s


def arabic_hindi(rng):
    arabic = [(0x0621, 0x064A), (0x064B, 0x0652), (0x0660, 0x0669), (0x0671, 0x06D3)]
    hindi = [(0x0905, 0x0939), (0x093E, 0x094D), (0x0966, 0x096F), (0x0901, 0x0903)]
    rs = rng.choice([arabic, hindi, arabic + hindi])
    words = [rand_from_ranges(rng, rs, rng.randint(1, 8)) for _ in range(rng.randint(1, 12))]
    s = " ".join(words)
    if rng.random() < 0.3:
        s += " " + prose(rng, 4)
    return s


def emoji(rng):
    parts = []
    for _ in range(rng.randint(1, 12)):
        parts.append(rng.choice(EMOJI))
        if rng.random() < 0.4:
            parts.append(rng.choice([" ", "", prose(rng, 1), "!"]))
    return "".join(parts)


def combining(rng):
    out = []
    for _ in range(rng.randint(1, 10)):
        out.append(rng.choice("aeiouAEIOUnNcCszαωИя가ㄱ" + "".join(chr(x) for x in (0x0915, 0x0627))))
        for _ in range(rng.randint(0, 4)):
            out.append(chr(rng.choice(COMBINING)) if rng.random() < 0.5 else chr(rng.randint(0x300, 0x36F)))
        if rng.random() < 0.3:
            out.append(" ")
    return "".join(out)


def nfc_nfd(rng):
    chars = [chr(rng.choice(PRECOMPOSED)) if rng.random() < 0.6 else chr(rng.randint(0xAC00, 0xD7A3)) for _ in range(rng.randint(1, 12))]
    s = "".join(c if rng.random() < 0.7 else " " + c for c in chars)
    if rng.random() < 0.3:
        s = prose(rng, 3) + " " + s
    form = rng.choice(["NFC", "NFD", "NFKD", "mixed"])
    if form == "mixed":
        return "".join(unicodedata.normalize(rng.choice(["NFC", "NFD"]), c) for c in s)
    return unicodedata.normalize(form, s)


def controls(rng):
    parts = []
    for _ in range(rng.randint(1, 15)):
        parts.append(rng.choice(CONTROLS) if rng.random() < 0.5 else rng.choice(WORDS))
        if rng.random() < 0.3:
            parts.append(" ")
    return "".join(parts)


def whitespace(rng):
    parts = []
    for _ in range(rng.randint(1, 8)):
        r = rng.random()
        if r < 0.4:
            ws = rng.choice(WHITESPACE)
            parts.append(ws * rng.choice([1, 1, 2, 3, 4, 7, 16, 23, 24, 25, 31, 64, 100]))
        elif r < 0.6:
            parts.append("".join(rng.choice(WHITESPACE) for _ in range(rng.randint(1, 20))))
        else:
            parts.append(rng.choice(WORDS + ["!", "123", "'s", "[MASK]", "\U0001F600"]))
    return "".join(parts)


def added_tokens(rng, specials):
    parts = []
    for _ in range(rng.randint(1, 10)):
        r = rng.random()
        if r < 0.4:
            parts.append(rng.choice(specials))
        elif r < 0.7:
            parts.append(rng.choice(WHITESPACE[:6]) * rng.randint(0, 5))
        else:
            parts.append(prose(rng, rng.randint(1, 4)))
    s = "".join(parts)
    if rng.random() < 0.2:
        s = unicodedata.normalize("NFD", s.replace("e", "é"))
    return s


def long_word(rng):
    kind = rng.random()
    n = rng.choice([100, 200, 500, 1000, 2500])
    if kind < 0.3:
        s = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n))
    elif kind < 0.45:
        s = rng.choice(WORDS) * (n // 5)
    elif kind < 0.6:
        s = "".join(rng.choice("0123456789") for _ in range(n))
    elif kind < 0.75:
        s = "".join(rng.choice("!@#$%^&*()_+-=[]{};:'\",.<>/?\\|`~") for _ in range(n))
    elif kind < 0.85:
        s = "".join(rng.choice("абвгдежзийклмнопрстуфхцчшщыэюя") for _ in range(n // 2))
    else:
        s = "".join(rand_scalar(rng, bmp=True) for _ in range(n // 10))
    if rng.random() < 0.3:
        s = prose(rng, 3) + " " + s + " " + prose(rng, 2)
    return s


def random_unicode(rng):
    n = rng.randint(1, 40)
    if rng.random() < 0.5:
        return "".join(rand_scalar(rng) for _ in range(n))
    return "".join(rand_scalar(rng, bmp=True) if rng.random() < 0.7 else rng.choice(" \n\ta1.") for _ in range(n))


def random_bytes(rng):
    b = bytes(rng.randrange(256) if rng.random() < 0.5 else rng.randrange(0x20, 0x7F) for _ in range(rng.randint(1, 80)))
    return b.decode("utf-8", errors=rng.choice(["replace", "ignore"]))


def laya_like(rng, mask):
    t = rng.choice(["choice", "score", "noul"])
    s = f"{t} question: {prose(rng)}"
    r = rng.random()
    if r < 0.3:
        return " " + rng.choice(WORDS) + ": " + prose(rng, rng.randint(1, 8))
    if r < 0.5:
        return s.replace(mask, " ")
    if r < 0.6:
        return f"level {rng.randint(0, 9)}: {prose(rng, 5)}"
    return s


def kinds(mask, specials):
    return [
        ("prose", 3000, prose), ("json", 2000, json_text), ("code", 1200, code), ("cjk", 1500, cjk),
        ("arabic_hindi", 1500, arabic_hindi), ("emoji", 1200, emoji), ("combining", 1200, combining),
        ("nfc_nfd", 1200, nfc_nfd), ("controls", 1000, controls), ("whitespace", 1800, whitespace),
        ("added", 1800, lambda r: added_tokens(r, specials)), ("long_word", 150, long_word),
        ("random_unicode", 1500, random_unicode), ("random_bytes", 1000, random_bytes),
        ("laya", 1000, lambda r: laya_like(r, mask)),
    ]


def make_corpus(seed, scale, mask, specials):
    rng = random.Random(seed)
    seen, out = set(), []
    for name, count, fn in kinds(mask, specials):
        n = max(1, int(count * scale))
        made = 0
        while made < n:
            s = fn(rng)
            if s in seen:
                continue
            seen.add(s)
            out.append((name, s))
            made += 1
    return out


def lcg_text(seed, length, alphabet):
    """Pseudo-random text that tests/tokenizer/robustness_test.cpp regenerates byte for byte."""
    x, out = seed, []
    for _ in range(length):
        x = (x * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        out.append(alphabet[(x >> 33) % len(alphabet)])
    return "".join(out)


# Long adversarial inputs (1 MiB without whitespace) with their expected ids.
LONG_CASES = [
    {"name": "a_1MiB", "unit": "a", "count": 1 << 20},
    {"name": "abc_1MiB", "unit": "abc", "count": (1 << 20) // 3},
    {"name": "digits_1MiB", "unit": "0123456789", "count": (1 << 20) // 10},
    {"name": "punct_1MiB", "unit": "!?", "count": 1 << 19},
    {"name": "lcg_letters_256KiB", "seed": 7, "length": 1 << 18, "alphabet": "abcdefghijklmnopqrstuvwxyz"},
]


def long_text(case):
    if "unit" in case:
        return case["unit"] * case["count"]
    return lcg_text(case["seed"], case["length"], case["alphabet"])


TARGETS = {
    "modernbert": ("tokenizer-modernbert/tokenizer.json", 1.0, "[MASK]", ADDED_MB),
    "mmbert-standin": ("tokenizer-mmbert-standin/tokenizer.json", 0.25, "<mask>", ADDED_GEMMA),
}


# Variants of the fixtures (a patch of top-level and model keys) that exercise the other supported
# components: the Gemma/Llama normaliser spelling (Prepend + Replace, no pre-tokenizer) that the real
# mmBERT file may use, Metaspace prepend_scheme "first", ByteLevel with add_prefix_space / without
# regex, ignore_merges, Split, Strip. tests/tokenizer/parity_test.cpp applies the same patches.
VARIANTS = {
    "mmbert-gemma-normalizer": ("tokenizer-mmbert-standin/tokenizer.json", {
        "normalizer": {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "\u2581"},
                                                           {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]},
        "pre_tokenizer": None}),
    "mmbert-metaspace-first": ("tokenizer-mmbert-standin/tokenizer.json", {
        "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first", "split": True}}),
    "mmbert-split-nosplit": ("tokenizer-mmbert-standin/tokenizer.json", {
        "normalizer": {"type": "Strip", "strip_left": True, "strip_right": False},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"String": "\n"}, "behavior": "MergedWithPrevious", "invert": False},
            {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": False}]}}),
    "modernbert-prefix-space": ("tokenizer-modernbert/tokenizer.json", {
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}}),
    "modernbert-noregex-ignore-merges": ("tokenizer-modernbert/tokenizer.json", {
        "normalizer": {"type": "NFKC"},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"String": " "}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]},
        "model.ignore_merges": True}),
}


def patched_tokenizer(rel, patch):
    d = json.loads((FIXTURES / rel).read_text())
    for k, v in patch.items():
        if k.startswith("model."):
            d["model"][k[6:]] = v
        else:
            d[k] = v
    return Tokenizer.from_str(json.dumps(d))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=20261129)
    ap.add_argument("--live", action="store_true", help="compare HF with the C++ engine instead of writing data")
    ap.add_argument("--engine", default=str(ROOT / "build/release/bin/laya-engine"))
    ap.add_argument("--scale", type=float, default=None, help="multiply corpus sizes")
    ap.add_argument("--out", default=str(ROOT / "tests/data/tokenizer"))
    args = ap.parse_args()
    bad = 0
    for name, (rel, scale, mask, specials) in TARGETS.items():
        tok = Tokenizer.from_file(str(FIXTURES / rel))
        corpus = make_corpus(args.seed + sum(map(ord, name)) if args.live else args.seed, args.scale or scale, mask, specials)
        texts = [t for _, t in corpus]
        ids = [e.ids for e in tok.encode_batch(texts, add_special_tokens=False)]
        if args.live:
            inp = "".join(json.dumps(t) + "\n" for t in texts)
            res = subprocess.run([args.engine, "tokenize", "--tokenizer", str(FIXTURES / rel)], input=inp.encode(),
                                 capture_output=True, check=False)
            got = res.stdout.decode().splitlines()
            mism = 0
            for (k, t), want, line in zip(corpus, ids, got):
                if json.loads(line) != want:
                    mism += 1
                    if mism <= 5:
                        print(f"MISMATCH [{name}/{k}] {t!r}\n  hf:  {want}\n  c++: {line}")
            if len(got) != len(texts):
                print(f"{name}: engine printed {len(got)} lines for {len(texts)} strings; stderr: {res.stderr[-500:]!r}")
                mism += 1
            print(f"{name}: {len(texts)} strings, {mism} mismatches (tokenizers {tokenizers_version})")
            bad += mism
            continue
        path = Path(args.out) / f"corpus-{name}.jsonl.gz"
        path.parent.mkdir(parents=True, exist_ok=True)
        with gzip.GzipFile(path, "wb", compresslevel=9, mtime=0) as f:
            header = {"tokenizers": tokenizers_version, "seed": args.seed, "tokenizer": rel, "count": len(texts)}
            f.write((json.dumps(header) + "\n").encode())
            for (k, t), i in zip(corpus, ids):
                f.write((json.dumps({"k": k, "t": t, "ids": i}, ensure_ascii=False) + "\n").encode("utf-8"))
        print(f"{path}: {len(texts)} strings, {sum(map(len, ids))} ids, {path.stat().st_size} bytes")
        if name == "modernbert":
            lpath = Path(args.out) / "long-modernbert.jsonl.gz"
            with gzip.GzipFile(lpath, "wb", compresslevel=9, mtime=0) as f:
                for case in LONG_CASES:
                    case_ids = tok.encode(long_text(case), add_special_tokens=False).ids
                    f.write((json.dumps(dict(case, ids=case_ids)) + "\n").encode())
            print(f"{lpath}: {len(LONG_CASES)} long cases, {lpath.stat().st_size} bytes")
    # Variants: 1,000 strings each (committed), or compared live.
    import tempfile
    for vname, (rel, patch) in VARIANTS.items():
        tok = patched_tokenizer(rel, patch)
        corpus = make_corpus(args.seed + 17 + sum(map(ord, vname)), 0.05, "<mask>", ADDED_GEMMA + ADDED_MB[:6])
        texts = [t for _, t in corpus]
        ids = [e.ids for e in tok.encode_batch(texts, add_special_tokens=False)]
        if args.live:
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
                f.write(tok.to_str())
            res = subprocess.run([args.engine, "tokenize", "--tokenizer", f.name], input="".join(json.dumps(t) + "\n" for t in texts).encode(),
                                 capture_output=True, check=False)
            os.unlink(f.name)
            got = res.stdout.decode().splitlines()
            mism = sum(1 for w, g in zip(ids, got) if json.loads(g) != w) + abs(len(got) - len(texts))
            for (k, t), w, g in list(zip(corpus, ids, got))[:]:
                if json.loads(g) != w and mism:
                    print(f"MISMATCH [{vname}/{k}] {t!r}\n  hf:  {w}\n  c++: {g}")
                    break
            print(f"{vname}: {len(texts)} strings, {mism} mismatches; {res.stderr.decode()[-300:]}")
            bad += mism
            continue
        path = Path(args.out) / f"variant-{vname}.jsonl.gz"
        with gzip.GzipFile(path, "wb", compresslevel=9, mtime=0) as f:
            header = {"tokenizers": tokenizers_version, "seed": args.seed, "tokenizer": rel, "patch": patch, "count": len(texts)}
            f.write((json.dumps(header) + "\n").encode())
            for (k, t), i in zip(corpus, ids):
                f.write((json.dumps({"k": k, "t": t, "ids": i}, ensure_ascii=False) + "\n").encode("utf-8"))
        print(f"{path}: {len(texts)} strings, {path.stat().st_size} bytes")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
