import Foundation

/// The real inputs the fuzzers start from: the fixtures written by Xcode and Core Data, and the
/// project's own model bundles and mapping files.
public enum FuzzSeeds {
    /// The package root (`Sources`, `Tests`, `Benchmarks`).
    public static let projectRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every file under the fixtures, `Sources/Demo/Resources` and `Benchmarks/Models` whose path
    /// satisfies `predicate`, sorted (so seed order, and with it every mutant, is stable).
    public static func files(where predicate: (URL) -> Bool) -> [URL] {
        let roots = [
            Fixtures.root, projectRoot.appendingPathComponent("Sources/Demo/Resources"),
            projectRoot.appendingPathComponent("Benchmarks/Models"),
        ]
        return roots.flatMap { root in
            (FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? [])
                .filter(predicate)
        }.sorted { $0.path < $1.path }
    }

    /// The bytes of each file, each distinct content once (the demo copies some fixtures).
    public static func contents(of files: [URL]) -> [[UInt8]] {
        unique(files.compactMap { FileManager.default.contents(atPath: $0.path).map(Array.init) })
    }

    /// `seeds` without repeats, in their first order.
    public static func unique(_ seeds: [[UInt8]]) -> [[UInt8]] {
        var seen: Set<[UInt8]> = []
        return seeds.filter { seen.insert($0).inserted }
    }

    /// The base64 payloads of `<attribute name="NAME" type="binary">…</attribute>` elements in
    /// Xcode's XML stores (`xcmapping.xml`), decoded: keyed archives such as value expressions.
    public static func binaryAttributes(named names: Set<String>, in xml: [UInt8]) -> [[UInt8]] {
        let text = String(decoding: xml, as: UTF8.self)
        var found: [[UInt8]] = []
        var rest = text[...]
        while let open = rest.range(of: "<attribute name=\"") {
            rest = rest[open.upperBound...]
            guard let quote = rest.firstIndex(of: "\""), let start = rest.range(of: ">"),
                let end = rest.range(of: "</attribute>")
            else { break }
            let name = String(rest[..<quote])
            if names.contains(name), start.upperBound <= end.lowerBound,
                let data = Data(
                    base64Encoded: String(rest[start.upperBound..<end.lowerBound]), options: .ignoreUnknownCharacters)
            {
                found.append(Array(data))
            }
            rest = rest[end.upperBound...]
        }
        return found
    }
}
