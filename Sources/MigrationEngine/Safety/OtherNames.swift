import Foundation
import ObjectModel
import SQLiteStore

#if canImport(Glibc)
    import Glibc
#endif

/// A store is a file, and a file may have several names (hard links, in this folder or another).
/// A migration puts its new store in place of one name; every other name would go on naming the
/// old file, at the old version or an intermediate one, and an app writing through it would write
/// into what is now the backup. So a store with other names is refused before any write, with the
/// count and how to find them; a bind mount shows the same name, not another, and is not refused.
enum OtherNames {
    /// Throws when the store or one of its sidecars has more than one name.
    static func requireNone(store: String) throws {
        for path in StoreFiles.paths(of: store) {
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_nlink > 1 else { continue }
            let shown = TerminalText.visible(path)
            throw MigrationError(
                .locked,
                """
                \(shown) has \(info.st_nlink) names (hard links to the same file): a migration puts the new store \
                in place of this name only, so every other name would keep the old store, and an app writing \
                through one would write into the backup
                """,
                fix:
                    """
                    give the store one name: find the others with `find / -xdev -samefile \(shown)` and remove \
                    them, or migrate a copy (`cp` it to a new name) and put it in place yourself
                    """
            )
        }
    }
}
