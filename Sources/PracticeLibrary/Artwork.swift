// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import PracticeAudio
import PracticeDocuments
import PracticeEngine

/// The picture that goes with a track, as a file desktop widgets and notifications can show:
/// the picture embedded in its tags, written once into `$XDG_CACHE_HOME/practice/covers/` (named
/// by its SHA-256, so every track of an album shares one file), else a video's frame, else the
/// folder's cover image.
public enum Artwork {
    public static func cover(forAudio path: String) -> String? {
        if let picture = try? EmbeddedPicture.frontCover(of: path), let file = store(picture) { return file }
        // A video with no picture in its tags: a frame a tenth of the way in, as the library's.
        if LibraryIndex.videoExtensions.contains(Path.pathExtension(path).lowercased()), let jpeg = VideoFrame.jpeg(of: path),
           let file = store(EmbeddedPicture(bytes: jpeg, mime: "image/jpeg")) {
            return file
        }
        return CoverArt.beside(path)
    }

    /// The cache's folder of pictures: `$XDG_CACHE_HOME/practice/covers`.
    public static var folder: String { Path.appending("covers", to: XDG.cache) }

    /// `picture` as a file in the cache (written once: named by its SHA-256); nil when it is not
    /// an image (by its first bytes), or the cache cannot be written.
    public static func store(_ picture: EmbeddedPicture, in folder: String = Artwork.folder) -> String? {
        guard let ext = picture.fileExtension else { return nil }
        let file = folder + "/\(SHA256.hash(data: picture.bytes).hex).\(ext)"
        if FileSystem.exists(file) { return file }
        do {
            guard FileSystem.makeFolders(folder) else { return nil }
            try AtomicFile.write(Data(picture.bytes), to: file)
            return file
        } catch {
            return nil
        }
    }

    /// Whether `file` is a picture in the cache (taken from a file's tags), not one from a music folder.
    public static func isStored(_ file: String, in folder: String = Artwork.folder) -> Bool { file.hasPrefix(folder + "/") }
}
