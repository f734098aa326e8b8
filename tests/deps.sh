#!/usr/bin/env bash
# deps.sh BUILD - the source files' dependencies, read from the objects' own
# symbol tables (nm): file A depends on file B when A uses a symbol that B
# defines. Fails on any cycle between source files, and on any use that
# crosses the layers the wrong way (tests/layers: each folder and what it may
# use). Ends "deps: N passed, N failed".
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
# strongly connected components (Tarjan), iteratively
index, low, on, stack, sccs, n = {}, {}, set(), [], [], [0]
def strong(v):
    work = [(v, iter(sorted(edges[v])))]
    index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
    while work:
        u, it = work[-1]
        w = next(it, None)
        if w is None:
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[u])
            if low[u] == index[u]:
                c = []
                while True:
                    x = stack.pop(); on.discard(x); c.append(x)
                    if x == u: break
                sccs.append(sorted(c))
        elif w not in index:
            index[w] = low[w] = n[0]; n[0] += 1; stack.append(w); on.add(w)
            work.append((w, iter(sorted(edges[w]))))
        elif w in on:
            low[u] = min(low[u], index[w])
for v in files:
    if v not in index:
        strong(v)
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
finish deps
