// SPDX-License-Identifier: GPL-3.0-or-later
internal import CChafa
import Glibc
import PracticeSystem

/// libchafa and stb_image, opened at the first picture. Written once, then only read.
nonisolated(unsafe) private let chafa = DynamicLibrary.load(practice_chafa_api()) { practice_chafa_load($0) }
    .mapError { ImageError(path: "libchafa.so.0", reason: $0.message) }
nonisolated(unsafe) private let stb = DynamicLibrary.load(practice_stb_api()) { practice_stb_load($0) }
    .mapError { ImageError(path: "libstb.so.0", reason: $0.message) }

/// An image file we could not decode (stb_image's reason, as it words it).
public struct ImageError: Error, CustomStringConvertible, Sendable {
    public let path: String
    public let reason: String
    public var description: String { "\(path): not an image we can draw (\(reason))" }
}

/// A decoded picture: RGBA, 8 bits a channel, rows top to bottom.
public struct Picture: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let rgba: [UInt8]

    public init(width: Int, height: Int, rgba: [UInt8]) {
        precondition(rgba.count == width * height * 4)
        self.width = width; self.height = height; self.rgba = rgba
    }

    /// JPEG, PNG, GIF (its first frame) or BMP, decoded with stb_image. `name` goes in the error.
    public static func decode(_ bytes: [UInt8], name: String) throws(ImageError) -> Picture {
        let stbi = try stb.get().pointee
        var w: Int32 = 0, h: Int32 = 0, channels: Int32 = 0
        // A cover is small: a picture that says it is larger than 8192 × 8192 is not decoded
        // (it would take gigabytes).
        if bytes.withUnsafeBufferPointer({ stbi.info_from_memory($0.baseAddress, Int32(clamping: $0.count), &w, &h, &channels) }) != 0,
           Int(w) * Int(h) > 8192 * 8192 {
            throw ImageError(path: name, reason: "\(w) × \(h) pixels, larger than a cover")
        }
        guard bytes.count < Int(Int32.max),
              let pixels = bytes.withUnsafeBufferPointer({ stbi.load_from_memory($0.baseAddress, Int32($0.count), &w, &h, &channels, 4) }) else {
            let reason = stbi.failure_reason().map { String(cString: $0) } ?? "unknown"
            throw ImageError(path: name, reason: reason)
        }
        defer { stbi.image_free(pixels) }
        return Picture(width: Int(w), height: Int(h), rgba: Array(UnsafeBufferPointer(start: pixels, count: Int(w) * Int(h) * 4)))
    }

    /// The image file at `path`.
    public static func read(_ path: String) throws(ImageError) -> Picture {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ImageError(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw ImageError(path: path, reason: String(cString: strerror(errno))) }
            if n == 0 { break }
            bytes += chunk[..<n]
            if bytes.count > 64 << 20 { throw ImageError(path: path, reason: "larger than 64 MB") }
        }
        return try decode(bytes, name: path)
    }
}

/// Pictures drawn in a terminal with libchafa.
public enum TerminalPicture {
    /// How a terminal can show a picture.
    public enum Mode: Sendable, Equatable {
        /// Unicode block characters coloured with 24-bit, 256 or 16 colours.
        case symbols(Colors)
        /// The kitty graphics protocol.
        case kitty
        /// DEC sixels.
        case sixels
    }

    public enum Colors: Sendable, Equatable { case truecolor, indexed256, indexed16 }

    /// What the terminal described by `environment` (TERM, COLORTERM, KITTY_WINDOW_ID…, as chafa's
    /// terminal database reads them) can show: kitty graphics, else sixels, else symbols in as many
    /// colours as it says it has. Nil for none: `NO_COLOR` set, or a terminal without colour.
    public static func mode(environment: [String: String]) -> Mode? {
        if let v = environment["NO_COLOR"], !v.isEmpty { return nil }
        let term = environment["TERM"] ?? ""
        if term.isEmpty || term == "dumb" { return nil }
        guard let c = try? chafa.get().pointee, (try? stb.get()) != nil else { return nil }   // no pictures without the libraries
        var strings = environment.map { strdup("\($0.key)=\($0.value)") }
        strings.append(nil)
        defer { for s in strings { free(s) } }
        let info = strings.withUnsafeMutableBufferPointer { c.term_db_detect(c.term_db_get_default(), $0.baseAddress) }
        defer { if let info { c.term_info_unref(info) } }
        if let info {
            if c.term_info_have_seq(info, Int32(CHAFA_TERM_SEQ_BEGIN_KITTY_IMMEDIATE_IMAGE_V1)) != 0 { return .kitty }
            if c.term_info_have_seq(info, Int32(CHAFA_TERM_SEQ_BEGIN_SIXELS)) != 0 { return .sixels }
        }
        let colorterm = environment["COLORTERM"] ?? ""
        if colorterm == "truecolor" || colorterm == "24bit" { return .symbols(.truecolor) }
        if term.contains("256color") { return .symbols(.indexed256) }
        return .symbols(.indexed16)
    }

    /// `picture` drawn in `columns` × `rows` cells, one string per row, each ending with the
    /// attributes reset (for symbols; kitty and sixels give one string that draws the whole
    /// picture from the cursor). The picture keeps its shape in cells of `cell` pixels (what the
    /// terminal reports; 10 × 20 when it does not), so kitty and sixel pictures fill the same cells.
    public static func render(_ picture: Picture, columns: Int, rows: Int, mode: Mode, cell: (width: Int, height: Int) = (10, 20)) -> [String] {
        guard columns > 0, rows > 0, picture.width > 0, picture.height > 0, cell.width > 0, cell.height > 0,
              let c = try? chafa.get().pointee else { return [] }
        let symbols = c.symbol_map_new()
        defer { c.symbol_map_unref(symbols) }
        c.symbol_map_add_by_tags(symbols, Int32(CHAFA_SYMBOL_TAG_BLOCK | CHAFA_SYMBOL_TAG_SPACE))
        let config = c.config_new()
        defer { c.config_unref(config) }
        switch mode {
        case .symbols(let colors):
            c.config_set_pixel_mode(config, Int32(CHAFA_PIXEL_MODE_SYMBOLS))
            c.config_set_canvas_mode(config, colors == .truecolor ? Int32(CHAFA_CANVAS_MODE_TRUECOLOR)
                                     : colors == .indexed256 ? Int32(CHAFA_CANVAS_MODE_INDEXED_240) : Int32(CHAFA_CANVAS_MODE_INDEXED_16))
        case .kitty: c.config_set_pixel_mode(config, Int32(CHAFA_PIXEL_MODE_KITTY))
        case .sixels: c.config_set_pixel_mode(config, Int32(CHAFA_PIXEL_MODE_SIXELS))
        }
        // Fit the picture in the cells, keeping its aspect.
        var w = Int32(columns), h = Int32(rows)
        c.calc_canvas_geometry(Int32(picture.width), Int32(picture.height), &w, &h, Float(cell.width) / Float(cell.height), 0, 0)
        c.config_set_geometry(config, max(w, 1), max(h, 1))
        c.config_set_cell_geometry(config, Int32(cell.width), Int32(cell.height))
        c.config_set_symbol_map(config, symbols)
        c.config_set_dither_mode(config, Int32(CHAFA_DITHER_MODE_NONE))
        let canvas = c.canvas_new(config)
        defer { c.canvas_unref(canvas) }
        picture.rgba.withUnsafeBufferPointer {
            c.canvas_draw_all_pixels(canvas, Int32(CHAFA_PIXEL_RGBA8_UNASSOCIATED), $0.baseAddress, Int32(picture.width), Int32(picture.height), Int32(picture.width * 4))
        }
        guard let printed = c.canvas_print(canvas, nil) else { return [] }
        let text = String(cString: printed.pointee.str)
        _ = c.string_free(printed, 1)
        switch mode {
        case .symbols:
            return text.split(separator: "\n", omittingEmptySubsequences: false).map { String($0) + "\u{1B}[0m" }
        case .kitty, .sixels:
            return [text]
        }
    }
}
