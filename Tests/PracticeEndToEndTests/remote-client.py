#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A plain HTTP and WebSocket client for RemoteTests: what a stranger on the network (or a
paired phone) sends, byte for byte, and what came back, as one JSON object a line.

  remote-client.py http HOST PORT METHOD PATH [HEADER: VALUE]...
      {"status": 401, "headers": {...}, "body": "..."}
  remote-client.py ws HOST PORT [HEADER: VALUE]... -- [MESSAGE]... [@bytes:N] [@binary] [@wait:SECONDS]
      {"status": 101} then each frame received: {"text": "..."} or {"close": 1009, "reason": "..."}
      MESSAGE is sent as a text frame; @bytes:N sends N bytes of 'x' as one text message;
      @binary sends a binary frame; @wait:S reads for S seconds before the next message.
      Ends 1 s after the last message (or when the server closes). Pings are answered.
"""
import base64, json, os, socket, struct, sys, time


def connect(host, port):
    s = socket.create_connection((host, int(port)), timeout=5)
    return s


def read_response(s):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1]) if lines and len(lines[0].split(" ")) > 1 else 0
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers.setdefault(k.strip().lower(), []).append(v.strip())
    return status, headers, rest


def http(host, port, method, path, extra):
    s = connect(host, port)
    req = f"{method} {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n"
    for h in extra:
        req += h + "\r\n"
    s.sendall((req + "\r\n").encode("latin-1"))
    status, headers, rest = read_response(s)
    length = int(headers.get("content-length", ["0"])[0])
    while len(rest) < length:
        chunk = s.recv(65536)
        if not chunk:
            break
        rest += chunk
    print(json.dumps({"status": status, "headers": headers, "body": rest[:length].decode("utf-8", "replace")}))


def frame(opcode, payload):
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x80 | opcode])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + struct.pack(">H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack(">Q", n)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def read_frames(s, buf, seconds):
    """Frames received within `seconds` (fewer if the server closes); (frames, buf, closed)."""
    out, closed = [], False
    deadline = time.time() + seconds
    while time.time() < deadline and not closed:
        s.settimeout(max(deadline - time.time(), 0.01))
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            break
        except OSError:
            closed = True
            break
        if not chunk:
            closed = True
            break
        buf += chunk
        while len(buf) >= 2:
            op, n = buf[0] & 15, buf[1] & 127
            i = 2
            if n == 126:
                if len(buf) < 4: break
                n, i = struct.unpack(">H", buf[2:4])[0], 4
            elif n == 127:
                if len(buf) < 10: break
                n, i = struct.unpack(">Q", buf[2:10])[0], 10
            if len(buf) < i + n:
                break
            payload, buf = buf[i:i + n], buf[i + n:]
            if op == 9:   # a ping: answered, as a browser does
                try:
                    s.sendall(frame(10, payload))
                except OSError:
                    pass
                continue
            if op == 8:
                code = struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else 1005
                out.append({"close": code, "reason": payload[2:].decode("utf-8", "replace")})
                closed = True
                break
            if op in (1, 0):
                out.append({"text": payload.decode("utf-8", "replace")})
    return out, buf, closed


def ws(host, port, extra, messages):
    s = connect(host, port)
    key = base64.b64encode(os.urandom(16)).decode()
    req = (f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n")
    for h in extra:
        req += h + "\r\n"
    s.sendall((req + "\r\n").encode("latin-1"))
    status, headers, buf = read_response(s)
    print(json.dumps({"status": status}), flush=True)
    if status != 101:
        return
    frames, buf, closed = read_frames(s, buf, 1.0)
    for f in frames:
        print(json.dumps(f), flush=True)
    for m in messages:
        if closed:
            break
        if m.startswith("@wait:"):
            frames, buf, closed = read_frames(s, buf, float(m[6:]))
            for f in frames:
                print(json.dumps(f), flush=True)
            continue
        try:
            if m.startswith("@bytes:"):
                s.sendall(frame(1, b"x" * int(m[7:])))
            elif m == "@binary":
                s.sendall(frame(2, b"\x00\x01"))
            else:
                s.sendall(frame(1, m.encode()))
        except OSError:
            closed = True
            break
    if not closed:
        frames, buf, closed = read_frames(s, buf, 1.0)
        for f in frames:
            print(json.dumps(f), flush=True)


if __name__ == "__main__":
    kind, host, port = sys.argv[1], sys.argv[2], sys.argv[3]
    if kind == "http":
        http(host, port, sys.argv[4], sys.argv[5], sys.argv[6:])
    else:
        args = sys.argv[4:]
        cut = args.index("--") if "--" in args else len(args)
        ws(host, port, args[:cut], args[cut + 1:])
