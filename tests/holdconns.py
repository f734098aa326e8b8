#!/usr/bin/env python3
"""holdconns.py SRC HOST PORT N SECONDS - hold N connections to HOST:PORT from
source address SRC for SECONDS, the way a slowloris client does: half of them
send one request header line a second and never end the request, the other
half connect and send nothing. A connection the server closes is opened again
(at most once a second each). Stops by itself after SECONDS. Prints how many
connections were open at the end and how many the server closed or refused,
on one line. Only for addresses on this machine (the tests use loopback).
"""
import socket
import sys
import time


def main():
    src, host, port, n, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
    end = time.monotonic() + seconds
    conns = [None] * n          # socket or None
    retry_at = [0.0] * n
    lines = [0] * n
    closed = 0

    def opened(i):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        s.bind((src, 0))
        try:
            s.connect((host, port))
        except BlockingIOError:
            pass
        except OSError:
            s.close()
            return None
        return s

    def dropped(i):
        nonlocal closed
        conns[i].close()
        conns[i] = None
        closed += 1

    while time.monotonic() < end:
        now = time.monotonic()
        for i in range(n):
            s = conns[i]
            if s is None:
                if now >= retry_at[i]:
                    conns[i] = opened(i)
                    lines[i] = 0
                    retry_at[i] = now + 1.0
                continue
            if i % 2 == 0:
                try:
                    s.send(b"GET /metrics HTTP/1.1\r\n" if lines[i] == 0 else b"X-Slow: %d\r\n" % lines[i])
                    lines[i] += 1
                except BlockingIOError:
                    pass
                except OSError:
                    dropped(i)
                    continue
            # a closed connection reads as end of stream
            try:
                if s.recv(4096) == b"":
                    raise OSError("closed")
            except BlockingIOError:
                pass
            except OSError:
                dropped(i)
        time.sleep(max(0.0, 1.0 - (time.monotonic() - now)))
    print("holdconns: %d open at the end, %d closed by the server" % (sum(c is not None for c in conns), closed))


if __name__ == "__main__":
    main()
