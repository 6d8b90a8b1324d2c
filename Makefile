# practice: build, demo, tests and benchmarks on Debian 12.
# `make demo` and `make test` install the Debian packages they need when missing (as root, or with sudo).

export PATH := /opt/swift/usr/bin:$(PATH)
SWIFT ?= swift

BUILD_DEPS := pkg-config libsndfile1-dev libsoundtouch-dev libasound2-dev libsoxr-dev libcurl4-openssl-dev libchromaprint-dev
TEST_DEPS  := $(BUILD_DEPS) pulseaudio pulseaudio-utils libasound2-plugins tmux git python3 python3-jsonschema libchromaprint-tools lame vorbis-tools opus-tools sox
BENCH_DEPS := $(TEST_DEPS) soundstretch mpv time python3-numpy jq mpg123 valgrind alsa-utils

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

.PHONY: demo test check-threads build release bench deps clean
demo: release
	@echo "Playing Samples/demo.flac at 0.8x (Ctrl-C stops)..."
	@.build/release/practice play Samples/demo.flac --rate 0.8; status=$$?; \
	if [ $$status -eq 69 ]; then \
	  echo "No audio device here, so rendering instead."; \
	  .build/release/practice render Samples/demo.flac -o $(DEMO_OUT) --rate 0.8 --force && \
	  echo "The demo at 0.8x is in $(CURDIR)/$(DEMO_OUT)"; \
	else exit $$status; fi

test:
	$(call install,$(TEST_DEPS))
	$(SWIFT) build --build-tests
	SWIFT_BACKTRACE=interactive=no $(SWIFT) test --skip '\.RealTimeTests/' --skip '\.TerminalTests/' --skip '\.EngineTests/'
	@# The engine's stress test and the real-time suites run alone, one after the other: the first wants
	@# the task pool to itself, the others measure milliseconds against a live sound server.
	SWIFT_BACKTRACE=interactive=no $(SWIFT) test --skip-build --filter '\.EngineTests/'
	SWIFT_BACKTRACE=interactive=no $(SWIFT) test --skip-build --filter '\.RealTimeTests/'
	SWIFT_BACKTRACE=interactive=no $(SWIFT) test --skip-build --filter '\.TerminalTests/'
	$(MAKE) check-threads

# The engine's suites under ThreadSanitizer (its own build folder): any report fails the run.
# The stress test (four controllers, 2,000 commands each) is among them.
CORE_SUITES := \.(EngineTests|PlayerTests|LoopTests|RingBufferTests|ALSAOutputTests|ControlTests|SessionTests)/
check-threads:
	$(call install,$(BUILD_DEPS))
	SWIFT_BACKTRACE=interactive=no TSAN_OPTIONS=halt_on_error=1 $(SWIFT) test --sanitize=thread --scratch-path .build-tsan --filter '$(CORE_SUITES)'

build:
	$(call install,$(BUILD_DEPS))
	$(SWIFT) build

# The Swift runtime linked in (only the parts used, no libFoundation.so and ICU to map), and no
# table of exported symbols (nothing loads symbols from the program): 36 → 20 MB resident while
# playing (bench/memory).
release:
	$(call install,$(BUILD_DEPS))
	$(SWIFT) build -c release --product practice --static-swift-stdlib -Xlinker --no-export-dynamic

bench: release
	$(call install,$(BENCH_DEPS))
	bench/render/run.sh && bench/quality/run.sh && bench/realtime/run.sh && bench/markers/run.sh && bench/align/run.sh && bench/session/run.sh && bench/memory/run.sh

deps:
	$(call install,$(BENCH_DEPS))

clean:
	rm -rf .build .build-tsan $(DEMO_OUT)
