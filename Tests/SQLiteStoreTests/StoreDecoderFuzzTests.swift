import CZlib
import Foundation
import GRDB
import ObjectModel
import TestSupport
import XCTest

@testable import SQLiteStore

/// Hostile store metadata and model caches: every mutant of a real store's `Z_METADATA.Z_PLIST`
/// or `Z_MODELCACHE.Z_CONTENT` must decode or be refused with the store's own error type, never
/// crash or hang. The seeds are read with plain SQL from copies of the real stores.
///
/// `CHRYSALIS_FUZZ_INPUTS=100000 swift test --filter StoreDecoderFuzzTests` is the full run.
final class StoreDecoderFuzzTests: FixtureTestCase {
    /// Each real store's metadata plist and model cache blob.
    static let blobs: (plists: [[UInt8]], caches: [[UInt8]]) = {
        var plists: [[UInt8]] = [], caches: [[UInt8]] = []
        guard let directory = try? Fixtures.makeTemporaryDirectory() else { return ([], []) }
        defer { try? FileManager.default.removeItem(at: directory) }
        for (number, store) in Fixtures.stores.enumerated() {
            let folder = directory.appendingPathComponent("\(number)")
            guard (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)) != nil,
                let copy = try? Fixtures.copyStore(store, into: folder), let queue = try? DatabaseQueue(path: copy.path)
            else { continue }
            try? queue.read { db in
                if let plist = try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA") {
                    plists.append(Array(plist))
                }
                if try db.tableExists("Z_MODELCACHE"),
                    let cache = try Data.fetchOne(db, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE")
                {
                    caches.append(Array(cache))
                }
            }
            try? queue.close()
        }
        return (plists, caches)
    }()

    static let plistTokens = [
        "<array>", "<dict>", "<key>k</key>", "<integer>99999999999999999999</integer>",
        "<integer>-9223372036854775808</integer>",
        "<real>1e999</real>", "<real>nan</real>", "<date>9999-99-99T99:99:99Z</date>", "<data>!!!</data>", "<string>",
        "</string>",
        "<true/>", "<dict><key>CF$UID</key><integer>4294967295</integer></dict>", "bplist00", "<plist version=\"1.0\">",
        "&#0;",
    ]

    func testMetadataDecoderSurvivesMutants() throws {
        let binary = Self.blobs.plists
        XCTAssertEqual(binary.count, try Fixtures.verification().count, "every real store's metadata is a seed")
        // The same plists as XML, which the decoder also accepts: mutants then reach the XML parser.
        let xml = try binary.prefix(4).map {
            Array(
                try PropertyListSerialization.data(
                    fromPropertyList: try PropertyListSerialization.propertyList(from: Data($0), format: nil),
                    format: .xml, options: 0))
        }
        let seeds = binary + xml, trees = seeds.map(BinaryPlist.decode)
        let report = Fuzz.run(
            "StoreMetadata", seeds: seeds, seed: 0x4D45_5441_4441_5441, tokens: Self.plistTokens,
            count: Fuzz.inputCount(default: 200),
            mutate: { mutator, a, b in
                guard let tree = trees[a], mutator.chance(0.7) else { return mutator.mutate(seeds[a], other: seeds[b]) }
                return mutator.mutatePlist(tree, other: trees[b], bytes: seeds[a], otherBytes: seeds[b])
            },
            body: { input in
                let metadata = try StoreMetadata.decode(plist: Data(input), uuid: "UUID", path: "Fuzz.sqlite")
                // What inspect and migrate read next, and the re-encoding a migration writes back.
                _ = (
                    metadata.versionHashes, metadata.versionIdentifiers, metadata.frameworkVersion,
                    metadata.versionChecksum
                )
                _ = try metadata.encodedPlist()
            }, isExpected: { ($0 as? StoreError)?.kind == .badMetadata })
        XCTAssertTrue(report.failures.isEmpty, report.failures.joined(separator: "\n"))
        XCTAssertGreaterThan(report.rejected, 0)
    }

    func testModelCacheDecoderSurvivesMutants() throws {
        let seeds = Self.blobs.caches
        XCTAssertEqual(
            seeds.count, try Fixtures.verification().filter(\.modelCacheReproduces).count,
            "every real store with a Z_MODELCACHE is a seed")
        let inflated = try seeds.map { Array(try Inflate.raw(Data($0))) }
        let trees = inflated.map(BinaryPlist.decode)
        let report = Fuzz.run(
            "Z_MODELCACHE", seeds: seeds, seed: 0x5A5F_4D4F_4445_4C43, tokens: [],
            count: Fuzz.inputCount(default: 150),
            mutate: { mutator, a, b in
                Self.mutateCache(
                    &mutator, seeds[a], inflated: inflated[a], tree: trees[a], other: (seeds[b], inflated[b], trees[b]))
            },
            body: { input in
                // The two steps of `PersistentStore.cachedModel()`.
                let model = try ArchivedModelReader.read(
                    try Inflate.raw(Data(input)), source: "Fuzz.sqlite (Z_MODELCACHE)")
                _ = VersionHash.entityHashes(of: model)
            }, isExpected: { $0 is ModelFileError || $0 is Inflate.Failure })
        XCTAssertTrue(report.failures.isEmpty, report.failures.joined(separator: "\n"))
        XCTAssertGreaterThan(report.accepted, seeds.count, "some mutants must still be models")
    }

    /// A hostile cache reaches `cachedModel()` through a real store and comes back as an error
    /// that names the store's cache.
    func testHostileCacheInARealStoreIsRefused() throws {
        let directory = try Fixtures.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try XCTUnwrap(Fixtures.stores.first { $0.lastPathComponent != "Model1.sqlite" })
        let copy = try Fixtures.copyStore(store, into: directory)
        let bomb = Self.deflate([UInt8](repeating: 0, count: 80 << 20))
        for blob in [[0x01, 0xFF, 0xFF, 0x00, 0x00, 0x41], bomb, Self.deflate(Array("bplist00".utf8))] {
            let queue = try DatabaseQueue(path: copy.path)
            try queue.write { try $0.execute(sql: "UPDATE Z_MODELCACHE SET Z_CONTENT = ?", arguments: [Data(blob)]) }
            try queue.close()
            XCTAssertThrowsError(try PersistentStore.open(at: copy.path).cachedModel()) { error in
                XCTAssert(error is ModelFileError, "\(error)")
                XCTAssert("\(error)".contains("Z_MODELCACHE"), "\(error)")
            }
        }
    }

    /// Half the mutants damage the archive inside and deflate it again; the rest damage the
    /// DEFLATE stream itself (bytes, stored blocks with lying lengths, no final block, rarely a bomb: it is slow by design).
    static func mutateCache(
        _ mutator: inout Mutator, _ input: [UInt8], inflated: [UInt8], tree: PlistNode?,
        other: (bytes: [UInt8], inflated: [UInt8], tree: PlistNode?)
    ) -> [UInt8] {
        switch mutator.int(0..<1000) {
        case 0..<500 where tree != nil:
            return deflate(mutator.mutateArchive(tree!, other: other.tree, bytes: inflated, otherBytes: other.inflated))
        case 0..<850:
            return mutator.mutate(input, other: other.bytes)
        case 850..<997:
            let length = mutator.pick([0, 1, 100, 0xFFFF]),
                claimed = mutator.pick([length, 0xFFFF, 0, length ^ 0xFFFF])
            let final: UInt8 = mutator.chance(0.5) ? 1 : 0
            mutator.log.append("stored block \(length) bytes claiming \(claimed), final \(final)")
            return [
                final, UInt8(claimed & 0xFF), UInt8(claimed >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF),
            ]
                + inflated.prefix(length)
        default:
            mutator.log.append("bomb")
            return bomb
        }
    }

    static let bomb = deflate([UInt8](repeating: 0x41, count: 80 << 20))

    /// Raw DEFLATE (no zlib header or checksum), as Core Data writes `Z_MODELCACHE`.
    static func deflate(_ bytes: [UInt8]) -> [UInt8] {
        var length = compressBound(uLong(bytes.count))
        var out = [UInt8](repeating: 0, count: Int(length))
        let status = compress2(&out, &length, bytes, uLong(bytes.count), 6)
        precondition(status == Z_OK, "zlib could not compress")
        // compress2 writes a zlib stream: a 2-byte header, the raw DEFLATE data, a 4-byte Adler-32.
        return Array(out[2..<Int(length) - 4])
    }
}
