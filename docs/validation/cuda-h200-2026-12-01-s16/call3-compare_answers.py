# max |difference| over the numeric leaves of two decide/serve responses (one JSON each).
import json, sys
def leaves(x, path=""):
    if isinstance(x, dict):
        for k, v in x.items(): yield from leaves(v, path + "/" + k)
    elif isinstance(x, list):
        for i, v in enumerate(x): yield from leaves(v, path + "/" + str(i))
    elif isinstance(x, (int, float)) and not isinstance(x, bool):
        yield path, float(x)
a = json.loads(open(sys.argv[1]).readline())["answers"]
b = json.loads(open(sys.argv[2]).readline())["answers"]
la, lb = dict(leaves(a)), dict(leaves(b))
assert la.keys() == lb.keys(), "different answer structure"
worst = max(la, key=lambda k: abs(la[k] - lb[k]))
prob = [k for k in la if "probabilit" in k]
print("answers %d, numbers %d, max |diff| %.4g at %s; probabilities max |diff| %.4g" % (
    len(a), len(la), abs(la[worst] - lb[worst]), worst, max(abs(la[k] - lb[k]) for k in prob) if prob else 0.0))
