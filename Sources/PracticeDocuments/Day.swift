// SPDX-License-Identifier: GPL-3.0-or-later
import FoundationEssentials
import Glibc

/// A calendar day in the local time zone (`2026-11-25`): what a journal counts by, what "today"
/// and "this week" mean to the person at the machine.
public struct Day: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    public init(year: Int, month: Int, day: Int) { self.year = year; self.month = month; self.day = day }

    /// The local day `date` falls on.
    public init(_ date: Date) {
        var t = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        localtime_r(&t, &parts)
        self.init(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday))
    }

    public static var today: Day { Day(Date()) }

    /// `2026-11-25`; nil for anything else, or a day that does not exist (`2026-02-30`).
    public init?(_ text: some StringProtocol) {
        let b = Array(text.utf8)
        guard b.count == 10, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-") else { return nil }
        func number(_ r: Range<Int>) -> Int? {
            var n = 0
            for k in r { guard (48...57).contains(b[k]) else { return nil }; n = n * 10 + Int(b[k] - 48) }
            return n
        }
        guard let y = number(0..<4), let m = number(5..<7), let d = number(8..<10), (1...12).contains(m), d >= 1,
              d <= Self.length(ofMonth: m, in: y) else { return nil }
        self.init(year: y, month: m, day: d)
    }

    /// `2026-12-04`: as `%04d-%02d-%02d` writes it, without C's formatter (whose first call looks
    /// up the conformances of its arguments: 0.4 M instructions of a player's launch).
    public var description: String {
        String(unsafeUninitializedCapacity: 72) { out in   // three Ints of up to 20 digits and a sign
            var i = 0
            writeDigits(year, width: 4, into: out, at: &i)
            out[i] = UInt8(ascii: "-"); i += 1
            writeDigits(month, width: 2, into: out, at: &i)
            out[i] = UInt8(ascii: "-"); i += 1
            writeDigits(day, width: 2, into: out, at: &i)
            return i
        }
    }

    public static func < (a: Day, b: Day) -> Bool { (a.year, a.month, a.day) < (b.year, b.month, b.day) }

    static func length(ofMonth m: Int, in y: Int) -> Int {
        switch m {
        case 2: return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 (civil calendar, no time zone involved).
    public var ordinal: Int {
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    public init(ordinal z: Int) {
        let z = z + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        self.init(year: yoe + era * 400 + (m <= 2 ? 1 : 0), month: m, day: d)
    }

    public func adding(days n: Int) -> Day { Day(ordinal: ordinal + n) }

    /// Monday 1 … Sunday 7 (ISO).
    public var weekday: Int { ((ordinal % 7 + 7) % 7 + 3) % 7 + 1 }

    /// The Monday of its week.
    public var weekStart: Day { adding(days: 1 - weekday) }

    public var monthStart: Day { Day(year: year, month: month, day: 1) }
    public var monthEnd: Day { Day(year: year, month: month, day: Self.length(ofMonth: month, in: year)) }

    /// `Wed 25 Nov`.
    public var short: String {
        let names = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return "\(names[weekday - 1]) \(day) \(months[month - 1])"
    }
}
