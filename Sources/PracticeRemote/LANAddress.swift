// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc

/// This machine's addresses on the local network, for the remote to listen on.
enum LANAddress {
    /// The first IPv4 address of an interface that is up and not the loopback, private ranges
    /// (10/8, 172.16/12, 192.168/16) first; nil when there is none.
    static func first() -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let head = list else { return nil }
        defer { freeifaddrs(list) }
        var found: [(String, Bool)] = []
        var p: UnsafeMutablePointer<ifaddrs>? = head
        while let a = p {
            defer { p = a.pointee.ifa_next }
            let flags = Int32(a.pointee.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0,
                  let addr = a.pointee.ifa_addr, addr.pointee.sa_family == sa_family_t(AF_INET) else { continue }
            let v4 = addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr.bigEndian }
            let text = "\(v4 >> 24).\(v4 >> 16 & 255).\(v4 >> 8 & 255).\(v4 & 255)"
            let isPrivate = v4 >> 24 == 10 || v4 >> 20 == 0xAC1 || v4 >> 16 == 0xC0A8
            found.append((text, isPrivate))
        }
        return (found.first { $0.1 } ?? found.first)?.0
    }

    /// Whether `host` is a numeric IPv4 or IPv6 address (never a name to look up).
    static func isNumeric(_ host: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
