#!/usr/bin/env python3
"""includes.py LAYERS - the include graph of src/ and dissectors/, checked.

Every quoted #include names a file of the tree ("flow/flowtab.h" under src/,
"dissectors/pkt.h" at the top). A file's module is its header's name: X.c
and X.h are one module, and so is X_part.c when there is no X_part.h beside
it (report_json.c is part of report). Prints one line per problem:
  NOHEADER f: "x.h"          an include that names no file of the tree
  LAYER f -> g               an include that goes up or sideways (LAYERS)
  NOLAYER f                  a file in no layer
  ORPHAN h                   a header with functions but no source of its own
  CYCLE a -> b -> ... -> a   modules that include each other, at any distance
and a last line "FILES n INCLUDES n MODULES n".
"""
import fnmatch, os, re, sys

def files():
    out = []
    for top in ("src", "dissectors"):
        for d, _, fs in os.walk(top):
            out += [os.path.join(d, f) for f in fs if f.endswith((".c", ".h"))]
    return sorted(out)

def resolve(inc):
    for p in (os.path.join("src", inc), inc):
        if os.path.isfile(p) and p.startswith(("src/", "dissectors/")):
            return os.path.normpath(p)
    return None

def load_rules(path):
    rules = []
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        if ":" in line:
            left, right = line.split(":", 1)
            rules.append((left.strip(), right.split()))
    return rules

def strongly_connected(edges, nodes):
    """The strongly connected components of the graph edges (node -> set of
    nodes), each sorted, visiting nodes in the order given (Tarjan,
    iteratively); tests/deps.sh uses it too."""
    index, low, on, stack, sccs, cnt = {}, {}, set(), [], [], [0]

    def strong(v):
        work = [(v, iter(sorted(edges.get(v, ()))))]
        index[v] = low[v] = cnt[0]; cnt[0] += 1; stack.append(v); on.add(v)
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
                        if x == u:
                            break
                    sccs.append(sorted(c))
            elif w not in index:
                index[w] = low[w] = cnt[0]; cnt[0] += 1; stack.append(w); on.add(w)
                work.append((w, iter(sorted(edges.get(w, ())))))
            elif w in on:
                low[u] = min(low[u], index[w])
    for v in nodes:
        if v not in index:
            strong(v)
    return sccs


def main():
    rules = load_rules(sys.argv[1])
    def layer(f):
        for i, (p, _) in enumerate(rules):
            if fnmatch.fnmatch(f, p):
                return i
        return None
    fs = files()
    headers = {f for f in fs if f.endswith(".h")}
    def module(f):
        d, b = os.path.split(f)
        stem = b[:-2]
        if f.endswith(".h"):
            return os.path.join(d, stem)
        if os.path.join(d, stem + ".h") in headers:
            return os.path.join(d, stem)
        # X_part.c is part of X when X.h is beside it and X_part.h is not
        parts = stem.split("_")
        for k in range(len(parts) - 1, 0, -1):
            cand = os.path.join(d, "_".join(parts[:k]))
            if cand + ".h" in headers:
                return cand
        return os.path.join(d, stem)
    problems, edges, nincs = [], {}, 0
    inc_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    for f in fs:
        li = layer(f)
        if li is None:
            problems.append("NOLAYER %s" % f)
        for n, line in enumerate(open(f, encoding="utf-8", errors="replace"), 1):
            m = inc_re.match(line)
            if not m:
                continue
            nincs += 1
            g = resolve(m.group(1))
            if g is None:
                problems.append('NOHEADER %s:%d: "%s"' % (f, n, m.group(1)))
                continue
            lg = layer(g)
            if li is not None and lg is not None and lg != li and \
               not any(fnmatch.fnmatch(g, p) for p in rules[li][1]):
                problems.append("LAYER %s:%d -> %s: %s may not include %s"
                                % (f, n, g, rules[li][0], rules[lg][0]))
            a, b = module(f), module(g)
            if a != b:
                edges.setdefault(a, set()).add(b)
    # a header that declares functions has a source of its own
    proto = re.compile(r'^[A-Za-z_][\w \*]*\b(ew_\w+|jw_\w+)\s*\(', re.M)
    sources = {module(f) for f in fs if f.endswith(".c")}
    for h in sorted(headers):
        text = open(h, encoding="utf-8", errors="replace").read()
        text = re.sub(r"static inline[^{;]*\{", "", text)
        if proto.search(text) and module(h) not in sources:
            problems.append("ORPHAN %s" % h)
    # cycles between modules (Tarjan)
    nodes = sorted(set(edges) | {b for s in edges.values() for b in s})
    sccs = strongly_connected(edges, nodes)
    for c in sccs:
        if len(c) > 1:
            problems.append("CYCLE " + "; ".join(
                "%s -> %s" % (a, b) for a in c for b in sorted(edges.get(a, ())) if b in c))
    for p in problems:
        print(p)
    print("FILES %d INCLUDES %d MODULES %d" % (len(fs), nincs, len(nodes)))

if __name__ == "__main__":
    main()
