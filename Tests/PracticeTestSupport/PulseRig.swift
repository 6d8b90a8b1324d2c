// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import PracticeAudio
import PracticeSystem

/// A private PulseAudio server with a real-time null sink, and a recorder on its monitor that
/// timestamps every chunk it receives (see audio-testing.md, "Real-time pacing").
public final class PulseRig: @unchecked Sendable {  // mutable state is behind `chunks`' mutex
    public let runtimeDir: ScratchDirectory
    public let server: String
    public let sampleRate = 44_100
    private var daemon: Spawned
    private var recorder: Spawned?
    private var reader: Thread?
    /// (arrival time in CLOCK_MONOTONIC ns, total bytes received after it)
    private let chunks = Locked<[(Int64, Int)]>([])
    private let captured = Locked<Data>(Data())

    public init() throws {
        runtimeDir = ScratchDirectory("pulse")
        server = "unix:\(runtimeDir.path)/pulse/native"
        try FileManager.default.createDirectory(atPath: runtimeDir.path + "/pulse", withIntermediateDirectories: true)
        daemon = try Self.startDaemon(runtimeDir: runtimeDir.path, server: server)
    }

    private static func startDaemon(runtimeDir: String, server: String) throws -> Spawned {
        let daemon = try Spawned("/usr/bin/pulseaudio", [
            "-n", "--daemonize=no", "--exit-idle-time=-1", "--disallow-exit", "--use-pid-file=no",
            // memfd transport: the daemon aborted once in memblock_replace_import (a PulseAudio 16 bug).
            "--enable-memfd=no",
            "--log-target=file:\(runtimeDir)/pulse.log",
            // norewinds=1: whenever no client asks for low latency (at load, and for a moment in every
            // drop + prepare, which reconnects the pulse stream), PulseAudio 16's null sink renders 2 s
            // ahead and can take back only 3 × 40 ms of it, so the next stream waited 1.88 s in silence.
            "-L", "module-null-sink sink_name=practice_sink format=float32le rate=44100 channels=2 norewinds=1",
            "-L", "module-native-protocol-unix auth-anonymous=1 socket=\(runtimeDir)/pulse/native",
        ], environment: Self.environment(runtimeDir: runtimeDir, server: server))
        let environment = Self.environment(runtimeDir: runtimeDir, server: server)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let r = try? run("/usr/bin/pactl", ["info"], environment: environment), r.status == 0 { break }
            usleep(20_000)
        }
        _ = try run("/usr/bin/pactl", ["set-default-sink", "practice_sink"], environment: environment)
        return daemon
    }

    /// What a client of this server needs in its environment.
    public var environment: [String: String] { Self.environment(runtimeDir: runtimeDir.path, server: server) }

    static func environment(runtimeDir: String, server: String) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["XDG_RUNTIME_DIR"] = runtimeDir
        env["PULSE_SERVER"] = server
        env["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/practice-tests-bus"   // off the desktop's bus
        return env
    }

    /// Starts `parec` on the sink's monitor (attach it before playing: audio-testing.md).
    public func startRecording() throws {
        let p = try Spawned("/usr/bin/parec", ["-d", "practice_sink.monitor", "--format=float32le", "--rate=44100",
                                               "--channels=2", "--latency-msec=5"], environment: environment, captureStdout: true)
        recorder = p
        captured.withLock { $0 = Data() }   // a recording after a restarted server starts afresh
        chunks.withLock { $0 = [] }
        let fd = p.stdout!
        let t = Thread { [self] in
            var total = 0
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
                let now = monotonicNanoseconds()
                if n <= 0 { break }
                let data = Data(buffer[0..<n])
                total += n
                captured.withLock { $0.append(data) }
                chunks.withLock { $0.append((now, total)) }
            }
        }
        t.start()
        reader = t
        usleep(200_000)
    }

    /// Stops the recorder; returns the captured stereo float samples and, for capture frame k, the
    /// CLOCK_MONOTONIC time in ns at which it reached us: the lower envelope, over the chunks within
    /// half a second of k, of chunk arrival times minus the frames they carried. The envelope is
    /// local because the monitor sometimes drops a block under load: a global one then dated every
    /// later frame a block (5.6 ms) too early.
    public func stopRecording() -> (samples: [Float], timeOfFrame: (Int) -> Double) {
        recorder?.terminate()
        reader = nil
        usleep(50_000)
        let data = captured.withLock { $0 }
        let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let list = chunks.withLock { $0 }
        let rate = Double(sampleRate)
        let ends = list.map { $0.1 / 8 }                                   // 8 bytes per stereo float frame
        let origins = list.map { Double($0.0) - Double($0.1 / 8) / rate * 1e9 }
        let reach = sampleRate / 2
        return (samples, { frame in
            var lo = 0, hi = ends.count
            while lo < hi { let m = (lo + hi) / 2; if ends[m] < frame - reach { lo = m + 1 } else { hi = m } }
            var origin = Double.infinity
            var j = lo
            while j < ends.count && ends[j] <= frame + reach { origin = min(origin, origins[j]); j += 1 }
            if origin == .infinity { origin = origins.min() ?? 0 }
            return origin + Double(frame) / rate * 1e9
        })
    }

    /// Kills the sound server at once (SIGKILL), as a crash or a logout does. A recording stops with it.
    public func killServer() {
        kill(daemon.pid, SIGKILL)
        _ = daemon.wait()
        recorder?.terminate()
        recorder = nil
    }

    /// Starts the sound server again on the same socket (after `killServer`), as a desktop restarts it.
    public func restartServer() throws {
        daemon = try Self.startDaemon(runtimeDir: runtimeDir.path, server: server)
    }

    deinit {
        recorder?.terminate()
        daemon.terminate()
    }
}
