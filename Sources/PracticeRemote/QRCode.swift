// SPDX-License-Identifier: GPL-3.0-or-later
internal import CQRencode
import PracticeDocuments
import PracticeSystem

/// A QR code (libqrencode), and its drawing in a terminal: two modules a character cell with
/// Unicode half blocks, dark modules drawn as spaces on light ones (the light "ink" is the
/// terminal's foreground, so the code reads on dark and light themes alike, as phones read
/// inverted codes), with the four-module quiet zone the standard asks for.
public struct QRCode: Sendable, Equatable {
    /// Modules by row, true for dark.
    public let modules: [[Bool]]
    public var size: Int { modules.count }

    /// The code for `text` at error-correction level L (the screen is not a crumpled flyer), the
    /// smallest version that holds it. Letters, digits and ` $%*+-./:` only encode two to a
    /// byte and a half (alphanumeric mode): an address in capitals gives a smaller code.
    public init(_ text: String) throws(PracticeError) {
        let api = try Self.loaded.get()
        guard let code = api.pointee.encode_string(text, 0, QR_ECLEVEL_L, QR_MODE_8, 1) else {
            throw PracticeError(.software, "cannot make a QR code of \(text.count) characters")
        }
        defer { api.pointee.free_code(code) }
        let width = Int(code.pointee.width)
        let data = code.pointee.data!
        modules = (0..<width).map { y in (0..<width).map { x in data[y * width + x] & 1 == 1 } }
    }

    public init(modules: [[Bool]]) { self.modules = modules }

    /// libqrencode's functions, from libqrencode.so.4 opened the first time a code is made.
    nonisolated(unsafe) private static let loaded = DynamicLibrary.load(practice_qrencode_api()) { practice_qrencode_load($0) }
        .mapError { PracticeError(.unavailable, "cannot open libqrencode (\($0.message)); install Debian's libqrencode4") }

    /// The lines to print: light quiet zone and light modules as full or half blocks, dark
    /// modules as spaces. `quiet` modules of margin on each side (4 by the standard).
    public func lines(quiet: Int = 4) -> [String] {
        let n = size + 2 * quiet
        func dark(_ x: Int, _ y: Int) -> Bool {
            let (i, j) = (y - quiet, x - quiet)
            return i >= 0 && i < size && j >= 0 && j < size && modules[i][j]
        }
        return stride(from: 0, to: n, by: 2).map { y in
            String((0..<n).map { x -> Character in
                switch (dark(x, y), y + 1 < n ? dark(x, y + 1) : false) {
                case (false, false): return "█"
                case (true, false): return "▄"
                case (false, true): return "▀"
                case (true, true): return " "
                }
            })
        }
    }
}
