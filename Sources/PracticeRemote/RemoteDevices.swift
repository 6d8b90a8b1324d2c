// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc
import PracticeDocuments

/// The phones paired with the web remote, in `$XDG_STATE_HOME/practice/remote-devices.json`:
/// each one's name, when it was paired and last seen, and the SHA-256 of its cookie (the cookie
/// itself is only ever in the phone's browser: the file lets no one in). `practice remote
/// devices` lists them, `practice remote revoke` removes them; a running remote reads the file
/// again whenever it changes, so a revoked phone is refused at once.
public struct RemoteDevices: Sendable, Equatable {
    public struct Device: Sendable, Equatable {
        public var name: String
        /// SHA-256 of the cookie, hexadecimal.
        public var key: String
        public var paired: String
        public var lastSeen: String
    }

    public let path: String
    public private(set) var devices: [Device] = []
    static let formatName = "practice-remote-devices"

    /// `$XDG_STATE_HOME/practice/remote-devices.json`.
    public static var standardPath: String { Path.appending("remote-devices.json", to: XDG.state) }

    /// Reads the file at `path`; a missing file is no device. A file that is not ours is an
    /// error (exit 65), never overwritten.
    public init(path: String = RemoteDevices.standardPath) throws(PracticeError) {
        self.path = path
        guard let data = FileManager.default.contents(atPath: path) else {
            if FileManager.default.fileExists(atPath: path) { throw PracticeError(.noInput, "\(path): cannot read it") }
            return
        }
        let document: JSONValue
        do { document = try JSONValue.parse(data) } catch {
            throw PracticeError(.dataError, "\(path):\(error.line):\(error.column): \(error.message)")
        }
        guard let o = document.object, o["format"]?.string == Self.formatName, o["version"]?.int == 1, let list = o["devices"]?.array else {
            throw PracticeError(.dataError, "\(path): not a practice remote devices file (version 1)")
        }
        devices = list.compactMap { v in
            guard let d = v.object, let name = d["name"]?.string, let key = d["key"]?.string, key.count == 64 else { return nil }
            return Device(name: name, key: key, paired: d["paired"]?.string ?? "", lastSeen: d["lastSeen"]?.string ?? "")
        }
    }

    /// The device whose cookie is `cookie`, if one is paired.
    public func device(cookie: String) -> Device? {
        let key = Self.key(cookie)
        return devices.first { constantTimeEqual($0.key, key) }
    }

    static func key(_ cookie: String) -> String { SHA256.hash(data: Array(cookie.utf8)).hex }

    /// Pairs a new device: its cookie (256 random bits) back, its name `Phone N` or what
    /// `kind` says (`iPhone 2`, `Android 1`), numbered after the ones of that kind there are.
    public mutating func pair(kind: String, now: Date = Date()) throws(PracticeError) -> (cookie: String, name: String) {
        let cookie = SecureRandom.base32(32)
        var n = 1
        while devices.contains(where: { $0.name == "\(kind) \(n)" }) { n += 1 }
        let stamp = Sidecar.timestamp(now)
        let device = Device(name: "\(kind) \(n)", key: Self.key(cookie), paired: stamp, lastSeen: stamp)
        devices.append(device)
        try save()
        return (cookie, device.name)
    }

    /// Removes the device named `name` (case ignored), or every device for `all`; the names removed.
    public mutating func revoke(_ name: String) throws(PracticeError) -> [String] {
        let gone = name == "all" ? devices : devices.filter { $0.name.lowercased() == name.lowercased() }
        guard !gone.isEmpty else {
            let known = devices.map(\.name)
            throw PracticeError(.usage, "no paired device named '\(name)'\(known.isEmpty ? " (none is paired)" : "; paired: \(known.joined(separator: ", "))")")
        }
        devices.removeAll { d in gone.contains { $0.key == d.key } }
        try save()
        return gone.map(\.name)
    }

    /// Notes that `key`'s device was seen at `now` (saved by the caller, now and then).
    public mutating func seen(key: String, now: Date = Date()) {
        if let k = devices.firstIndex(where: { $0.key == key }) { devices[k].lastSeen = Sidecar.timestamp(now) }
    }

    /// Writes the file atomically, in a folder only its owner can read.
    public func save() throws(PracticeError) {
        let document = JSONValue.object([
            "format": .string(Self.formatName), "version": .integer(1),
            "devices": .array(devices.map { .object(["name": .string($0.name), "key": .string($0.key), "paired": .string($0.paired), "lastSeen": .string($0.lastSeen)]) }),
        ])
        try AtomicFile.write(Data(document.pretty().utf8), toPrivateFolder: path)
    }

    /// The kind of device a browser's User-Agent says it runs on.
    public static func kind(userAgent: String) -> String {
        let ua = userAgent.lowercased()
        if ua.contains("iphone") { return "iPhone" }
        if ua.contains("ipad") { return "iPad" }
        if ua.contains("android") { return ua.contains("mobile") ? "Android phone" : "Android tablet" }
        return ua.contains("mobile") ? "Phone" : "Browser"
    }
}

extension RemoteDevices {
    /// `practice remote devices`: one line a device (name, paired, last seen), or JSON.
    public func list(json: Bool) {
        if json {
            Console.printJSON(.array(devices.map { .object(["name": .string($0.name), "paired": .string($0.paired), "lastSeen": .string($0.lastSeen)]) }))
            return
        }
        guard !devices.isEmpty else { Console.say("No phone is paired ('practice play FILE --remote' shows the code to pair one)."); return }
        for d in devices {
            Console.say("\(d.name.terminalSafe)  paired \(d.paired.terminalSafe)  last seen \(d.lastSeen.terminalSafe)")
        }
    }
}
