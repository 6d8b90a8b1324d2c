# SPDX-License-Identifier: GPL-3.0-or-later
# practice: build, demo, tests and benchmarks on Debian 12.
# `make demo` and `make test` install the Debian packages they need when missing (as root, or with sudo).

export PATH := /opt/swift/usr/bin:$(PATH)
SWIFT ?= swift

BUILD_DEPS := pkg-config libstdc++-12-dev nettle-dev libqrencode-dev libwebsockets-dev libavformat-dev libavcodec-dev libavutil-dev libaubio-dev libespeak-ng-dev libsndfile1-dev libsoundtouch-dev librubberband-dev libasound2-dev libsoxr-dev libcurl4-openssl-dev libchromaprint-dev libsystemd-dev libtag1-dev libtomlplusplus-dev libsqlite3-dev libchafa-dev libstb-dev
TEST_DEPS  := $(BUILD_DEPS) binutils procps zbar-tools mpv xvfb openbox tesseract-ocr imagemagick x11-utils ffmpeg wesnoth-1.16-music chromium pulseaudio pulseaudio-utils libasound2-plugins tmux git python3 python3-jsonschema libchromaprint-tools lame vorbis-tools opus-tools sox man-db desktop-file-utils dbus-daemon dbus-bin playerctl systemd flac eyed3
BENCH_DEPS := $(TEST_DEPS) aubio-tools soundstretch rubberband-cli mpv-mpris time python3-numpy jq mpg123 valgrind alsa-utils mpd mpc

# Installs the packages in $(1) that dpkg does not know yet.
define install
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:$$missing"; \
	  sudo=""; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $$missing >/dev/null; \
	fi
endef

DEMO_OUT := demo-0.8x.flac

.PHONY: fuzz demo test check-threads check-install build release man install uninstall bench deps clean

# Where `make install` puts things (DESTDIR is prepended, for packaging and for the test).
PREFIX ?= /usr/local
BINDIR := $(PREFIX)/bin
# The program looks for its TagLib shim in ../lib/practice from its own folder.
LIBDIR := $(PREFIX)/lib
DATADIR := $(PREFIX)/share
INSTALLED := $(BINDIR)/practice $(LIBDIR)/practice/libpractice-taglib.so $(DATADIR)/man/man1/practice.1 \
  $(DATADIR)/bash-completion/completions/practice $(DATADIR)/zsh/site-functions/_practice \
  $(DATADIR)/fish/vendor_completions.d/practice.fish $(DATADIR)/applications/practice.desktop \
  $(DATADIR)/doc/practice/LICENSE $(DATADIR)/doc/practice/third-party.txt
# The demo runs the debug build: on a fresh clone of a 2-core machine it builds in half the release
# build's time (93 against 160-217 s), renders the demo in 1.9 s against 1.5 and plays it at 3 % of
# a core against 1 % (a PulseAudio null sink, 15 s); `make install` builds the release binary, and
# `make test` builds on the debug modules.
demo: build
	@echo "Playing Samples/demo.flac at 0.8x (Ctrl-C stops)..."
	@.build/debug/practice play Samples/demo.flac --rate 0.8; status=$$?; \
	if [ $$status -eq 69 ]; then \
	  echo "No audio device here, so rendering instead."; \
	  .build/debug/practice render Samples/demo.flac -o $(DEMO_OUT) --rate 0.8 --force && \
	  echo "The demo at 0.8x is in $(CURDIR)/$(DEMO_OUT)"; \
	else exit $$status; fi

# The suites are built for debugging (quick to build, assertions on); the binary they run is the
# release build that `make install` installs (its analyses on real songs take a third of the
# debug build's time): one build of each, the release one shared with `check-install`.
# Tests/run.sh then runs them: first every core kept busy (the suites that need no quiet machine in
# three processes, ThreadSanitizer, check-install), then the real-time suites alone (see the script).
test:
	$(call install,$(TEST_DEPS))
	$(SWIFT) build --build-tests
	$(MAKE) release
	MAKE=$(MAKE) Tests/run.sh

# The engine's suites under ThreadSanitizer (its own build folder, and only the modules they need:
# PRACTICE_THREADS=1 in Package.swift): any report fails the run.
# The stress test (four controllers, 2,000 commands each) is among them, and the render in pieces
# (two threads stretching, the writer taking each piece and handing its buffer back).
# The longest first (alone under the sanitizer, 2026-12-05: SplitRenderTests 29 s, EngineTests 15,
# PassCacheTests 12, LoopCycleTests 11, the rest 1-5), each in a process of its own, three at a
# time: as one process they took 71 s in CI, the two cores a third idle (a few long tests held it).
CORE_SUITES := SplitRenderTests EngineTests PassCacheTests LoopCycleTests PlayerTests SessionTests LoopTests \
	RingBufferTests ALSAOutputTests AudioThreadTests ControlTests
# The test modules those suites live in, and their helpers.
CORE_SUITE_FOLDERS := Tests/PracticeEngineTests Tests/PracticeAudioTests Tests/PracticeControlTests \
	Tests/PracticeTUITests Tests/PracticeTestSupport
# The modules those suites run (a Mutex there raced in CI: ALSAOutput's device opened ahead).
CORE_SOURCE_FOLDERS := Sources/PracticeSystem Sources/PracticeAudio Sources/PracticeEngine \
	Sources/PracticeControl Sources/PracticeTUI
check-threads:
	$(call install,$(BUILD_DEPS))
	@# The standard library's Mutex is invisible to the sanitizer (see Locked.swift): under it every
	@# access is a race it reports, or not, by chance. These suites and their helpers lock with Locked.
	@! grep -rnw 'Mutex' $(CORE_SUITE_FOLDERS) || { echo "check-threads: use Locked, not Mutex, in the suites run under ThreadSanitizer and their helpers" >&2; exit 1; }
	@! grep -rn 'Mutex<' $(CORE_SOURCE_FOLDERS) || { echo "check-threads: use Locked, not Mutex, in the modules those suites run" >&2; exit 1; }
	@# A Locked<Void> is reported racing with itself (see Lock in Locked.swift).
	@! grep -rnE 'Locked<(Void|\(\))>\(' Sources Tests || { echo "check-threads: use Lock, not Locked<Void>" >&2; exit 1; }
	PRACTICE_THREADS=1 $(SWIFT) build --build-tests --sanitize=thread --scratch-path .build-tsan
	@# Each suite's output in .build-tsan/logs; a failed one's printed whole, as is one that ran no test.
	SHARDS=3 Tests/run.sh threads $(CORE_SUITES)

# The program, built for debugging (.build/debug/practice).
build:
	$(call install,$(BUILD_DEPS))
	$(SWIFT) build --product practice
	@# TagLib's shim beside it, for the library's scans.
	$(SWIFT) build --product practice-taglib

# The parsers' libFuzzer targets (Tests/Fuzz): built with -sanitize=fuzzer,address in their own
# folder, then each run for FUZZ_SECONDS (default 60) or FUZZ_RUNS inputs; see Tests/Fuzz/run.sh.
# swiftc 6.3 does not always add the coverage libFuzzer steers by for -sanitize=fuzzer alone (the
# Swift code then runs blind: only the C parts counted), so it is asked for by name.
FUZZ_COVERAGE = -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp
fuzz:
	$(call install,$(BUILD_DEPS))
	PRACTICE_FUZZ=1 $(SWIFT) build -c release --product practice-fuzz --scratch-path .build-fuzz --sanitize=fuzzer --sanitize=address $(FUZZ_COVERAGE)
	@# The tags target reads through TagLib's shim, opened from beside the fuzzer.
	PRACTICE_FUZZ=1 $(SWIFT) build -c release --product practice-taglib --scratch-path .build-fuzz --sanitize=fuzzer --sanitize=address $(FUZZ_COVERAGE)
	Tests/Fuzz/run.sh

# The Swift runtime linked in (only the parts used, no libFoundation.so and ICU to map), and no
# table of exported symbols (nothing loads symbols from the program): 36 → 20 MB resident while
# playing (bench/memory). Linked by lld with packed relative relocations (RELR, glibc 2.36): the
# loader no longer reads 2 MB of relocation records at each start (28.6 → 26.0 MB once all of
# Foundation was linked in, by GRDB, then by Hummingbird until the remote moved onto SwiftNIO alone).
# Each function compiled into a section of its own, so that lld lays out the functions the commonest
# commands run together at the start of the code (Sources/practice/startup.order, written by
# bench/memory/startup-order.sh; names it no longer finds are skipped): the kernel maps code 64 kB
# at a time around each page run, and scattered, they kept 7 MB of the binary resident (now 4 MB).
# The functions swiftc leaves without a symbol (closures' context destructors), which no order
# file can name, are laid out together before the rest (Sources/practice/startup.ld).
# No run path of its own folder ($ORIGIN): nothing of ours is installed beside the binary, and the
# loader looked there first for each library, 24 files that are not there at each start and one
# more at each dlopen.
# The C++ runtime linked in too (libstdc++.a, found first in a folder of its own: swiftc asks for
# -lstdc++ itself), with toml++ compiled in from its headers: the loader no longer binds
# libstdc++'s 3,300 symbols and toml++'s at every start (the libraries opened with dlopen that are
# written in C++, SoundTouch, Rubber Band, TagLib's shim, bring the shared one when they open).
# A concrete generic type's metadata got through its accessor function, not by demangling its
# name at run time (the compiler's default, which saves code): by name, the runtime checks the
# type's generic requirements, each a protocol-conformance look-up over all 5,000 records the
# first time (the argument parser's Option<Double>, Flag<Bool>, …). `play` made 72 such scans,
# `library search` 41; now 56 and 31 (README, issue 34's notes).
STATIC_CXX := $(CURDIR)/.build/static-libstdc++
RELEASE_LINK := --disable-local-rpath -Xswiftc -L$(STATIC_CXX) -Xswiftc -Xfrontend -Xswiftc -function-sections \
	-Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors \
	-Xlinker --no-export-dynamic -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld -Xlinker -z -Xlinker pack-relative-relocs \
	-Xlinker --symbol-ordering-file=$(CURDIR)/Sources/practice/startup.order -Xlinker --no-warn-symbol-ordering \
	-Xlinker -T -Xlinker $(CURDIR)/Sources/practice/startup.ld
# TagLib's shim (Sources/CTagLibShim), which the program opens with dlopen when the library reads
# tags: compiled by SwiftPM with the rest, linked here without the Swift runtime (SwiftPM's own
# link of the `practice-taglib` product, which the debug build uses, adds it and the toolchain's
# run path), so that the installed shared object needs only TagLib and the C++ runtime.
TAGLIB_SHIM := .build/release/libpractice-taglib.so
release:
	$(call install,$(BUILD_DEPS))
	@archive=$$(clang++ -print-file-name=libstdc++.a); [ -f "$$archive" ] || { echo "release: no libstdc++.a (apt-get install libstdc++-12-dev)" >&2; exit 69; }; \
	mkdir -p $(STATIC_CXX) && ln -sf "$$archive" $(STATIC_CXX)/libstdc++.a
	@# SwiftPM does not count the order file among the link's inputs: a newer one relinks.
	@[ ! .build/release/practice -ot Sources/practice/startup.order ] && [ ! .build/release/practice -ot Sources/practice/startup.ld ] || rm -f .build/release/practice
	$(SWIFT) build -c release --product practice --static-swift-stdlib $(RELEASE_LINK)
	$(SWIFT) build -c release --target CTagLibShim --static-swift-stdlib $(RELEASE_LINK)
	clang++ -shared -fuse-ld=lld -Wl,--as-needed -Wl,-z,now -Wl,-z,relro -o $(TAGLIB_SHIM) .build/release/CTagLibShim.build/taglib_shim.cpp.o -ltag

# The manual page, generated from the command definitions by swift-argument-parser's
# generate-manual (its tool run on the release binary: the package plugin would build the
# binary again, without the static standard library, where `release` puts it).
man: release
	@# With the release build's flags, so that swift-argument-parser is not compiled a second time.
	$(SWIFT) build -c release --product generate-manual --static-swift-stdlib $(RELEASE_LINK)
	mkdir -p .build/man
	.build/release/generate-manual .build/release/practice --output-directory .build/man

# The release binary (it needs no Swift toolchain: the standard library is linked in), the
# manual, bash, zsh and fish completions and the desktop entry. `make uninstall` removes them.
install: release man
	install -Dm755 .build/release/practice $(DESTDIR)$(BINDIR)/practice
	install -Dm644 $(TAGLIB_SHIM) $(DESTDIR)$(LIBDIR)/practice/libpractice-taglib.so
	install -Dm644 .build/man/practice.1 $(DESTDIR)$(DATADIR)/man/man1/practice.1
	install -d $(DESTDIR)$(DATADIR)/bash-completion/completions $(DESTDIR)$(DATADIR)/zsh/site-functions $(DESTDIR)$(DATADIR)/fish/vendor_completions.d
	.build/release/practice --generate-completion-script bash > $(DESTDIR)$(DATADIR)/bash-completion/completions/practice
	.build/release/practice --generate-completion-script zsh > $(DESTDIR)$(DATADIR)/zsh/site-functions/_practice
	.build/release/practice --generate-completion-script fish > $(DESTDIR)$(DATADIR)/fish/vendor_completions.d/practice.fish
	install -Dm644 Sources/practice/practice.desktop $(DESTDIR)$(DATADIR)/applications/practice.desktop
	install -Dm644 LICENSE $(DESTDIR)$(DATADIR)/doc/practice/LICENSE
	install -Dm644 Sources/practice/third-party.txt $(DESTDIR)$(DATADIR)/doc/practice/third-party.txt

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	rmdir $(DESTDIR)$(DATADIR)/doc/practice $(DESTDIR)$(LIBDIR)/practice 2>/dev/null || true

# Installs into a scratch DESTDIR and uses what was installed there with the toolchain out of
# sight (a bare environment: no /opt/swift on PATH, no LD_LIBRARY_PATH), then uninstalls.
CHECK_ROOT := $(CURDIR)/.build/install-check
check-install:
	$(call install,$(TEST_DEPS))
	rm -rf $(CHECK_ROOT)
	$(MAKE) install DESTDIR=$(CHECK_ROOT) PREFIX=/usr
	@set -e; d=$(CHECK_ROOT)/usr; run() { env -i PATH=/usr/bin:/bin HOME=$(CHECK_ROOT) XDG_CACHE_HOME=$(CHECK_ROOT)/cache "$$@"; }; \
	if ldd $$d/bin/practice | grep -e swift -e Foundation -e 'not found'; then echo "check-install: the binary needs the toolchain" >&2; exit 1; fi; \
	if readelf -d $$d/bin/practice | grep -E 'RPATH|RUNPATH'; then echo "check-install: the binary names a run path (searched first for every library)" >&2; exit 1; fi; \
	if readelf -d $$d/bin/practice | grep -e libtag -e libstdc -e libtoml; then echo "check-install: the binary links TagLib (its shim is opened when tags are read) or a C++ runtime or toml++ (linked in)" >&2; exit 1; fi; \
	if ldd $$d/lib/practice/libpractice-taglib.so | grep -e swift -e 'not found'; then echo "check-install: the TagLib shim needs the toolchain" >&2; exit 1; fi; \
	run $$d/bin/practice --version; \
	run $$d/bin/practice render Samples/demo.flac -o $(CHECK_ROOT)/demo.wav --to 2 --rate 0.8 -q; \
	run $$d/bin/practice info $(CHECK_ROOT)/demo.wav | grep -qx 'Duration:     0:02.500 (110250 frames)'; \
	mkdir -p $(CHECK_ROOT)/music && cp Samples/demo.flac $(CHECK_ROOT)/music/; \
	run $$d/bin/practice library scan $(CHECK_ROOT)/music -q >/dev/null; \
	run $$d/bin/practice library search --no-scan demo | grep -q 'tags  practice — Practice Demo$$'; \
	bash -n $$d/share/bash-completion/completions/practice; \
	bash -c ". $$d/share/bash-completion/completions/practice && complete -p practice" | grep -q practice; \
	grep -q '^#compdef practice' $$d/share/zsh/site-functions/_practice; \
	grep -q "complete -c 'practice'" $$d/share/fish/vendor_completions.d/practice.fish; \
	MANWIDTH=100 run man -l $$d/share/man/man1/practice.1 2>/dev/null | grep -q 'practice markers align song.mp3 --from'; \
	desktop-file-validate $$d/share/applications/practice.desktop; \
	grep -q 'GNU GENERAL PUBLIC LICENSE' $$d/share/doc/practice/LICENSE; grep -q 'Version 3, 29 June 2007' $$d/share/doc/practice/LICENSE; \
	grep -q '^practice is free software: GPL-3.0-or-later' $$d/share/doc/practice/third-party.txt; \
	echo "check-install: the installed practice runs without the toolchain and reads tags through its TagLib shim; manual, completions, desktop entry and licence in place"
	$(MAKE) uninstall DESTDIR=$(CHECK_ROOT) PREFIX=/usr
	@left=$$(find $(CHECK_ROOT)/usr -type f); if [ -n "$$left" ]; then echo "check-install: uninstall left $$left" >&2; exit 1; fi
	rm -rf $(CHECK_ROOT)

bench: release
	$(call install,$(BENCH_DEPS))
	bench/render/run.sh && bench/quality/run.sh && bench/realtime/run.sh && bench/markers/run.sh && bench/align/run.sh && bench/session/run.sh && bench/memory/run.sh && bench/mpris/run.sh && bench/library/run.sh && bench/journal/run.sh && bench/beats/run.sh && bench/soak/run.sh --minutes 5

deps:
	$(call install,$(BENCH_DEPS))

clean:
	rm -rf .build .build-tsan .build-fuzz $(DEMO_OUT)
