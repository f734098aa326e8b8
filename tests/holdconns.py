#!/usr/bin/env python3
"""holdconns.py SRC[,SRC...] HOST PORT N SECONDS - hold N connections to
HOST:PORT from each source address SRC for SECONDS, the way a slowloris
client does: half of them send one request header line a second and never
end the request, the other half connect and send nothing. A connection the
server closes is opened again at once (but no connection more than once a
second, so that one the server refuses at once does not spin). Stops by
itself after SECONDS, or at SIGTERM. Prints how many connections were open at the end and
how many the server closed or refused, on one line. Only for addresses on
this machine or in a network namespace of the test's own.
"""
import selectors
import signal
import socket
import sys
import time


def main():
    srcs = sys.argv[1].split(",")
    host, port, per, seconds = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
    n = per * len(srcs)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    end = time.monotonic() + seconds
    conns = [None] * n          # socket or None
    opened_at = [0.0] * n
    lines = [0] * n
    closed = 0
    sel = selectors.DefaultSelector()

    def open_one(i):
        s = socket.socket(family, socket.SOCK_STREAM)
        s.setblocking(False)
        try:
            s.bind((srcs[i % len(srcs)], 0))
            s.connect((host, port))
        except BlockingIOError:
            pass
        except OSError:
            s.close()
            return
        conns[i] = s
        lines[i] = 0
        sel.register(s, selectors.EVENT_READ, i)

    def dropped(i):
        nonlocal closed
        sel.unregister(conns[i])
        conns[i].close()
        conns[i] = None
        closed += 1

    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    next_line = time.monotonic()
    while True:
        now = time.monotonic()
        if now >= end or stop:
            break
        for i in range(n):
            if conns[i] is None and now >= opened_at[i] + 1.0:
                opened_at[i] = now
                open_one(i)
        if now >= next_line:
            next_line = now + 1.0
            for i in range(0, n, 2):
                s = conns[i]
                if s is None:
                    continue
                try:
                    s.send(b"GET /metrics HTTP/1.1\r\n" if lines[i] == 0 else b"X-Slow: %d\r\n" % lines[i])
                    lines[i] += 1
                except (BlockingIOError, OSError):
                    pass  # not connected yet, or closed: the read below tells
        # a closed connection reads as end of stream (or an error)
        due = min([next_line, end] + [opened_at[i] + 1.0 for i in range(n) if conns[i] is None])
        for key, _ in sel.select(max(0.0, due - time.monotonic())):
            i = key.data
            try:
                if conns[i].recv(4096) == b"":
                    dropped(i)
            except BlockingIOError:
                pass
            except OSError:
                dropped(i)
    print("holdconns: %d open at the end, %d closed by the server" % (sum(c is not None for c in conns), closed))


if __name__ == "__main__":
    main()
