// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc

/// Why a sidecar's contents cannot be used: where in the document, and what is wrong.
public struct SidecarFormatError: Error, Equatable, Sendable {
    /// A path into the document, such as `markers[3].time`; empty for the whole document.
    public var field: String
    public var message: String
    public var line: Int?
    public var column: Int?
}

extension Sidecar {
    /// Reads a sidecar document. Lenient where people edit by hand: a missing `id` gets a new one,
    /// a missing `updatedAt` counts as the oldest edit, and a loop end may name a marker.
    public static func decode(_ data: Data) throws(SidecarFormatError) -> Sidecar {
        // Markers read from the bytes straight into `Marker`s (a sidecar may hold 10,000: a
        // dictionary and a JSONValue for each were most of the time, then a list of members and a
        // string for each key). Whatever this way does not take, a syntax error or a field that is
        // wrong, is read again the whole way, which says what is wrong as it always has.
        if let (root, markers) = try? JSONValue.parse(data, splitting: "markers", item: { (reader) throws(JSONSyntaxError) in try reader.marker() }),
           let sidecar = try? decode(root: root, markers: markers) {
            return sidecar
        }
        let document: JSONValue
        do {
            document = try JSONValue.parse(data)
        } catch {
            throw SidecarFormatError(field: "", message: error.message, line: error.line, column: error.column)
        }
        return try decode(document)
    }

    public static func decode(_ document: JSONValue) throws(SidecarFormatError) -> Sidecar {
        try decode(root: FieldReader(path: "", value: document).object(), markers: nil)
    }

    /// The document's members, and its markers' when they were read apart (else they are in `root`).
    static func decode(root: [String: JSONValue], markers: [Marker]?) throws(SidecarFormatError) -> Sidecar {
        var root = root
        var s = Sidecar()
        guard let format = root.removeValue(forKey: "format") else {
            throw SidecarFormatError(field: "format", message: "missing; a practice sidecar has \"format\": \"\(formatName)\"")
        }
        guard format.string == formatName else {
            throw SidecarFormatError(field: "format", message: "is \(format.string.map { "\"\($0)\"" } ?? format.kindName), not \"\(formatName)\"")
        }
        guard let version = root.removeValue(forKey: "version") else {
            throw SidecarFormatError(field: "version", message: "missing; expected an integer such as 1")
        }
        guard let v = version.int, v >= 1 else {
            throw SidecarFormatError(field: "version", message: "expected a whole number from 1 up")
        }
        s.version = v
        if let a = root.removeValue(forKey: "audio") { s.audio = try TrackIdentity(FieldReader(path: "audio", value: a)) }
        if let markers {
            s.markers = markers
        } else if let m = root.removeValue(forKey: "markers") {
            let items = try FieldReader(path: "markers", value: m).array()
            s.markers = try items.enumerated().map { (k, v) throws(SidecarFormatError) in
                try Marker(FieldReader(path: "markers", index: k, value: v))
            }
        }
        if let l = root.removeValue(forKey: "loops") {
            let items = try FieldReader(path: "loops", value: l).array()
            s.loops = try items.enumerated().map { (k, v) throws(SidecarFormatError) in
                try Loop(FieldReader(path: "loops", index: k, value: v), markers: s.markers)
            }
        }
        if let p = root.removeValue(forKey: "settings") { s.settings = try PracticeSettings(FieldReader(path: "settings", value: p)) }
        if let b = root.removeValue(forKey: "beats") { s.beats = try BeatGrid(FieldReader(path: "beats", value: b)) }
        s.extra = root   // "$schema" and whatever a newer version added
        try s.checkIDs()
        return s
    }

    private func checkIDs() throws(SidecarFormatError) {
        var seen = Set<String>(minimumCapacity: Swift.max(markers.count, loops.count))
        for k in markers.indices where !seen.insert(markers[k].id).inserted {
            throw SidecarFormatError(field: "markers[\(k)].id", message: "\"\(markers[k].id)\" is used twice")
        }
        seen.removeAll()
        for k in loops.indices where !seen.insert(loops[k].id).inserted {
            throw SidecarFormatError(field: "loops[\(k)].id", message: "\"\(loops[k].id)\" is used twice")
        }
    }

    /// The document as written: sorted keys, markers by time, 2-space indent, trailing newline.
    public func encoded() -> Data {
        var copy = self
        copy.normalize()
        return Data(copy.prettyBytes())
    }

    /// `json.prettyBytes()`, the same bytes, with each marker written from its fields instead of
    /// being made into a dictionary and sorted first (a sidecar may hold 10,000 of them).
    func prettyBytes() -> [UInt8] {
        var rest = self
        rest.markers = []
        guard case .object(let document) = rest.json else { preconditionFailure("a sidecar is an object") }
        var out = [UInt8]()
        JSONValue.writeObject(document.count, document.sorted(by: { $0.key < $1.key }), into: &out, indent: 0, pretty: true) { member, out, indent in
            guard member.key == "markers", !markers.isEmpty else { return member.value.writePretty(into: &out, indent: indent) }
            out.append(UInt8(ascii: "["))
            for k in markers.indices {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.newline(indent + 2, into: &out)
                markers[k].writePretty(into: &out, indent: indent + 2)
            }
            JSONValue.newline(indent, into: &out)
            out.append(UInt8(ascii: "]"))
        }
        out.append(0x0A)
        return out
    }

    public var json: JSONValue {
        var o = extra
        o["format"] = .string(Self.formatName)
        o["version"] = .integer(version)
        if let audio { o["audio"] = audio.json }
        o["markers"] = .array(markers.map(\.json))
        o["loops"] = .array(loops.map(\.json))
        if let settings { o["settings"] = settings.json }
        if let beats { o["beats"] = beats.json }
        return .object(o)
    }
}

/// Reads one field of a document with errors that say where it is.
struct FieldReader {
    /// The field, or the list the item is in (`markers`), so that a sidecar with 10,000 markers
    /// does not write 10,000 paths that no error will need.
    private var field: String
    private var index: Int?
    var value: JSONValue

    init(path: String, value: JSONValue) { field = path; self.value = value }
    init(path list: String, index: Int, value: JSONValue) { field = list; self.index = index; self.value = value }

    var path: String { index.map { "\(field)[\($0)]" } ?? field }

    func fail(_ message: String) -> SidecarFormatError { SidecarFormatError(field: path, message: message) }

    func object() throws(SidecarFormatError) -> [String: JSONValue] {
        guard let o = value.object else { throw fail("expected an object, found \(value.kindName)") }
        return o
    }
    func array() throws(SidecarFormatError) -> [JSONValue] {
        guard let a = value.array else { throw fail("expected a list, found \(value.kindName)") }
        return a
    }
}

/// Takes known fields out of an object, leaving the unknown ones for `extra`. (It takes them out
/// of a list of the object's members, not the dictionary: an entry has a handful of members, and a
/// look along a handful of short keys is quicker than hashing each key asked for.)
struct Members {
    private let reader: FieldReader
    private let members: [(key: String, value: JSONValue)]
    /// The members taken, by their place in `members` (an object of more than 64 is read the
    /// slow way: `members` copied into `many`, and taken members removed from there). Marked
    /// rather than removed, so that the list read is never copied.
    private var taken: UInt64 = 0
    private var many: [(key: String, value: JSONValue)]?

    init(_ r: FieldReader) throws(SidecarFormatError) {
        self.init(Array(try r.object()), path: r)
    }

    /// An object's members as read; `path` names it in errors.
    init(_ members: [(key: String, value: JSONValue)], path: FieldReader) {
        reader = path
        if members.count <= 64 { self.members = members } else { self.members = []; many = members }
    }

    var path: String { reader.path }

    /// The members not taken: what a newer version added, or a person, kept as they are.
    var rest: [String: JSONValue] {
        if let many { return Dictionary(uniqueKeysWithValues: many) }
        let left = members.count - taken.nonzeroBitCount
        guard left > 0 else { return [:] }
        var out = [String: JSONValue](minimumCapacity: left)
        for k in members.indices where taken & (1 << k) == 0 { out[members[k].key] = members[k].value }
        return out
    }

    /// A key is in an object once at most (the reader sees to it).
    private func place(_ key: String) -> Int? {
        members.indices.first { taken & (1 << $0) == 0 && members[$0].key == key }
    }

    mutating func take(_ key: String) -> JSONValue? {
        if many != nil {
            guard let k = many!.firstIndex(where: { $0.key == key }) else { return nil }
            return many!.remove(at: k).value
        }
        guard let k = place(key) else { return nil }
        taken |= 1 << k
        return members[k].value
    }

    func peek(_ key: String) -> JSONValue? {
        if let many { return many.first(where: { $0.key == key })?.value }
        return place(key).map { members[$0].value }
    }

    func fail(_ key: String, _ message: String) -> SidecarFormatError {
        SidecarFormatError(field: path.isEmpty ? key : "\(path).\(key)", message: message)
    }

    mutating func string(_ key: String) throws(SidecarFormatError) -> String? {
        guard let v = take(key), v != .null else { return nil }
        guard let s = v.string else { throw fail(key, "expected a string, found \(v.kindName)") }
        return s
    }
    mutating func requiredString(_ key: String) throws(SidecarFormatError) -> String {
        guard let s = try string(key) else { throw fail(key, "missing") }
        return s
    }
    mutating func number(_ key: String, _ what: String = "a number") throws(SidecarFormatError) -> Double? {
        guard let v = take(key), v != .null else { return nil }
        guard let d = v.double, d.isFinite else { throw fail(key, "expected \(what), found \(v.kindName)") }
        return d
    }
    mutating func seconds(_ key: String) throws(SidecarFormatError) -> Double? {
        let literal = peek(key).flatMap { if case .number(let n) = $0 { n } else { nil } }
        guard let d = try number(key, "a number of seconds") else { return nil }
        guard d >= 0 else { throw fail(key, "is negative (\(JSONValue.formatMilliseconds(d)) s)") }
        guard d <= Self.longestSeconds else { throw fail(key, "is \(literal ?? String(d)) s: longer than any recording") }
        return d
    }

    /// 10⁹ s (31 years): more than any recording, and times to the millisecond stay exact.
    static let longestSeconds = 1e9
    mutating func int(_ key: String) throws(SidecarFormatError) -> Int {
        guard let v = take(key) else { throw fail(key, "missing") }
        guard let i = v.int, i >= 0 else { throw fail(key, "expected a whole number, found \(v.kindName == "a number" ? "\(v)" : v.kindName)") }
        return i
    }
    mutating func bool(_ key: String) throws(SidecarFormatError) -> Bool {
        guard let v = take(key), v != .null else { return false }
        guard let b = v.bool else { throw fail(key, "expected true or false, found \(v.kindName)") }
        return b
    }
}

/// The oldest possible edit, for hand-written entries without `updatedAt`.
let oldestEdit = "1970-01-01T00:00:00.000Z"

extension Members {
    /// What every marker and loop has: an id (a new one if a person left it out), the last edit
    /// (the oldest if left out), whether it is a tombstone, and a name (required unless it is one).
    mutating func entry() throws(SidecarFormatError) -> (id: String, updatedAt: String, deleted: Bool, name: String) {
        let id = try string("id") ?? Sidecar.newID()
        let updatedAt = try string("updatedAt") ?? oldestEdit
        let deleted = try bool("deleted")
        let name = deleted ? try string("name") ?? "" : try requiredString("name")
        return (id, updatedAt, deleted, name)
    }
}

/// Writes the members every entry has into `o`; for a tombstone, returns the finished object.
func entryJSON(_ o: inout [String: JSONValue], id: String, updatedAt: String, deleted: Bool) -> JSONValue? {
    o["id"] = .string(id)
    o["updatedAt"] = .string(updatedAt)
    guard deleted else { return nil }
    o["deleted"] = .bool(true)
    return .object(o)
}

extension Marker {
    init(_ r: FieldReader) throws(SidecarFormatError) { try self.init(Members(r)) }

    init(_ members: Members) throws(SidecarFormatError) {
        var m = members
        let (id, updatedAt, deleted, name) = try m.entry()
        guard let time = deleted ? try m.seconds("time") ?? 0 : try m.seconds("time") else { throw m.fail("time", "missing") }
        self.init(id: id, name: name, time: time, note: try m.string("note"), color: try m.string("color"),
                  updatedAt: updatedAt, author: try m.string("author"))
        self.deleted = deleted
        extra = m.rest
    }

    /// A marker's own fields, in key order: what `eachField` walks, and what
    /// `JSONReader.marker()` compares keys with.
    enum Field: Int, CaseIterable {
        case author, color, deleted, id, name, note, time, updatedAt

        var name: String {
            switch self {
            case .author: "author"
            case .color: "color"
            case .deleted: "deleted"
            case .id: "id"
            case .name: "name"
            case .note: "note"
            case .time: "time"
            case .updatedAt: "updatedAt"
            }
        }

        /// Each field's name as bytes, by `rawValue`.
        static let names: [[UInt8]] = allCases.map { Array($0.name.utf8) }
    }

    /// What is written for one of a marker's own fields.
    enum Written {
        case text(String), seconds(Double), yes

        var json: JSONValue {
            switch self {
            case .text(let s): .string(s)
            case .seconds(let t): .seconds(t)
            case .yes: .bool(true)
            }
        }
    }

    /// The marker's own fields that it holds, in key order, with what is written for each (a
    /// tombstone keeps `deleted`, `id` and `updatedAt` only): the one list of them, which
    /// `orderedMembers` and the writer both go through.
    func eachField(_ body: (Field, Written) -> Void) {
        if deleted {
            body(.deleted, .yes)
            body(.id, .text(id))
            body(.updatedAt, .text(updatedAt))
            return
        }
        if let author { body(.author, .text(author)) }
        if let color { body(.color, .text(color)) }
        body(.id, .text(id))
        body(.name, .text(name))
        if let note { body(.note, .text(note)) }
        body(.time, .seconds(time))
        body(.updatedAt, .text(updatedAt))
    }

    /// The marker's members in key order (its fields, and those a newer version or a person
    /// added), made without a dictionary: what `json` holds, and what the writer writes.
    var orderedMembers: [(key: String, value: JSONValue)] {
        var known: [(key: String, value: JSONValue)] = []
        known.reserveCapacity(8 + extra.count)
        eachField { field, value in known.append((field.name, value.json)) }
        guard !extra.isEmpty else { return known }
        return (known + extra.map { (key: $0.key, value: $0.value) }).sorted { $0.key < $1.key }
    }

    /// `orderedMembers` written as `JSONValue.writeObject` writes them, pretty, without making the
    /// list when there are no fields but ours (a sidecar's writer, for each of 10,000 markers).
    func writePretty(into out: inout [UInt8], indent: Int) {
        guard extra.isEmpty else {
            let members = orderedMembers
            return JSONValue.writeObject(members.count, members, into: &out, indent: indent, pretty: true) { member, out, indent in
                member.value.writePretty(into: &out, indent: indent)
            }
        }
        var first = true
        eachField { field, value in
            out.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
            first = false
            JSONValue.newline(indent + 2, into: &out)
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: Field.names[field.rawValue])
            out.append(UInt8(ascii: "\""))
            out.append(UInt8(ascii: ":"))
            out.append(0x20)
            switch value {
            case .text(let s): JSONValue.quote(s, into: &out)
            case .seconds(let t):
                var seconds = JSONValue.formatMilliseconds(t)
                seconds.withUTF8 { out.append(contentsOf: $0) }
            case .yes: out.append(contentsOf: "true".utf8)
            }
        }
        JSONValue.newline(indent, into: &out)
        out.append(UInt8(ascii: "}"))
    }

    /// The marker as the sidecar holds it: `orderedMembers`, the one list of its fields.
    var json: JSONValue { .object(Dictionary(uniqueKeysWithValues: orderedMembers.lazy.map { ($0.key, $0.value) })) }
}

extension JSONReader {
    /// One marker of a sidecar's list, read from its bytes as `Marker(_: Members)` reads it from
    /// its members, with no list of members and no string made for a key. Whatever that reading
    /// would refuse, and what it reads in a way of its own (a null, a field of another kind, a
    /// key written twice, a time out of range, a missing name or time), throws here: the sidecar
    /// is then read the whole way, which says what is wrong.
    mutating func marker() throws(JSONSyntaxError) -> Marker {
        guard i < bytes.count, bytes[i] == UInt8(ascii: "{") else { throw error("expected an object") }
        try enter()
        defer { depth -= 1 }
        i += 1
        var id, name, updatedAt, note, color, author: String?
        var time: Double?
        var deleted = false
        var extra: [String: JSONValue] = [:]
        var seen: UInt8 = 0   // the known fields read, by `Marker.Field.rawValue`
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") { throw error("a marker without a name") }
        while true {
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw error("expected a key") }
            let (known, key) = try key(among: Marker.Field.names)
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw error("expected ':'") }
            i += 1
            skipSpace()
            guard i < bytes.count else { throw error("unexpected end of file") }
            if let known, let field = Marker.Field(rawValue: known) {
                guard seen & 1 << known == 0 else { throw error("a key written twice") }
                seen |= 1 << known
                switch field {
                case .time:
                    guard bytes[i] == UInt8(ascii: "-") || (0x30...0x39).contains(bytes[i]),
                          let d = JSONValue.value(ofNumber: try numberBytes()), d.isFinite, d >= 0, d <= Members.longestSeconds
                    else { throw error("a time out of range") }
                    time = d
                case .deleted:
                    if bytes[i] == UInt8(ascii: "t") { try literal("true"); deleted = true } else { try literal("false") }
                case .id, .name, .updatedAt, .note, .color, .author:
                    guard bytes[i] == UInt8(ascii: "\"") else { throw error("expected a string") }
                    let text = try string()
                    switch field {
                    case .id: id = text
                    case .name: name = text
                    case .updatedAt: updatedAt = text
                    case .note: note = text
                    case .color: color = text
                    default: author = text
                    }
                }
            } else if let key {
                guard extra.updateValue(try value(), forKey: key) == nil else { throw error("a key written twice") }
            }
            skipSpace()
            guard i < bytes.count else { throw error("unexpected end of file") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            guard bytes[i] == UInt8(ascii: "}") else { throw error("expected ',' or '}'") }
            i += 1
            break
        }
        guard let name = name ?? (deleted ? "" : nil), let time = time ?? (deleted ? 0 : nil) else { throw error("a marker without a name or a time") }
        var marker = Marker(id: id ?? Sidecar.newID(), name: name, time: time, note: note, color: color, updatedAt: updatedAt ?? oldestEdit, author: author)
        marker.deleted = deleted
        marker.extra = extra
        return marker
    }

    /// The key here: its place in `keys`, or the key itself when it is none of them. A key
    /// written plainly is compared as it lies; one with escapes is read first.
    private mutating func key(among keys: [[UInt8]]) throws(JSONSyntaxError) -> (known: Int?, key: String?) {
        var end = i + 1
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 { end += 1 }
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            let plain = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[(i + 1)..<end]))
            if let k = keys.firstIndex(where: { key in key.count == plain.count && key.withUnsafeBytes { memcmp($0.baseAddress!, plain.baseAddress!, plain.count) == 0 } }) {
                i = end + 1
                return (k, nil)
            }
        }
        let key = try string()
        return (keys.firstIndex { $0.elementsEqual(key.utf8) }, key)
    }
}

extension Loop {
    init(_ r: FieldReader, markers: [Marker]) throws(SidecarFormatError) {
        var m = try Members(r)
        let (id, updatedAt, deleted, name) = try m.entry()
        func point(_ key: String) throws(SidecarFormatError) -> LoopPoint {
            guard let v = m.take(key) else {
                if deleted { return .time(0) }
                throw m.fail(key, "missing; expected seconds or {\"marker\": id}")
            }
            switch v {
            case .number:
                guard let d = v.double, d.isFinite, d >= 0, d <= Members.longestSeconds else { throw m.fail(key, "expected a time of 0 s or more") }
                return .time(Sidecar.milliseconds(d))
            case .object(let o):
                guard o.count == 1, let ref = o["marker"]?.string else { throw m.fail(key, "expected {\"marker\": id}") }
                return .marker(ref)
            case .string(let name):
                // Hand-written: a marker's name. Resolved to its id now, so renames keep the loop.
                let live = markers.filter { !$0.deleted && $0.name.lowercased() == name.lowercased() }
                guard live.count == 1 else { throw m.fail(key, "no single marker is named \"\(name)\"") }
                return .marker(live[0].id)
            default:
                throw m.fail(key, "expected seconds or {\"marker\": id}, found \(v.kindName)")
            }
        }
        let start = try point("start"), end = try point("end")
        self.init(id: id, name: name, start: start, end: end, note: try m.string("note"), updatedAt: updatedAt,
                  author: try m.string("author"))
        self.deleted = deleted
        extra = m.rest
    }

    var json: JSONValue {
        var o = extra
        o.reserveCapacity(extra.count + 7)   // grown once, not four times
        if let tombstone = entryJSON(&o, id: id, updatedAt: updatedAt, deleted: deleted) { return tombstone }
        func point(_ p: LoopPoint) -> JSONValue {
            switch p {
            case .time(let t): .seconds(t)
            case .marker(let id): .object(["marker": .string(id)])
            }
        }
        o["name"] = .string(name)
        o["start"] = point(start)
        o["end"] = point(end)
        if let note { o["note"] = .string(note) }
        if let author { o["author"] = .string(author) }
        return .object(o)
    }
}

extension TrackIdentity {
    init(_ r: FieldReader) throws(SidecarFormatError) {
        var m = try Members(r)
        let fileName = try m.requiredString("fileName")
        let title = try m.string("title"), artist = try m.string("artist")
        guard let duration = try m.seconds("duration") else { throw m.fail("duration", "missing") }
        let sha = try m.string("sha256")
        guard let pcmValue = m.take("pcm") else { throw m.fail("pcm", "missing") }
        let pcm = try PCMIdentity(FieldReader(path: r.path + ".pcm", value: pcmValue))
        let print = try m.take("chromaprint").map { (v) throws(SidecarFormatError) in
            try AcousticFingerprint(FieldReader(path: r.path + ".chromaprint", value: v))
        }
        self.init(fileName: fileName, title: title, artist: artist, duration: duration, fileSHA256: sha, pcm: pcm, chromaprint: print)
        extra = m.rest
    }

    var json: JSONValue {
        var o = extra
        o["fileName"] = .string(fileName)
        if let title { o["title"] = .string(title) }
        if let artist { o["artist"] = .string(artist) }
        o["duration"] = .seconds(duration)
        if let fileSHA256 { o["sha256"] = .string(fileSHA256) }
        o["pcm"] = pcm.json
        if let chromaprint { o["chromaprint"] = chromaprint.json }
        return .object(o)
    }
}

extension AcousticFingerprint {
    init(_ r: FieldReader) throws(SidecarFormatError) {
        var m = try Members(r)
        let algorithm = try m.int("algorithm")
        let fingerprint = try m.requiredString("fingerprint")
        // Byte by byte: a day-long track's fingerprint is 340 kB, and checked Character by
        // Character (grapheme breaks, Unicode properties) it took 80 of the 94 ms of adding a marker.
        guard Self.isBase64URL(fingerprint) else {
            throw m.fail("fingerprint", "expected Chromaprint's base64 text (letters, digits, - and _)")
        }
        self.init(algorithm: algorithm, fingerprint: fingerprint, start: try m.seconds("start") ?? 0, lengthSeconds: try m.seconds("lengthSeconds"))
        extra = m.rest
    }

    /// Whether `text` is URL-safe base64 (RFC 4648 §5) and not empty: ASCII letters and digits,
    /// `-` and `_`.
    static func isBase64URL(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { b in
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"): true
            default: false
            }
        }
    }

    var json: JSONValue {
        var o = extra
        o["algorithm"] = .integer(algorithm)
        o["fingerprint"] = .string(fingerprint)
        if start != 0 { o["start"] = .seconds(start) }
        if let lengthSeconds { o["lengthSeconds"] = .seconds(lengthSeconds) }
        return .object(o)
    }
}

extension PCMIdentity {
    init(_ r: FieldReader) throws(SidecarFormatError) {
        var m = try Members(r)
        self.init(sampleRate: try m.int("sampleRate"), channels: try m.int("channels"), frames: try m.int("frames"),
                  sha256: try m.requiredString("sha256"))
        extra = m.rest
    }

    var json: JSONValue {
        var o = extra
        o["sampleRate"] = .integer(sampleRate)
        o["channels"] = .integer(channels)
        o["frames"] = .integer(frames)
        o["sha256"] = .string(sha256)
        return .object(o)
    }
}

extension PracticeSettings {
    init(_ r: FieldReader) throws(SidecarFormatError) {
        var m = try Members(r)
        self.init(rate: try m.number("rate"), pitch: try m.number("pitch"), position: try m.seconds("position"), bpm: try m.number("bpm"),
                  lyricsShift: try m.number("lyricsShift", "a number of seconds").map(Sidecar.milliseconds))
        if let stamps = m.take("updatedAt") {
            let r = FieldReader(path: "settings.updatedAt", value: stamps)
            for (key, value) in try r.object() {
                guard let t = value.string else { throw FieldReader(path: "settings.updatedAt.\(key)", value: value).fail("expected a time such as \"2026-11-20T10:01:00.000Z\", found \(value.kindName)") }
                updatedAt[key] = t
            }
        }
        extra = m.rest
    }

    var json: JSONValue {
        var o = extra
        if let rate { o["rate"] = .double(rate) }
        if let pitch { o["pitch"] = .double(pitch) }
        if let position { o["position"] = .seconds(position) }
        if let bpm { o["bpm"] = .double(bpm) }
        if let lyricsShift { o["lyricsShift"] = .double(lyricsShift) }
        if !updatedAt.isEmpty { o["updatedAt"] = .object(updatedAt.mapValues { .string($0) }) }
        return .object(o)
    }
}

extension BeatGrid {
    init(_ r: FieldReader) throws(SidecarFormatError) {
        var m = try Members(r)
        guard let tempo = try m.number("tempo"), BeatGrid.tempoRange.contains(tempo) else {
            throw m.fail("tempo", "expected beats a minute from 20 to 400")
        }
        guard let one = try m.seconds("one") else { throw m.fail("one", "missing") }
        let meter = try m.int("meter")
        guard (2...16).contains(meter) else { throw m.fail("meter", "expected beats to a count from 2 to 16 (8: eights; 4 or 3: bars), found \(meter)") }
        var times: [Double] = []
        if let list = m.take("times") {
            let items = try FieldReader(path: "\(r.path).times", value: list).array()
            for (k, v) in items.enumerated() {
                guard let t = v.double, t.isFinite, t >= 0, t <= Members.longestSeconds else {
                    throw FieldReader(path: "\(r.path).times[\(k)]", value: v).fail("expected a time in seconds, found \(v.kindName)")
                }
                if let last = times.last, t <= last {
                    throw FieldReader(path: "\(r.path).times[\(k)]", value: v).fail("\(JSONValue.formatMilliseconds(t)) s is not after the beat before it")
                }
                times.append(Sidecar.milliseconds(t))
            }
        }
        self.init(times: times, tempo: tempo, one: one, meter: meter, source: try m.string("source") ?? "", updatedAt: try m.string("updatedAt") ?? oldestEdit)
        if let other = try m.number("otherTempo") {
            guard BeatGrid.tempoRange.contains(other) else { throw m.fail("otherTempo", "expected beats a minute from 20 to 400") }
            otherTempo = other
        }
        extra = m.rest
    }

    var json: JSONValue {
        var o = extra
        o["tempo"] = .double(tempo)
        o["one"] = .seconds(one)
        o["meter"] = .integer(meter)
        o["times"] = .array(times.map { .seconds($0) })
        if !source.isEmpty { o["source"] = .string(source) }
        if let otherTempo { o["otherTempo"] = .double(otherTempo) }
        o["updatedAt"] = .string(updatedAt)
        return .object(o)
    }
}
