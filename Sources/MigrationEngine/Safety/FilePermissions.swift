import CXattr
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The source store's mode and owner, given to every file a migration makes from it: the new
/// store, the association work file, copies and backups. The files are created with the mode
/// from the start, so a store kept private (say 0600) never has its rows in a more open file,
/// not even for a moment; and the migrated store keeps the owner the app runs as, and the
/// extended attributes an app or the system keeps on the file (`user.*` tags, ACLs, labels),
/// which a new file would otherwise not have.
struct FilePermissions {
    let mode: mode_t
    let owner: uid_t
    let group: gid_t
    /// The file's extended attributes, by name.
    let attributes: [(name: String, value: [UInt8])]

    /// The permissions of the file at `path`.
    init(of path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw MigrationError(
                .notFound, "cannot read the permissions of \(path): \(String(cString: strerror(errno)))",
                fix: "check that the store exists and its directory is readable")
        }
        mode = info.st_mode & 0o7777
        owner = info.st_uid
        group = info.st_gid
        attributes = Self.extendedAttributes(of: path)
    }

    /// Throws when a step that swaps a new store in could not give it the store's owner: only
    /// root may give a file away, so run by another user the new store would be that user's,
    /// and `fs.protected_hardlinks` refuses the link that keeps the original, at the very end of
    /// the step. Checked before the first write, naming the owner.
    static func requireSwappable(store path: String) throws {
        let me = geteuid()
        let permissions = try FilePermissions(of: path)
        guard me != 0, permissions.owner != me else { return }
        let owner =
            getpwuid(permissions.owner).map { String(cString: $0.pointee.pw_name) } ?? "uid \(permissions.owner)"
        throw MigrationError(
            .notWritable,
            """
            \(path) belongs to \(owner), not to this user (uid \(me)): a mapping step writes a new store and swaps \
            it in, and only root can give the new file its owner back, so the swap would fail or take the store \
            from \(owner)
            """,
            fix: permissions.owner == 0
                ? "run the migration as root (sudo chrysalis migrate …)"
                : "run the migration as \(owner) (sudo -u \(owner) chrysalis migrate …), or as root")
    }

    /// Every extended attribute of the file at `path` (none where the file system keeps none).
    private static func extendedAttributes(of path: String) -> [(name: String, value: [UInt8])] {
        let size = listxattr(path, nil, 0)
        guard size > 0 else { return [] }
        var names = [CChar](repeating: 0, count: size)
        let listed = listxattr(path, &names, size)
        guard listed > 0 else { return [] }
        return names.prefix(listed).split(separator: 0).compactMap { bytes in
            let name = String(decoding: bytes.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let length = getxattr(path, name, nil, 0)
            guard length >= 0 else { return nil }
            var value = [UInt8](repeating: 0, count: length)
            guard getxattr(path, name, &value, length) == length else { return nil }
            return (name, value)
        }
    }

    /// Creates `path` empty with these permissions; it must not exist (a leftover is cleaned by
    /// recovery before a migration starts).
    func createEmpty(_ path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode & 0o666)
        guard descriptor >= 0 else { throw failure("create \(path)") }
        defer { close(descriptor) }
        try apply(descriptor, path)
    }

    /// Copies `source` to `destination` (which must not exist) byte for byte, created with these
    /// permissions, and flushed to disk; `copied` hears the bytes copied so far after each 4 MB,
    /// so a backup's counter moves as it copies.
    func copy(_ source: String, to destination: String, copied: (Int) -> Void = { _ in }) throws {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw failure("open \(source)") }
        defer { close(input) }
        let output = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode & 0o666)
        guard output >= 0 else { throw failure("create \(destination)") }
        defer { close(output) }
        try apply(output, destination)
        let size = 4 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        var total = 0
        while true {
            let count = read(input, buffer, size)
            if count == 0 { break }
            guard count > 0 else { throw failure("read \(source)") }
            var written = 0
            while written < count {
                let done = write(output, buffer + written, count - written)
                guard done > 0 else { throw failure("write \(destination)") }
                written += done
            }
            total += count
            copied(total)
        }
        guard fsync(output) == 0 else { throw failure("flush \(destination)") }
    }

    /// Gives the file at `path` these permissions (the owner only where this process may).
    func apply(to path: String) throws {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("open \(path)") }
        defer { close(descriptor) }
        try apply(descriptor, path)
    }

    private func apply(_ descriptor: Int32, _ path: String) throws {
        guard fchmod(descriptor, mode) == 0 else { throw failure("set the mode of \(path)") }
        // Only root may give a file away; anyone else's files are theirs already.
        if fchown(descriptor, owner, group) != 0, errno != EPERM { throw failure("set the owner of \(path)") }
        for attribute in attributes
        where fsetxattr(descriptor, attribute.name, attribute.value, attribute.value.count, 0) != 0 {
            // The system's own (a security label, an ACL) are set by the system where this
            // process may not; an app's (`user.*`) are carried or the step stops, named.
            guard attribute.name.hasPrefix("user.") else { continue }
            throw failure("give \(path) the store's extended attribute \(attribute.name)")
        }
    }

    private func failure(_ action: String) -> MigrationError {
        let code = errno
        let reason = String(cString: strerror(code))
        return MigrationError(
            code == ENOSPC ? .noSpace : .swap, "could not \(action): \(reason)",
            fix: code == ENOSPC ? "free space on that volume" : "check the folder's permissions")
    }
}
