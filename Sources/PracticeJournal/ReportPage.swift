// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import PracticeDocuments

/// The journal as one self-contained web page (no file or network fetched: styles, script and
/// data are in it): minutes per week and per month by genre and by song, the songs, how fast each section
/// went day by day, a calendar of practice days, and the notes. The charts are SVG drawn by the
/// page's own script from the data in it; every bar carries its label and value (`data-label`,
/// `data-value`) so that what a chart shows can be read back. Text from tags and notes has its
/// control characters shown as escapes, as everywhere else.
public enum ReportPage {
    /// The first line of every page we write: a file that starts otherwise is not ours to replace.
    public static let signature = "<!-- practice journal report -->"

    /// Writes the page to `path`, atomically, and returns its size; a file there that is not one
    /// of these pages is kept unless `force` (73).
    public static func write(_ report: JournalReport, sessions: [JournalSession], title: String, to path: String, force: Bool) throws(PracticeError) -> Int {
        if !force, FileManager.default.fileExists(atPath: path) {
            let head = FileManager.default.contents(atPath: path).map { Array($0.prefix(signature.utf8.count)) } ?? []
            guard head == Array(signature.utf8) else {
                throw PracticeError(.cannotCreate, "\(path): exists and is not a journal report; choose another file or add --force")
            }
        }
        let page = html(report, sessions: sessions, title: title)
        try AtomicFile.write(Data(page.utf8), to: path)
        return page.utf8.count
    }

    public static func html(_ report: JournalReport, sessions: [JournalSession], title: String) -> String {
        """
        \(signature)
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
        <title>\("Practice journal: \(title)".terminalSafe.markupEscaped)</title>
        <style>\(style)</style>
        </head>
        <body>
        <h1>\("Practice journal: \(title)".terminalSafe.markupEscaped)</h1>
        <p class="summary" id="summary"></p>
        <section><h2>Minutes per week, by genre</h2><div class="chart" id="weeks"></div></section>
        <section><h2>Minutes per month, by genre</h2><div class="chart" id="months"></div></section>
        <section><h2>Minutes per week, by song</h2><div class="chart" id="weeksBySong"></div></section>
        <section><h2>Minutes per month, by song</h2><div class="chart" id="monthsBySong"></div></section>
        <section><h2>Songs</h2><div class="chart" id="songs"></div></section>
        <section><h2>Speed by section</h2><div id="speeds"></div></section>
        <section><h2>Practice days</h2><div id="calendar"></div></section>
        <section><h2>Notes</h2><ul id="notes"></ul></section>
        <script type="application/json" id="data">\(scriptSafe(data(report, sessions: sessions).compact()))</script>
        <script>\(script)</script>
        </body>
        </html>

        """
    }

    /// What the page's script draws from: minutes by week and month, by genre and by song (the
    /// eight most practised, and the others), the songs, sections' speeds by day, seconds per
    /// day, the notes.
    static func data(_ r: JournalReport, sessions: [JournalSession]) -> JSONValue {
        var weeks: [Day: [String: Double]] = [:], months: [Day: [String: Double]] = [:]
        var weeksBySong: [Day: [String: Double]] = [:], monthsBySong: [Day: [String: Double]] = [:]
        // The eight songs practised most have their own colour; the rest are "other songs".
        let top = Set(r.songs.prefix(8).map { $0.song.terminalSafe })
        for s in sessions where s.heard > 0 {
            let day = Day(s.started), genre = (s.genre ?? "no genre").terminalSafe
            weeks[day.weekStart, default: [:]][genre, default: 0] += s.heard
            months[day.monthStart, default: [:]][genre, default: 0] += s.heard
            let song = top.contains(s.song.terminalSafe) ? s.song.terminalSafe : "other songs"
            weeksBySong[day.weekStart, default: [:]][song, default: 0] += s.heard
            monthsBySong[day.monthStart, default: [:]][song, default: 0] += s.heard
        }
        // Every week and month of the span, empty ones too.
        var weekList: [Day] = [], monthList: [Day] = []
        var d = r.from.weekStart
        while d <= r.to { weekList.append(d); d = d.adding(days: 7) }
        d = r.from.monthStart
        while d <= r.to { monthList.append(d); d = d.monthEnd.adding(days: 1) }
        func bars(_ days: [Day], _ totals: [Day: [String: Double]], label: (Day) -> String) -> JSONValue {
            .array(days.map { day in
                .object(["label": .string(label(day)), "parts": .object((totals[day] ?? [:]).mapValues { .seconds($0) })])
            })
        }
        let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return .object([
            "from": .string(r.from.description), "to": .string(r.to.description),
            "seconds": .seconds(r.seconds), "sessions": .integer(r.sessions), "passes": .integer(r.passes), "streak": .integer(r.streak),
            "weeks": bars(weekList, weeks) { "\($0.day) \(monthNames[$0.month - 1])" },
            "months": bars(monthList, months) { "\(monthNames[$0.month - 1]) \($0.year)" },
            "weeksBySong": bars(weekList, weeksBySong) { "\($0.day) \(monthNames[$0.month - 1])" },
            "monthsBySong": bars(monthList, monthsBySong) { "\(monthNames[$0.month - 1]) \($0.year)" },
            "songs": .array(r.songs.map { .object(["label": .string($0.song.terminalSafe), "seconds": .seconds($0.seconds), "passes": .integer($0.passes)]) }),
            "sections": .array(r.sections.map { s in
                .object(["label": .string("\(s.kind == .loop ? "loop " : "")\(s.name) (\(s.song))".terminalSafe),
                         "speeds": .array(s.speeds.reduced(to: 53).byDay.map { .object(["day": .string($0.day.description), "speed": .number(cFormat("%.2f", $0.speed))]) })])
            }),
            "days": .array(r.days.filter { $0.seconds > 0 }.map { .object(["day": .string($0.day.description), "seconds": .seconds($0.seconds)]) }),
            "notes": .array(r.notes.map { .object(["day": .string($0.day.description), "text": .string($0.text.terminalSafe)]) }),
        ])
    }

    /// JSON inside a script element: `<` written as `\u003c`, so no `</script>` in a tag ends it.
    static func scriptSafe(_ json: String) -> String {
        json.split(separator: "<", omittingEmptySubsequences: false).joined(separator: "\\u003c")
    }

    static let style = """
        body{font:15px/1.45 system-ui,sans-serif;margin:2em auto;max-width:60em;padding:0 1em;color:#222;background:#fff}
        h1{font-size:1.5em}h2{font-size:1.1em;margin-top:2em}
        .chart svg,#speeds svg,#calendar svg{display:block;max-width:100%;height:auto}
        .bar-label,.axis{font-size:11px;fill:#555}.legend{font-size:12px}
        .note-day{color:#666;margin-right:.6em}ul#notes{list-style:none;padding:0}
        @media (prefers-color-scheme:dark){body{background:#111;color:#ddd}.bar-label,.axis{fill:#aaa}}
        """

    /// Draws the charts from the data: plain DOM and SVG, no libraries.
    static let script = """
        "use strict";
        const data = JSON.parse(document.getElementById("data").textContent);
        const NS = "http://www.w3.org/2000/svg";
        const palette = ["#4e79a7","#f28e2b","#e15759","#76b7b2","#59a14f","#edc948","#b07aa1","#ff9da7","#9c755f","#bab0ac"];
        function el(name, attrs, text) {
          const e = document.createElementNS(NS, name);
          for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
          if (text !== undefined) e.textContent = text;
          return e;
        }
        function minutes(s) { return Math.round(s / 60); }
        function duration(s) { const m = Math.round(s / 60); return m < 60 ? m + " min" : Math.floor(m / 60) + " h " + String(m % 60).padStart(2, "0") + " min"; }
        // A bar per week or month, stacked by `kind` (genre or song), most practised at the bottom.
        function stacked(id, bars, kind) {
          const totals = {};
          for (const b of bars) for (const [k, v] of Object.entries(b.parts)) totals[k] = (totals[k] || 0) + v;
          const keys = Object.keys(totals).sort((a, b) => totals[b] - totals[a] || (a < b ? -1 : 1));
          const colour = k => palette[keys.indexOf(k) % palette.length];
          const legendRows = Math.ceil(keys.length / 3);
          const w = Math.max(bars.length * 28 + 60, 480), h = 220, top = 10, bottom = 40, left = 40;
          const most = Math.max(1, ...bars.map(b => Object.values(b.parts).reduce((a, v) => a + v, 0)));
          const svg = el("svg", {viewBox: `0 0 ${w} ${h + 16 * legendRows + 4}`, width: w, height: h + 16 * legendRows + 4, role: "img"});
          bars.forEach((b, i) => {
            let y = h - bottom;
            const x = left + i * 28;
            for (const k of keys) {
              const v = b.parts[k] || 0;
              if (v <= 0) continue;
              const bh = v / most * (h - top - bottom);
              y -= bh;
              const r = el("rect", {class: "bar", x: x, y: y, width: 22, height: bh, fill: colour(k), "data-label": b.label, ["data-" + kind]: k, "data-value": minutes(v)});
              r.appendChild(el("title", {}, `${b.label}: ${k}, ${duration(v)}`));
              svg.appendChild(r);
            }
            svg.appendChild(el("text", {class: "bar-label", x: x + 11, y: h - bottom + 14, "text-anchor": "middle"}, b.label.split(" ")[0]));
          });
          svg.appendChild(el("text", {class: "axis", x: 0, y: top + 10}, minutes(most) + " min"));
          document.getElementById(id).appendChild(svg);
          // Three columns of 150 px: each label measured and shortened to its 132 px (a square
          // and a gap before it), so that no label runs into the next one; the whole name on hover.
          keys.forEach((k, n) => {
            const x = left + (n % 3) * 150, y = h + 16 * Math.floor(n / 3);
            svg.appendChild(el("rect", {x: x, y: y, width: 10, height: 10, fill: colour(k)}));
            const label = el("text", {class: "legend", x: x + 14, y: y + 9}, k);
            svg.appendChild(label);
            let shown = k;
            while (shown.length > 1 && label.getComputedTextLength() > 132) {
              shown = shown.slice(0, -1);
              label.textContent = shown.trimEnd() + "…";
            }
            label.appendChild(el("title", {}, k));
          });
        }
        function horizontal(id, items) {
          const w = 640, row = 22, left = 260;
          const most = Math.max(1, ...items.map(s => s.seconds));
          const svg = el("svg", {viewBox: `0 0 ${w} ${items.length * row + 4}`, width: w, height: items.length * row + 4, role: "img"});
          items.forEach((s, i) => {
            svg.appendChild(el("text", {class: "bar-label", x: left - 6, y: i * row + 15, "text-anchor": "end"}, s.label));
            const r = el("rect", {class: "bar", x: left, y: i * row + 3, width: Math.max(s.seconds / most * (w - left - 80), 1), height: row - 6,
                                  fill: palette[0], "data-label": s.label, "data-value": minutes(s.seconds)});
            r.appendChild(el("title", {}, `${s.label}: ${duration(s.seconds)}, ${s.passes} passes`));
            svg.appendChild(r);
            svg.appendChild(el("text", {class: "bar-label", x: left + s.seconds / most * (w - left - 80) + 6, y: i * row + 15}, duration(s.seconds)));
          });
          document.getElementById(id).appendChild(svg);
        }
        function speeds(id, sections) {
          const box = document.getElementById(id);
          for (const s of sections) {
            const w = 640, h = 60, left = 260, n = s.speeds.length;
            const svg = el("svg", {viewBox: `0 0 ${w} ${h}`, width: w, height: h, role: "img", class: "speed"});
            svg.appendChild(el("text", {class: "bar-label", x: left - 6, y: h / 2 + 4, "text-anchor": "end"}, s.label));
            const lo = 0.25, hi = 2;
            const pts = s.speeds.map((p, i) => [left + (n > 1 ? i / (n - 1) : 0.5) * (w - left - 90), h - 8 - (p.speed - lo) / (hi - lo) * (h - 16)]);
            if (n > 1) svg.appendChild(el("polyline", {points: pts.map(p => p.join(",")).join(" "), fill: "none", stroke: palette[1], "stroke-width": 2}));
            s.speeds.forEach((p, i) => {
              const c = el("circle", {class: "point", cx: pts[i][0], cy: pts[i][1], r: 3, fill: palette[1], "data-label": p.day, "data-value": p.speed});
              c.appendChild(el("title", {}, `${p.day}: ${p.speed}×`));
              svg.appendChild(c);
            });
            const first = s.speeds[0].speed, last = s.speeds[n - 1].speed;
            svg.appendChild(el("text", {class: "bar-label", x: w - 80, y: h / 2 + 4}, first === last ? `${first.toFixed(2)}×` : `${first.toFixed(2)}× → ${last.toFixed(2)}×`));
            box.appendChild(svg);
          }
        }
        function calendar(id, days) {
          const seconds = new Map(days.map(d => [d.day, d.seconds]));
          const from = new Date(data.from + "T00:00:00Z"), to = new Date(data.to + "T00:00:00Z");
          const start = new Date(from); start.setUTCDate(start.getUTCDate() - ((start.getUTCDay() + 6) % 7));
          const most = Math.max(1, ...days.map(d => d.seconds));
          const weeks = Math.ceil(((to - start) / 86400000 + 1) / 7);
          const svg = el("svg", {viewBox: `0 0 ${weeks * 14 + 30} ${7 * 14 + 4}`, width: weeks * 14 + 30, height: 7 * 14 + 4, role: "img"});
          ["M", "", "W", "", "F", "", ""].forEach((d, k) => svg.appendChild(el("text", {class: "axis", x: 0, y: k * 14 + 11}, d)));
          for (let t = new Date(start), i = 0; t <= to; t.setUTCDate(t.getUTCDate() + 1), i++) {
            if (t < from) continue;
            const key = t.toISOString().slice(0, 10), v = seconds.get(key) || 0;
            const shade = v > 0 ? 0.25 + 0.75 * v / most : 0;
            const c = el("rect", {class: v > 0 ? "day practised" : "day", x: 16 + Math.floor(i / 7) * 14, y: (i % 7) * 14, width: 12, height: 12, rx: 2,
                                  fill: v > 0 ? `rgba(89,161,79,${shade.toFixed(2)})` : "#e8e8e8", "data-label": key, "data-value": minutes(v)});
            c.appendChild(el("title", {}, `${key}: ${v > 0 ? duration(v) : "no practice"}`));
            svg.appendChild(c);
          }
          document.getElementById(id).appendChild(svg);
        }
        document.getElementById("summary").textContent =
          `${duration(data.seconds)} in ${data.sessions} session${data.sessions === 1 ? "" : "s"}, ${data.passes} loop passes · streak: ${data.streak} day${data.streak === 1 ? "" : "s"}`;
        stacked("weeks", data.weeks, "genre");
        stacked("months", data.months, "genre");
        stacked("weeksBySong", data.weeksBySong, "song");
        stacked("monthsBySong", data.monthsBySong, "song");
        horizontal("songs", data.songs);
        speeds("speeds", data.sections);
        calendar("calendar", data.days);
        const notes = document.getElementById("notes");
        for (const n of data.notes) {
          const li = document.createElement("li");
          const day = document.createElement("span");
          day.className = "note-day";
          day.textContent = n.day;
          li.append(day, document.createTextNode(n.text));
          notes.appendChild(li);
        }
        """
}
