#!/usr/bin/env python3
"""readme.py check|update BUILD README - the README's examples are the binary's own.

Every fenced block of README whose first line is "$ COMMAND" is run: COMMAND
in a new temporary folder where build/ is BUILD, and captures/ and scripts/
the project's (so that files it writes land there), standard output and standard
error together, at most 60 s. A line "..." in the README stands for any
number of lines of the output (an example shortened). `check` prints "ok" or "FAIL" (with a diff) per
block and ends "readme: N passed, N failed"; `update` writes the outputs into
README in place of the old ones that no longer hold.
"""
import difflib
import os
import re
import subprocess
import sys
import tempfile

mode, build, readme = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
root = os.path.dirname(os.path.abspath(readme))
lines = open(readme, encoding="utf-8").read().split("\n")

# the blocks: (index of the "$ " line, index of the closing fence)
blocks = []
i = 0
while i < len(lines):
    if lines[i].startswith("```") and i + 1 < len(lines) and lines[i + 1].startswith("$ "):
        j = i + 2
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        blocks.append((i + 1, j))
        i = j
    i += 1


def run(cmd):
    with tempfile.TemporaryDirectory() as d:
        os.symlink(build, os.path.join(d, "build"))
        for sub in ("captures", "scripts"):
            os.symlink(os.path.join(root, sub), os.path.join(d, sub))
        env = dict(os.environ, TZ="UTC", LC_ALL="C", ECNWATCH_HASH_SEED="1")
        try:
            p = subprocess.run(["bash", "-c", cmd], cwd=d, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=60)
            out = p.stdout.decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            out = "(timed out after 60 s)\n"
    return out.rstrip("\n").split("\n") if out.strip() else []


def matches(want, got):
    pat = "".join("(?:[^\n]*\n)*?" if w == "..." else re.escape(w) + "\n" for w in want)
    return re.fullmatch(pat, "".join(g + "\n" for g in got)) is not None


passed = failed = 0
out_lines = list(lines)
for start, end in reversed(blocks):
    cmd = lines[start][2:]
    want = lines[start + 1:end]
    got = run(cmd)
    if mode == "update":
        if not matches(want, got):  # a shortened example that still holds stays as it is
            out_lines[start + 1:end] = got
        continue
    if got and matches(want, got) and "build/" not in cmd:
        # as shown, but it runs no binary of the build: not a check of ecnwatch
        print("     README: $ %s: as shown (runs nothing that was built)" % cmd)
    elif got and matches(want, got):
        passed += 1
        print("ok   README: $ %s" % cmd)
    else:
        failed += 1
        print("FAIL README: $ %s: the output differs from the README's (tests/readme.sh --update rewrites it)" % cmd)
        for d in difflib.unified_diff(want, got, "README", "ecnwatch", lineterm="", n=1):
            print("     " + d)
if mode == "update":
    open(readme, "w", encoding="utf-8").write("\n".join(out_lines))
    print("readme: %d examples written" % len(blocks))
else:
    if not blocks:
        failed += 1
        print("FAIL README: no example found")
    print("readme: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)
