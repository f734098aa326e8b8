#!/usr/bin/env bash
# deps.sh BUILD - the source files' dependencies, twice: read from the
# objects' own symbol tables (nm: file A depends on file B when A uses a
# symbol that B defines), and from the sources' #include lines
# (tests/includes.py: types and macros too, which no symbol shows). Fails on
# any cycle between source files or modules, on any use or include that
# crosses the layers the wrong way (tests/layers: each folder and what it may
# use), and on a header with functions but no source of its own. Ends
# "deps: N passed, N failed".
. "$(dirname "$0")/lib.sh"

# the objects of today's sources only: a build folder may hold objects of
# files since moved or removed
srcs=$(find src dissectors -name '*.c' | sort)
for src in $srcs; do
    if [ ! -f "$BUILD/${src%.c}.o" ]; then
        bad "no object $BUILD/${src%.c}.o for $src (build first)"
        finish deps
        exit
    fi
done
for src in $srcs; do
    o=${src%.c}.o
    nm --defined-only -g "$BUILD/$o" | awk -v f="$src" 'NF == 3 { print "D", f, $3 }'
    nm -u "$BUILD/$o" | awk -v f="$src" '{ print "U", f, $NF }'
done >"$tmp/syms"

python3 - "$tmp/syms" tests/layers >"$tmp/out" <<'EOF'
import sys, fnmatch
defs, uses = {}, {}
for line in open(sys.argv[1]):
    k, f, s = line.split()
    if k == "D":
        defs[s] = f
    else:
        uses.setdefault(f, set()).add(s)
files = sorted(set(defs.values()) | set(uses))
edges = {f: set() for f in files}
why = {}
for f, ss in uses.items():
    for s in ss:
        g = defs.get(s)
        if g and g != f:
            edges[f].add(g)
            why.setdefault((f, g), s)
# strongly connected components: the include check's (tests/includes.py)
sys.path.insert(0, "tests")
from includes import strongly_connected
sccs = strongly_connected(edges, files)
cycles = [c for c in sccs if len(c) > 1]
for c in cycles:
    pairs = ["%s -> %s (%s)" % (a, b, why[(a, b)]) for a in c for b in sorted(edges[a]) if b in c]
    print("CYCLE " + "; ".join(pairs))
# layers: "PATTERN: PATTERN PATTERN ..." a file matching the left may use files matching the right
rules = []
for line in open(sys.argv[2]):
    line = line.split("#", 1)[0].strip()
    if not line:
        continue
    if ":" not in line:
        continue
    left, right = line.split(":", 1)
    rules.append((left.strip(), right.split()))
def layer(f):
    for i, (p, _) in enumerate(rules):
        if fnmatch.fnmatch(f, p):
            return i
    return None
for f in files:
    i = layer(f)
    if i is None:
        print("NOLAYER %s" % f)
        continue
    for g in sorted(edges[f]):
        j = layer(g)
        if j is None:
            continue
        if j != i and not any(fnmatch.fnmatch(g, p) for p in rules[i][1]):
            print("LAYER %s -> %s (%s): %s may not use %s" % (f, g, why[(f, g)], rules[i][0], rules[j][0]))
print("FILES %d EDGES %d" % (len(files), sum(len(e) for e in edges.values())))
EOF
begin "no cycle between source files"
if grep -q '^CYCLE' "$tmp/out"; then
    bad "cycles between source files:"
    grep '^CYCLE' "$tmp/out" | sed 's/^CYCLE /    /'
else
    ok "no cycle between source files ($(sed -n 's/^FILES \([0-9]*\) EDGES \([0-9]*\)/\1 files, \2 uses/p' "$tmp/out"))"
fi
begin "every file in a layer, every use downward"
if grep -qE '^(LAYER|NOLAYER)' "$tmp/out"; then
    bad "layers crossed:"
    grep -E '^(LAYER|NOLAYER)' "$tmp/out" | sed 's/^/    /'
else
    ok "every file in a layer of tests/layers, every use allowed"
fi

# the includes: every header in a layer's folder, every include downward,
# no loop between modules at any distance
python3 tests/includes.py tests/layers >"$tmp/inc" 2>&1
begin "every include downward, no loop between modules"
if [ "$(grep -c '' "$tmp/inc")" = 1 ] && grep -q '^FILES [0-9]* INCLUDES [0-9]* MODULES' "$tmp/inc"; then
    ok "includes: $(sed -n 's/^FILES \([0-9]*\) INCLUDES \([0-9]*\) MODULES \([0-9]*\)/\1 files, \2 includes, \3 modules/p' "$tmp/inc"), none upward, no loop"
else
    bad "includes:"
    sed 's/^/    /' "$tmp/inc"
fi

# the include check itself can fail: a copy of the tree with an upward
# include planted in the flow table, a header of a layer above it, and a
# loop between two modules of one folder
begin "the include check fails on a planted upward include and a loop"
mkdir -p "$tmp/tree"
cp -r src dissectors "$tmp/tree/"
printf '#include "output/report.h"\n' >>"$tmp/tree/src/flow/flowtab.c"
printf '#include "flow/flowtab.h"\n' >>"$tmp/tree/src/flow/pack.h"
if (cd "$tmp/tree" && python3 "$OLDPWD/tests/includes.py" "$OLDPWD/tests/layers") >"$tmp/planted" 2>&1 &&
    grep -q '^LAYER src/flow/flowtab.c:[0-9]* -> src/output/report.h' "$tmp/planted" &&
    grep -q '^CYCLE .*src/flow/flowtab -> src/flow/pack' "$tmp/planted"; then
    ok "the include check names a planted upward include and loop"
else
    bad "the include check missed what was planted:"
    sed 's/^/    /' "$tmp/planted"
fi
finish deps
