import Foundation
import ObjectModel
import TestSupport
import XCTest

/// Which version of a bundle is current, including the edge cases real bundles have.
final class CurrentVersionTests: XCTestCase {
    private let contents = #"""
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="">
            <entity name="Note"><attribute name="text" optional="YES" attributeType="String"/></entity>
        </model>
        """#

    private func bundle(_ name: String, versions: [String], currentVersion: String?) throws -> URL {
        let url = try Fixtures.temporaryDirectory(for: self).appendingPathComponent("\(name).xcdatamodeld")
        for version in versions {
            let folder = url.appendingPathComponent("\(version).xcdatamodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: folder.appendingPathComponent("contents"))
        }
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        if let currentVersion {
            try Data(currentVersion.utf8).write(to: url.appendingPathComponent(".xccurrentversion"))
        }
        return url
    }

    private func plist(_ body: String) -> String {
        #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0">"# + body + "</plist>"
    }

    func testNamedCurrentVersion() throws {
        let url = try bundle(
            "Notes", versions: ["Notes", "Notes 2", "Notes 10"],
            currentVersion: plist("<dict><key>_XCCurrentVersionName</key><string>Notes 2.xcdatamodel</string></dict>"))
        let read = try ModelBundle.read(at: url)
        XCTAssertEqual(read.currentVersionName, "Notes 2")
        XCTAssertEqual(read.versions.map(\.name), ["Notes", "Notes 2", "Notes 10"])
    }

    func testEmptyDictOrMissingFileFallsBack() throws {
        let only = try bundle("Notes", versions: ["V1"], currentVersion: plist("<dict/>"))
        XCTAssertEqual(try ModelBundle.read(at: only).currentVersionName, "V1")
        let namedLikeBundle = try bundle("Notes", versions: ["Notes", "Notes 2"], currentVersion: nil)
        XCTAssertEqual(try ModelBundle.read(at: namedLikeBundle).currentVersionName, "Notes")
    }

    /// Xcode compiles a bundle that names no current version (DashWallet shipped one): it reads,
    /// the newest version by name is current, and the bundle's finding says so.
    func testUndecidableCurrentVersionTakesTheNewestAndSaysSo() throws {
        let url = try bundle("Notes", versions: ["A", "B 2", "B 10"], currentVersion: plist("<dict/>"))
        let read = try ModelBundle.read(at: url)
        XCTAssertEqual(read.currentVersionName, "B 10")
        let finding = try XCTUnwrap(read.findings.first)
        XCTAssertEqual(finding.problem.verdict, .warning)
        XCTAssertTrue(
            finding.description.contains(#"(versions: "A", "B 2", "B 10"); Chrysalis takes "B 10" as current"#),
            finding.description)
        XCTAssertTrue(finding.description.contains("--to"), finding.description)
    }

    func testCurrentVersionNamingAMissingVersion() throws {
        let url = try bundle(
            "Notes", versions: ["Notes", "Notes 2"],
            currentVersion: plist("<dict><key>_XCCurrentVersionName</key><string>Notes 3.xcdatamodel</string></dict>"))
        let read = try ModelBundle.read(at: url)
        XCTAssertEqual(
            read.currentVersionName, "Notes", "the version named like the bundle, as when the plist names none")
        let text = try XCTUnwrap(read.findings.first).description
        XCTAssertTrue(
            text.contains(
                #"names current version "Notes 3", which is not in the bundle (versions: "Notes", "Notes 2")"#), text)
        XCTAssertTrue(text.contains(".xccurrentversion"), text)
    }

    func testBundleWithNoVersions() throws {
        let url = try bundle("Empty", versions: [], currentVersion: nil)
        XCTAssertThrowsError(try ModelBundle.read(at: url)) { error in
            XCTAssertTrue("\(error)".contains("holds no model versions"), "\(error)")
        }
        XCTAssertThrowsError(try ModelBundle.read(at: url.appendingPathComponent("nope.xcdatamodeld"))) { error in
            XCTAssertTrue("\(error)".contains("is not a model bundle directory"), "\(error)")
        }
    }

    func testVersionFileErrorNamesTheVersionFile() throws {
        let url = try bundle("Notes", versions: ["Notes"], currentVersion: nil)
        try Data("<model><entity name=\"A\"><attribute name=\"x\" attributeType=\"Strin\"/></entity></model>".utf8)
            .write(to: url.appendingPathComponent("Notes.xcdatamodel/contents"))
        XCTAssertThrowsError(try ModelBundle.read(at: url)) { error in
            XCTAssertTrue("\(error)".contains("Notes.xcdatamodel/contents:1: <attribute name=\"x\">"), "\(error)")
        }
    }
}
