// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// What went wrong opening a C library with dlopen: dlerror's text, or the symbol it lacks.
public struct DynamicLibraryError: Error, Sendable {
    public let message: String
}

/// The C libraries a command may not need are opened with dlopen the first time they are used
/// (each module's shim.h has a table of the functions we call and a loader that fills it), so that
/// a process maps only what it uses: `--help` and `library search` none of the audio libraries.
public enum DynamicLibrary {
    /// A table of functions filled by `loader` (a shim's `practice_…_load`, which returns NULL or
    /// what went wrong). Call it once, from a `static let`: the table lives as long as the process.
    /// `afterDevice`: wait while a sound device opens ahead (`DeviceFirst`); false only for
    /// libasound itself, which the device's thread opens first.
    public static func load<Table>(_ empty: Table, afterDevice: Bool = true, _ loader: (UnsafeMutablePointer<Table>) -> UnsafePointer<CChar>?)
        -> Result<UnsafeMutablePointer<Table>, DynamicLibraryError> {
        load(empty, waitingFor: afterDevice ? DeviceFirst.shared : nil, loader)
    }

    /// `load`, waiting at `gate` first (the tests give a gate of their own).
    static func load<Table>(_ empty: Table, waitingFor gate: DeviceFirst?, _ loader: (UnsafeMutablePointer<Table>) -> UnsafePointer<CChar>?)
        -> Result<UnsafeMutablePointer<Table>, DynamicLibraryError> {
        let table = UnsafeMutablePointer<Table>.allocate(capacity: 1)
        table.initialize(to: empty)
        gate?.waitWhileOpening()
        if let problem = loader(table) {
            let message = String(cString: problem)
            table.deinitialize(count: 1)
            table.deallocate()
            return .failure(DynamicLibraryError(message: message))
        }
        return .success(table)
    }
}

/// While a player's sound device opens ahead (`ALSAOutput.prepare`), the libraries other threads
/// open wait until it is open. glibc loads one library at a time (`dlopen` holds a lock, which
/// `pthread_create` takes too), and the device's opening is mostly libraries: ALSA's PulseAudio
/// plugin with libpulse and a dozen more, between which it talks to the sound server. The
/// player's own libraries (libsndfile, SoundTouch, soxr, SQLite) loaded in between held the
/// device's next load back by as long as they took, and the player waits for the device anyway.
/// (The device's thread opens only libasound before the device is open, which does not wait: see
/// `DynamicLibrary.load`.) After 2 s, libraries load whether or not it is open.
public final class DeviceFirst: @unchecked Sendable {  // `opening` is used under `condition`'s lock
    public static let shared = DeviceFirst()
    private let condition = Condition()
    private var opening = false
    /// Loads that have waited (for the tests).
    private var waits = 0
    /// The longest a load waits: 2 s, or a test's.
    private let cap: Double

    init(cap: Double = 2) { self.cap = cap }

    /// A device starts opening: libraries wait.
    public func begin() {
        condition.lock()
        opening = true
        condition.unlock()
    }

    /// The device is open, or could not be: libraries load again.
    public func end() {
        condition.lock()
        opening = false
        condition.broadcast()
        condition.unlock()
    }

    /// Whether a device is opening (for the tests).
    var isOpening: Bool { condition.lock(); defer { condition.unlock() }; return opening }
    var waitCount: Int { condition.lock(); defer { condition.unlock() }; return waits }

    func waitWhileOpening() {
        condition.lock()
        defer { condition.unlock() }
        if opening { waits += 1 }
        let deadline = monotonicSeconds() + cap
        while opening, case let left = deadline - monotonicSeconds(), left > 0 { condition.wait(seconds: left) }
        opening = false   // a device that takes longer is waited for by its player, not by every library
    }
}
