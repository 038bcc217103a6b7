// swift-tools-version:6.0
// An app's own build of the Chrysalis command line: the objc.io Books mapping models name custom
// entity migration policies (MHWBookToBookPolicy, MHWUserToUserPolicy), which a plain `chrysalis`
// cannot run; this executable registers them and is otherwise `chrysalis`, every command included.
import Foundation
import PackageDescription

// Chrysalis is the package two folders up; a path dependency is known by its folder's name.
let chrysalis = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

let package = Package(
    name: "BooksMigrator",
    platforms: [.macOS(.v13)],
    dependencies: [.package(path: chrysalis.path)],
    targets: [
        .executableTarget(name: "books-migrator", dependencies: [
            .product(name: "ChrysalisCLI", package: chrysalis.lastPathComponent),
            // The policies themselves: the worked examples' (Sources/Demo/BooksPolicies.swift).
            .product(name: "ChrysalisDemo", package: chrysalis.lastPathComponent),
        ]),
    ]
)
