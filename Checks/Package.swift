// swift-tools-version:6.0
// The repository's own checks, as a package with no dependencies: folder layers, function and
// file length, platform seams, the documents' truth and the README's layout, in seconds
// (`swift test --package-path Checks`). The root package runs the same files in its `swift test`.
import PackageDescription

let package = Package(
    name: "RepositoryChecks",
    targets: [.testTarget(name: "RepositoryChecks", path: "Tests/RepositoryChecks")]
)
