#!/usr/bin/env python3
"""Hostile HTTP clients against a Trimaran server on 127.0.0.1 (issue 30 point 5).

usage: tools/hostile-http.py [--tls] PORT [PATH] [PROBE_PATH]
       tools/hostile-http.py [--tls] --bogus-tokens N PORT GUARDED_PATH PROBE_PATH

Sends each hostile request on its own connection, prints what came back (status line, or
how the connection ended) and how long it took, then checks the server still answers
PROBE_PATH. With --bogus-tokens: N concurrent requests to GUARDED_PATH, each with a
random bearer token, while PROBE_PATH is probed; prints the answers and the probes'
latency. --tls: HTTPS without certificate verification (the daemons' self-signed
certificates). Loopback only.
"""
import os
import select
import socket
import ssl
import sys
import threading
import time

HOST = "127.0.0.1"


TLS = False


def connect(port, timeout):
    s = socket.create_connection((HOST, port), timeout=timeout)
    if TLS:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        s = ctx.wrap_socket(s)
    return s


def exchange(port, chunks, timeout=None, pace=0.0):
    """Sends `chunks` (an iterable of bytes) from a thread; returns (first line, seconds)."""
    if timeout is None:
        timeout = 120.0 if TLS else 20.0  # Python's TLS client is slow: 256 MiB takes a while
    start = time.monotonic()
    try:
        s = connect(port, timeout)
    except OSError as e:
        return "connect error: %s" % e, time.monotonic() - start
    s.settimeout(timeout)

    # An SSL socket is not safe for concurrent use: with TLS, sends and receives take turns.
    lock = threading.Lock() if TLS else None

    def send():
        try:
            for c in chunks:
                if lock:
                    with lock:
                        s.sendall(c)
                else:
                    s.sendall(c)
                if pace:
                    time.sleep(pace)
        except OSError:
            pass

    t = threading.Thread(target=send, daemon=True)
    t.start()
    data = b""
    try:
        while b"\r\n" not in data:
            if lock:
                if time.monotonic() - start > timeout:
                    raise socket.timeout()
                ready, _, _ = select.select([s], [], [], 0.05)
                if not ready and not s.pending():
                    continue
                with lock:
                    # Non-blocking: what made the socket readable may be a TLS 1.3
                    # session ticket, not data; a blocking recv would hold the lock.
                    s.setblocking(False)
                    try:
                        got = s.recv(65536)
                    except (ssl.SSLWantReadError, ssl.SSLWantWriteError, BlockingIOError):
                        continue
                    finally:
                        s.settimeout(timeout)
            else:
                got = s.recv(65536)
            if not got:
                break
            data += got
    except socket.timeout:
        return "no answer within %.0f s" % timeout, time.monotonic() - start
    except OSError as e:
        return "connection error: %s" % e, time.monotonic() - start
    took = time.monotonic() - start
    s.close()
    line = data.split(b"\r\n", 1)[0].decode(errors="replace")
    return (line or "closed without answer"), took


def simple_exchange(port, request, timeout=30.0):
    """Sends `request`, then reads the status line, on one thread; (first line, seconds)."""
    start = time.monotonic()
    try:
        s = connect(port, timeout)
        s.sendall(request)
        data = b""
        while b"\r\n" not in data:
            got = s.recv(65536)
            if not got:
                break
            data += got
        s.close()
    except socket.timeout:
        return "no answer within %.0f s" % timeout, time.monotonic() - start
    except OSError as e:
        return "connection error: %s" % e, time.monotonic() - start
    line = data.split(b"\r\n", 1)[0].decode(errors="replace")
    return (line or "closed without answer"), time.monotonic() - start


def endless_chunks():
    yield b"POST %s HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" % PATH
    chunk = b"10000\r\n" + b"a" * 0x10000 + b"\r\n"
    while True:
        yield chunk


def big_body():
    yield b"POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n" % PATH
    block = b"a" * (1 << 20)
    for _ in range(100):
        yield block


def probe(port):
    line, took = simple_exchange(port, b"GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % PROBE)
    return "%s (%.1f ms)" % (line, took * 1000)


def bogus_tokens(n, port, guarded, probe_path):
    answers = {}
    lock = threading.Lock()

    def one():
        token = os.urandom(16).hex()
        line, _ = simple_exchange(port, b"".join([b"GET %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
                                  b"Connection: close\r\n\r\n" % (guarded, token.encode())]))
        with lock:
            answers[line] = answers.get(line, 0) + 1

    threads = [threading.Thread(target=one) for _ in range(n)]
    probes = []
    done = threading.Event()

    def prober():
        while not done.is_set():
            line, took = simple_exchange(
                port, b"GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % probe_path)
            probes.append((line, took))
            time.sleep(0.02)

    p = threading.Thread(target=prober)
    start = time.monotonic()
    p.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - start
    done.set()
    p.join()
    lat = sorted(t for _, t in probes)
    ok = sum(1 for l, _ in probes if " 200 " in l + " ")
    print("%d bogus-token requests in %.2f s: %s" % (n, elapsed, ", ".join(
        "%d x %s" % (c, l) for l, c in sorted(answers.items()))))
    if lat:
        print("probes during the flood: %d, %d answered 200; latency p50 %.1f ms, max %.1f ms"
              % (len(lat), ok, lat[len(lat) // 2] * 1000, lat[-1] * 1000))
        print("PROBE_MAX_MS=%.1f PROBES_OK=%d PROBES=%d" % (lat[-1] * 1000, ok, len(lat)))


def main():
    port = int(sys.argv[1])
    brackets = b"[" * 1_000_000
    cases = [
        ("1,000,000 '[' (Content-Length)",
         [b"POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
          % (PATH, len(brackets)), brackets]),
        ("100 MB body (Content-Length: 100000000)", big_body()),
        ("chunked body without end", endless_chunks()),
        ("1 MB header", [b"GET %s HTTP/1.1\r\nX-Big: " % PROBE + b"a" * (1 << 20) + b"\r\n\r\n"]),
        ("10,000 headers",
         [b"GET %s HTTP/1.1\r\n" % PROBE + b"".join(b"X-%d: 1\r\n" % i for i in range(10000)) + b"\r\n"]),
        ("1 MB request line", [b"GET /" + b"a" * (1 << 20)]),
    ]
    for name, chunks in cases:
        line, took = exchange(port, chunks)
        print("%-42s -> %s (%.2f s); probe: %s" % (name, line, took, probe(port)))
    # Slow loris: one byte of header every 0.5 s.
    def loris():
        yield b"GET %s HTTP/1.1\r\nX: " % PROBE
        while True:
            yield b"a"
    line, took = exchange(port, loris(), timeout=60, pace=0.5)
    print("%-42s -> %s (%.2f s); probe: %s" % ("slow client (1 header byte / 0.5 s)", line, took, probe(port)))
    # Connection flood: 2,000 idle connections.
    flood = []
    refused = 0
    for _ in range(2000):
        try:
            flood.append(socket.create_connection((HOST, port), timeout=5))
        except OSError:
            refused += 1
    time.sleep(0.5)
    line, took = exchange(port, [b"GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % PROBE], timeout=30)
    print("%-42s -> probe during flood: %s (%.1f ms), %d connects refused"
          % ("2,000 idle connections", line, took * 1000, refused))
    for s in flood:
        s.close()
    time.sleep(0.5)
    print("%-42s -> probe: %s" % ("after everything", probe(port)))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--tls"]:
        TLS = True
        del sys.argv[1]
    if sys.argv[1:2] == ["--bogus-tokens"]:
        bogus_tokens(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4].encode(), sys.argv[5].encode())
        sys.exit(0)
    PATH = (sys.argv[2] if len(sys.argv) > 2 else "/filter").encode()
    PROBE = (sys.argv[3] if len(sys.argv) > 3 else "/healthz").encode()
    main()
