import Foundation

/// The store a path names.
enum StorePath {
    /// `path` with its symbolic links resolved: the file itself, whose size, sidecars and
    /// neighbours are the store's (a link's own size is that of the path it holds).
    static func resolved(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }
}
