// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport

/// `practice journal` and its recording: exact reports of a journal written for the test, notes,
/// sessions recorded by real playback (and not with --no-journal or `record = false`), and a
/// SIGKILL losing at most the last second.
@Suite struct JournalCommandTests {
    let dir = ScratchDirectory("journal-cli")
    var env: [String: String] { ["XDG_DATA_HOME": dir.file("data"), "XDG_CONFIG_HOME": dir.file("config"), "XDG_CACHE_HOME": dir.file("cache"), "TZ": "UTC"] }
    var journalPath: String { dir.file("data/practice/journal.sqlite") }

    func practice(_ args: [String], extra: [String: String] = [:]) throws -> ProcessResult {
        try run(practiceBinary, args, environment: env.merging(extra) { $1 }, currentDirectory: dir.path)
    }

    /// The journal of `journal-week.py`: four sessions over 2–5 March 2026.
    func week() throws {
        #expect(try practice(["journal", "today"]).status == 0, "makes the journal")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("journal-week.py").path
        let r = try run("/usr/bin/python3", [script, journalPath])
        try #require(r.status == 0, "\(r.stderr)")
    }

    @Test func aReportByDaySongSectionAndGenre() throws {
        try week()
        var r = try practice(["journal", "2026-03-02..2026-03-05"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r)")
        #expect(r.stdout == """
            Practice journal: Mon 2 Mar – Thu 5 Mar 2026
            32 min in 4 sessions, 36 loop passes · streak: 2 days

            Mon 2 Mar  ████████████████████           10 min
            Tue 3 Mar
            Wed 4 Mar  ██████████████████████████████ 15 min
            Thu 5 Mar  ██████████████                 7 min

            SONG                   TIME    SESSIONS  PASSES  SPEED
            Crew — Drill           27 min         3      36  0.70× → 0.90×  ▁██
            Band — Solo\\u{1b}[31m   5 min         1       0  1.00×

            SECTION      IN            TIME    PASSES  SPEED
            loop chorus  Crew — Drill  20 min      36  0.70× → 0.90×  ▁██
            chorus       Crew — Drill  19 min      32  0.70× → 0.90×  ▁█
            verse        Crew — Drill   3 min       2  0.70×

            GENRE     TIME    PASSES
            Dance     27 min      36
            no genre   5 min       0

            NOTES
            Wed 4 Mar  Chorus at 0.9 for the first time

            """, "\(r.stdout)")

        // For scripts: the same numbers, in seconds.
        r = try practice(["journal", "2026-03-02..2026-03-05", "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(json["seconds"] as? Double == 1920 && json["sessions"] as? Int == 4 && json["passes"] as? Int == 36 && json["streak"] as? Int == 2)
        let songs = try #require(json["songs"] as? [[String: Any]])
        #expect(songs.map { $0["song"] as? String } == ["Crew — Drill", "Band — Solo\u{1B}[31m"])
        #expect((songs[0]["speeds"] as? [[String: Any]])?.map { "\($0["day"]!) \($0["speed"]!)" } == ["2026-03-02 0.7", "2026-03-04 0.9", "2026-03-05 0.9"])

        // For a spreadsheet: a row per session and per part, text made safe.
        r = try practice(["journal", "2026-03-05", "--csv"])
        #expect(r.stdout == """
            day,started,artist,title,genre,path,kind,name,seconds,passes,top_speed,main_speed
            2026-03-05,1772701200,Band,Solo\\u{1b}[31m,,/m/solo.flac,session,,300.000,0,1.00,1.00
            2026-03-05,1772740800,Crew,Drill,Dance,/m/copy of drill.flac,session,,120.000,4,0.90,0.90
            2026-03-05,1772740800,Crew,Drill,Dance,/m/copy of drill.flac,loop,chorus,120.000,4,0.90,0.90

            """, "\(r.stdout)")

        // A week with nothing in it.
        r = try practice(["journal", "2026-01-05..2026-01-11"])
        #expect(r.stdout == "Practice journal: Mon 5 Jan – Sun 11 Jan 2026\nNothing practised.\n", "\(r.stdout)")
    }

    /// The web page, loaded in Debian's chromium (headless): no console message at all, and the
    /// charts hold the journal's bars, read from the DOM the page's script built.
    @Test func aWebPageReportInARealBrowser() throws {
        try week()
        var r = try practice(["journal", "2026-03-01..2026-03-31", "--html", "report.html"])
        #expect(r.status == 0 && r.stderr.hasPrefix("practice: wrote report.html ("), "\(r)")
        let page = try String(contentsOfFile: dir.file("report.html"), encoding: .utf8)
        #expect(page.utf8.count < 1_000_000 && page.hasPrefix("<!-- practice journal report -->\n"))
        #expect(!page.contains("src=") && !page.contains("href="), "nothing fetched from anywhere")
        let browser = try run("/usr/bin/chromium", ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(dir.file("chromium"))",
                                                     "--enable-logging=stderr", "--v=0", "--dump-dom", "file://\(dir.file("report.html"))"])
        #expect(browser.status == 0, "\(browser.stderr)")
        let console = browser.stderr.split(separator: "\n").filter { $0.contains(":CONSOLE") }
        #expect(console.isEmpty, "\(console)")
        let dom = browser.stdout
        func marks(_ cls: String) -> [String] {
            dom.matches(of: /<(?:rect|circle) class="(?<c>[a-z ]+)"[^>]*?data-label="(?<l>[^"]*)"(?: data-genre="(?<g>[^"]*)")? data-value="(?<v>[^"]*)"/)
                .filter { $0.output.c == cls }
                .map { m in [String(m.output.l), m.output.g.map(String.init), String(m.output.v)].compactMap { $0 }.joined(separator: " | ") }
        }
        // Weeks from Mon 23 Feb to Mon 30 Mar, the first full week of March holding it all; the month.
        #expect(marks("bar").filter { $0.hasPrefix("2 Mar") || $0.hasPrefix("Mar 2026") } == [
            "2 Mar | Dance | 27", "2 Mar | no genre | 5", "Mar 2026 | Dance | 27", "Mar 2026 | no genre | 5",
        ], "\(marks("bar"))")
        #expect(marks("bar").filter { $0.hasPrefix("Crew") || $0.hasPrefix("Band") } == ["Crew — Drill | 27", "Band — Solo\\u{1b}[31m | 5"], "\(marks("bar"))")
        let bySong = dom.matches(of: /data-label="(?<l>[^"]*)" data-song="(?<s>[^"]*)" data-value="(?<v>[^"]*)"/).map { "\($0.output.l) | \($0.output.s) | \($0.output.v)" }
        #expect(bySong == ["2 Mar | Crew — Drill | 27", "2 Mar | Band — Solo\\u{1b}[31m | 5", "Mar 2026 | Crew — Drill | 27", "Mar 2026 | Band — Solo\\u{1b}[31m | 5"], "\(bySong)")
        #expect(marks("point") == ["2026-03-02 | 0.7", "2026-03-04 | 0.9", "2026-03-05 | 0.9", "2026-03-02 | 0.7", "2026-03-04 | 0.9", "2026-03-02 | 0.7"],
                "loop chorus, section chorus, section verse: \(marks("point"))")
        #expect(marks("day practised") == ["2026-03-02 | 10", "2026-03-04 | 15", "2026-03-05 | 7"], "\(marks("day practised"))")
        #expect(marks("day").count == 28, "the other days of March")
        #expect(dom.contains("<li><span class=\"note-day\">2026-03-04</span>Chorus at 0.9 for the first time</li>"))
        #expect(dom.contains("32 min in 4 sessions, 36 loop passes · streak: 0 days"))

        // Written again over our own page; another file is kept unless --force.
        #expect(try practice(["journal", "2026-03-01..2026-03-31", "--html", "report.html"]).status == 0)
        try "my own page".write(toFile: dir.file("mine.html"), atomically: true, encoding: .utf8)
        r = try practice(["journal", "--html", "mine.html"])
        #expect(r.status == 73 && r.stderr == "practice: mine.html: exists and is not a journal report; choose another file or add --force\n", "\(r)")
        #expect(try String(contentsOfFile: dir.file("mine.html"), encoding: .utf8) == "my own page")
        #expect(try practice(["journal", "--html", "mine.html", "--force"]).status == 0)
    }

    /// A song whose name is longer than a legend's column: its label is measured in the browser
    /// and shortened to fit (ending in …, the whole name kept as its tooltip), so labels do not
    /// run into each other; and a section drilled at 0.8× after a moment at 1.0× shows 0.80×, the
    /// speed practised longest.
    @Test func aLongNameFitsItsLegendAndTheSpeedIsThePractisedOne() throws {
        try week()
        let long = "A Very Long Song Title That Goes On And On Past Its Column"
        let script = """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1])
            c.execute("UPDATE session SET title = ? WHERE title = 'Drill'", (sys.argv[2],))
            c.execute("UPDATE part SET mainSpeed = 0.8, topSpeed = 1.0 WHERE kind = 'section' AND name = 'chorus'")
            c.commit()
            """
        #expect(try run("/usr/bin/python3", ["-c", script, journalPath, long]).status == 0)
        var r = try practice(["journal", "2026-03-01..2026-03-31", "--html", "long.html"])
        #expect(r.status == 0, "\(r)")
        let browser = try run("/usr/bin/chromium", ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(dir.file("chromium-long"))",
                                                     "--dump-dom", "file://\(dir.file("long.html"))"])
        let labels = browser.stdout.matches(of: /<text class="legend"[^>]*>(?<shown>[^<]*)<title>(?<full>[^<]*)<\/title>/).map { (String($0.output.shown), String($0.output.full)) }
        let mine = labels.filter { $0.1 == "Crew — \(long)" }
        #expect(!mine.isEmpty && mine.allSatisfy { $0.0.hasSuffix("…") && $0.0.count < 30 && $0.1.hasPrefix(String($0.0.dropLast()).trimmingCharacters(in: .whitespaces)) }, "\(labels)")
        r = try practice(["journal", "2026-03-02..2026-03-05", "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let chorus = try #require((json["sections"] as? [[String: Any]])?.first { $0["kind"] as? String == "section" && $0["name"] as? String == "chorus" }, "\(json)")
        let speeds = (chorus["speeds"] as? [[String: Any]])?.map { ($0["speed"] as? Double) ?? Double("\($0["speed"]!)") ?? -1 } ?? []
        #expect(!speeds.isEmpty && speeds.allSatisfy { $0 == 0.8 }, "the speed practised longest, not the top one: \(chorus)")
        // The spreadsheet has both: the top speed and the one practised longest.
        let csv = try practice(["journal", "2026-03-02..2026-03-05", "--csv"]).stdout.split(separator: "\n").filter { $0.contains(",section,chorus,") }
        #expect(!csv.isEmpty && csv.allSatisfy { $0.hasSuffix(",1.00,0.80") }, "\(csv)")
    }

    /// A year of generated history: the report's totals are the generator's, month by month, and
    /// the page for the year draws a bar for every month, in a browser, without a console message.
    @Test func aYearOfHistory() throws {
        #expect(try practice(["journal", "today"]).status == 0, "makes the journal")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("journal-year.py").path
        let made = try run("/usr/bin/python3", [script, journalPath, "--rows", "6000"], environment: ["TZ": "UTC"])
        try #require(made.status == 0, "\(made.stderr)")
        let truth = try #require(try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: Any])
        let span = "\(truth["start"]!)..\(truth["end"]!)"
        var r = try practice(["journal", span, "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r)")
        #expect(report["sessions"] as? Int == truth["sessions"] as? Int && report["passes"] as? Int == truth["passes"] as? Int)
        #expect(abs((report["seconds"] as? Double ?? 0) - (truth["seconds"] as? Double ?? -1)) < 0.01)
        var months: [String: Double] = [:]
        for d in report["days"] as? [[String: Any]] ?? [] { months[String((d["day"] as! String).prefix(7)), default: 0] += d["seconds"] as! Double }
        let expected = (truth["months"] as! [String: [String: Any]]).mapValues { $0["seconds"] as! Double }
        #expect(months.filter { $0.value > 0 } == expected, "per month")
        #expect((report["notes"] as? [Any])?.count == truth["notes"] as? Int, "a note on each first of the month")

        // The text: a bar a month (a year of days would be 365 lines). A month's line is known by its
        // label, not its bar: the first month of the span may hold a day or two, a bar of "▏" or none.
        r = try practice(["journal", span])
        let bars = r.stdout.split(separator: "\n").filter { $0.firstMatch(of: #/^[A-Z][a-z]{2} \d{4}  /#) != nil && $0.hasSuffix("min") }
        #expect(bars.count == expected.count, "\(r.stdout.prefix(1500))")

        // The page: 13 months' bars (one per genre in each), no console message, under 1 MB.
        r = try practice(["journal", span, "--html", "year.html"])
        #expect(r.status == 0)
        let size = try FileManager.default.attributesOfItem(atPath: dir.file("year.html"))[.size] as? Int ?? .max
        #expect(size < 1_000_000)
        let browser = try run("/usr/bin/chromium", ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(dir.file("chromium"))",
                                                     "--enable-logging=stderr", "--v=0", "--dump-dom", "file://\(dir.file("year.html"))"])
        #expect(!browser.stderr.contains(":CONSOLE"), "\(browser.stderr.split(separator: "\n").filter { $0.contains(":CONSOLE") })")
        let monthLabels = Set(browser.stdout.matches(of: /data-label="([A-Z][a-z]{2} 20\d\d)" data-genre/).map { String($0.1) })
        #expect(monthLabels.count == expected.count, "\(monthLabels.sorted())")
    }

    @Test func notesAndMistakes() throws {
        var r = try practice(["journal", "note", "--date", "2026-03-03", "Rehearsal", "with the crew"])
        #expect(r.status == 0 && r.stderr == "practice: noted for Tue 3 Mar 2026\n", "\(r)")
        r = try practice(["journal", "2026-03-03"])
        #expect(r.stdout == "Practice journal: Tue 3 Mar 2026\nNothing practised.\n\nNOTES\nTue 3 Mar  Rehearsal with the crew\n", "\(r.stdout)")
        for (args, message) in [
            (["journal", "last week"], "practice: 'last week' is not a span of days (today, week, month, year, 2026-11-24 or 2026-11-01..2026-11-24)\n"),
            (["journal", "2026-03-05..2026-03-01"], "practice: '2026-03-05..2026-03-01' is not a span of days (today, week, month, year, 2026-11-24 or 2026-11-01..2026-11-24)\n"),
            (["journal", "note", "--date", "2026-02-30", "x"], "practice: '2026-02-30' is not a day (2026-11-24, today or yesterday)\n"),
            (["journal", "note", " "], "practice: the note is empty\n"),
        ] {
            r = try practice(args)
            #expect(r.status == 64 && r.stderr == message && r.stdout.isEmpty, "\(args): \(r)")
        }
        // A file that is not a journal: one line, exit 65, the file left as it was.
        try "my notes".write(toFile: journalPath, atomically: true, encoding: .utf8)
        r = try practice(["journal", "note", "x"])
        #expect(r.status == 65 && r.stderr.hasPrefix("practice: \(journalPath): not a practice journal (") && r.stderr.hasSuffix("); move it away to start a new one\n"), "\(r)")
        #expect(try String(contentsOfFile: journalPath, encoding: .utf8) == "my notes")
    }

    /// A journal a newer version made: shown with a warning, never written (a note is refused).
    @Test func aNewerJournalIsShownNotWritten() throws {
        try week()
        #expect(try run("/usr/bin/python3", ["-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('PRAGMA user_version = 7'); c.commit()", journalPath]).status == 0)
        var r = try practice(["journal", "2026-03-04"])
        #expect(r.status == 0 && r.stdout.contains("15 min in 1 session") && r.stderr == "practice: warning: \(journalPath): written by a newer version of practice; shown, but nothing is recorded in it\n", "\(r)")
        r = try practice(["journal", "note", "x"])
        #expect(r.status == 73 && r.stderr == "practice: \(journalPath): written by a newer version of practice; shown, but nothing is recorded in it\n", "\(r)")
    }

    /// Playing records a session (on `null` the player runs faster than real time, so the time
    /// heard is short, but the track is there); --no-journal and `record = false` record nothing.
    @Test func playingRecordsUnlessTurnedOff() throws {
        try Signals.write(Signals.sine(440, seconds: 1), to: dir.file("tone.wav"), tags: ["title": "Tone", "artist": "Test", "genre": "Sine"])
        func sessions() throws -> Int {
            let r = try practice(["journal", "today", "--json"])
            return (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])?["sessions"] as? Int ?? -1
        }
        var r = try practice(["tone.wav", "--device", "null", "--no-tui", "--rate", "0.8"])
        #expect(r.status == 0, "\(r)")
        #expect(try sessions() == 1)
        r = try practice(["journal", "today"])
        #expect(r.stdout.contains("Test — Tone") && r.stdout.contains("0.80×") && r.stdout.contains("Sine"), "\(r.stdout)")
        #expect(try practice(["tone.wav", "--device", "null", "--no-tui", "--no-journal"]).status == 0)
        #expect(try sessions() == 1)
        try FileManager.default.createDirectory(atPath: dir.file("config/practice"), withIntermediateDirectories: true)
        try "[journal]\nrecord = false\n".write(toFile: dir.file("config/practice/config.toml"), atomically: true, encoding: .utf8)
        #expect(try practice(["tone.wav", "--device", "null", "--no-tui"]).status == 0)
        #expect(try sessions() == 1)
    }

    /// `practice preview`: where it plays (the first named loop), and a preview is no practice.
    @Test func aPreviewIsNotRecorded() throws {
        try Signals.write(Signals.sine(440, seconds: 40), to: dir.file("song.wav"), tags: ["title": "Song"])
        var r = try practice(["preview", "song.wav", "--where"])
        #expect(r.status == 0 && r.stdout == "0:10.0–0:25.0 the loudest part near the middle\n", "\(r)")
        for (name, time) in [("A", "0:30"), ("B", "0:35")] { #expect(try practice(["markers", "add", "song.wav", name, time]).status == 0) }
        #expect(try practice(["loops", "add", "song.wav", "outro", "A", "B"]).status == 0)
        r = try practice(["preview", "song.wav", "--where"])
        #expect(r.stdout == "0:25.0–0:40.0 the loop 'outro'\n", "a loop near the end: the last 15 s, \(r)")
        r = try practice(["preview", "song.wav", "--device", "null"])
        #expect(r.status == 0 && r.stderr == "practice: previewing Song, 0:25.0–0:40.0 (the loop 'outro')\n", "\(r)")
        r = try practice(["journal", "today", "--json"])
        #expect((try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])?["sessions"] as? Int == 0)
    }

    /// A player killed with SIGKILL (no chance to write anything more) has its session in the
    /// journal up to at most a second before the kill: the position heard then, at 1×.
    @Test func aKillLosesAtMostTheLastSecond() throws {
        let rig = try PulseRig()
        try Signals.write(Signals.sine(440, seconds: 30), to: dir.file("long.wav"), tags: ["title": "Long"])
        var all = ProcessInfo.processInfo.environment.merging(env) { $1 }
        for (k, v) in rig.environment { all[k] = v }
        let player = try Spawned(practiceBinary, [dir.file("long.wav"), "--device", "pulse", "--no-tui", "--control", "socket"], environment: all)
        var position = 0.0
        let deadline = Date().addingTimeInterval(15)
        while position < 3.4, Date() < deadline {
            usleep(50_000)
            let status = try run(practiceBinary, ["ctl", "status", "--json"], environment: all).stdout
            position = (try? JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any])?["position"] as? Double ?? 0
        }
        kill(player.pid, SIGKILL)
        _ = player.wait()
        let r = try practice(["journal", "today", "--json"])
        let heard = (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])?["seconds"] as? Double ?? -1
        #expect(heard >= position - 1.05 && heard <= position + 0.25, "heard \(heard) s in the journal; \(position) s when killed")
    }
}
