// swift-tools-version:6.0
// SPDX-License-Identifier: GPL-3.0-or-later
import PackageDescription

let package = Package(
    name: "practice",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "practice", targets: ["practice"]),
        // TagLib's shim as a shared object of its own (libpractice-taglib.so, beside the program in
        // the build folder, in lib/practice/ once installed), opened when the library reads tags.
        .library(name: "practice-taglib", type: .dynamic, targets: ["CTagLibShim"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // C libraries from Debian's -dev packages; each is a module map plus shim.h. Most are headers
        // only: the library is opened with dlopen when first used (see each module map), so that a
        // process maps only what it uses (PracticeSystem's DynamicLibrary).
        .systemLibrary(name: "CSndFile", providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CSoundTouch", providers: [.apt(["libsoundtouch-dev"])]),
        .systemLibrary(name: "CRubberBand", providers: [.apt(["librubberband-dev"])]),
        .systemLibrary(name: "CALSA", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CSoxr", providers: [.apt(["libsoxr-dev"])]),
        // Headers only: libcurl itself is opened with dlopen when a song is fetched (see its module map).
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CChromaprint", providers: [.apt(["libchromaprint-dev"])]),
        // Headers only: libsystemd's sd-bus is opened with dlopen when a player starts (MPRIS, notifications).
        .systemLibrary(name: "CSystemdBus", providers: [.apt(["libsystemd-dev"])]),
        // Headers only: libchafa (pictures in the terminal: kitty, sixels or Unicode blocks) and stb_image
        // (decoding them) are opened with dlopen when the library screen draws its first cover.
        .systemLibrary(name: "CAubio", providers: [.apt(["libaubio-dev"])]),
        .systemLibrary(name: "CFFmpeg", providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev"])]),
        .systemLibrary(name: "CEspeak", providers: [.apt(["libespeak-ng-dev"])]),
        // Headers only: SHA-256 (nettle-dev) for checksums of files and decoded audio, covers' and cached
        // songs' names, and SQLite 3 (libsqlite3-dev) for the practice journal and the library's index;
        // each opened with dlopen at its first use (see their module maps).
        .systemLibrary(name: "CNettle", providers: [.apt(["nettle-dev"])]),
        .systemLibrary(name: "CChafa", providers: [.apt(["libchafa-dev", "libstb-dev"])]),
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // QR codes (libqrencode-dev): the web remote's pairing address on the screen.
        .systemLibrary(name: "CQRencode", providers: [.apt(["libqrencode-dev"])]),
        // Headers only: libwebsockets (libwebsockets-dev), the web remote's HTTP and WebSocket
        // server, opened with dlopen when the remote starts.
        .systemLibrary(name: "CWebSockets", providers: [.apt(["libwebsockets-dev"])]),

        // TagLib (libtag1-dev) through a small C++ file with a C interface (its own C API has no
        // pictures), built as libpractice-taglib.so; CTagLib, headers only, opens it with dlopen when
        // the library first reads tags, so that no other command loads TagLib.
        .target(name: "CTagLibShim", linkerSettings: [.linkedLibrary("tag")]),
        .systemLibrary(name: "CTagLib"),
        // toml++ (libtomlplusplus-dev) through a small C++ file with a C interface, compiled in from its
        // headers (no shared library to bind at each start): the configuration file, turned into JSON.
        .target(name: "CToml", cxxSettings: [.define("TOML_HEADER_ONLY", to: "1")]),

        // Locks, control threads, spawning programs and wake pipes: Glibc only, for every module above.
        .target(name: "PracticeSystem"),
        // Decoding (libsndfile, FFmpeg), stretching (SoundTouch), resampling (soxr), output (ALSA) and
        // the real-time thread; spoken count-in words (espeak-ng): audio's C libraries only.
        // Optimized even in a debug build: its sample conversions are vector code, a hundred times
        // slower unoptimized, and the suites decode, render and play minutes of audio in-process.
        .target(name: "PracticeAudio", dependencies: ["PracticeSystem", "CSndFile", "CSoundTouch", "CRubberBand", "CALSA", "CSoxr", "CEspeak", "CFFmpeg"],
                swiftSettings: [.unsafeFlags(["-O"])]),
        // Sidecars, JSON, interchange formats, lyrics, resume points, errors, times and the
        // configuration file (toml++): no audio, no network.
        .target(name: "PracticeDocuments", dependencies: ["PracticeSystem", "CToml", "CNettle"], linkerSettings: [.linkedLibrary(":libnettle.a")]),
        // The hub: Player, its decoder thread and pipeline, the timeline, render, tracks and places;
        // the analyses on the track's audio (fingerprints with Chromaprint, beats with aubio).
        .target(name: "PracticeEngine", dependencies: [
            "PracticeSystem", "PracticeAudio", "PracticeDocuments", "CChromaprint", "CAubio",
        ]),
        // The control protocol (one codec for commands and state), the socket, its client, the stdin
        // controller, following lyrics, and the play session: a player with its journal, saved place and controllers.
        .target(name: "PracticeControl", dependencies: ["PracticeSystem", "PracticeEngine", "PracticeDocuments", "PracticeJournal"]),
        // FLO song documents, fetching (libcurl, opened when a song is fetched) and the song cache.
        .target(name: "PracticeSongs", dependencies: [
            "PracticeSystem", "PracticeEngine", "PracticeDocuments", "CCurl",
        ]),
        // The practice journal: every play session recorded from the player's events into SQLite, reports,
        // notes; SQLite (libsqlite3) wrapped once, for the journal and the library's index.
        .target(name: "PracticeJournal", dependencies: ["PracticeSystem", "PracticeEngine", "PracticeDocuments", "CSQLite"],
                linkerSettings: [.linkedLibrary(":libsqlite3.a")]),
        // The library: the music folders scanned into an SQLite index (FTS5), their tags and
        // covers (TagLib), covers drawn in the terminal (chafa), search, today's pick.
        .target(name: "PracticeLibrary", dependencies: [
            "PracticeSystem", "PracticeAudio", "PracticeEngine", "PracticeDocuments", "PracticeJournal", "CTagLib", "CChafa",
        ]),
        // The desktop through sd-bus: MPRIS, notifications; the reminder's systemd units.
        .target(name: "PracticeDesktop", dependencies: ["PracticeSystem", "PracticeEngine", "PracticeDocuments", "PracticeControl", "CSystemdBus"]),
        // The web remote: a page for phones on the local network, paired by a QR code (libqrencode),
        // live over a WebSocket (libwebsockets) on the control protocol.
        .target(name: "PracticeRemote", dependencies: [
            "PracticeSystem", "PracticeEngine", "PracticeDocuments", "PracticeControl", "CQRencode", "CWebSockets",
        ]),
        // The dancer's video: the mpv program's window following the player (over its JSON IPC).
        .target(name: "PracticeVideo", dependencies: ["PracticeSystem", "PracticeEngine", "PracticeDocuments", "PracticeControl"]),
        // The practice and library screens: views of the player's state and the index, keys turned into commands.
        .target(name: "PracticeTUI", dependencies: ["PracticeSystem", "PracticeEngine", "PracticeDocuments", "PracticeControl", "PracticeLibrary"]),
        // What each command does once its arguments are parsed; `play` wires the player with every
        // controller and view (screen, socket, desktop, phone remote, video window).
        .target(name: "PracticeCommands", dependencies: [
            "PracticeTUI", "PracticeEngine", "PracticeDocuments", "PracticeControl", "PracticeSongs", "PracticeAudio", "PracticeLibrary", "PracticeJournal",
            "PracticeDesktop", "PracticeSystem", "PracticeRemote", "PracticeVideo",
        ]),
        .executableTarget(name: "practice", dependencies: [
            "PracticeCommands", "PracticeTUI", "PracticeEngine", "PracticeDocuments", "PracticeControl", "PracticeSongs", "PracticeAudio", "PracticeLibrary", "PracticeJournal",
            "PracticeDesktop", "PracticeSystem", "PracticeRemote", "PracticeVideo",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], exclude: ["practice.desktop", "third-party.txt",   // installed by `make install`
                     "startup.order", "startup.ld"]),           // the layout of its code (`make release`)

        // Optimized even in a debug build: its signal generators and analyses (cross-correlations,
        // sine fits over minutes of audio) are most of the suites' own CPU.
        .target(name: "PracticeTestSupport", dependencies: ["PracticeSystem", "PracticeAudio", "PracticeEngine", "PracticeDesktop"], path: "Tests/PracticeTestSupport",
                swiftSettings: [.unsafeFlags(["-O"])]),
        // bench/beats: writes the generated beat corpus and its held-out tracks as WAV files.
        .executableTarget(name: "beat-corpus", dependencies: ["PracticeTestSupport"], path: "Tests/BeatCorpusTool"),
        // Counts one thread's calls to malloc and free (test-only: replaces them in the test binary).
        .target(name: "CAllocationCounter", path: "Tests/CAllocationCounter"),
        .testTarget(name: "PracticeAudioTests", dependencies: ["PracticeSystem", "PracticeAudio", "PracticeTestSupport"]),
        .testTarget(name: "PracticeDocumentsTests", dependencies: ["PracticeDocuments", "PracticeEngine", "PracticeTestSupport"]),
        .testTarget(name: "PracticeEngineTests", dependencies: ["PracticeSystem", "PracticeEngine", "PracticeDocuments", "PracticeControl",
                                                               "PracticeTestSupport", "CAllocationCounter"]),
        .testTarget(name: "PracticeControlTests", dependencies: ["PracticeControl", "PracticeEngine", "PracticeDocuments", "PracticeAudio", "PracticeSystem", "PracticeTestSupport"]),
        .testTarget(name: "PracticeSongsTests", dependencies: ["PracticeSongs", "PracticeEngine", "PracticeDocuments", "PracticeTestSupport"]),
        .testTarget(name: "PracticeTUITests", dependencies: ["PracticeTUI", "PracticeEngine", "PracticeDocuments", "PracticeControl", "PracticeLibrary", "PracticeAudio", "PracticeTestSupport"], exclude: ["Snapshots"]),
        .testTarget(name: "PracticeJournalTests", dependencies: ["PracticeJournal", "PracticeEngine", "PracticeAudio", "PracticeDocuments", "PracticeTestSupport"]),
        .testTarget(name: "PracticeCommandsTests", dependencies: ["PracticeCommands", "PracticeEngine", "PracticeTestSupport"]),
        .testTarget(name: "PracticeRemoteTests", dependencies: ["PracticeRemote", "PracticeDocuments", "PracticeTestSupport"]),
        .testTarget(name: "PracticeLibraryTests", dependencies: ["PracticeLibrary", "PracticeAudio", "PracticeDocuments", "PracticeTestSupport"],
                    exclude: ["make-library.py"]),
        // The parsers' libFuzzer targets (Tests/Fuzz): the functions here, their seeds and every crash
        // found are replayed by PracticeFuzzTests; `make fuzz` builds the fuzzer itself (below).
        .target(name: "PracticeFuzzTargets", dependencies: ["PracticeLibrary", "PracticeAudio", "PracticeControl", "PracticeDocuments", "PracticeEngine", "PracticeSongs", "PracticeTUI"],
                path: "Tests/Fuzz/Targets"),
        .testTarget(name: "PracticeFuzzTests", dependencies: ["PracticeFuzzTargets", "PracticeTestSupport"]),
        .testTarget(name: "PracticeEndToEndTests", dependencies: ["practice", "PracticeTestSupport"], exclude: ["journal-week.py", "journal-year.py", "remote-client.py", "video-frames.py"]),
    ],
    swiftLanguageModes: [.v6]
)

// `make fuzz` only (PRACTICE_FUZZ=1, its own build folder, -sanitize=fuzzer,address): the executable
// whose main is libFuzzer's, which no other build could link.
if Context.environment["PRACTICE_FUZZ"] == "1" {
    package.products.append(.executable(name: "practice-fuzz", targets: ["practice-fuzz"]))
    package.targets.append(.executableTarget(name: "practice-fuzz", dependencies: ["PracticeFuzzTargets"], path: "Tests/Fuzz/Main"))
}

// `make check-threads` only (PRACTICE_THREADS=1, its own build folder, -sanitize=thread): the four
// test modules whose suites it runs and what they need, not the command line and its commands, the songs, the
// fuzz targets and the end-to-end tests, which it would build under the sanitizer for nothing.
if Context.environment["PRACTICE_THREADS"] == "1" {
    let kept: Set<String> = ["PracticeAudioTests", "PracticeEngineTests", "PracticeControlTests", "PracticeTUITests"]
    let unused: Set<String> = ["practice", "PracticeCommands", "beat-corpus", "PracticeSongs", "PracticeFuzzTargets", "PracticeRemote", "PracticeVideo"]
    package.targets.removeAll { $0.type == .test ? !kept.contains($0.name) : unused.contains($0.name) }
    package.products.removeAll()
}

// Members only from modules a file imports itself: a dependency that imported all of Foundation
// (GRDB, then Hummingbird did) would otherwise let Foundation's String extensions (`contains`,
// `range(of:)`) quietly win over the standard library's and link Foundation, CoreFoundation and
// ICU's tables into the binary.
for target in package.targets where target.type == .regular && target.name.hasPrefix("Practice") && target.name != "PracticeAudio"
    || target.type == .executable {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility")]
}

// An expression the type checker takes half a second over is named in the build's warnings: a few
// such (a literal's type inferred through a chain of closures) once cost 40 s of each debug build.
for target in package.targets where target.name.hasPrefix("Practice") {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-Xfrontend", "-warn-long-expression-type-checking=500"])]
}
