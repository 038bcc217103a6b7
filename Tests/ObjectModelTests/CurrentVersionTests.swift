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
        XCTAssertFalse(read.currentIsGuessed, "named by the file, it is no guess")
        XCTAssertEqual(read.versions.map(\.name), ["Notes", "Notes 2", "Notes 10"])
    }

    func testABundlesOnlyVersionIsCurrentWhateverTheFileSays() throws {
        let only = try bundle("Notes", versions: ["V1"], currentVersion: plist("<dict/>"))
        let read = try ModelBundle.read(at: only)
        XCTAssertEqual(read.currentVersionName, "V1")
        XCTAssertFalse(read.currentIsGuessed)
        XCTAssertTrue(read.findings.isEmpty)
    }

    /// Nothing names the current version of a bundle of several (no file, Fearless's and
    /// DashWallet's empty dict): Chrysalis guesses the last by name, never the one named like the
    /// bundle (Xcode's first version; Fearless's first release), says so, and marks it a guess.
    func testUndecidableCurrentVersionIsAGuessSaidAsOne() throws {
        for file in [plist("<dict/>"), nil] {
            let url = try bundle("Notes", versions: ["Notes", "Notes 2", "Notes 10"], currentVersion: file)
            let read = try ModelBundle.read(at: url)
            XCTAssertEqual(read.currentVersionName, "Notes 10")
            XCTAssertTrue(read.currentIsGuessed)
            let finding = try XCTUnwrap(read.findings.first)
            XCTAssertEqual(finding.problem.verdict, .warning)
            XCTAssertTrue(
                finding.description.contains(
                    #"the current version is a guess: "#
                        + (file == nil ? "the bundle has no .xccurrentversion" : ".xccurrentversion names no version")
                        + #" (versions: "Notes", "Notes 2", "Notes 10"); Chrysalis takes "Notes 10", the last by name"#),
                finding.description)
            XCTAssertTrue(finding.description.contains("--to"), finding.description)
        }
    }

    func testCurrentVersionNamingAMissingVersion() throws {
        let url = try bundle(
            "Notes", versions: ["Notes", "Notes 2"],
            currentVersion: plist("<dict><key>_XCCurrentVersionName</key><string>Notes 3.xcdatamodel</string></dict>"))
        let read = try ModelBundle.read(at: url)
        XCTAssertEqual(read.currentVersionName, "Notes 2")
        XCTAssertTrue(read.currentIsGuessed)
        let text = try XCTUnwrap(read.findings.first).description
        XCTAssertTrue(
            text.contains(
                #".xccurrentversion names "Notes 3", which is not in the bundle (versions: "Notes", "Notes 2")"#),
            text)
    }

    /// The app's order of versions, in `Name.xcdatamodeld.order` beside the bundle: versions in
    /// that order, one it leaves out after them with a finding, and, where no file names the current
    /// version, the last it lists current (Fearless: `UserDataModel` → `MultiassetUserDataModel` → `…_v2`).
    func testAnOrderFileBesideTheBundleOrdersItsVersions() throws {
        let url = try bundle(
            "User", versions: ["UserModel", "MultiUserModel", "MultiUserModel_v2", "Spare"],
            currentVersion: plist("<dict/>"))
        XCTAssertEqual(try ModelBundle.read(at: url).currentVersionName, "UserModel", "by name, the last")
        try Data(
            "# the app's UserStorageVersion\nUserModel\n\nMultiUserModel.xcdatamodel\nMultiUserModel_v2  # newest\n"
                .utf8
        )
        .write(to: VersionOrder.file(beside: url))
        let read = try ModelBundle.read(at: url)
        XCTAssertEqual(read.versions.map(\.name), ["UserModel", "MultiUserModel", "MultiUserModel_v2", "Spare"])
        XCTAssertEqual(read.versionOrder, .stated(VersionOrder.file(beside: url).path))
        XCTAssertEqual(read.currentVersionName, "MultiUserModel_v2")
        XCTAssertTrue(read.findings.contains { $0.description.contains("leaves out Spare") }, "\(read.findings)")
        XCTAssertFalse(read.currentIsGuessed, "the order states it")
        XCTAssertTrue(
            read.findings.contains { $0.description.contains("ends with \"MultiUserModel_v2\", which is current") })
    }

    func testAnOrderFileNamingAnUnknownOrRepeatedVersionIsRefusedAtItsLine() throws {
        let url = try bundle("User", versions: ["A", "B"], currentVersion: nil)
        for (text, problem) in [
            ("A\nC\n", #":2: names "C", which is not a version"#), ("A\nB\nA\n", #":3: names "A" twice"#),
        ] {
            try Data(text.utf8).write(to: VersionOrder.file(beside: url))
            XCTAssertThrowsError(try ModelBundle.read(at: url)) { error in
                XCTAssertTrue("\(error)".contains(problem), "\(error)")
            }
        }
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
