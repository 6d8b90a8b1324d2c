# SPDX-License-Identifier: GPL-3.0-or-later
# A small journal for the report tests: four sessions over 2-5 March 2026 (UTC), two of them of
# the same song under two file names (the same decoded audio), a title with an escape code, a note.
# python3 journal-week.py JOURNAL (a journal practice made, still empty)
import sqlite3, sys, calendar, time
db = sqlite3.connect(sys.argv[1])
def t(s): return calendar.timegm(time.strptime(s, "%Y-%m-%d %H:%M"))
def session(start, path, artist, title, genre, heard, top, speeds, parts, audio=None):
    c = db.execute("INSERT INTO session (path, audio, title, artist, album, genre, duration, started, ended, day, heard, countIns, topSpeed, markersAdded) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                   (path, audio, title, artist, None, genre, 200, t(start), t(start) + heard, start[:10], heard, 0, top, 0))
    for r, s in speeds.items(): db.execute("INSERT INTO speed VALUES (?,?,?)", (c.lastrowid, r, s))
    for kind, name, passes, secs, speed in parts: db.execute("INSERT INTO part (sessionId, kind, name, passes, seconds, topSpeed) VALUES (?,?,?,?,?,?)", (c.lastrowid, kind, name, passes, secs, speed))
session("2026-03-02 10:00", "/m/drill.wav", "Crew", "Drill", "Dance", 600, 0.7, {0.7: 600},
        [("loop", "chorus", 12, 400, 0.7), ("section", "chorus", 12, 420, 0.7), ("section", "verse", 2, 180, 0.7)])
session("2026-03-04 18:30", "/m/drill.wav", "Crew", "Drill", "Dance", 900, 0.9, {0.8: 400, 0.9: 500},
        [("loop", "chorus", 20, 700, 0.9), ("section", "chorus", 20, 700, 0.9)])
session("2026-03-05 09:00", "/m/solo.flac", "Band", "Solo\x1b[31m", None, 300, 1.0, {1.0: 300}, [])
session("2026-03-05 20:00", "/m/copy of drill.flac", "Crew", "Drill", "Dance", 120, 0.9, {0.9: 120}, [("loop", "chorus", 4, 120, 0.9)], audio="abc")
db.execute("UPDATE session SET audio = 'abc' WHERE path = '/m/drill.wav' AND started = ?", (t("2026-03-04 18:30"),))
db.execute("INSERT INTO note (day, text, written) VALUES (?, ?, ?)", ("2026-03-04", "Chorus at 0.9 for the first time", t("2026-03-04 21:00")))
db.commit()
