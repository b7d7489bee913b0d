# Derives a 1x1x1-cluster spec for the multilingual dims from a sweep's bench.jsonl: per bucket,
# each variant's change is adopted where its mean is >= 0.010 ms lower and every one of its rounds
# is below every round of the base. Prints the spec (stdout) and the adopted cells (stderr).
import json, sys, collections
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
by = collections.defaultdict(list)
for r in rows:
    if "p50_ms" in r:
        by[(r["impl"], r["shape"])].append(r["p50_ms"])
BIG, ATT, OUT = "2304x768", "768x768", "768x1152"
def base_set(m):
    if m <= 256: return {BIG, ATT}
    if m <= 512: return {ATT}
    return {BIG, ATT}
buckets = sorted({int(s.split("x")[1]) for (_, s) in by if s.startswith("1x")})
ranges, prev = [], 128
for b in buckets:
    s = base_set(b)
    base = by.get(("base", f"1x{b}"), [])
    for v, flip in (("big", BIG), ("attnout_cl", ATT), ("mlpout_1", OUT)):
        x = by.get((v, f"1x{b}"), [])
        if not base or not x: continue
        d = sum(x) / len(x) - sum(base) / len(base)
        if d <= -0.010 and max(x) < min(base):
            s = s ^ {flip}
            print(f"bucket {b}: {v} {d:+.3f}", file=sys.stderr)
    ranges.append((prev + 1, b, s))
    prev = b
merged = []
for r in ranges:
    if merged and merged[-1][2] == r[2] and merged[-1][1] + 1 == r[0]:
        merged[-1] = (merged[-1][0], r[1], r[2])
    else:
        merged.append(r)
order = [BIG, ATT, OUT]
parts = ["1-64"] + [f"{a}-{b}:" + "+".join(k for k in order if k in s) for a, b, s in merged if s] + ["769-1535"]
print(";".join(parts))
