// swift-tools-version:6.0
// An app's own build of the Chrysalis command line with its staged migration: the stages it
// registers with NSStagedMigrationManager on iOS 17, handlers included, in a module of its own
// (ShelfStages), and an executable that registers them (shelf-migrator), so that `--strategy
// staged` migrates a store on Linux exactly as the app does on devices.
import Foundation
import PackageDescription

// Chrysalis is the package two folders up; a path dependency is known by its folder's name. In
// your app: .package(url: "<Chrysalis's repository>", from: "<version>") and "Chrysalis".
let chrysalis = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

let package = Package(
    name: "StagedMigrator",
    platforms: [.macOS(.v13)],
    dependencies: [.package(path: chrysalis.path)],
    targets: [
        // The stages: a library, so the app's tests can import them too.
        .target(name: "ShelfStages", dependencies: [.product(name: "ChrysalisCLI", package: chrysalis.lastPathComponent)]),
        .executableTarget(name: "shelf-migrator", dependencies: [
            "ShelfStages",
            .product(name: "ChrysalisCLI", package: chrysalis.lastPathComponent),
        ]),
    ]
)
