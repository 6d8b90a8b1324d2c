import Glibc

/// What starting another program needs from glibc beyond Swift's Glibc module.
public enum Spawning {
    /// Adds "close every descriptor from `lowest` up" to `actions`
    /// (`posix_spawn_file_actions_addclosefrom_np`, glibc 2.34, which Swift's Glibc module does
    /// not show: looked up once). False where the C library has no such call.
    @discardableResult
    public static func closeFrom(_ lowest: Int32, in actions: inout posix_spawn_file_actions_t) -> Bool {
        guard let call = addCloseFrom else { return false }
        return call(&actions, lowest) == 0
    }

    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32).self)
    }()
}
