import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// A real, tiny filesystem (tmpfs) mounted for one test, so a full disk is a real full disk.
/// Needs root (CI runs as root); skipped with the reason otherwise.
public struct TinyVolume: Sendable {
    public let root: URL

    /// Mounts a tmpfs of `megabytes`, holding at most `inodes` files and folders when given.
    public init(megabytes: Int, inodes: Int? = nil, test: XCTestCase) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "chrysalis-tiny-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = [
            "-t", "tmpfs", "-o", "size=\(megabytes)m" + (inodes.map { ",nr_inodes=\($0)" } ?? ""), "tmpfs",
            directory.path,
        ]
        mount.standardError = FileHandle.nullDevice
        try mount.run()
        mount.waitUntilExit()
        guard mount.terminationStatus == 0 else {
            try? FileManager.default.removeItem(at: directory)
            throw EndToEnd.unavailable("cannot mount a tmpfs here (needs root): \(directory.path)")
        }
        root = directory
        test.addTeardownBlock {
            let unmount = Process()
            unmount.executableURL = URL(fileURLWithPath: "/bin/umount")
            unmount.arguments = [directory.path]
            try? unmount.run()
            unmount.waitUntilExit()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    public func path(_ name: String) -> String { root.appendingPathComponent(name).path }

    /// Mounts the volume again read-only, as a read-only medium or mount is.
    public func remountReadOnly() throws {
        let remount = Process()
        remount.executableURL = URL(fileURLWithPath: "/bin/mount")
        remount.arguments = ["-o", "remount,ro", root.path]
        try remount.run()
        remount.waitUntilExit()
        XCTAssertEqual(remount.terminationStatus, 0, "mount -o remount,ro \(root.path)")
    }

    /// Writes a filler file until only `leaving` bytes are free.
    public func fill(leaving: Int) throws {
        let descriptor = open(path("filler"), O_WRONLY | O_CREAT | O_APPEND, 0o644)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0x5a, count: 4096)
        while free() > leaving + chunk.count, write(descriptor, chunk, chunk.count) == chunk.count {}
        while free() > leaving, write(descriptor, chunk, 512) == 512 {}
    }

    public func removeFiller() throws { try FileManager.default.removeItem(atPath: path("filler")) }

    public func free() -> Int {
        var info = statvfs()
        statvfs(root.path, &info)
        return Int(info.f_bavail) * Int(info.f_frsize)
    }
}
