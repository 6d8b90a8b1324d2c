// SPDX-License-Identifier: GPL-3.0-or-later
internal import CSndFile
internal import CALSA
internal import CSoxr
import Glibc
import PracticeSystem

/// An error reported by libsndfile: the C function, libsndfile's code and message, and the path.
public struct SndFileError: Error, CustomStringConvertible, Sendable {
    public let code: Int32
    public let function: String
    public let message: String
    public let path: String?

    public var description: String {
        let prefix = path.map { "\($0): " } ?? ""
        return "\(prefix)\(function): \(message) (\(code))"
    }
    /// The file is not in a format libsndfile recognises (SF_ERR_UNRECOGNISED_FORMAT).
    public var isUnrecognisedFormat: Bool { code == Int32(SF_ERR_UNRECOGNISED_FORMAT) }
    /// libsndfile could not open the file for reading or writing (SF_ERR_SYSTEM).
    public var isSystem: Bool { code == Int32(SF_ERR_SYSTEM) }
    /// libsndfile itself could not be opened (a broken installation; `SndFile.api`).
    public var isLibraryMissing: Bool { function == "dlopen" }

    /// libsndfile's internal SFE_BAD_FILE (7), "not a regular file". Its MPEG probe also returns it
    /// for a readable regular file that no decoder accepts (libsndfile 1.2.0).
    public var isBadFile: Bool { code == 7 }

    public static func ~= (pattern: Int32, error: SndFileError) -> Bool { pattern == error.code }
}

/// Turns libsndfile's state after a call into an error (the one chokepoint for libsndfile codes).
func sndfileError(_ function: String, _ handle: OpaquePointer?, path: String?, _ sf: UnsafeMutablePointer<practice_sndfile_api>) -> SndFileError {
    let code = sf.pointee.error(handle)
    var message = (sf.pointee.strerror(handle).map { String(cString: $0) } ?? "error \(code)").trimmingTrailingPeriod()
    if message.hasPrefix("Error : ") { message.removeFirst(8) }
    if code == 0 { message = "libsndfile gave no reason" }   // its text would be "No Error"
    return SndFileError(code: code, function: function, message: message, path: path)
}

/// libsndfile's functions, from libsndfile.so.1 opened when the first file is read or written.
enum SndFile {
    nonisolated(unsafe) private static let loaded = DynamicLibrary.load(practice_sndfile_api()) { practice_sndfile_load($0) }
        .mapError { SndFileError(code: -1, function: "dlopen", message: "cannot open libsndfile (\($0.message)); install Debian's libsndfile1", path: nil) }

    /// The table, or why libsndfile cannot be opened.
    static func api() throws(SndFileError) -> UnsafeMutablePointer<practice_sndfile_api> { try loaded.get() }
}

/// An error reported by ALSA: the C function, its negative errno-style code and `snd_strerror`;
/// or libasound missing (opened with dlopen with the first device).
public struct ALSAError: Error, CustomStringConvertible, Sendable {
    public let code: Int32
    public let function: String
    public let device: String?
    /// What went wrong, when libasound itself could not be opened.
    public var problem: String? = nil

    public var message: String { problem ?? ALSALibrary.message(code) }
    public var description: String {
        let prefix = device.map { "ALSA device '\($0)': " } ?? ""
        return "\(prefix)\(function): \(message) (\(code))"
    }
    /// Buffer underrun (`-EPIPE`).
    public var isUnderrun: Bool { code == -EPIPE }
    /// The device does not exist or cannot be opened.
    public var isNoDevice: Bool { [-ENOENT, -ENODEV, -ENXIO, -EBUSY, -EACCES, -EHOSTDOWN, -ECONNREFUSED].contains(code) }

    public static func ~= (pattern: Int32, error: ALSAError) -> Bool { pattern == error.code }
}

/// libasound's functions, from libasound.so.2 opened when the first device is opened (or
/// prepared): the commands that play nothing never map it.
enum ALSALibrary {
    nonisolated(unsafe) private static let loaded = DynamicLibrary.load(practice_alsa_api(), afterDevice: false) { practice_alsa_load($0) }

    /// The table, or the error opening `device` reports when libasound cannot be opened.
    static func api(device: String?) throws(ALSAError) -> UnsafeMutablePointer<practice_alsa_api> {
        switch loaded {
        case .success(let table): return table
        case .failure(let problem):
            throw ALSAError(code: -ENOENT, function: "dlopen", device: device,
                            problem: "cannot open libasound (\(problem.message)); install Debian's libasound2")
        }
    }

    /// `snd_strerror`'s text for `code` (the C library's own for an errno, before libasound is open).
    static func message(_ code: Int32) -> String {
        if case .success(let table) = loaded, let text = table.pointee.strerror(code) { return String(cString: text) }
        return String(cString: strerror(-code))
    }
}

/// Runs one ALSA call and throws its negative return code (the chokepoint for ALSA codes).
@discardableResult
func alsa(_ function: String, device: String? = nil, _ body: () -> Int32) throws(ALSAError) -> Int32 {
    let rc = body()
    if rc < 0 { throw ALSAError(code: rc, function: function, device: device) }
    return rc
}

/// An error from SoundTouch, whose C API reports failure as a 0 return; or its library missing
/// (opened with dlopen when the first stretcher is made).
public struct SoundTouchError: Error, CustomStringConvertible, Sendable {
    public let function: String
    /// What went wrong, when more than a failed call (the library could not be opened).
    public var problem: String? = nil
    public var description: String { problem ?? "\(function) failed" }
}

/// SoundTouch's `int` success flags: 1 is success.
func soundTouch(_ function: String, _ body: () -> Int32) throws(SoundTouchError) {
    if body() == 0 { throw SoundTouchError(function: function) }
}

/// An error from libsoxr, which reports a message string (nil on success).
public struct SoxrError: Error, CustomStringConvertible, Sendable {
    public let function: String
    public let message: String
    public var description: String { "\(function): \(message)" }
}

func soxr(_ function: String, _ error: soxr_error_t?) throws(SoxrError) {
    if let error { throw SoxrError(function: function, message: String(cString: error)) }
}

extension String {
    func trimmingTrailingPeriod() -> String {
        var s = self
        while s.hasSuffix(".") || s.hasSuffix(" ") || s.hasSuffix("\n") { s.removeLast() }
        return s
    }
}
