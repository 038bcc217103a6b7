import Foundation
import ObjectModel
import TestSupport
import XCTest

/// Version hashes recomputed from real Xcode models must equal what real Core Data wrote.
final class VersionHashFixtureTests: FixtureTestCase {
    func testEveryVerifiedStoreHasTheHashesItsModelComputes() throws {
        let pairs = try Fixtures.verifiedPairs()
        XCTAssertGreaterThanOrEqual(pairs.count, 15, "VERIFICATION.txt pairs fewer stores than expected")
        var compared = 0
        for (store, contents) in pairs {
            let model = try ModelXMLReader.read(contentsOf: contents)
            let metadata = try Fixtures.storeMetadata(store)
            let stored = try XCTUnwrap(metadata["NSStoreModelVersionHashes"] as? [String: Data], store.path)
            let computed = VersionHash.entityHashes(of: model)
            XCTAssertEqual(Set(computed.keys), Set(stored.keys), "entities of \(store.lastPathComponent)")
            for (entity, hash) in stored {
                XCTAssertEqual(
                    computed[entity]?.base64EncodedString(), hash.base64EncodedString(),
                    "\(entity) in \(store.lastPathComponent) vs \(contents.path)")
                compared += 1
            }
            if let digest = metadata["NSStoreModelVersionHashesDigest"] as? String {
                XCTAssertEqual(
                    VersionHash.versionHashesDigest(of: model), digest, "digest of \(store.lastPathComponent)")
            }
            if let checksum = metadata["NSStoreModelVersionChecksumKey"] as? String {
                XCTAssertEqual(
                    VersionHash.versionChecksum(of: model), checksum, "checksum of \(store.lastPathComponent)")
            }
            // Identifiers are not hashed: a store may record one its model no longer has (the
            // Moody store records "1"; the model today has none), and it still matches. They are
            // not compared here; RealStoreTests checks that the version shown is the one recorded.
        }
        XCTAssertGreaterThan(compared, 20)
        print("compared \(compared) entity hashes over \(pairs.count) stores")
    }

    func testEveryVersionInfoPlistMatchesItsSourceBundle() throws {
        // Every compiled bundle the fixtures hold, however many: each has its VersionInfo.plist.
        let compiled = Fixtures.files { $0.pathExtension == "momd" }
        XCTAssertFalse(compiled.isEmpty)
        XCTAssertEqual(
            compiled.count,
            Fixtures.files { $0.lastPathComponent == "VersionInfo.plist" && $0.path.contains(".momd/") }.count)
        for momd in compiled {
            let info = try CompiledModelBundle.read(at: momd)
            let source = momd.deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent(info.name + ".xcdatamodeld")
            let bundle = try ModelBundle.read(at: source)
            XCTAssertEqual(Set(info.versionNames), Set(bundle.versions.map(\.name)), momd.path)
            XCTAssertEqual(info.currentVersionName, bundle.currentVersionName, momd.path)
            for version in bundle.versions {
                let computed = VersionHash.entityHashes(of: version.model)
                XCTAssertEqual(
                    computed, info.versionHashes[version.name], "\(version.name) in \(momd.lastPathComponent)")
                if let checksum = info.versionChecksums[version.name] {
                    XCTAssertEqual(VersionHash.versionChecksum(of: version.model), checksum, version.name)
                }
                // The compiled .mom decodes to a model with the very same hashes.
                let compiledModel = try XCTUnwrap(info.models[version.name], "\(version.name).mom")
                XCTAssertEqual(
                    VersionHash.entityHashes(of: compiledModel), info.versionHashes[version.name], "\(version.name).mom"
                )
                XCTAssertEqual(Set(compiledModel.entities.map(\.name)), Set(version.model.entities.map(\.name)))
            }
        }
    }
}
