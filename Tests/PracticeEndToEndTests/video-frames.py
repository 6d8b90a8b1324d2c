#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The video tests' picture, made and read back.

  video-frames.py make OUT.mp4 SECONDS
      a 320x240, 25 fps H.264 video (lossless) whose every frame shows its number in ten blocks
      across its top half (white: 1, most significant first) above a red left and a blue right
      half, with a click on every second (10 ms of 1 kHz from each whole second) as its sound
  video-frames.py read PNG [--text]
      takes a screenshot of the mpv window on $DISPLAY into PNG and prints
      {"frame": N, "mirrored": true|false, "width": W, "height": H} (a mirrored picture's blocks
      read backwards), or {"window": null} when there is none; with --text, also what is written
      over the picture in white (tesseract), at the top left ("top"), in the middle ("middle")
      and at the bottom ("bottom"): the picture's own white is its blocks, so the text is read
      where frames below 128 have none; and how many white pixels each of those places holds
      ("topInk", "middleInk", "bottomInk")
  video-frames.py hover
      moves the pointer over the mpv window on $DISPLAY, along its lower part where mpv's
      on-screen controller would show (it shows when the pointer moves over the window), and
      leaves it there
  video-frames.py watch
      for each line read on stdin, the frame the mpv window on $DISPLAY shows, read with
      XGetImage in a few milliseconds: {"frame": N} or {"window": null}, a line each
"""
import ctypes, json, subprocess, sys, time

W, H, FPS = 320, 240, 25


def make(out, seconds):
    p = subprocess.Popen(["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{W}x{H}", "-r", str(FPS), "-i", "-",
                          "-f", "lavfi", "-i", f"aevalsrc=exprs=if(lt(mod(t\\,1)\\,0.01)\\,0.8*sin(2*PI*1000*t)\\,0):s=44100:d={seconds}", "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0",
                          "-pix_fmt", "yuv444p", "-g", "25", "-c:a", "aac", "-shortest", out], stdin=subprocess.PIPE)
    bottom = (bytes([255, 0, 0]) * (W // 2) + bytes([0, 0, 255]) * (W // 2)) * (H // 2)
    for n in range(int(FPS * seconds)):
        top = b"".join(bytes([255, 255, 255]) * 32 if (n >> (9 - k)) & 1 else bytes(96) for k in range(10))
        p.stdin.write(top * (H // 2) + bottom)
    p.stdin.close()
    return p.wait()


def window():
    tree = subprocess.run(["xwininfo", "-root", "-tree"], stdout=subprocess.PIPE, text=True, timeout=10).stdout
    for line in tree.splitlines():
        if '("mpv" "mpv")' in line:
            return line.split()[0]
    return None


def read(png, text):
    wid = window()
    if wid is None:
        print(json.dumps({"window": None}))
        return
    # A window closing meanwhile: none (import waits for ever on a window that went away
    # between the two steps, so it is given 5 s).
    try:
        taken = subprocess.run(["import", "-window", wid, png], stderr=subprocess.DEVNULL, timeout=5).returncode == 0
    except subprocess.TimeoutExpired:
        taken = False
    if not taken:
        print(json.dumps({"window": None}))
        return
    out = subprocess.run(["convert", png, "ppm:-"], stdout=subprocess.PIPE, check=True).stdout
    header = out.split(b"\n", 3)
    w, h = map(int, header[1].split())
    data = header[3]

    def px(x, y):
        i = 3 * (y * w + x)
        return data[i], data[i + 1], data[i + 2]
    n = 0
    for k in range(10):
        n = n * 2 + (1 if px(k * w // 10 + w // 20, h // 4)[0] > 128 else 0)
    left, right = px(w // 8, 3 * h // 4), px(7 * w // 8, 3 * h // 4)
    shown = {"frame": n, "mirrored": left[2] > 128 and right[0] > 128, "width": w, "height": h}
    if text:
        # How much white each place holds (none: nothing written there, whatever tesseract makes of it).
        for name, (x0, y0, x1, y1) in [("top", (0, 0, 0.3, 0.22)), ("middle", (0, 0.3, 1, 0.7)), ("bottom", (0, 0.76, 1, 1))]:
            shown[name + "Ink"] = sum(1 for y in range(int(y0 * h), int(y1 * h)) for x in range(int(x0 * w), int(x1 * w))
                                      if min(px(x, y)) > 217)
        for name, gravity, crop in [("top", "northwest", "30%x22%+0+0"), ("middle", "center", "100%x40%+0+0"), ("bottom", "south", "100%x24%+0+0")]:
            # White (the text's fill) black, everything else white: black text on white for tesseract.
            subprocess.run(["convert", png, "-gravity", gravity, "-crop", crop, "+repage", "-fx", "(r>0.85&&g>0.85&&b>0.85)?0:1",
                            "-bordercolor", "white", "-border", "20", png + ".txt.png"], check=True)
            shown[name] = subprocess.run(["tesseract", png + ".txt.png", "-", "--psm", "7"], stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, text=True).stdout.strip()
    print(json.dumps(shown))


class XImage(ctypes.Structure):
    pass


_DESTROY = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(XImage))
XImage._fields_ = [
    ("width", ctypes.c_int), ("height", ctypes.c_int), ("xoffset", ctypes.c_int), ("format", ctypes.c_int),
    ("data", ctypes.POINTER(ctypes.c_ubyte)), ("byte_order", ctypes.c_int), ("bitmap_unit", ctypes.c_int),
    ("bitmap_bit_order", ctypes.c_int), ("bitmap_pad", ctypes.c_int), ("depth", ctypes.c_int),
    ("bytes_per_line", ctypes.c_int), ("bits_per_pixel", ctypes.c_int), ("red_mask", ctypes.c_ulong),
    ("green_mask", ctypes.c_ulong), ("blue_mask", ctypes.c_ulong), ("obdata", ctypes.c_void_p),
    ("create_image", ctypes.c_void_p), ("destroy_image", _DESTROY),
]


class Screen:
    """The mpv window on a display, read with XGetImage (libX11 through ctypes): a read of the
    frame number takes a few milliseconds, where a screenshot takes a hundred."""

    def __init__(self, name=None):
        self.x = ctypes.CDLL("libX11.so.6")
        self.x.XOpenDisplay.restype = ctypes.c_void_p
        self.x.XOpenDisplay.argtypes = [ctypes.c_char_p]
        self.x.XGetImage.restype = ctypes.POINTER(XImage)
        self.x.XGetImage.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_int, ctypes.c_uint, ctypes.c_uint,
                                     ctypes.c_ulong, ctypes.c_int]
        self.x.XGetGeometry.argtypes = [ctypes.c_void_p, ctypes.c_ulong] + [ctypes.c_void_p] * 7
        self.x.XWarpPointer.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong] + [ctypes.c_int] * 2 + [ctypes.c_uint] * 2 + [ctypes.c_int] * 2
        self.x.XFlush.argtypes = [ctypes.c_void_p]
        # A window not (or no longer) shown makes a read fail: None, not an exit.
        self._on_error = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)(lambda d, e: 0)
        self.x.XSetErrorHandler(self._on_error)
        self.dpy = self.x.XOpenDisplay(name.encode() if name else None)
        if not self.dpy:
            raise RuntimeError("cannot open the display %s" % name)
        self.wid = None

    def size(self, wid):
        root, x, y = ctypes.c_ulong(), ctypes.c_int(), ctypes.c_int()
        w, h, border, depth = ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint()
        if not self.x.XGetGeometry(self.dpy, wid, ctypes.byref(root), ctypes.byref(x), ctypes.byref(y), ctypes.byref(w), ctypes.byref(h),
                                   ctypes.byref(border), ctypes.byref(depth)):
            return None
        return w.value, h.value

    def frame(self, wid):
        """The frame number the window shows (its blocks, read on a row a quarter down), or None."""
        size = self.size(wid)
        if size is None or size[0] < 10 or size[1] < 4:
            return None
        w, h = size
        img = self.x.XGetImage(self.dpy, wid, 0, h // 4, w, 1, 0xFFFFFFFF, 2)   # ZPixmap
        if not img:
            return None
        try:
            data, n = img.contents.data, 0
            for k in range(10):
                n = n * 2 + (1 if data[4 * (k * w // 10 + w // 20) + 2] > 128 else 0)   # BGRX: red
            return n
        finally:
            img.contents.destroy_image(img)

    def hover(self, wid):
        """Moves the pointer along the lower part of `wid` in small steps (as a hand would), and
        leaves it there; False when the window is not shown."""
        size = self.size(wid)
        if size is None:
            return False
        w, h = size
        for k in range(20):
            self.x.XWarpPointer(self.dpy, 0, wid, 0, 0, 0, 0, w // 4 + k * w // 40, h - h // 8 - k % 3)
            self.x.XFlush(self.dpy)
            time.sleep(0.02)
        return True

    def shown(self):
        """The frame mpv's window shows now, the window found again when it has gone."""
        if self.wid is not None:
            n = self.frame(self.wid)
            if n is not None:
                return n
        found = window()
        self.wid = int(found, 16) if found else None
        return self.frame(self.wid) if self.wid is not None else None


def hover():
    wid = window()
    return 0 if wid is not None and Screen().hover(int(wid, 16)) else 1


def watch():
    screen = Screen()
    for _ in sys.stdin:
        n = screen.shown()
        print(json.dumps({"frame": n} if n is not None else {"window": None}), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "make":
        sys.exit(make(sys.argv[2], float(sys.argv[3])))
    if sys.argv[1] == "watch":
        sys.exit(watch())
    if sys.argv[1] == "hover":
        sys.exit(hover())
    read(sys.argv[2], "--text" in sys.argv[3:])
