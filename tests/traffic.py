# traffic.py server|client SECONDS SERVER-ADDR - test traffic between two
# network namespaces the live tests create: a TCP transfer to port 5201
# (ECN as the namespaces' tcp_ecn sysctl says) and UDP datagrams marked
# ECT(1) to port 6001. Run the server first, in the server's namespace.
import socket, sys, time

mode, secs, addr = sys.argv[1], float(sys.argv[2]), sys.argv[3]
end = time.time() + secs
if mode == "server":
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, 5201)); s.listen(4); s.settimeout(secs + 5)
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind((addr, 6001)); u.settimeout(0.01)
    c, _ = s.accept(); c.settimeout(0.01)
    while time.time() < end + 2:
        try:
            if not c.recv(65536): break
        except socket.timeout: pass
        try: u.recv(2048)
        except socket.timeout: pass
else:
    c = socket.create_connection((addr, 5201))
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, 1)     # ECT(1)
    buf = b"x" * 16384
    while time.time() < end:
        c.sendall(buf); u.sendto(b"y" * 800, (addr, 6001)); time.sleep(0.01)
    c.close()
