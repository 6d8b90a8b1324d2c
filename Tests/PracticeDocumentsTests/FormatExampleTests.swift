// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import PracticeTestSupport
@testable import PracticeDocuments
import PracticeEngine

/// Every example sidecar in `Formats/examples/` (and the demo track's) validates against the JSON
/// Schema in `Formats/` (checked by Python's `jsonschema`, Draft 2020-12) and is read by the store;
/// those written by practice come back byte for byte.
@Suite struct FormatExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let schema = root.appendingPathComponent("Formats/practice-sidecar-1.schema.json").path
    static let examples: [String] = {
        let dir = root.appendingPathComponent("Formats/examples").path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted().map { "\(dir)/\($0)" } + [root.appendingPathComponent("Samples/demo.flac.practice.json").path]
    }()

    /// Runs Debian's python3-jsonschema on `document`; returns the validator's complaints ("" = valid).
    static func validate(_ document: String) throws -> String {
        let script = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            jsonschema.Draft202012Validator.check_schema(schema)
            errors = sorted(e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(json.load(open(sys.argv[2]))))
            print("\\n".join(errors))
            """
        let r = try run("/usr/bin/python3", ["-c", script, schema, document])
        try #require(r.status == 0, "python3-jsonschema failed: \(r.stderr)")
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func thereAreExamples() { #expect(Self.examples.count >= 3) }

    @Test(arguments: examples)
    func validatesAndDecodes(path: String) throws {
        #expect(try Self.validate(path) == "")
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let sidecar = try SidecarStore.read(path)
        #expect(!sidecar.liveMarkers.isEmpty)
        if !path.hasSuffix("hand-written.practice.json") {
            #expect(sidecar.encoded() == data, "\(path) is not in the form practice writes")
        }
    }

    /// The hand-written example reads as what a person meant: every marker with its time, note and
    /// colour, the loop from a marker to a time, new ids, and no edit time (the oldest edit).
    @Test func theHandWrittenExampleReadsAsMeant() throws {
        let s = try SidecarStore.read(Self.root.appendingPathComponent("Formats/examples/hand-written.practice.json").path)
        #expect(s.liveMarkers.map { "\($0.name)|\($0.time)|\($0.note ?? "")|\($0.color ?? "")" }
                == ["Count-in|0.0||", "Shine turn|72.25|spot the left wall|", "Drop|90.5||#cc3300"])
        let shine = try #require(s.liveMarkers.first { $0.name == "Shine turn" })
        #expect(s.liveLoops.map { "\($0.name)|\(s.time(of: $0.start) ?? -1)|\(s.time(of: $0.end) ?? -1)" } == ["turn drill|72.25|80.0"])
        #expect(s.liveLoops.first?.start == .marker(shine.id), "the loop starts at the marker, and moves with it")
        #expect(s.beats == BeatGrid(times: [0.5, 1.1, 1.7, 2.3, 2.9], tempo: 100, one: 0.5, meter: 8, source: "", updatedAt: "1970-01-01T00:00:00.000Z"),
                "a beat grid written by hand: \(String(describing: s.beats))")
        #expect(Set(s.liveMarkers.map(\.id)).count == 3 && s.liveMarkers.allSatisfy { !$0.id.isEmpty })
    }

    /// The schema does reject what it should, so the validations above mean something.
    @Test func theSchemaRejectsABadDocument() throws {
        let dir = ScratchDirectory("schema")
        let bad = dir.file("bad.json")
        try #"{"format": "practice-markers", "version": 1, "markers": [{"name": "x", "time": -1}]}"#.write(toFile: bad, atomically: true, encoding: .utf8)
        #expect(try Self.validate(bad) != "")
        try #"{"format": "practice-markers", "version": 1, "beats": {"tempo": 500, "one": 0, "meter": 8}}"#.write(toFile: bad, atomically: true, encoding: .utf8)
        #expect(try Self.validate(bad) != "", "a tempo of 500")
    }
}
