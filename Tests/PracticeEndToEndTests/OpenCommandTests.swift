// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport

/// A real HTTP server on 127.0.0.1 (a free port), written in Python's http.server, serving FLO
/// song documents, a WAV made with libsndfile, a cover, redirects, errors and stalls. It stops
/// itself after `lifetime` seconds or when the test process is gone, and is stopped on deinit.
final class SongServer: @unchecked Sendable {  // immutable after init
    static let script = #"""
        import http.server, json, os, sys, threading, time, urllib.parse

        root, lifetime = sys.argv[1], float(sys.argv[2])
        parent = os.getppid()
        def watchdog():
            deadline = time.time() + lifetime
            while time.time() < deadline and os.getppid() == parent:
                time.sleep(0.2)
            os._exit(0)
        threading.Thread(target=watchdog, daemon=True).start()

        LYRICS = "[00:01:200]first line\n[00:02:300]second line\n[00:03:800]"

        def song(**fields):
            doc = {"singer": "Ana", "album": "Drills", "title": "Warm-up", "duration": 2,
                   "image": "cover.png", "file": "warm%20up.wav", "lyrics": LYRICS}
            doc.update(fields)
            return {k: v for k, v in doc.items() if v is not None}

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                with open(os.path.join(root, "requests.log"), "a") as f:
                    f.write(self.path + "\n")

            def send(self, status, body=b"", headers=(), length=True):
                self.send_response(status)
                for k, v in headers:
                    self.send_header(k, v)
                if length:
                    self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                base = "http://127.0.0.1:%d" % self.server.server_port
                path = urllib.parse.urlsplit(self.path).path
                docs = {
                    "/songs/warmup.json": song(),
                    "/songs/absolute.json": song(file=base + "/media/tone.wav", image=base + "/media/cover.png"),
                    "/songs/stream.json": song(file="/stream/tone.wav", image=None),
                    "/songs/nocover.json": song(image="missing.png"),
                    "/songs/nofile.json": song(file=None),
                    "/songs/badduration.json": song(duration="3:18"),
                    "/songs/badtitle.json": song(title=7),
                    "/songs/textaudio.json": song(file="notes.txt"),
                    "/songs/slowaudio.json": song(file="/slow/tone.wav"),
                    "/songs/escape1.json": song(file="../../escape.wav"),
                    "/songs/escape2.json": song(file="%2e%2e%2fescape.wav"),
                    "/songs/escape3.json": song(image="..%2F..%2Fescape.png"),
                    "/songs/missingaudio.json": song(file="nowhere.wav"),
                }
                if path in docs:
                    return self.send(200, json.dumps(docs[path]).encode(), [("Content-Type", "application/json")])
                if path == "/songs/notjson.json":
                    return self.send(200, b"<html><body>Not here</body></html>\n", [("Content-Type", "text/html")])
                if path.startswith("/r/"):    # /r/3 -> /r/2 -> /r/1 -> /songs/warmup.json
                    n = int(path[3:])
                    return self.send(302, b"", [("Location", "/r/%d" % (n - 1) if n > 1 else "/songs/warmup.json")])
                if path == "/loop":
                    return self.send(302, b"", [("Location", "/loop")])
                if path == "/gone.json":
                    return self.send(410, b"gone\n")
                if path == "/big.json":         # 5 MiB: more than a song document may be
                    return self.send(200, b" " * (5 << 20))
                if path == "/broken.json":
                    return self.send(500, b"oops\n")
                if path == "/stall.json":       # no answer at all for 5 s
                    time.sleep(5)
                    return self.send(200, b"{}")
                if path.startswith("/slow/"):   # the headers and 4 kB of a 1 MB body, then nothing for 5 s
                    self.send_response(200)
                    self.send_header("Content-Length", "1000000")
                    self.end_headers()
                    self.wfile.write(b"RIFF" + b"\0" * 4092)
                    self.wfile.flush()
                    time.sleep(5)
                    return
                name = urllib.parse.unquote(path.rsplit("/", 1)[-1])
                file = os.path.join(root, "media", name)
                if path.startswith(("/songs/", "/media/", "/stream/")) and os.path.isfile(file):
                    with open(file, "rb") as f:
                        body = f.read()
                    return self.send(200, body, length=not path.startswith("/stream/"))  # /stream/: no length, then close
                self.send(404, b"not found\n")

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True
            def handle_error(self, request, client_address):
                pass  # a client that gave up (the timeout tests) is not news

        server = Server(("127.0.0.1", 0), Handler)
        print(server.server_port, flush=True)
        server.serve_forever()
        """#

    let dir = ScratchDirectory("song-server")
    private let process: Spawned
    let port: Int
    var base: String { "http://127.0.0.1:\(port)" }
    /// The files it serves, by name.
    var media: String { dir.path + "/media" }

    init(lifetime: Int = 120) throws {
        try FileManager.default.createDirectory(atPath: dir.path + "/media", withIntermediateDirectories: true)
        try Self.script.write(toFile: dir.file("server.py"), atomically: true, encoding: .utf8)
        // 2 s of 440 Hz, stereo 16-bit WAV, under two names.
        try Signals.write(Signals.sine(440, seconds: 2), to: dir.path + "/media/warm up.wav")
        try FileManager.default.copyItem(atPath: dir.path + "/media/warm up.wav", toPath: dir.path + "/media/tone.wav")
        try Self.cover.write(to: URL(fileURLWithPath: dir.path + "/media/cover.png"))
        try "These are notes, not audio.\n".write(toFile: dir.path + "/media/notes.txt", atomically: true, encoding: .utf8)

        let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/bin/python3"
        process = try Spawned(python, [dir.file("server.py"), dir.path, String(lifetime)],
                              environment: ProcessInfo.processInfo.environment, captureStdout: true)
        // The first line on its stdout is the port it bound.
        var line = [UInt8]()
        var pfd = pollfd(fd: process.stdout!, events: Int16(POLLIN), revents: 0)
        while !line.contains(UInt8(ascii: "\n")) {
            guard poll(&pfd, 1, 10_000) > 0 else { break }
            var byte: UInt8 = 0
            guard read(process.stdout!, &byte, 1) == 1 else { break }
            line.append(byte)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw POSIXError(.ECONNREFUSED)
        }
        self.port = port
    }

    /// Bytes that stand for a cover image (every byte value, behind a PNG signature).
    static let cover = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0...255).map { UInt8($0) })

    /// The paths requested so far, in order.
    var requests: [String] {
        ((try? String(contentsOfFile: dir.file("requests.log"), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    func stop() { process.terminate() }
}

/// `practice open`: a FLO song fetched over real HTTP into the cache and played on ALSA's `null`
/// device; every failure is one line, a sysexits code and nothing left in the cache.
@Suite struct OpenCommandTests {
    let dir = ScratchDirectory("open")
    var cache: String { dir.path + "/cache" }
    var environment: [String: String] { ["XDG_CACHE_HOME": cache] }

    func open(_ arguments: [String]) throws -> ProcessResult {
        try practice(["open"] + arguments + ["--device", "null", "--no-tui"], in: dir, environment: environment)
    }

    /// Everything below the cache folder, dot files included, sorted.
    func cacheListing() -> [String] {
        ((try? FileManager.default.subpathsOfDirectory(atPath: cache)) ?? []).sorted()
    }

    /// The song folders in the cache (the temporary ones included).
    func songFolders() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: cache + "/practice/songs")) ?? []).sorted()
    }

    func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    static let lrc = "[ti:Warm-up]\n[ar:Ana]\n[al:Drills]\n[00:01:200]first line\n[00:02:300]second line\n[00:03:800]\n"

    @Test func fetchesCachesAndPlaysThenPlaysTheCachedCopyWithoutTheServer() throws {
        let server = try SongServer()
        let url = server.base + "/songs/warmup.json"
        // Played into ALSA's file plugin: what was heard is the server's audio, sample for sample.
        let raw = dir.file("heard.raw")
        let first = try practice(["open", url, "--device", "capture", "--no-tui"], in: dir,
                                 environment: environment.merging(ALSACapture.environment(in: dir, rawPath: raw)) { $1 })
        #expect(first.status == 0)
        #expect(first.stdout == "" && first.stderr == "")
        let heard = try Signals.readRawFloat(raw)
        let served = try Signals.read(server.media + "/warm up.wav").samples
        #expect(heard.count == 88_200 * 2 && heard == served)
        let folders = songFolders()
        try #require(folders.count == 1)
        let key = folders[0]
        #expect(key.count == 16 && key.allSatisfy(\.isHexDigit))
        let song = cache + "/practice/songs/" + key
        #expect(cacheListing() == ["practice", "practice/songs", "practice/songs/\(key)"]
            + ["cached.json", "cover.png", "song.json", "warm up.wav", "warm up.wav.lrc"].map { "practice/songs/\(key)/\($0)" })
        #expect(bytes(song + "/warm up.wav") == bytes(server.media + "/warm up.wav"))
        #expect(bytes(song + "/cover.png") == SongServer.cover)
        #expect(bytes(song + "/warm up.wav.lrc") == Data(Self.lrc.utf8))
        #expect(server.requests == ["/songs/warmup.json", "/songs/warm%20up.wav", "/songs/cover.png"])
        // The cached file is the server's WAV: `info` reads it.
        let info = try practice(["info", song + "/warm up.wav"], in: dir)
        #expect(info.status == 0 && info.stdout.contains("Duration:     0:02.000 (88200 frames)"))

        server.stop()
        let again = try open([url, "--rate", "0.8"])
        #expect(again.status == 0)
        #expect(again.stdout == "")
        #expect(again.stderr == "practice: playing the cached copy of \(url) (--refresh fetches it again)\n")

        // --refresh needs the server; failing, it leaves the cached copy as it was.
        let before = cacheListing()
        let refresh = try open([url, "--refresh", "--timeout", "5"])
        #expect(refresh.status == 69)
        #expect(refresh.stderr == "practice: \(url): cannot connect to the server\n")
        #expect(cacheListing() == before)
        #expect(bytes(song + "/warm up.wav.lrc") == Data(Self.lrc.utf8))
    }

    @Test func refreshFetchesAgainAndKeepsAddedFiles() throws {
        let server = try SongServer()
        let url = server.base + "/songs/warmup.json"
        #expect(try open([url]).status == 0)
        let song = cache + "/practice/songs/" + songFolders()[0]
        try #"{"markers": []}"#.write(toFile: song + "/warm up.wav.practice.json", atomically: true, encoding: .utf8)
        try "stale".write(toFile: song + "/warm up.wav.lrc", atomically: true, encoding: .utf8)
        let r = try open([url, "--refresh"])
        #expect(r.status == 0 && r.stderr == "")
        #expect(server.requests.filter { $0 == "/songs/warmup.json" }.count == 2)
        #expect(songFolders().count == 1)
        #expect(bytes(song + "/warm up.wav.lrc") == Data(Self.lrc.utf8))
        #expect(bytes(song + "/warm up.wav.practice.json") == Data(#"{"markers": []}"#.utf8))
    }

    /// The title, singer and album on the practice screen, and the download bars before it.
    @Test func theScreenShowsTheDocumentsTitleSingerAndAlbum() throws {
        let server = try SongServer()
        func tmux(_ args: [String]) throws -> String { try Tmux.run(args) }
        let session = "practice-open-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try #require(try Tmux.newSession(session, width: 80, height: 24) == 0)
        defer { _ = try? tmux(["kill-session", "-t", session]) }
        let command = "cd \(dir.path) && PS1='$ ' && clear && XDG_CACHE_HOME=\(cache) \(practiceBinary) open \(server.base)/songs/warmup.json --device null; echo EXIT=$?"
        _ = try tmux(["send-keys", "-t", session, command, "Enter"])
        func waitFor(_ text: String) throws -> String { try Tmux.waitFor(text, in: session) }
        var screen = try waitFor("Ana · Drills")
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "Warm-up" && lines.dropFirst().first == "Ana · Drills", "screen:\n\(screen)")
        _ = try tmux(["send-keys", "-t", session, "q"])
        screen = try waitFor("EXIT=")
        #expect(screen.contains("EXIT=0"), "screen:\n\(screen)")
        let bars = screen.split(separator: "\n").map(String.init).filter { $0.contains("] 100%") }
        #expect(bars.count == 2, "screen:\n\(screen)")
        #expect(bars.first?.hasPrefix("warm up.wav [###") == true && bars.first?.hasSuffix("] 100%  353 kB of 353 kB") == true, "screen:\n\(screen)")
        #expect(bars.last?.hasPrefix("cover.png [###") == true && bars.last?.hasSuffix("] 100%  264 B of 264 B") == true, "screen:\n\(screen)")
    }

    @Test func followsRedirectsAndResolvesLinksAgainstWhereTheyEnd() throws {
        let server = try SongServer()
        let r = try open([server.base + "/r/3"])
        #expect(r.status == 0 && r.stderr == "")
        #expect(server.requests == ["/r/3", "/r/2", "/r/1", "/songs/warmup.json", "/songs/warm%20up.wav", "/songs/cover.png"])
        let song = cache + "/practice/songs/" + songFolders()[0]
        #expect(bytes(song + "/warm up.wav") == bytes(server.media + "/warm up.wav"))
        // The second open of the same URL needs no redirect either.
        let again = try open([server.base + "/r/3"])
        #expect(again.status == 0 && server.requests.count == 6)
    }

    @Test func absoluteLinksAndABodyOfUnknownLength() throws {
        let server = try SongServer()
        #expect(try open([server.base + "/songs/absolute.json"]).status == 0)
        let absolute = cache + "/practice/songs/" + songFolders()[0]
        #expect(bytes(absolute + "/tone.wav") == bytes(server.media + "/tone.wav"))
        #expect(bytes(absolute + "/cover.png") == SongServer.cover)
        #expect(bytes(absolute + "/tone.wav.lrc") == Data(Self.lrc.utf8))

        let stream = try open([server.base + "/songs/stream.json"])
        #expect(stream.status == 0 && stream.stderr == "")
        let folder = try #require(songFolders().first { cache + "/practice/songs/" + $0 != absolute })
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache + "/practice/songs/" + folder).sorted()
                == ["cached.json", "song.json", "tone.wav", "tone.wav.lrc"])
        #expect(bytes(cache + "/practice/songs/\(folder)/tone.wav") == bytes(server.media + "/tone.wav"))
    }

    @Test func aLocalDocumentMayPointAtHTTPAndAtLocalFiles() throws {
        let server = try SongServer()
        let doc = #"{"title": "Local", "singer": "Ben", "file": "\#(server.base)/media/tone.wav", "image": "art/front cover.png", "lyrics": "[00:00:500]hi"}"#
        try FileManager.default.createDirectory(atPath: dir.file("art"), withIntermediateDirectories: true)
        try SongServer.cover.write(to: URL(fileURLWithPath: dir.file("art/front cover.png")))
        try doc.write(toFile: dir.file("song.json"), atomically: true, encoding: .utf8)
        let r = try open(["song.json"])
        #expect(r.status == 0 && r.stderr == "")
        let song = cache + "/practice/songs/" + songFolders()[0]
        #expect(try FileManager.default.contentsOfDirectory(atPath: song).sorted()
                == ["cached.json", "front cover.png", "song.json", "tone.wav", "tone.wav.lrc"])
        #expect(bytes(song + "/tone.wav") == bytes(server.media + "/tone.wav"))
        #expect(bytes(song + "/front cover.png") == SongServer.cover)
        #expect(bytes(song + "/tone.wav.lrc") == Data("[ti:Local]\n[ar:Ben]\n[00:00:500]hi\n".utf8))
    }

    /// Each failure: one line naming the URL or file, its code, nothing on stdout, and nothing in the cache.
    @Test(arguments: [
        ("/songs/missing.json", [], 66, "{base}/songs/missing.json: HTTP 404 Not Found"),
        ("/gone.json", [], 66, "{base}/gone.json: HTTP 410 Gone"),
        ("/broken.json", [], 69, "{base}/broken.json: HTTP 500 Internal Server Error"),
        ("/big.json", [], 65, "{base}/big.json: too large for a song document (over 4 MiB)"),
        ("/loop", [], 69, "{base}/loop: too many redirects (more than 10)"),
        ("/stall.json", ["--timeout", "1"], 69, "{base}/stall.json: timed out (no answer or data for 1 s)"),
        ("/songs/slowaudio.json", ["--timeout", "1"], 69, "{base}/slow/tone.wav: timed out (no answer or data for 1 s)"),
        ("/songs/nofile.json", [], 65, "{base}/songs/nofile.json: 'file' is missing"),
        ("/songs/badduration.json", [], 65, #"{base}/songs/badduration.json: 'duration' must be a whole number of seconds (got "3:18")"#),
        ("/songs/badtitle.json", [], 65, "{base}/songs/badtitle.json: 'title' must be a string (got 7)"),
        ("/songs/notjson.json", [], 65, "{base}/songs/notjson.json: not a JSON document (line 1, column 1: unexpected '<'; expected a value)"),
        ("/songs/textaudio.json", [], 65, "{base}/songs/notes.txt: not a supported audio file (neither libsndfile nor FFmpeg reads it)"),
        ("/songs/escape1.json", [], 65, #"{base}/songs/escape1.json: 'file' would escape the cache folder (got "../../escape.wav")"#),
        ("/songs/escape2.json", [], 65, #"{base}/songs/escape2.json: 'file' would escape the cache folder (got "%2e%2e%2fescape.wav")"#),
        ("/songs/escape3.json", [], 65, #"{base}/songs/escape3.json: 'image' would escape the cache folder (got "..%2F..%2Fescape.png")"#),
        ("/songs/missingaudio.json", [], 66, "{base}/songs/nowhere.wav: HTTP 404 Not Found"),
    ] as [(String, [String], Int32, String)])
    func failuresAreOneLineACodeAndNothingCached(path: String, extra: [String], status: Int32, message: String) throws {
        let server = try SongServer()
        let r = try open([server.base + path] + extra)
        #expect(r.status == status)
        #expect(r.stderr == "practice: " + message.replacingOccurrences(of: "{base}", with: server.base) + "\n")
        #expect(r.stdout == "")
        #expect(cacheListing() == ["practice", "practice/songs"])
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/escape.wav") && !FileManager.default.fileExists(atPath: cache + "/escape.wav"))
    }

    @Test func aCoverThatCannotBeFetchedIsAWarning() throws {
        let server = try SongServer()
        let r = try open([server.base + "/songs/nocover.json"])
        #expect(r.status == 0)
        #expect(r.stderr == "practice: warning: \(server.base)/songs/missing.png: HTTP 404 Not Found; going on without the cover\n")
        let song = cache + "/practice/songs/" + songFolders()[0]
        #expect(try FileManager.default.contentsOfDirectory(atPath: song).sorted() == ["cached.json", "song.json", "warm up.wav", "warm up.wav.lrc"])
    }

    @Test func localDocumentsAndTheCacheFolder() throws {
        try #"{"title": "No file"}"#.write(toFile: dir.file("song.json"), atomically: true, encoding: .utf8)
        let missingField = try open(["song.json"])
        #expect(missingField.status == 65 && missingField.stderr == "practice: song.json: 'file' is missing\n")
        let missing = try open(["missing.json"])
        #expect(missing.status == 66 && missing.stderr == "practice: missing.json: no such file\n")
        #expect(cacheListing() == ["practice", "practice/songs"])
        // A cache folder that cannot be made (below a file, so that root cannot write there either).
        try "".write(toFile: dir.file("file"), atomically: true, encoding: .utf8)
        let r = try practice(["open", "song.json", "--device", "null"], in: dir, environment: ["XDG_CACHE_HOME": dir.file("file")])
        #expect(r.status == 73)
        #expect(r.stderr == "practice: \(dir.file("file"))/practice/songs: cannot create: Not a directory\n")
    }

    @Test func badArgumentsAndHelp() throws {
        let scheme = try open(["ftp://example.com/song.json"])
        #expect(scheme.status == 64)
        #expect(scheme.stderr == "practice: SOURCE must be a path or an http(s) URL (got 'ftp://example.com/song.json') (see 'practice --help')\n")
        let timeout = try open(["song.json", "--timeout", "0"])
        #expect(timeout.status == 64)
        #expect(timeout.stderr == "practice: '--timeout' must be more than 0 and at most 3600 seconds (got '0') (see 'practice --help')\n")
        let help = try practice(["open", "--help"], in: dir)
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: practice open [<options>] <source>") && help.stdout.contains("  practice open https://"))
        #expect(help.stdout.contains("--rate <rate>") && help.stdout.contains("--refresh") && help.stdout.contains("--timeout <timeout>"))
    }

    /// Ctrl-C during a download removes the half-fetched song (exit 130); a temporary folder left
    /// by a killed process is removed by the next open.
    @Test func anInterruptedFetchLeavesNothing() throws {
        let server = try SongServer()
        let songs = cache + "/practice/songs"
        try FileManager.default.createDirectory(atPath: songs, withIntermediateDirectories: true)
        let gone = try Spawned("/bin/true", [], environment: [:])
        gone.wait()
        try FileManager.default.createDirectory(atPath: "\(songs)/.tmp-0123456789abcdef-\(gone.pid)-1/x", withIntermediateDirectories: true)

        var env = ProcessInfo.processInfo.environment
        env["XDG_CACHE_HOME"] = cache
        env["SWIFT_BACKTRACE"] = "enable=no"
        let p = try Spawned(practiceBinary, ["open", server.base + "/songs/slowaudio.json", "--device", "null", "--no-tui"], environment: env)
        // Wait until the slow audio is being fetched (its folder holds the document by then).
        var fetching = false
        for _ in 0..<100 where !fetching {
            usleep(50_000)
            fetching = songFolders().contains { $0.hasPrefix(".tmp-") && !$0.contains("-\(gone.pid)-") } && server.requests.contains("/slow/tone.wav")
        }
        #expect(fetching)
        #expect(!songFolders().contains { $0.contains("-\(gone.pid)-") })
        kill(p.pid, SIGINT)
        #expect(p.wait() == 130)
        #expect(songFolders() == [])
    }

    /// libcurl (and the TLS, Kerberos and LDAP libraries it brings) is opened only to fetch: a
    /// fetching `open` maps it, a playing `practice` never does; FFmpeg's libraries only for a
    /// file libsndfile does not read; Rubber Band only at `--quality high`.
    @Test func librariesAreMappedOnlyByWhatUsesThem() throws {
        func mapsWhen(_ arguments: [String], ready: (String) -> Bool) throws -> String {
            var env = ProcessInfo.processInfo.environment
            env["XDG_CACHE_HOME"] = cache
            env["XDG_STATE_HOME"] = dir.path + "/state"
            let p = try Spawned(practiceBinary, arguments + ["--device", "null", "--no-tui"], environment: env)
            defer { kill(p.pid, SIGKILL); p.wait() }
            var maps = ""
            for _ in 0..<100 where !ready(maps) {
                usleep(50_000)
                // (read whole: procfs files have no size, and Foundation reads them only in part)
                maps = (try? FileHandle(forReadingAtPath: "/proc/\(p.pid)/maps")?.readToEnd()).map { String(decoding: $0, as: UTF8.self) } ?? ""
            }
            #expect(kill(p.pid, 0) == 0, "\(arguments) ended early")
            return maps
        }
        let server = try SongServer()
        // Fetching the stalled audio: by then the document came over HTTP.
        let fetching = try mapsWhen(["open", server.base + "/songs/slowaudio.json"]) { _ in server.requests.contains("/slow/tone.wav") }
        #expect(fetching.contains("/libcurl.so.4"))
        // Playing for a second (the device opened within milliseconds): no libcurl.
        try Signals.write(Signals.sine(440, seconds: 10), to: dir.file("tone.wav"))
        let started = ContinuousClock.now
        // (a second in, and its pipeline built)
        let playing = try mapsWhen(["play", dir.file("tone.wav")]) { $0.contains("/libSoundTouchDll.so") && ContinuousClock.now - started > .seconds(1) }
        #expect(playing.contains("/libsndfile.so") && playing.contains("/libSoundTouchDll.so") && playing.contains("/libasound.so.2"))
        #expect(!playing.contains("libcurl"))
        // Nor soxr (with the OpenMP runtime it brings), which only resampling needs: a pitch shift,
        // or a device at another rate than the track's.
        #expect(!playing.contains("/libsoxr.so") && !playing.contains("/libgomp.so"))
        let shifted = try mapsWhen(["play", dir.file("tone.wav"), "--pitch", "2"]) { $0.contains("/libsoxr.so") }
        #expect(shifted.contains("/libsoxr.so"))
        // Nor Chromaprint (and FFmpeg's libraries behind it), which only fingerprinting opens,
        // nor FFmpeg for decoding, which only a file libsndfile refuses needs (an M4A does).
        #expect(!playing.contains("libchromaprint") && !playing.contains("libavcodec") && !playing.contains("libavformat"))
        // Nor Rubber Band, which only --quality high (and a render) opens, nor libqrencode and
        // libwebsockets (the phone remote's pairing code and server).
        #expect(!playing.contains("librubberband") && !playing.contains("libqrencode") && !playing.contains("libwebsockets"))
        let playingHigh = try mapsWhen(["play", dir.file("tone.wav"), "--quality", "high"]) { $0.contains("/librubberband.so.2") }
        #expect(playingHigh.contains("/librubberband.so.2"))
        _ = try run("/usr/bin/ffmpeg", ["-v", "error", "-y", "-i", dir.file("tone.wav"), "-c:a", "aac", dir.file("tone.m4a")])
        let m4aStarted = ContinuousClock.now
        let playingM4A = try mapsWhen(["play", dir.file("tone.m4a")]) { _ in ContinuousClock.now - m4aStarted > .seconds(1) }
        #expect(playingM4A.contains("/libavformat.so.59") && playingM4A.contains("/libavcodec.so.59"))
    }

    /// The audio libraries are opened when a command first reads, stretches, resamples or plays
    /// audio: the commands that touch none (help, the library, the journal, ctl) never load
    /// libsndfile with its seven codec libraries, SoundTouch, soxr, Rubber Band or ALSA; SQLite
    /// and Nettle are opened by the commands that keep a journal or an index, or take a checksum.
    /// What the dynamic loader loads, as it reports it (LD_DEBUG=files): at start, or dynamically.
    @Test func theCommandsThatTouchNoAudioLoadNoAudioLibrary() throws {
        let dir = ScratchDirectory("no-audio-libraries")
        /// The libraries the process loaded: those the binary names (loaded before main), those
        /// it opened with dlopen, and theirs.
        func loaded(_ arguments: [String], status: Int32 = 0) throws -> (atStart: Set<String>, opened: Set<String>, all: Set<String>) {
            let r = try run(practiceBinary, arguments, environment: ["LD_DEBUG": "files", "XDG_CONFIG_HOME": dir.file("config"),
                                                                    "XDG_DATA_HOME": dir.file("data"), "XDG_STATE_HOME": dir.file("state"),
                                                                    "XDG_CACHE_HOME": dir.file("cache")], currentDirectory: dir.path)
            #expect(r.status == status, "\(arguments): \(r.stderr.suffix(300))")
            // "file=libsndfile.so.1 [0];  dynamically loaded by /path/practice [0]",
            // "file=libFLAC.so.12 [0];  needed by /lib/…/libsndfile.so.1 [0]"
            var atStart = Set<String>(), opened = Set<String>(), all = Set<String>()
            for line in r.stderr.split(separator: "\n") where line.contains("\tfile=") && line.contains(";  ") {
                guard let name = line.split(separator: "file=").last?.split(separator: " ").first.map(String.init) else { continue }
                all.insert(name)
                if line.hasSuffix("needed by \(practiceBinary) [0]") { atStart.insert(name) }
                if line.contains("dynamically loaded by \(practiceBinary)") { opened.insert(name) }
            }
            return (atStart, opened, all)
        }
        let audio: Set = ["libasound.so.2", "libsndfile.so.1", "libSoundTouchDll.so.1", "libsoxr.so.0", "librubberband.so.2", "libFLAC.so.12", "libvorbisenc.so.2"]
        for (arguments, status) in [(["--version"], 0), (["--help"], 0), (["journal"], 0),
                                    (["library", "search", "--no-scan", "anything"], 1)] as [([String], Int32)] {
            let libraries = try loaded(arguments, status: status)
            #expect(libraries.atStart.contains("libc.so.6"), "\(arguments): \(libraries)")
            #expect(libraries.all.isDisjoint(with: audio), "\(arguments): \(libraries.all.intersection(audio))")
            // SQLite and Nettle are linked in (from their static archives): never a shared object,
            // not even for the journal and the library, which use SQLite.
            #expect(libraries.all.isDisjoint(with: ["libsqlite3.so.0", "libnettle.so.8"]), "\(arguments): \(libraries)")
        }
        // A command that reads audio opens libsndfile (and its codecs with it) when it reads the file.
        try Signals.write(Signals.sine(440, seconds: 1), to: dir.file("tone.wav"))
        let info = try loaded(["info", dir.file("tone.wav")])
        #expect(info.opened.contains("libsndfile.so.1") && info.all.contains("libFLAC.so.12") && !info.atStart.contains("libsndfile.so.1"), "\(info)")
        #expect(!info.all.contains("libSoundTouchDll.so.1"))
        // Adding a marker records the file's checksum (SHA-256) with the Nettle linked in.
        let marked = try loaded(["markers", "add", dir.file("tone.wav"), "Intro", "0.5"])
        #expect(marked.all.isDisjoint(with: ["libsqlite3.so.0", "libnettle.so.8"]), "\(marked)")
        let digest = try run("/usr/bin/sha256sum", [dir.file("tone.wav")]).stdout.prefix(64)
        let sidecar = try String(contentsOfFile: dir.file("tone.wav.practice.json"), encoding: .utf8)
        #expect(digest.count == 64 && sidecar.contains("\"\(digest)\""), "\(sidecar)")
        // A render stretches: SoundTouch too; soxr (and the OpenMP runtime it brings) only to
        // resample, for a pitch shift; Rubber Band only at high quality (a render's default).
        let render = try loaded(["render", dir.file("tone.wav"), "-o", dir.file("fast.wav"), "--rate", "0.8", "--quality", "fast", "-q"])
        #expect(render.opened.isSuperset(of: ["libsndfile.so.1", "libSoundTouchDll.so.1"]) && render.all.isDisjoint(with: ["librubberband.so.2", "libsoxr.so.0", "libgomp.so.1"]), "\(render)")
        let shifted = try loaded(["render", dir.file("tone.wav"), "-o", dir.file("shifted.wav"), "--pitch", "2", "--quality", "fast", "-q"])
        #expect(shifted.opened.contains("libsoxr.so.0"), "\(shifted)")
        let high = try loaded(["render", dir.file("tone.wav"), "-o", dir.file("high.wav"), "--rate", "0.8", "-q"])
        #expect(high.opened.contains("librubberband.so.2"), "\(high)")
    }
}
