# traffic.py server|client SECONDS SERVER-ADDR - test traffic between two
# network namespaces the live tests create: a TCP transfer to port 5201
# (ECN as the namespaces' tcp_ecn sysctl says) and UDP datagrams marked
# ECT(1) to port 6001. Run the server first, in the server's namespace: it
# binds the UDP port before it listens on the TCP one, so once TCP port 5201
# is listening both are ready for the client. The server ends when the client
# closes its connection (at most SECONDS + 30 s after it connected). The
# client sends for SECONDS, and at least 60 rounds (a 16 KiB TCP write and
# one datagram) a second of them, however slow the machine.
import socket, sys, time

mode, secs, addr = sys.argv[1], float(sys.argv[2]), sys.argv[3]
if mode == "server":
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind((addr, 6001)); u.settimeout(0.01)
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, 5201)); s.listen(4); s.settimeout(secs + 30)
    c, _ = s.accept(); c.settimeout(0.01)
    limit = time.time() + secs + 30
    while time.time() < limit:
        try:
            if not c.recv(65536): break
        except socket.timeout: pass
        try: u.recv(2048)
        except socket.timeout: pass
    else:
        sys.exit("server: the client did not close its connection in time")
else:
    end = time.time() + secs
    rounds = int(secs * 60)
    c = socket.create_connection((addr, 5201), timeout=30)
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, 1)     # ECT(1)
    buf = b"x" * 16384
    n = 0
    while time.time() < end or n < rounds:
        c.sendall(buf); u.sendto(b"y" * 800, (addr, 6001)); time.sleep(0.01)
        n += 1
    c.close()
