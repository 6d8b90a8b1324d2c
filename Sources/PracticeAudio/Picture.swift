internal import CChafa
internal import CStbImage
import Glibc

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
        var w: Int32 = 0, h: Int32 = 0, channels: Int32 = 0
        guard bytes.count < Int(Int32.max),
              let pixels = bytes.withUnsafeBufferPointer({ stbi_load_from_memory($0.baseAddress, Int32($0.count), &w, &h, &channels, 4) }) else {
            let reason = stbi_failure_reason().map { String(cString: $0) } ?? "unknown"
            throw ImageError(path: name, reason: reason)
        }
        defer { stbi_image_free(pixels) }
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
        var strings = environment.map { strdup("\($0.key)=\($0.value)") }
        strings.append(nil)
        defer { for s in strings { free(s) } }
        let info = strings.withUnsafeMutableBufferPointer { chafa_term_db_detect(chafa_term_db_get_default(), $0.baseAddress) }
        defer { if let info { chafa_term_info_unref(info) } }
        if let info {
            if chafa_term_info_have_seq(info, CHAFA_TERM_SEQ_BEGIN_KITTY_IMMEDIATE_IMAGE_V1) != 0 { return .kitty }
            if chafa_term_info_have_seq(info, CHAFA_TERM_SEQ_BEGIN_SIXELS) != 0 { return .sixels }
        }
        let colorterm = environment["COLORTERM"] ?? ""
        if colorterm == "truecolor" || colorterm == "24bit" { return .symbols(.truecolor) }
        if term.contains("256color") { return .symbols(.indexed256) }
        return .symbols(.indexed16)
    }

    /// `picture` drawn in `columns` × `rows` cells, one string per row, each ending with the
    /// attributes reset (for symbols; kitty and sixels give one string that draws the whole
    /// picture from the cursor). The picture keeps its shape: cells are taken as twice as tall as wide.
    public static func render(_ picture: Picture, columns: Int, rows: Int, mode: Mode) -> [String] {
        guard columns > 0, rows > 0, picture.width > 0, picture.height > 0 else { return [] }
        let symbols = chafa_symbol_map_new()
        defer { chafa_symbol_map_unref(symbols) }
        chafa_symbol_map_add_by_tags(symbols, ChafaSymbolTags(rawValue: CHAFA_SYMBOL_TAG_BLOCK.rawValue | CHAFA_SYMBOL_TAG_SPACE.rawValue))
        let config = chafa_canvas_config_new()
        defer { chafa_canvas_config_unref(config) }
        switch mode {
        case .symbols(let colors):
            chafa_canvas_config_set_pixel_mode(config, CHAFA_PIXEL_MODE_SYMBOLS)
            chafa_canvas_config_set_canvas_mode(config, colors == .truecolor ? CHAFA_CANVAS_MODE_TRUECOLOR
                                                : colors == .indexed256 ? CHAFA_CANVAS_MODE_INDEXED_240 : CHAFA_CANVAS_MODE_INDEXED_16)
        case .kitty: chafa_canvas_config_set_pixel_mode(config, CHAFA_PIXEL_MODE_KITTY)
        case .sixels: chafa_canvas_config_set_pixel_mode(config, CHAFA_PIXEL_MODE_SIXELS)
        }
        // Fit the picture in the cells, keeping its aspect (a cell is 1:2).
        var w = Int32(columns), h = Int32(rows)
        chafa_calc_canvas_geometry(Int32(picture.width), Int32(picture.height), &w, &h, 0.5, 0, 0)
        chafa_canvas_config_set_geometry(config, max(w, 1), max(h, 1))
        chafa_canvas_config_set_cell_geometry(config, 10, 20)
        chafa_canvas_config_set_symbol_map(config, symbols)
        chafa_canvas_config_set_dither_mode(config, CHAFA_DITHER_MODE_NONE)
        let canvas = chafa_canvas_new(config)
        defer { chafa_canvas_unref(canvas) }
        picture.rgba.withUnsafeBufferPointer {
            chafa_canvas_draw_all_pixels(canvas, CHAFA_PIXEL_RGBA8_UNASSOCIATED, $0.baseAddress, Int32(picture.width), Int32(picture.height), Int32(picture.width * 4))
        }
        guard let printed = chafa_canvas_print(canvas, nil) else { return [] }
        let text = String(cString: printed.pointee.str)
        g_string_free(printed, 1)
        switch mode {
        case .symbols:
            return text.split(separator: "\n", omittingEmptySubsequences: false).map { String($0) + "\u{1B}[0m" }
        case .kitty, .sixels:
            return [text]
        }
    }
}
