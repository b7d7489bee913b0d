#!/usr/bin/env python3
"""Compare the machine code (SASS) of one CUDA source file's kernels between two checkouts.

    scripts/gpu/sass_diff.py REF_TREE NEW_TREE src/backends/cuda/geglu_gemm.cu [--show REF_RE NEW_RE]

Compiles the file in both trees for sm_90a with the project's Release flags (CMakeLists.txt:
-O3 -DNDEBUG, --expt-relaxed-constexpr, C++17), disassembles both objects with `cuobjdump -sass`
and prints, for every pair of kernels (one from each tree), how many instruction lines differ once
addresses, encodings and branch targets are dropped (0: the same instructions in the same order),
with each kernel's spills from `ptxas -v`. A change meant to leave a kernel's code alone (a template
generalised, a refactor) is checked this way without a GPU. `--show` prints the diff of the first
pair whose demangled names match the two regular expressions.

cuobjdump is not part of this machine's CUDA toolkit nor of the build: put it on PATH, e.g.
`python3 -m pip download --no-deps nvidia-cuda-cuobjdump` and unzip the wheel (bin/cuobjdump).
"""
import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile


def compile_and_dump(tree, source, workdir, tag):
    obj = os.path.join(workdir, tag + ".o")
    cmd = ["nvcc", '-DLAYA_CUDA_ARCHS="90a-real"', "-I" + os.path.join(tree, "include"),
           "-I" + os.path.join(tree, "src"), "-O3", "-DNDEBUG",
           "--generate-code=arch=compute_90a,code=[sm_90a]", "--expt-relaxed-constexpr", "-std=c++17",
           "-Xptxas", "-v", "-x", "cu", "-c", os.path.join(tree, source), "-o", obj]
    built = subprocess.run(cmd, capture_output=True, text=True)
    if built.returncode != 0:
        sys.exit(f"{tag}: nvcc failed\n{built.stderr}")
    sass = subprocess.run(["cuobjdump", "-sass", obj], capture_output=True, text=True, check=True).stdout
    return parse_sass(sass), parse_spills(built.stderr)


def parse_sass(text):
    """Kernel name -> its instructions, without addresses and encodings."""
    kernels, current = {}, None
    for line in text.splitlines():
        name = re.search(r"Function : (\S+)", line)
        if name:
            current = name.group(1)
            kernels[current] = []
            continue
        ins = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s*(.*?)\s*;", line)
        if current is not None and ins:
            text = re.sub(r"\s+", " ", ins.group(1))
            if re.search(r"\b(BRA|BSSY|CALL|JMP|BRX)\b", text):
                # branch targets are addresses: a kernel grown elsewhere moves them all
                text = re.sub(r"\b0x[0-9a-f]+\b", "ADDR", text)
            kernels[current].append(text)
    return kernels


def parse_spills(ptxas_log):
    spills, current = {}, None
    for line in ptxas_log.splitlines():
        fn = re.search(r"Function properties for (\S+)", line)
        if fn:
            current = fn.group(1)
        sp = re.search(r"(\d+) bytes spill stores", line)
        if sp and current:
            spills[current] = int(sp.group(1))
    return spills


def differing_lines(a, b):
    return sum(1 for line in difflib.unified_diff(a, b, lineterm="", n=0)
               if line[:1] in "+-" and line[:3] not in ("+++", "---"))


def short(name):
    """The demangled name without namespaces and parameters: geglu_gemm_kernel<__half, 64>."""
    plain = subprocess.run(["c++filt", name], capture_output=True, text=True).stdout.strip() or name
    plain = re.sub(r"\(anonymous namespace\)::|\w+::", "", plain)
    return re.sub(r"^void ", "", re.sub(r"\([^()]*\)$", "", plain))  # the parameters: the last (...)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ref_tree")
    ap.add_argument("new_tree")
    ap.add_argument("source", help="path inside both trees, e.g. src/backends/cuda/geglu_gemm.cu")
    ap.add_argument("--show", nargs=2, metavar=("REF_RE", "NEW_RE"))
    args = ap.parse_args()
    if shutil.which("cuobjdump") is None:
        sys.exit("cuobjdump not on PATH (see this script's docstring)")
    with tempfile.TemporaryDirectory() as work:
        ref, ref_spills = compile_and_dump(args.ref_tree, args.source, work, "ref")
        new, new_spills = compile_and_dump(args.new_tree, args.source, work, "new")
    names = {k: short(k) for k in list(ref) + list(new)}
    print(f"{'ref kernel':50} {'new kernel':50} {'differing':>9}  spills ref/new")
    for r in ref:
        for n in new:
            print(f"{names[r]:50} {names[n]:50} {differing_lines(ref[r], new[n]):9d}  "
                  f"{ref_spills.get(r, '?')}/{new_spills.get(n, '?')}")
    if args.show:
        pairs = [(r, n) for r in ref for n in new
                 if re.search(args.show[0], names[r]) and re.search(args.show[1], names[n])]
        if not pairs:
            sys.exit("--show: no pair of kernels matches")
        r, n = pairs[0]
        print("\n".join(difflib.unified_diff(ref[r], new[n], "ref", "new", lineterm="", n=2)))


if __name__ == "__main__":
    main()
