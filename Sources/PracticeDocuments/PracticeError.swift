// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc

/// A failure the user can act on: a one-line message and the sysexits code to leave with.
public struct PracticeError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Kind: Int32, Sendable {
        case usage = 64          // EX_USAGE: a bad argument
        case dataError = 65      // EX_DATAERR: the input is not what it should be
        case noInput = 66        // EX_NOINPUT: the input is missing or unreadable
        case unavailable = 69    // EX_UNAVAILABLE: no usable sound device
        case software = 70       // EX_SOFTWARE: a bug
        case cannotCreate = 73   // EX_CANTCREAT: the output cannot be created
        case ioError = 74        // EX_IOERR: reading or writing failed half-way
        case tempFailure = 75    // EX_TEMPFAIL: busy now; trying again later may work
        case config = 78         // EX_CONFIG: a configuration file is wrong
    }
    public let kind: Kind
    public let message: String
    public init(_ kind: Kind, _ message: String) { self.kind = kind; self.message = message }
    public var exitCode: Int32 { kind.rawValue }
    public var description: String { message }
}

/// What the C library says an error code means ("No such file or directory"): the one place
/// that turns `errno` into words.
public func systemMessage(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

/// Words for an error Foundation threw (a file it could not read, a folder it could not make):
/// the system's message for the POSIX error underneath, else the error as it describes itself.
public func systemMessage(for error: any Error) -> String {
    if let posix = error as? POSIXError { return systemMessage(posix.code.rawValue) }
    if let cocoa = error as? CocoaError, let posix = cocoa.underlying as? POSIXError { return systemMessage(posix.code.rawValue) }
    return String(describing: error)
}
