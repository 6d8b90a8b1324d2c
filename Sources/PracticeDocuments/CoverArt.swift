// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials

/// The picture that goes with a track for desktop widgets and notifications: the folder's cover
/// image, as music players look for it (`cover.jpg`, `folder.png`, `front.jpg`, `AlbumArt.jpg`…,
/// any case).
public enum CoverArt {
    /// The names looked for, best first (without the extension).
    static let names = ["cover", "folder", "front", "albumart", "album", "albumartsmall"]
    static let extensions = ["jpg", "jpeg", "png", "webp", "gif"]

    /// The folder's cover image beside `audio`, if there is one.
    public static func beside(_ audio: String) -> String? {
        let folder = Path.directory(audio)
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder) else { return nil }
        return best(among: entries).map { folder.isEmpty ? $0 : folder + "/" + $0 }
    }

    /// The folder's cover image among the names of its files, if one of them is.
    public static func best(among entries: [String]) -> String? {
        var best: (rank: Int, name: String)?
        for entry in entries {
            guard let rank = rank(of: entry) else { continue }
            if best == nil || rank < best!.rank || rank == best!.rank && entry < best!.name { best = (rank, entry) }
        }
        return best?.name
    }

    /// The names and extensions as bytes, and the lengths a cover's file name can have.
    private static let nameBytes = names.map { Array($0.utf8) }
    private static let extensionBytes = extensions.map { Array($0.utf8) }
    private static let lengths: ClosedRange<Int> = {
        let (n, e) = (names.map(\.utf8.count), extensions.map(\.utf8.count))
        return (n.min()! + 1 + e.min()!)...(n.max()! + 1 + e.max()!)
    }()

    /// Where `entry` stands among the cover names, any case (nil: it is none), read on its
    /// bytes: a player looks in folders of thousands of files at every start, and a lowercased
    /// copy of each name took 5k instructions. The names are ASCII, and the only other scalar
    /// whose lowercase is ASCII is the Kelvin sign's k, which none of them holds: a byte over
    /// 0x7F matches none of theirs.
    static func rank(of entry: String) -> Int? {
        let utf8 = entry.utf8
        guard lengths.contains(utf8.count), let dot = utf8.lastIndex(of: UInt8(ascii: ".")) else { return nil }
        let (stem, ext) = (utf8[..<dot], utf8[utf8.index(after: dot)...])
        guard extensionBytes.contains(where: { sameLetters($0, ext) }) else { return nil }
        return nameBytes.firstIndex { sameLetters($0, stem) }
    }

    /// Whether `bytes` are `word`'s (lowercase ASCII) in any case.
    private static func sameLetters(_ word: [UInt8], _ bytes: Substring.UTF8View) -> Bool {
        word.elementsEqual(bytes) { w, b in w == (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") ? b | 0x20 : b) }
    }

    /// `file://` and the absolute path, with what a URI may not hold percent-encoded.
    public static func fileURL(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var out = "file://"
        for byte in absolute.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(hex[Int(byte >> 4)])
                out.unicodeScalars.append(hex[Int(byte & 15)])
            }
        }
        return out
    }

    /// The path in a `file://` URL (percent-decoded); nil for other URLs.
    public static func path(fromFileURL url: String) -> String? {
        guard url.hasPrefix("file://") else { return nil }
        var rest = Array(url.utf8.dropFirst(7))
        // file://host/path: only the local host.
        if let slash = rest.firstIndex(of: UInt8(ascii: "/")), slash > 0 {
            guard String(decoding: rest[..<slash], as: UTF8.self) == "localhost" else { return nil }
            rest.removeFirst(slash)
        }
        var bytes: [UInt8] = []
        var k = 0
        while k < rest.count {
            if rest[k] == UInt8(ascii: "%"), k + 2 < rest.count, let v = UInt8(String(decoding: rest[k + 1...k + 2], as: UTF8.self), radix: 16) {
                bytes.append(v)
                k += 3
            } else {
                bytes.append(rest[k])
                k += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
