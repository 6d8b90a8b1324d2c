// SPDX-License-Identifier: GPL-3.0-or-later
import Dispatch
import FoundationEssentials
import Glibc
import Synchronization
import PracticeDocuments
import PracticeEngine
import PracticeSystem

/// Records one player's session in the journal: a view of the player like any other. It takes
/// every event (no ticks: it wakes nobody while nothing changes), reads the state once a second
/// while playing, and writes the session as it stands at most once a second, so a crash or a
/// SIGKILL loses at most the last second. The track's decoded-audio identity (when known: the
/// journal never decodes a track itself) and its markers are read beside it, never on the
/// player's threads.
public final class JournalRecorder: @unchecked Sendable {   // `timer` is set up in init, then only cancelled (thread-safe)
    let journal: Journal
    let player: Player
    let sidecar: String?
    /// Where the session is written (once a second at most).
    private let queue = DispatchQueue(label: "journal", qos: .utility)
    /// Where the sidecar and the audio's identity are read (lining a sidecar up with this copy
    /// may take a while), so that writing never waits for them.
    private let reading = DispatchQueue(label: "journal reading", qos: .background)
    private let readingQueued = Atomic<Bool>(false)
    private let state: Mutex<Recording>
    private let timer: any DispatchSourceTimer
    private let done = DispatchSemaphore(value: 0)
    private let identified = DispatchSemaphore(value: 0)
    /// Whether the caller has said `problem` (it is said once).
    public let problemSaid = Atomic<Bool>(false)
    /// The latest event taken in (`PlayerEvent.sequence`).
    let observedSequence = Atomic<UInt64>(0)

    struct Recording {
        var session: JournalSession
        var tally: PracticeTally
        var id: Int64?
        /// The session as last written (only what changed since is written again).
        var written: JournalSession?
        /// Written since the last change: nothing to write.
        var dirty = false
        var playing = false
        var stopped = false
        var markerIDs: Set<String>?
        /// The file edits go to, and how it was when its markers were read.
        var sidecarPath: String?
        var sidecarStamp: String?
        var problem: String?
        /// The recording the track's sidecar was made on, when it is another copy's lined up with
        /// this one (a crew's file): the song the session counts for, so copies join.
        var songAudio: String?
    }

    /// Starts recording `player` (a journal from a newer version: nil, with its warning said by the caller).
    /// `first`: the player as it was when it started playing, if that was before this recorder
    /// was made (it counts from there).
    public init?(journal: Journal, player: Player, sidecar: String? = nil, now: Date = Date(), first: (state: PlayerState, clock: Double)? = nil) {
        guard !journal.isReadOnly else { return nil }
        self.journal = journal
        self.player = player
        self.sidecar = sidecar
        let t = player.tags
        var session = JournalSession(path: Path.resolved(player.track.path) ?? player.track.path, title: t["title"], artist: t["artist"],
                                     album: t["album"], genre: t["genre"], duration: player.track.duration, started: now)
        session.ended = now
        state = Mutex(Recording(session: session, tally: PracticeTally(duration: player.track.duration)))
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + 1, repeating: 1, leeway: .milliseconds(100))
        timer.setEventHandler { [weak self] in self?.second() }
        timer.resume()
        if let first { observe(first.state, clock: first.clock) }
        reading.async { [weak self] in self?.readTrackNotes(); self?.identify() }
        // Events are taken in on the journal's queue, in order (the handler runs on the thread
        // that made the change, which waits for it: it only hands them on).
        let queue = self.queue
        player.subscribe { [weak self] event in
            queue.async { [weak self] in
                guard let self else { return }
                self.observe(event.state, clock: event.clock)
                self.observedSequence.store(event.sequence, ordering: .releasing)
                if event.kind == .stopped { self.finish() }
            }
        }
    }

    /// The sidecar has been read since the recording began, and lined up with this copy of the
    /// song if it was made on another (a player reads it once its sound has started): its markers
    /// are read again, now on this copy's times, and the copy told to the journal.
    public func sidecarLinedUp() {
        reading.async { [weak self] in
            self?.readTrackNotes()
            self?.identifyAgain()
        }
    }

    /// The first problem writing (the journal's disk full, say): said once by the caller, if at all.
    public var problem: String? { state.withLock { $0.problem } }

    /// Waits until the player has stopped and the session's last state is written (up to
    /// `timeout` s), and with `identity`, the audio's checksum too (a first decode takes a while).
    public func waitUntilWritten(timeout: Double = 2, identity: Bool = false) {
        let deadline = DispatchTime.now() + timeout
        if done.wait(timeout: deadline) == .success { done.signal() }   // for the next caller too
        if identity, identified.wait(timeout: deadline) == .success { identified.signal() }
    }

    func observe(_ s: PlayerState, clock: Double) {
        state.withLock { r in
            let before = r.tally
            r.tally.observe(s, clock: clock)
            r.playing = s.isPlaying
            if r.tally != before { r.dirty = true }
        }
    }

    /// Once a second, on the journal's queue: the position now (for the sections), the markers if
    /// the sidecar changed, and the session written if anything changed.
    func second() {
        if state.withLock({ $0.playing && !$0.stopped }) {
            let (s, clock) = player.stateAndClock
            observe(s, clock: clock)
        }
        // The sidecar looked at every fifth second, and read (beside) only when it changed.
        seconds += 1
        if seconds % 5 == 0, sidecarChanged, !readingQueued.exchange(true, ordering: .acquiringAndReleasing) {
            reading.async { [weak self] in
                self?.readingQueued.store(false, ordering: .releasing)
                self?.readTrackNotesIfChanged()
            }
        }
        write()
    }

    /// Seconds the timer has ticked (on the journal's queue only).
    nonisolated(unsafe) private var seconds = 0

    /// Whether the sidecar's file is not as it was when its markers were read.
    var sidecarChanged: Bool {
        guard let (path, stamp) = state.withLock({ r in r.sidecarPath.map { ($0, r.sidecarStamp) } }) else { return false }
        return FileStamp.of(path) != stamp
    }

    /// What the timer does, now (tests on a virtual device, whose clock is not the wall's).
    func secondNow() { queue.sync { second() } }

    /// On the journal's queue, after the player stopped: the last state written.
    func finish() {
        timer.cancel()
        // The markers as they are at the end (a marker added just before quitting counts), and
        // the audio's identity if it was worked out meanwhile.
        readTrackNotesIfChanged()
        if state.withLock({ $0.session.audio == nil }) { identifyAgain() }
        state.withLock { $0.stopped = true; $0.dirty = true }
        write()
        done.signal()
    }

    func write() {
        let (session, id, last) = state.withLock { r -> (JournalSession?, Int64?, JournalSession?) in
            guard r.dirty else { return (nil, r.id, nil) }
            r.dirty = false
            var s = r.session
            s.ended = Date()
            s.heard = r.tally.heard
            s.speeds = r.tally.speeds
            s.parts = r.tally.sortedParts
            s.countIns = r.tally.countIns
            s.topSpeed = r.tally.topSpeed
            return (s, r.id, r.written)
        }
        guard let session else { return }
        // Nothing heard yet (opened and closed, or paused from the start): nothing recorded.
        guard session.heard > 0 || id != nil else { return }
        do {
            let written = try journal.save(session, id: id, since: last)
            state.withLock { $0.id = written; $0.written = session }
        } catch {
            state.withLock { r in
                if r.problem == nil { r.problem = error.message }
                r.dirty = true   // tried again in a second
            }
        }
    }

    /// The track's markers: its sections, and how many were added since the session began. Lined
    /// up with this copy when its identity is known already; read as they are otherwise (the
    /// journal never decodes a track to find out: that is the sidecar commands' work).
    func readTrackNotes() {
        let writePath: String, markers: [Marker]
        var reference: String?
        if TrackIdentity.known(player.track) != nil, let loaded = try? SidecarStore.load(for: player.track, explicit: sidecar) {
            (writePath, markers) = (loaded.writePath, loaded.sidecar.liveMarkers)
            reference = loaded.placement?.reference.audio?.pcm.sha256
        } else {
            writePath = sidecar ?? SidecarStore.ownPath(forAudio: player.track.path)
            markers = FileSystem.exists(writePath) ? ((try? SidecarStore.read(writePath))?.liveMarkers ?? []) : []
        }
        let stamp = FileStamp.of(writePath)
        state.withLock { r in
            r.sidecarPath = writePath
            r.sidecarStamp = stamp
            if let reference, r.songAudio != reference {
                r.songAudio = reference
                r.session.audio = reference
                r.dirty = true
            }
            r.tally.setMarkers(markers.map { (time: $0.time, name: $0.name) })
            let ids = Set(markers.map(\.id))
            if let first = r.markerIDs {
                let added = ids.subtracting(first).count
                if added != r.session.markersAdded { r.session.markersAdded = added; r.dirty = true }
            } else {
                r.markerIDs = ids
            }
        }
    }

    /// Whether the track's markers have been read once (they are read beside the player as it
    /// starts; a test on a virtual device, whose seconds pass in a moment, waits for them).
    var hasReadTrackNotes: Bool { state.withLock { $0.markerIDs != nil } }

    /// The song this recording is a copy of, once a sidecar made on another copy has been lined
    /// up with it (a test waits for it).
    var songAudio: String? { state.withLock { $0.songAudio } }

    func readTrackNotesIfChanged() {
        if sidecarChanged { readTrackNotes() }
    }

    /// The decoded audio's checksum, when it is known already (worked out by a sidecar command
    /// or the practice screen; cached): the same song under two names is one song in reports.
    func identify() {
        defer { identified.signal() }
        guard let identity = TrackIdentity.known(player.track) else { return }
        registerCopy(identity)
        state.withLock { r in
            let song = r.songAudio ?? identity.pcm.sha256
            guard r.session.audio != song else { return }
            r.session.audio = song
            r.dirty = true
        }
    }

    func identifyAgain() {
        guard let identity = TrackIdentity.known(player.track) else { return }
        registerCopy(identity)
        state.withLock { $0.session.audio = $0.songAudio ?? identity.pcm.sha256 }
    }

    /// This recording told to the journal as a copy of its song (the crew's sidecar's, or one
    /// whose fingerprint lines up), so that the reports join them.
    func registerCopy(_ identity: TrackIdentity) {
        do {
            try journal.registerCopy(identity, sameAs: state.withLock { $0.songAudio })
        } catch {
            state.withLock { r in if r.problem == nil { r.problem = error.message } }
        }
    }
}
