// swift-tools-version:6.0
// Chrysalis: Core Data model versioning and SQLite store migration for Linux.
// Targets follow DESIGN.md §1; arrows point one way: console → engine → store → model.
// Linux only: the code uses Linux's xattr calls, /proc and ncursesw (README: Prerequisites).
import PackageDescription

let package = Package(
    name: "Chrysalis",
    products: [
        .executable(name: "chrysalis", targets: ["chrysalis"]),
        // The command line as a library: an app's own build registers its policies (Examples/).
        .library(name: "ChrysalisCLI", targets: ["ChrysalisCLI"]),
        .library(name: "ObjectModel", targets: ["ObjectModel"]),
        .library(name: "SQLiteStore", targets: ["SQLiteStore"]),
        .library(name: "MigrationEngine", targets: ["MigrationEngine"]),
        .library(name: "MigrationConsole", targets: ["MigrationConsole"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.1"),
        // Debug logging (--verbose, CHRYSALIS_LOG): the plan's decisions and every SQL statement.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // `swift package generate-documentation`: the DocC catalogs of MigrationEngine and ChrysalisCLI.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .target(
            name: "ObjectModel",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")]
        ),
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CXattr"),
        .target(
            name: "SQLiteStore",
            dependencies: ["ObjectModel", "CZlib", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
                           // SQLite's C API for binding per-row values directly (BoundExecution.swift).
                           .product(name: "GRDBSQLite", package: "GRDB.swift")]
        ),
        .target(
            name: "MigrationEngine",
            dependencies: ["ObjectModel", "SQLiteStore", "CXattr", "Yams", .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "Demo",
            // Reads its sample rows through SQLiteStore, the one module that speaks SQL to a store.
            dependencies: ["ObjectModel", "SQLiteStore", "MigrationEngine"],
            resources: [.copy("Resources")]
        ),
        .systemLibrary(name: "CNCurses", providers: [.apt(["libncurses-dev"])]),
        .target(name: "CTerminalShim"),
        .target(
            name: "MigrationConsole",
            dependencies: ["MigrationEngine", "ObjectModel", "CNCurses", "CTerminalShim"]
        ),
        .target(
            name: "ChrysalisCLI",
            dependencies: [
                "CTerminalShim",
                "ObjectModel",
                "SQLiteStore",
                "MigrationEngine",
                "MigrationConsole",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `chrysalis`: the command line with nothing registered, and `chrysalis demo`, which is here
        // so that no app's build of ChrysalisCLI links the demos.
        .executableTarget(name: "chrysalis", dependencies: ["ChrysalisCLI", "Demo", "MigrationConsole", "MigrationEngine", "ObjectModel",
                                                            .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        // The command line with the demos' policies registered, as an app's build registers its
        // own: the tests run the demos' mapping models through it.
        .executableTarget(name: "chrysalis-demos", dependencies: ["ChrysalisCLI", "Demo"], path: "Sources/ChrysalisDemos"),
        .executableTarget(
            name: "chrysalis-bench",
            dependencies: ["MigrationConsole", "MigrationEngine", "Demo", "SQLiteStore", "ObjectModel",
                           .product(name: "ArgumentParser", package: "swift-argument-parser"), .product(name: "GRDB", package: "GRDB.swift")],
            path: "Benchmarks",
            resources: [.copy("Models")]),
        .target(
            name: "TestSupport", dependencies: ["ObjectModel", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Tests/TestSupport"),
        .testTarget(
            name: "ObjectModelTests",
            dependencies: [
                "ObjectModel",
                "TestSupport",
                // The hash tests read real stores' Z_METADATA with plain SQL, independently of SQLiteStore.
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "SQLiteStoreTests",
            dependencies: [
                "SQLiteStore", "ObjectModel", "TestSupport", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "MigrationEngineTests",
            dependencies: [
                "MigrationEngine", "Demo", "SQLiteStore", "ObjectModel", "TestSupport", "CXattr",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "MigrationConsoleTests",
            dependencies: ["MigrationConsole", "MigrationEngine", "Demo", "ObjectModel", "TestSupport", "CTerminalShim"]
        ),
        // The repository's own checks (layers, lengths, seams, documents): no dependency, and a
        // package of their own in Checks/ to run alone in seconds.
        .testTarget(name: "RepositoryChecks", path: "Checks/Tests/RepositoryChecks"),
        .testTarget(
            name: "ChrysalisCLITests",
            dependencies: [
                "chrysalis", "chrysalis-demos", "chrysalis-bench", "TestSupport", "SQLiteStore", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
    ]
)
