// SPDX-License-Identifier: GPL-3.0-or-later
import PracticeDocuments

/// What a controller that shows the player (the practice screen) needs of it: the state, its
/// changes, and the commands. The `Player` itself, or one in another process reached through its
/// control socket (`practice attach`): the screen works the same on either.
public protocol PlayerHandle: AnyObject, Sendable {
    var track: Track { get }
    /// The sidecar that names markers for controllers' jumps, instead of the track's own (`--markers`).
    var sidecar: String? { get }
    var state: PlayerState { get }
    /// Where playing started (`--from`): where the end of the range sends a session back to.
    var startPosition: Double { get }
    func events(keepingNewest: Int?) -> AsyncStream<PlayerEvent>
    func play()
    func pause()
    func togglePause()
    func seek(to seconds: Double)
    func jump(to seconds: Double)
    func setRate(_ rate: Double)
    func setPitch(_ semitones: Double)
    /// A voice's formants kept through a pitch shift (Rubber Band), or not.
    func setFormant(_ on: Bool)
    func setLoop(_ loop: LoopRange?, keepingCount: Bool, on: Bool) throws(PracticeError)
    func setLooping(_ on: Bool)
    func rewindLoop()
    /// A video's picture mirrored, or not.
    func setMirror(_ on: Bool)
    /// A video's window shown or hidden, full screen or not (nil: as it is); false without one.
    @discardableResult
    func setVideo(shown: Bool?, fullScreen: Bool?) -> Bool
    /// Ends this handle: the player stops (a remote handle only lets go of it).
    func stop()
}

extension Player: PlayerHandle {}
