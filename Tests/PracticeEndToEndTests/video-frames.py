#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The video tests' picture, made and read back.

  video-frames.py make OUT.mp4 SECONDS
      a 320x240, 25 fps H.264 video (lossless) whose every frame shows its number in ten blocks
      across its top half (white: 1, most significant first) above a red left and a blue right
      half, with a 440 Hz tone as its sound
  video-frames.py read PNG
      takes a screenshot of the mpv window on $DISPLAY into PNG and prints
      {"frame": N, "mirrored": true|false} (a mirrored picture's blocks read backwards), or
      {"window": null} when there is none
"""
import json, subprocess, sys

W, H, FPS = 320, 240, 25


def make(out, seconds):
    p = subprocess.Popen(["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{W}x{H}", "-r", str(FPS), "-i", "-",
                          "-f", "lavfi", "-i", f"sine=f=440:duration={seconds}", "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0",
                          "-pix_fmt", "yuv444p", "-g", "25", "-c:a", "aac", "-shortest", out], stdin=subprocess.PIPE)
    bottom = (bytes([255, 0, 0]) * (W // 2) + bytes([0, 0, 255]) * (W // 2)) * (H // 2)
    for n in range(int(FPS * seconds)):
        top = b"".join(bytes([255, 255, 255]) * 32 if (n >> (9 - k)) & 1 else bytes(96) for k in range(10))
        p.stdin.write(top * (H // 2) + bottom)
    p.stdin.close()
    return p.wait()


def window():
    tree = subprocess.run(["xwininfo", "-root", "-tree"], stdout=subprocess.PIPE, text=True).stdout
    for line in tree.splitlines():
        if '("mpv" "mpv")' in line:
            return line.split()[0]
    return None


def read(png):
    wid = window()
    if wid is None:
        print(json.dumps({"window": None}))
        return
    # (A window closing meanwhile: none.)
    if subprocess.run(["import", "-window", wid, png], stderr=subprocess.DEVNULL).returncode != 0:
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
    print(json.dumps({"frame": n, "mirrored": left[2] > 128 and right[0] > 128}))


if __name__ == "__main__":
    if sys.argv[1] == "make":
        sys.exit(make(sys.argv[2], float(sys.argv[3])))
    read(sys.argv[2])
