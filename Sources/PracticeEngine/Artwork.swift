import Crypto
import FoundationEssentials
import PracticeAudio
import PracticeDocuments

/// The picture that goes with a track, as a file desktop widgets and notifications can show:
/// the picture embedded in its tags, written once into `$XDG_CACHE_HOME/practice/covers/` (named
/// by its SHA-256, so every track of an album shares one file), else the folder's cover image.
public enum Artwork {
    public static func cover(forAudio path: String) -> String? {
        if let picture = try? EmbeddedPicture.frontCover(of: path), let ext = picture.fileExtension {
            let name = SHA256.hash(data: picture.bytes).hex
            let file = XDG.cache.appendingPathComponent("covers/\(name).\(ext)").path
            if FileManager.default.fileExists(atPath: file) { return file }
            do {
                try FileManager.default.createDirectory(atPath: Path.directory(file), withIntermediateDirectories: true)
                try AtomicFile.write(Data(picture.bytes), to: file)
                return file
            } catch {
                // A cache that cannot be written: the folder's image, if there is one.
            }
        }
        return CoverArt.beside(path)
    }
}
