// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "practice",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "practice", targets: ["practice"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        // C libraries from Debian's -dev packages; each is a module map plus shim.h.
        .systemLibrary(name: "CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CSoundTouch", providers: [.apt(["libsoundtouch-dev"])]),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CSoxr", pkgConfig: "soxr", providers: [.apt(["libsoxr-dev"])]),

        // The only module that imports C.
        .target(name: "PracticeAudio", dependencies: ["CSndFile", "CSoundTouch", "CALSA", "CSoxr"]),
        // The hub: Player, decoder loop, render, time parsing, sidecars. No C.
        .target(name: "PracticeCore", dependencies: [
            "PracticeAudio",
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // Terminal output: status line.
        .target(name: "PracticeTUI", dependencies: ["PracticeCore"]),
        .executableTarget(name: "practice", dependencies: [
            "PracticeTUI", "PracticeCore",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        .target(name: "PracticeTestSupport", dependencies: ["PracticeAudio"], path: "Tests/PracticeTestSupport"),
        // Counts one thread's calls to malloc and free (test-only: replaces them in the test binary).
        .target(name: "CAllocationCounter", path: "Tests/CAllocationCounter"),
        .testTarget(name: "PracticeAudioTests", dependencies: ["PracticeAudio", "PracticeTestSupport"]),
        .testTarget(name: "PracticeCoreTests", dependencies: ["PracticeCore", "PracticeTestSupport", "CAllocationCounter"]),
        .testTarget(name: "PracticeTUITests", dependencies: ["PracticeTUI", "PracticeTestSupport"]),
        .testTarget(name: "PracticeEndToEndTests", dependencies: ["practice", "PracticeTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
