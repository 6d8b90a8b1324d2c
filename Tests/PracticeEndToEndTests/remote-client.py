#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A plain HTTP and WebSocket client for RemoteTests: what a stranger on the network (or a
paired phone) sends, byte for byte, and what came back, as one JSON object a line.

  remote-client.py http HOST PORT METHOD PATH [HEADER: VALUE]...
      {"status": 401, "headers": {...}, "body": "..."}
  remote-client.py browser PAIRING-ADDRESS STEP...   (headless Chromium as a phone; see browser())
  remote-client.py ws HOST PORT [HEADER: VALUE]... -- [MESSAGE]... [@bytes:N] [@binary] [@wait:SECONDS]
      {"status": 101} then each frame received: {"text": "..."} or {"close": 1009, "reason": "..."}
      MESSAGE is sent as a text frame; @bytes:N sends N bytes of 'x' as one text message;
      @split:MESSAGE sends it in three frames (a text frame and two continuations);
      @pieces:N:SIZE sends N frames of SIZE bytes of 'x' as one text message;
      @latin1:MESSAGE sends it encoded as Latin-1 (not UTF-8);
      @interleaved sends a text frame that is not the last of its message, then another text frame;
      @binary sends a binary frame; @wait:S reads for S seconds before the next message.
      Ends 1 s after the last message (or when the server closes). Pings are answered.
  remote-client.py hold HOST PORT N SECONDS [HEADER: VALUE]...
      opens N WebSockets, {"open": how many the server took}, holds them until its stdin ends
      (at most SECONDS), closes them
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
    length = 0 if method == "HEAD" else int(headers.get("content-length", ["0"])[0])
    while len(rest) < length:
        chunk = s.recv(65536)
        if not chunk:
            break
        rest += chunk
    print(json.dumps({"status": status, "headers": headers, "body": rest[:length].decode("utf-8", "replace")}))


def frame(opcode, payload, fin=True):
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([(0x80 if fin else 0) | opcode])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + struct.pack(">H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack(">Q", n)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def read_frames(s, buf, seconds, first=False):
    """Frames received within `seconds` (fewer if the server closes; with `first`, as soon as
    there is one); (frames, buf, closed). Frames already in `buf` (sent with the handshake's
    answer, in the same read) come first: a paused player's page is sent its state at once and
    nothing more, so they would otherwise wait for a read that never comes."""
    out, closed = [], False

    def parse():
        nonlocal buf, closed
        while len(buf) >= 2 and not closed:
            op, n = buf[0] & 15, buf[1] & 127
            i = 2
            if n == 126:
                if len(buf) < 4: return
                n, i = struct.unpack(">H", buf[2:4])[0], 4
            elif n == 127:
                if len(buf) < 10: return
                n, i = struct.unpack(">Q", buf[2:10])[0], 10
            if len(buf) < i + n:
                return
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
                return
            if op in (1, 0):
                out.append({"text": payload.decode("utf-8", "replace")})

    parse()
    deadline = time.time() + seconds
    while time.time() < deadline and not closed and not (first and out):
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
        parse()
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
            elif m.startswith("@split:"):
                b = m[7:].encode()
                third = len(b) // 3
                s.sendall(frame(1, b[:third], fin=False) + frame(0, b[third:2 * third], fin=False) + frame(0, b[2 * third:]))
            elif m.startswith("@pieces:"):
                n, size = (int(x) for x in m[8:].split(":"))
                s.sendall(b"".join(frame(1 if i == 0 else 0, b"x" * size, fin=(i == n - 1)) for i in range(n)))
            elif m == "@interleaved":
                s.sendall(frame(1, b'{"cmd":', fin=False) + frame(1, b'{"cmd":"pause"}'))
            elif m.startswith("@latin1:"):
                s.sendall(frame(1, m[8:].encode("latin-1")))
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


def hold(host, port, n, seconds, extra):
    held = []
    for _ in range(n):
        s = connect(host, port)
        key = base64.b64encode(os.urandom(16)).decode()
        req = (f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n" + "".join(h + "\r\n" for h in extra))
        s.sendall((req + "\r\n").encode("latin-1"))
        status, _, _ = read_response(s)
        if status == 101:
            held.append(s)
        else:
            s.close()
    print(json.dumps({"open": len(held)}), flush=True)
    import select
    select.select([sys.stdin], [], [], seconds)
    for s in held:
        s.close()


class DevTools:
    """Chromium's DevTools protocol over its WebSocket (the same frames as above)."""

    def __init__(self, ws_url):
        rest = ws_url[len("ws://"):]
        hostport, _, path = rest.partition("/")
        host, _, port = hostport.partition(":")
        self.s = connect(host, port)
        key = base64.b64encode(os.urandom(16)).decode()
        self.s.sendall((f"GET /{path} HTTP/1.1\r\nHost: {hostport}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        status, _, self.buf = read_response(self.s)
        assert status == 101, status
        self.next_id = 0

    def call(self, method, **params):
        self.next_id += 1
        self.s.sendall(frame(1, json.dumps({"id": self.next_id, "method": method, "params": params}).encode()))
        deadline = time.time() + 10
        while time.time() < deadline:
            frames, self.buf, closed = read_frames(self.s, self.buf, 1.0, first=True)
            for f in frames:
                if "text" in f:
                    o = json.loads(f["text"])
                    if o.get("id") == self.next_id:
                        if "error" in o:
                            raise RuntimeError(f"{method}: {o['error']}")
                        return o.get("result", {})
            if closed:
                raise RuntimeError("DevTools closed")
        raise RuntimeError(f"{method}: no answer")

    def js(self, expression):
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expression}: {r['exceptionDetails']}")
        return r.get("result", {}).get("value")

    def until(self, expression, seconds=20):
        deadline = time.time() + seconds
        while time.time() < deadline:
            try:
                v = self.js(expression)
            except RuntimeError:   # the page navigating meanwhile (the pairing page goes on to the remote)
                v = None
            if v:
                return v
            time.sleep(0.05)
        raise RuntimeError(f"waited {seconds} s in vain for {expression}")


def chromium(popen=None):
    """Headless Chromium with its DevTools on a free port: (process, port). `popen` starts it
    (the bench's, which stops it with the bench). Its profile folder goes with it at exit, and a
    SIGTERM to this client stops it too (a test that gives up terminates the client)."""
    import atexit, shutil, signal, subprocess, tempfile, threading
    profile = tempfile.mkdtemp(prefix="practice-chromium-")
    chrome = (popen or subprocess.Popen)(["/usr/bin/chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                          "--disable-background-networking", "--remote-debugging-port=0", f"--user-data-dir={profile}",
                                          "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

    def gone():
        if chrome.poll() is None:
            chrome.kill()
            chrome.wait()
        shutil.rmtree(profile, ignore_errors=True)
    atexit.register(gone)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))   # runs atexit's, unlike the default
    for line in chrome.stderr:
        if "DevTools listening on " in line:
            # What it says from now on is read and dropped: a full pipe would stop it.
            threading.Thread(target=lambda: [None for _ in chrome.stderr], daemon=True).start()
            return chrome, line.split("DevTools listening on ")[1].strip().split(":")[2].split("/")[0]
    raise RuntimeError("chromium did not start")


def page_target(port):
    """The DevTools address of Chromium's first page."""
    import urllib.request
    for _ in range(100):
        pages = [t for t in json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list")) if t["type"] == "page"]
        if pages:
            return pages[0]["webSocketDebuggerUrl"]
        time.sleep(0.05)
    raise RuntimeError("chromium has no page")


def phone(ws_url, url):
    """The page at `ws_url` made a 360×740 touch phone, gone to `url`, once the remote is live there."""
    d = DevTools(ws_url)
    d.call("Emulation.setDeviceMetricsOverride", width=360, height=740, deviceScaleFactor=2, mobile=True)
    d.call("Emulation.setTouchEmulationEnabled", enabled=True, maxTouchPoints=5)
    d.call("Network.setUserAgentOverride", userAgent="Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120 Mobile Safari/537.36")
    d.call("Page.navigate", url=url)
    d.until(LIVE)
    return d


# The remote's page, loaded and live (its WebSocket open).
LIVE = "location.pathname === '/' && document.readyState === 'complete' && document.getElementById('link') && document.getElementById('link').textContent === 'live'"


def browser(pair_url, steps):
    """Headless Chromium as a 360×740 touch phone: pairs through `pair_url`, waits until the page
    is live, then runs `steps`, printing one JSON object a step:
      tap:SELECTOR          a click on the element (what a tap fires), then {"tapped": SELECTOR, "t": CLOCK_MONOTONIC s before it}
      text:SELECTOR         {"text": its text}
      until:SELECTOR=TEXT   waits until its text contains TEXT, {"until": ...} (or {"timedOut": ...})
      untilJS:EXPRESSION    waits until it is true
      page2                 opens a second page (the same phone's second tab) and uses it from now on
      page1                 back to the first
      eval:JS               {"value": what JS gives}
      say:WORD              {"say": WORD}: a test reading these lines as they come acts on it
      shot:PATH             a PNG of the page
    """
    import urllib.request
    chrome, port = chromium()
    try:
        pages = [phone(page_target(port), pair_url)]
        origin = pair_url.split("/P/")[0].lower()
        print(json.dumps({"paired": pages[0].js("location.href")}), flush=True)
        d = pages[0]
        for step in steps:
            kind, _, arg = step.partition(":")
            if kind == "tap":
                t = time.monotonic()   # CLOCK_MONOTONIC, as the tests' and the bench's recorders stamp the sound
                d.js(f"document.querySelector({json.dumps(arg)}).click()")
                print(json.dumps({"tapped": arg, "t": t}), flush=True)
            elif kind == "text":
                print(json.dumps({"text": d.js(f"document.querySelector({json.dumps(arg)}).textContent")}), flush=True)
            elif kind == "until":
                sel, _, want = arg.partition("=")
                try:
                    d.until(f"(document.querySelector({json.dumps(sel)}) || {{}}).textContent && document.querySelector({json.dumps(sel)}).textContent.includes({json.dumps(want)})")
                    print(json.dumps({"until": arg}), flush=True)
                except RuntimeError:
                    print(json.dumps({"timedOut": arg, "text": d.js(f"document.querySelector({json.dumps(sel)}).textContent")}), flush=True)
            elif kind == "untilJS":
                try:
                    d.until(arg)
                    print(json.dumps({"until": arg}), flush=True)
                except RuntimeError:
                    print(json.dumps({"timedOut": arg}), flush=True)
            elif kind == "page2":
                if len(pages) == 1:
                    target = json.load(urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}/json/new?about:blank", method="PUT")))
                    pages.append(phone(target["webSocketDebuggerUrl"], origin + "/"))
                d = pages[1]
                print(json.dumps({"page": 2}), flush=True)
            elif kind == "page1":
                d = pages[0]
                print(json.dumps({"page": 1}), flush=True)
            elif kind == "say":
                print(json.dumps({"say": arg}), flush=True)
            elif kind == "eval":
                print(json.dumps({"value": d.js(arg)}), flush=True)
            elif kind == "shot":
                png = d.call("Page.captureScreenshot", format="png")["data"]
                with open(arg, "wb") as f:
                    f.write(base64.b64decode(png))
                print(json.dumps({"shot": arg}), flush=True)
    finally:
        chrome.kill()
        chrome.wait()


if __name__ == "__main__":
    if sys.argv[1] == "browser":
        browser(sys.argv[2], sys.argv[3:])
        sys.exit(0)
    kind, host, port = sys.argv[1], sys.argv[2], sys.argv[3]
    if kind == "http":
        http(host, port, sys.argv[4], sys.argv[5], sys.argv[6:])
    elif kind == "hold":
        hold(host, port, int(sys.argv[4]), float(sys.argv[5]), sys.argv[6:])
    else:
        args = sys.argv[4:]
        cut = args.index("--") if "--" in args else len(args)
        ws(host, port, args[:cut], args[cut + 1:])
