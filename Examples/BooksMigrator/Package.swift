// swift-tools-version:6.0
// An app's own build of the Chrysalis command line, to copy as a start: its policies in a module
// of its own (BooksPolicies), and an executable that registers them (books-migrator). The objc.io
// Books mapping models name two custom entity migration policies (MHWBookToBookPolicy,
// MHWUserToUserPolicy), which a plain `chrysalis` cannot run.
import Foundation
import PackageDescription

// Chrysalis is the package two folders up; a path dependency is known by its folder's name. In
// your app: .package(url: "<Chrysalis's repository>", from: "<version>") and "Chrysalis".
let chrysalis = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

let package = Package(
    name: "BooksMigrator",
    platforms: [.macOS(.v13)],
    dependencies: [.package(path: chrysalis.path)],
    targets: [
        // The policies: a library, so the app's tests can import them too.
        .target(name: "BooksPolicies", dependencies: [.product(name: "ChrysalisCLI", package: chrysalis.lastPathComponent)]),
        .executableTarget(name: "books-migrator", dependencies: [
            "BooksPolicies",
            .product(name: "ChrysalisCLI", package: chrysalis.lastPathComponent),
        ]),
    ]
)
