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
    public static func load<Table>(_ empty: Table, _ loader: (UnsafeMutablePointer<Table>) -> UnsafePointer<CChar>?)
        -> Result<UnsafeMutablePointer<Table>, DynamicLibraryError> {
        let table = UnsafeMutablePointer<Table>.allocate(capacity: 1)
        table.initialize(to: empty)
        if let problem = loader(table) {
            let message = String(cString: problem)
            table.deinitialize(count: 1)
            table.deallocate()
            return .failure(DynamicLibraryError(message: message))
        }
        return .success(table)
    }
}
