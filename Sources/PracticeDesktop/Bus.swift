// SPDX-License-Identifier: GPL-3.0-or-later
internal import CSystemdBus
import Glibc
import PracticeDocuments
import PracticeSystem

/// An error from sd-bus, or from opening libsystemd: what failed, in sd-bus's words or ours.
public struct BusError: Error, CustomStringConvertible, Sendable {
    /// The negative errno sd-bus returned (0 when libsystemd could not be opened).
    public let code: Int32
    public let function: String
    public let message: String
    public var description: String { "\(function): \(message)" }

    init(_ function: String, code: Int32) {
        self.function = function; self.code = code
        message = String(cString: strerror(-code))
    }
    public init(_ function: String, message: String) { self.function = function; self.code = 0; self.message = message }
}

/// Runs one sd-bus call and throws its negative return code (the chokepoint for sd-bus codes).
@discardableResult
private func bus(_ function: String, _ body: () -> Int32) throws(BusError) -> Int32 {
    let rc = body()
    if rc < 0 { throw BusError(function, code: rc) }
    return rc
}

/// A D-Bus value as a method, property or signal carries it. Arrays and dictionaries carry their
/// element signature, so an empty one still says what it holds.
public indirect enum BusValue: Sendable, Equatable {
    case string(String)
    case objectPath(String)
    case boolean(Bool)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case double(Double)
    /// `a…`: values of one signature.
    case array(String, [BusValue])
    /// `a{sv}`: names and values (each sent as a variant), in this order.
    case dictionary([(String, BusValue)])
    case variant(BusValue)

    public static func strings(_ s: [String]) -> BusValue { .array("s", s.map(BusValue.string)) }

    public var signature: String {
        switch self {
        case .string: "s"
        case .objectPath: "o"
        case .boolean: "b"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .double: "d"
        case .array(let element, _): "a" + element
        case .dictionary: "a{sv}"
        case .variant: "v"
        }
    }

    public var string: String? { if case .string(let s) = self { s } else if case .objectPath(let s) = self { s } else { nil } }
    public var double: Double? {
        switch self {
        case .double(let d): d
        case .int64(let n): Double(n)
        case .int32(let n): Double(n)
        case .uint32(let n): Double(n)
        case .variant(let v): v.double
        default: nil
        }
    }
    public var int64: Int64? { if case .int64(let n) = self { n } else if case .variant(let v) = self { v.int64 } else { nil } }
    public var bool: Bool? { if case .boolean(let b) = self { b } else if case .variant(let v) = self { v.bool } else { nil } }
    /// The value inside a variant (itself otherwise).
    public var unwrapped: BusValue { if case .variant(let v) = self { v.unwrapped } else { self } }

    public static func == (a: BusValue, b: BusValue) -> Bool {
        switch (a, b) {
        case (.string(let x), .string(let y)), (.objectPath(let x), .objectPath(let y)): x == y
        case (.boolean(let x), .boolean(let y)): x == y
        case (.int32(let x), .int32(let y)): x == y
        case (.uint32(let x), .uint32(let y)): x == y
        case (.int64(let x), .int64(let y)): x == y
        case (.double(let x), .double(let y)): x == y
        case (.array(let s, let x), .array(let t, let y)): s == t && x == y
        case (.dictionary(let x), .dictionary(let y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case (.variant(let x), .variant(let y)): x == y
        default: false
        }
    }
}

/// A D-Bus error for the caller of a method or the setter of a property:
/// `org.freedesktop.DBus.Error.InvalidArgs` and a sentence.
public struct BusFailure: Error, Sendable {
    public var name: String
    public var message: String
    public init(_ message: String, name: String = "org.freedesktop.DBus.Error.InvalidArgs") { self.name = name; self.message = message }
}

/// One interface of an object: methods, properties and signals, served from Swift closures. The
/// closures run on the thread that calls `BusConnection.process()`.
public struct BusInterface: Sendable {
    public struct Method: Sendable {
        public var name: String
        /// The arguments' and the reply's signatures (basic types only in the arguments).
        public var arguments: String
        public var reply: String
        public var handler: @Sendable ([BusValue]) throws(BusFailure) -> [BusValue]
        public init(_ name: String, arguments: String = "", reply: String = "",
                    _ handler: @escaping @Sendable ([BusValue]) throws(BusFailure) -> [BusValue]) {
            self.name = name; self.arguments = arguments; self.reply = reply; self.handler = handler
        }
    }
    public struct Property: Sendable {
        public var name: String
        public var signature: String
        /// Whether PropertiesChanged carries it.
        public var emitsChange: Bool
        public var get: @Sendable () -> BusValue
        /// Gets the value already unwrapped from its variant; nil for a read-only property.
        public var set: (@Sendable (BusValue) throws(BusFailure) -> Void)?
        public init(_ name: String, _ signature: String, emitsChange: Bool = true, get: @escaping @Sendable () -> BusValue,
                    set: (@Sendable (BusValue) throws(BusFailure) -> Void)? = nil) {
            self.name = name; self.signature = signature; self.emitsChange = emitsChange; self.get = get; self.set = set
        }
    }
    public struct Signal: Sendable {
        public var name: String
        public var signature: String
        public init(_ name: String, _ signature: String) { self.name = name; self.signature = signature }
    }
    public var name: String
    public var methods: [Method]
    public var properties: [Property]
    public var signals: [Signal]
    public init(_ name: String, methods: [Method] = [], properties: [Property] = [], signals: [Signal] = []) {
        self.name = name; self.methods = methods; self.properties = properties; self.signals = signals
    }
}

/// A connection to the user's session bus through sd-bus. libsystemd is opened with dlopen at the
/// first connection. Not thread-safe: one thread makes every call after `session()`.
public final class BusConnection: @unchecked Sendable {
    fileprivate let api: UnsafeMutablePointer<practice_bus_api>
    private let handle: OpaquePointer
    /// The interfaces served, with their vtables (kept for the connection's life: sd-bus reads them on every call).
    private var served: [ServedInterface] = []

    /// The loaded library, or why it could not be loaded. Written once, then only read.
    nonisolated(unsafe) private static let loaded: Result<UnsafeMutablePointer<practice_bus_api>, BusError> = {
        DynamicLibrary.load(practice_bus_api()) { practice_bus_load($0) }.mapError { BusError("dlopen", message: $0.message) }
    }()

    /// Connects to the user's session bus (`DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`).
    public static func session() throws(BusError) -> BusConnection {
        // Where sd-bus would find none (over ssh, in a service, in CI), libsystemd and the six
        // libraries it brings (1.1 MB resident) are not loaded only to be told so.
        if let why = noSessionBus() { throw BusError("sd_bus_open_user", message: why) }
        let api = try loaded.get()
        var handle: OpaquePointer?
        try bus("sd_bus_open_user") { api.pointee.open_user(&handle) }
        return BusConnection(api: api, handle: handle!)
    }

    /// Why there is no session bus to connect to, as sd-bus looks for it; nil when there may be
    /// one: `DBUS_SESSION_BUS_ADDRESS` set (whatever it says), or a socket at `$XDG_RUNTIME_DIR/bus`.
    static func noSessionBus() -> String? {
        if let address = getenv("DBUS_SESSION_BUS_ADDRESS"), address.pointee != 0 { return nil }
        guard let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), !runtime.isEmpty else {
            return "no DBUS_SESSION_BUS_ADDRESS, and no XDG_RUNTIME_DIR"
        }
        var st = stat()
        guard stat(runtime + "/bus", &st) == 0, st.st_mode & S_IFMT == S_IFSOCK else {
            return "no DBUS_SESSION_BUS_ADDRESS, and no socket at \(runtime.terminalSafe)/bus"
        }
        return nil
    }

    /// Connects to the bus at `address` (`unix:path=…`, as dbus-daemon prints it).
    public static func connect(address: String) throws(BusError) -> BusConnection {
        let api = try loaded.get()
        var handle: OpaquePointer?
        try bus("sd_bus_new") { api.pointee.new_bus(&handle) }
        let connection = BusConnection(api: api, handle: handle!)
        try bus("sd_bus_set_address") { api.pointee.set_address(handle, address) }
        try bus("sd_bus_set_bus_client") { api.pointee.set_bus_client(handle, 1) }
        try bus("sd_bus_start") { api.pointee.start(handle) }
        return connection
    }

    private init(api: UnsafeMutablePointer<practice_bus_api>, handle: OpaquePointer) { self.api = api; self.handle = handle }

    deinit { _ = api.pointee.flush_close_unref(handle) }

    /// Takes a well-known name; false when another connection has it.
    public func requestName(_ name: String) throws(BusError) -> Bool {
        let rc = api.pointee.request_name(handle, name, 0)
        if rc == -EEXIST { return false }
        try bus("sd_bus_request_name") { rc }
        return true
    }

    /// Gives a well-known name back. The corresponding C function is `sd_bus_release_name`.
    public func releaseName(_ name: String) throws(BusError) {
        let rc = api.pointee.release_name(handle, name)
        try bus("sd_bus_release_name") { rc }
    }

    /// This connection's unique name (`:1.42`).
    public var uniqueName: String {
        var name: UnsafePointer<CChar>?
        return api.pointee.get_unique_name(handle, &name) >= 0 && name != nil ? String(cString: name!) : ""
    }

    /// Serves `interfaces` at the object `path` (introspection and org.freedesktop.DBus.Properties come with them).
    public func add(object path: String, _ interfaces: [BusInterface]) throws(BusError) {
        for interface in interfaces {
            let s = ServedInterface(interface, connection: self)
            var table = [practice_bus_vtable_start(api.pointee.vtable_format)]
            for m in interface.methods {
                table.append(practice_bus_vtable_method(s.keep(m.name), s.keep(m.arguments), s.keep(m.reply), methodTrampoline))
            }
            for p in interface.properties {
                table.append(practice_bus_vtable_property(s.keep(p.name), s.keep(p.signature), getterTrampoline,
                                                          p.set == nil ? nil : setterTrampoline, p.emitsChange ? 1 : 0))
            }
            for g in interface.signals { table.append(practice_bus_vtable_signal(s.keep(g.name), s.keep(g.signature))) }
            table.append(practice_bus_vtable_end())
            let vtable = UnsafeMutablePointer<sd_bus_vtable>.allocate(capacity: table.count)
            vtable.initialize(from: table, count: table.count)
            s.vtable = vtable
            served.append(s)
            try bus("sd_bus_add_object_vtable") {
                api.pointee.add_object_vtable(handle, nil, path, interface.name, vtable, Unmanaged.passUnretained(s).toOpaque())
            }
        }
    }

    /// `PropertiesChanged` for `names` of `interface` at `path`, with their current values.
    public func emitPropertiesChanged(path: String, interface: String, _ names: [String]) throws(BusError) {
        guard !names.isEmpty else { return }
        var pointers: [UnsafeMutablePointer<CChar>?] = names.map { strdup($0) } + [nil]
        defer { for p in pointers { free(p) } }
        try bus("sd_bus_emit_properties_changed_strv") {
            pointers.withUnsafeMutableBufferPointer { api.pointee.emit_properties_changed_strv(handle, path, interface, $0.baseAddress) }
        }
    }

    /// Sends a signal.
    public func emitSignal(path: String, interface: String, member: String, _ arguments: [BusValue]) throws(BusError) {
        var m: OpaquePointer?
        try bus("sd_bus_message_new_signal") { api.pointee.message_new_signal(handle, &m, path, interface, member) }
        defer { _ = api.pointee.message_unref(m) }
        for a in arguments { try append(a, to: m!) }
        try bus("sd_bus_send") { api.pointee.send(handle, m, nil) }
    }

    /// Calls a method without waiting for its reply (none is asked for).
    public func send(to destination: String, path: String, interface: String, member: String, _ arguments: [BusValue]) throws(BusError) {
        var m: OpaquePointer?
        try bus("sd_bus_message_new_method_call") { api.pointee.message_new_method_call(handle, &m, destination, path, interface, member) }
        defer { _ = api.pointee.message_unref(m) }
        try bus("sd_bus_message_set_expect_reply") { api.pointee.message_set_expect_reply(m, 0) }
        for a in arguments { try append(a, to: m!) }
        try bus("sd_bus_send") { api.pointee.send(handle, m, nil) }
    }

    /// Calls a method and waits (up to `timeoutSeconds`) for its reply, whose content is not
    /// needed: the callee has handled the call when this returns.
    /// The corresponding C function is `sd_bus_call`.
    public func call(_ destination: String, path: String, interface: String, member: String, _ arguments: [BusValue],
                     timeoutSeconds: Double = 5) throws(BusError) {
        var m: OpaquePointer?
        try bus("sd_bus_message_new_method_call") { api.pointee.message_new_method_call(handle, &m, destination, path, interface, member) }
        defer { _ = api.pointee.message_unref(m) }
        for a in arguments { try append(a, to: m!) }
        var error = sd_bus_error()
        defer { api.pointee.error_free(&error) }
        var reply: OpaquePointer?
        defer { if reply != nil { _ = api.pointee.message_unref(reply) } }
        try bus("sd_bus_call") { api.pointee.call(handle, m, UInt64(timeoutSeconds * 1_000_000), &error, &reply) }
    }

    /// The file descriptor to poll, the events to poll it for, and how long at most (ms; -1: no limit).
    public var pollDescriptor: (fd: Int32, events: Int16, timeoutMs: Int32) {
        let fd = api.pointee.get_fd(handle)
        let events = Int16(truncatingIfNeeded: max(api.pointee.get_events(handle), 0))
        var usec: UInt64 = .max
        _ = api.pointee.get_timeout(handle, &usec)
        if usec == .max { return (fd, events, -1) }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nowUsec = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        return (fd, events, usec <= nowUsec ? 0 : Int32(min((usec - nowUsec + 999) / 1000, 60_000)))
    }

    /// Handles what has arrived (method calls run their handlers here) until nothing is left.
    public func process() throws(BusError) {
        while try bus("sd_bus_process", { api.pointee.process(handle, nil) }) > 0 {}
    }

    /// Sends what is queued.
    public func flush() { _ = api.pointee.flush(handle) }

    // MARK: Messages

    fileprivate func append(_ value: BusValue, to m: OpaquePointer) throws(BusError) {
        let a = api.pointee
        func basic(_ type: UInt8, _ pointer: UnsafeRawPointer) throws(BusError) {
            try bus("sd_bus_message_append_basic") { a.message_append_basic(m, CChar(bitPattern: type), pointer) }
        }
        func open(_ type: UInt8, _ contents: String) throws(BusError) {
            try bus("sd_bus_message_open_container") { a.message_open_container(m, CChar(bitPattern: type), contents) }
        }
        func close() throws(BusError) { try bus("sd_bus_message_close_container") { a.message_close_container(m) } }
        switch value {
        case .string(let s), .objectPath(let s):
            let type: UInt8 = value.signature == "s" ? UInt8(ascii: "s") : UInt8(ascii: "o")
            // D-Bus strings are UTF-8 without NULs: a NUL would cut the string short, so it goes.
            let clean = s.contains("\0") ? String(s.unicodeScalars.filter { $0 != "\0" }) : s
            let rc = clean.withCString { a.message_append_basic(m, CChar(bitPattern: type), $0) }
            if rc < 0 { throw BusError("sd_bus_message_append_basic", code: rc) }
        case .boolean(let b): var v: Int32 = b ? 1 : 0; try basic(UInt8(ascii: "b"), &v)
        case .int32(var v): try basic(UInt8(ascii: "i"), &v)
        case .uint32(var v): try basic(UInt8(ascii: "u"), &v)
        case .int64(var v): try basic(UInt8(ascii: "x"), &v)
        case .double(var v): try basic(UInt8(ascii: "d"), &v)
        case .array(let element, let values):
            try open(UInt8(ascii: "a"), element)
            for v in values { try append(v, to: m) }
            try close()
        case .dictionary(let entries):
            try open(UInt8(ascii: "a"), "{sv}")
            for (key, v) in entries {
                try open(UInt8(ascii: "e"), "sv")
                try append(.string(key), to: m)
                try append(.variant(v), to: m)
                try close()
            }
            try close()
        case .variant(let inner):
            try open(UInt8(ascii: "v"), inner.signature)
            try append(inner, to: m)
            try close()
        }
    }

    /// `susssasa{sv}i` → `s`, `u`, `s`, `s`, `s`, `as`, `a{sv}`, `i`.
    static func completeTypes(_ signature: String) -> [String] {
        var out: [String] = [], current = "", depth = 0
        for ch in signature {
            current.append(ch)
            switch ch {
            case "a": continue   // the element follows
            case "(", "{": depth += 1; continue
            case ")", "}": depth -= 1
            default: break
            }
            if depth == 0 { out.append(current); current = "" }
        }
        return out
    }

    /// Reads one value of a basic type, or a variant holding one.
    fileprivate func read(_ type: UInt8, from m: OpaquePointer) throws(BusError) -> BusValue {
        let a = api.pointee
        func basic<T: BitwiseCopyable>(_ initial: T) throws(BusError) -> T {
            var v = initial
            try bus("sd_bus_message_read_basic") { withUnsafeMutableBytes(of: &v) { a.message_read_basic(m, CChar(bitPattern: type), $0.baseAddress) } }
            return v
        }
        switch type {
        case UInt8(ascii: "s"), UInt8(ascii: "o"):
            let p: UnsafePointer<CChar>? = try basic(nil)
            let s = p.map { String(cString: $0) } ?? ""
            return type == UInt8(ascii: "s") ? .string(s) : .objectPath(s)
        case UInt8(ascii: "b"): return .boolean(try basic(Int32(0)) != 0)
        case UInt8(ascii: "i"): return .int32(try basic(Int32(0)))
        case UInt8(ascii: "u"): return .uint32(try basic(UInt32(0)))
        case UInt8(ascii: "x"): return .int64(try basic(Int64(0)))
        case UInt8(ascii: "d"): return .double(try basic(Double(0)))
        case UInt8(ascii: "v"):
            var t: CChar = 0
            var contents: UnsafePointer<CChar>?
            try bus("sd_bus_message_peek_type") { a.message_peek_type(m, &t, &contents) }
            let inner = contents.map { String(cString: $0) } ?? ""
            guard inner.utf8.count == 1 else { throw BusError("sd_bus_message_read", message: "a variant of type '\(inner)' where a number, string or boolean was expected") }
            try bus("sd_bus_message_enter_container") { a.message_enter_container(m, CChar(bitPattern: UInt8(ascii: "v")), contents) }
            let value = try read(inner.utf8.first!, from: m)
            try bus("sd_bus_message_exit_container") { a.message_exit_container(m) }
            return .variant(value)
        default:
            throw BusError("sd_bus_message_read", message: "type '\(Character(Unicode.Scalar(type)))' is not read here")
        }
    }

    fileprivate func fail(_ error: UnsafeMutablePointer<sd_bus_error>?, _ failure: BusFailure) -> Int32 {
        api.pointee.error_set(error, failure.name, failure.message)
    }
    fileprivate func fail(_ error: UnsafeMutablePointer<sd_bus_error>?, _ failure: BusError) -> Int32 {
        api.pointee.error_set(error, "org.freedesktop.DBus.Error.InvalidArgs", failure.description)
    }

    fileprivate func reply(to call: OpaquePointer, _ values: [BusValue]) throws(BusError) {
        var r: OpaquePointer?
        try bus("sd_bus_message_new_method_return") { api.pointee.message_new_method_return(call, &r) }
        defer { _ = api.pointee.message_unref(r) }
        for v in values { try append(v, to: r!) }
        try bus("sd_bus_send") { api.pointee.send(handle, r, nil) }
    }

    fileprivate func member(of m: OpaquePointer) -> String { api.pointee.message_get_member(m).map { String(cString: $0) } ?? "" }
}

/// One interface served: its closures, its vtable and the C strings the vtable points at.
private final class ServedInterface {
    unowned let connection: BusConnection
    let interface: BusInterface
    var vtable: UnsafeMutablePointer<sd_bus_vtable>?
    private var strings: [UnsafeMutablePointer<CChar>] = []
    init(_ interface: BusInterface, connection: BusConnection) { self.interface = interface; self.connection = connection }
    deinit {
        vtable?.deallocate()
        for s in strings { free(s) }
    }
    func keep(_ s: String) -> UnsafePointer<CChar> { let p = strdup(s)!; strings.append(p); return UnsafePointer(p) }

    func call(_ m: OpaquePointer, _ out: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        let name = connection.member(of: m)
        guard let method = interface.methods.first(where: { $0.name == name }) else {
            return connection.fail(out, BusFailure("no method \(name)", name: "org.freedesktop.DBus.Error.UnknownMethod"))
        }
        do {
            var arguments: [BusValue] = []
            for type in BusConnection.completeTypes(method.arguments) {
                if type.count == 1 {
                    arguments.append(try connection.read(type.utf8.first!, from: m))
                } else {
                    // A container argument is passed over (as an empty array): its caller's
                    // handler does not read it.
                    try bus("sd_bus_message_skip") { connection.api.pointee.message_skip(m, type) }
                    arguments.append(.array(String(type.dropFirst()), []))
                }
            }
            let reply: [BusValue]
            do { reply = try method.handler(arguments) } catch { return connection.fail(out, error) }
            try connection.reply(to: m, reply)
            return 1
        } catch {
            return connection.fail(out, error)
        }
    }

    func get(_ property: String, into reply: OpaquePointer, _ out: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        guard let p = interface.properties.first(where: { $0.name == property }) else {
            return connection.fail(out, BusFailure("no property \(property)", name: "org.freedesktop.DBus.Error.UnknownProperty"))
        }
        do { try connection.append(p.get(), to: reply) } catch { return connection.fail(out, error) }
        return 1
    }

    func set(_ property: String, from value: OpaquePointer, _ out: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        guard let p = interface.properties.first(where: { $0.name == property }), let set = p.set else {
            return connection.fail(out, BusFailure("\(property) cannot be set", name: "org.freedesktop.DBus.Error.PropertyReadOnly"))
        }
        do {
            // sd-bus has entered the variant: the value is read with the property's own signature.
            guard p.signature.utf8.count == 1 else { return connection.fail(out, BusFailure("\(property) cannot be set")) }
            let v = try connection.read(p.signature.utf8.first!, from: value)
            do { try set(v.unwrapped) } catch { return connection.fail(out, error) }
        } catch {
            return connection.fail(out, error)
        }
        return 1
    }
}

// The C callbacks: each finds its interface from the userdata, and the member from the message.

private let methodTrampoline: sd_bus_message_handler_t = { message, userdata, error in
    Unmanaged<ServedInterface>.fromOpaque(userdata!).takeUnretainedValue().call(message!, error)
}
private let getterTrampoline: sd_bus_property_get_t = { _, _, _, property, reply, userdata, error in
    Unmanaged<ServedInterface>.fromOpaque(userdata!).takeUnretainedValue().get(String(cString: property!), into: reply!, error)
}
private let setterTrampoline: sd_bus_property_set_t = { _, _, _, property, value, userdata, error in
    Unmanaged<ServedInterface>.fromOpaque(userdata!).takeUnretainedValue().set(String(cString: property!), from: value!, error)
}
