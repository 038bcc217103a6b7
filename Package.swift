// swift-tools-version:6.0
// Chrysalis: Core Data model versioning and SQLite store migration for Linux.
// Targets follow DESIGN.md §1; arrows point one way: console → engine → store → model.
import PackageDescription

let package = Package(
    name: "Chrysalis",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "chrysalis", targets: ["chrysalis"]),
        .library(name: "ObjectModel", targets: ["ObjectModel"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .target(
            name: "ObjectModel",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")]
        ),
        .executableTarget(
            name: "chrysalis",
            dependencies: [
                "ObjectModel",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "ObjectModelTests",
            dependencies: [
                "ObjectModel",
                // Only to read the real fixture stores' Z_METADATA until SQLiteStore exists.
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "ChrysalisCLITests",
            dependencies: ["chrysalis"]
        ),
    ]
)
