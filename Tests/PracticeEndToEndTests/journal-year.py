# SPDX-License-Identifier: GPL-3.0-or-later
# A year of practice history for tests and benchmarks: sessions every day (or most days) over
# the DAYS days that end on END (default today, UTC), of 40 songs in 6 genres, each with its
# speeds and the loops and sections practised, written into a journal practice made (still
# empty). Prints what was written, as JSON: rows, sessions, seconds and passes in all and per
# month, so that a test can hold the reports against it.
#
#   python3 journal-year.py JOURNAL [--rows 100000] [--days 365] [--end 2026-11-25] [--seed 1]
import argparse, calendar, datetime, json, random, sqlite3

ap = argparse.ArgumentParser()
ap.add_argument("journal")
ap.add_argument("--rows", type=int, default=100_000, help="about this many rows (sessions, speeds and parts)")
ap.add_argument("--days", type=int, default=365)
ap.add_argument("--end", default=None)
ap.add_argument("--seed", type=int, default=1)
args = ap.parse_args()

rng = random.Random(args.seed)
end = datetime.date.fromisoformat(args.end) if args.end else datetime.datetime.now(datetime.timezone.utc).date()
start = end - datetime.timedelta(days=args.days - 1)
genres = ["Dance", "Jazz", "Rock", "Classical", "Folk", "Pop"]
songs = []
for k in range(40):
    sections = ["intro", "verse", "chorus", "bridge", "outro"][: 3 + k % 3]
    songs.append(dict(path="/music/song %02d.flac" % k, title="Song %02d" % k, artist="Artist %d" % (k % 9),
                      genre=genres[k % len(genres)], audio="%064x" % (k + 1), sections=sections,
                      loops=["chorus loop", "turn"][: k % 3]))
per_session = 6.3                      # rows a session makes, on average: itself, its speeds, sections and loops
sessions_per_day = max(1, round(args.rows / per_session / (args.days * 0.9)))

db = sqlite3.connect(args.journal)
rows = sessions = passes = notes = 0
seconds = 0.0
months = {}
day = start
while day <= end:
    if rng.random() < 0.9:             # most days
        for n in range(rng.randint(max(1, sessions_per_day - 2), sessions_per_day + 2)):
            song = rng.choice(songs)
            t = calendar.timegm(day.timetuple()) + rng.randint(6 * 3600, 22 * 3600)
            heard = float(rng.randint(60, 1800))
            speeds = sorted(rng.sample([0.5, 0.6, 0.7, 0.8, 0.9, 1.0], rng.randint(1, 3)))
            share = [heard / len(speeds)] * len(speeds)
            c = db.execute("INSERT INTO session (path, audio, title, artist, album, genre, duration, started, ended, day, heard, countIns, topSpeed, markersAdded)"
                           " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                           (song["path"], song["audio"], song["title"], song["artist"], "Album", song["genre"], 240.0, t, t + heard,
                            day.isoformat(), heard, 0, speeds[-1], 0))
            sid = c.lastrowid
            rows += 1
            for r, s in zip(speeds, share):
                db.execute("INSERT INTO speed VALUES (?,?,?)", (sid, r, s)); rows += 1
            loop_passes = 0
            for name in rng.sample(song["sections"], min(len(song["sections"]), rng.randint(1, 4))):
                db.execute("INSERT INTO part (sessionId, kind, name, passes, seconds, topSpeed) VALUES (?,?,?,?,?,?)", (sid, "section", name, rng.randint(1, 12), heard / 5, speeds[-1])); rows += 1
            for name in song["loops"]:
                p = rng.randint(2, 30)
                loop_passes += p
                db.execute("INSERT INTO part (sessionId, kind, name, passes, seconds, topSpeed) VALUES (?,?,?,?,?,?)", (sid, "loop", name, p, heard / 3, speeds[-1])); rows += 1
            sessions += 1
            seconds += heard
            passes += loop_passes
            m = day.isoformat()[:7]
            months.setdefault(m, [0.0, 0])
            months[m][0] += heard
            months[m][1] += 1
    if day.day == 1:
        db.execute("INSERT INTO note (day, text, written) VALUES (?, ?, ?)", (day.isoformat(), "Month %s: new goals" % day.isoformat()[:7], calendar.timegm(day.timetuple())))
        rows += 1
        notes += 1
    day += datetime.timedelta(days=1)
db.commit()
print(json.dumps(dict(rows=rows, notes=notes, sessions=sessions, seconds=seconds, passes=passes, start=start.isoformat(), end=end.isoformat(),
                      months={m: dict(seconds=v[0], sessions=v[1]) for m, v in sorted(months.items())})))
