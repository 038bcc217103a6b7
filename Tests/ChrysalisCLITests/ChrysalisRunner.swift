import Foundation
import TestSupport
import XCTest

/// Runs the built `chrysalis` binary as a user would, capturing what it prints.
struct ChrysalisRunner {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The fixtures beside the project root.
    static let fixtures = Fixtures.root

    /// The demos' model bundles, mapping models and stores (`Sources/Demo/Resources`).
    static let demoResources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/Demo/Resources")

    /// `swift test` builds the executable next to the test bundle.
    static var binary: URL { Bundle.main.bundleURL.appendingPathComponent("chrysalis") }

    /// The command line with the demos' policies and hook registered (`chrysalis` registers none):
    /// for the demos' mapping models, which name custom policies.
    static var demos: URL { Bundle.main.bundleURL.appendingPathComponent("chrysalis-demos") }

    /// Runs `chrysalis-demos` (see ``demos``).
    static func demos(_ arguments: [String]) throws -> Result { try run(arguments, executable: "chrysalis-demos") }

    /// Runs `executable` (a product built beside the tests, `chrysalis` unless told otherwise, or
    /// a program at an absolute path).
    static func run(_ arguments: [String], executable: String = "chrysalis", environment: [String: String] = [:]) throws
        -> Result
    {
        let process = Process()
        process.executableURL =
            executable.hasPrefix("/")
            ? URL(fileURLWithPath: executable) : Bundle.main.bundleURL.appendingPathComponent(executable)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes before waiting, so a large output cannot fill a pipe and stall.
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }
}
