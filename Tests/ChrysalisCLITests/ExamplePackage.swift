import Foundation
import TestSupport
import XCTest

/// A package under `Examples/`, built as a user would build it (its own manifest), and its
/// executable run.
struct ExamplePackage {
    static let project = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// The examples' one build folder: each builds Chrysalis and its dependencies from scratch
    /// (about 100 s on two cores), so they share it, and the second example reuses what the
    /// first compiled (seconds). A user's own build of one example uses its own `.build`.
    static let scratch = project.appendingPathComponent("Examples/.build")

    /// The package's folder.
    let folder: URL
    /// The executable product.
    let product: String

    init(_ name: String, product: String) {
        folder = Self.project.appendingPathComponent("Examples/\(name)")
        self.product = product
    }

    /// Builds the product and returns its executable; a failed build throws the log's end.
    func build(log directory: URL) throws -> URL {
        let swift = ["/opt/swift/usr/bin/swift", "/usr/bin/swift"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let swift else {
            throw EndToEnd.unavailable("no swift toolchain found to build \(folder.lastPathComponent)")
        }
        let build = Process()
        build.executableURL = URL(fileURLWithPath: swift)
        build.arguments = [
            "build", "--package-path", folder.path, "--scratch-path", Self.scratch.path, "--product", product,
        ]
        let log = directory.appendingPathComponent("build.log")
        XCTAssertTrue(FileManager.default.createFile(atPath: log.path, contents: nil))
        build.standardOutput = try FileHandle(forWritingTo: log)
        build.standardError = build.standardOutput
        try build.run()
        build.waitUntilExit()
        guard build.terminationStatus == 0 else {
            throw BuildFailed(log: (try? String(contentsOf: log, encoding: .utf8).suffix(2000).description) ?? "")
        }
        return Self.scratch.appendingPathComponent("debug/\(product)")
    }

    /// Runs the built `binary` with `arguments`; its status and everything it printed.
    static func run(_ binary: URL, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let run = Process()
        run.executableURL = binary
        run.arguments = arguments
        let output = Pipe()
        run.standardOutput = output
        run.standardError = output
        try run.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        run.waitUntilExit()
        return (run.terminationStatus, printed)
    }

    struct BuildFailed: Error, CustomStringConvertible {
        let log: String
        var description: String { "the example did not build:\n\(log)" }
    }
}
