# One request of N questions over a long state (rows of ~300 tokens): beyond the CUDA engine's
# 8,192 tokens per forward, so it must run in parts.
import json, sys
n = int(sys.argv[1]) if len(sys.argv) > 1 else 40
state_words = int(sys.argv[2]) if len(sys.argv) > 2 else 230
words = ("the customer reports that the invoice for march was charged twice and asks for a refund of "
         "the duplicate payment while also mentioning that the delivery arrived late and damaged ").split()
state = " ".join(words[i % len(words)] for i in range(state_words))
qs = {}
for i in range(n):
    k = i % 3
    if k == 0:
        qs[f"q{i}"] = {"type": "choice", "instructions": f"route ticket variant {i}", "criteria": ["billing", "shipping", "other"]}
    elif k == 1:
        qs[f"q{i}"] = {"type": "score", "instructions": f"urgency variant {i}", "criteria": ["low", "medium", "high"]}
    else:
        qs[f"q{i}"] = {"type": "noul", "instructions": f"is this a refund request, variant {i}"}
print(json.dumps({"state": state, "questions": qs}))
