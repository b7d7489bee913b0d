#!/usr/bin/env python3
"""Requests of many lengths for comparing two engines' answers (compare_answers.sh).

usage: gen_requests.py [SEED] > requests.jsonl
Fourteen requests: states of 20-900 words of support-ticket vocabulary and 1-4 questions of every
type, so that one english checkpoint sees rows of 55-512 tokens and buckets up to 2,048 tokens
(the small GEMM's buckets, the RoPE-in-loads attention, K rotated once, the fused GeGLU GEMM).
"""
import json
import random
import sys

rnd = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
words = ("order refund charged twice account shipping delayed package customer support ticket urgent "
         "invoice payment card declined subscription cancel renew email password reset login error "
         "server outage database latency timeout retry escalate manager policy warranty return label").split()
for n in [20, 90, 130, 180, 250, 320, 400, 460, 520, 700, 900, 60, 300, 480]:
    state = " ".join(rnd.choice(words) for _ in range(n))
    qs = {}
    for k in range(rnd.randint(1, 4)):
        t = rnd.choice(["choice", "score", "noul"])
        if t == "choice":
            qs[f"q{k}"] = {"type": "choice", "instructions": "Which team handles this?",
                           "criteria": rnd.sample(["billing", "shipping", "tech", "sales", "legal"], rnd.randint(2, 5))}
        elif t == "score":
            qs[f"q{k}"] = {"type": "score", "instructions": "How urgent is it?",
                           "criteria": ["not urgent", "somewhat", "urgent", "critical"][: rnd.randint(2, 4)]}
        else:
            qs[f"q{k}"] = {"type": "noul", "instructions": "Does the customer ask for a refund?"}
    print(json.dumps({"state": state, "questions": qs}))
