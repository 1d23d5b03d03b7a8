/// A day of the proleptic Gregorian calendar in UTC, counted from 1970-01-01.
///
/// The one calendar `ISOTimestamp` and `HTTPDate` read and write (Howard Hinnant's
/// days-from-civil algorithms): no time zones, no locale, the same answer for any year.
package struct CivilDate: Equatable {
    package var year: Int64
    package var month: Int64
    package var day: Int64

    package init(daysSince1970 days: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Days from 1970-01-01 to this date.
    package var daysSince1970: Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Seconds since 1970 of a UTC date and time, or nil when a field is out of its range (a
    /// 31 April, a 25th hour); a leap second (`:60`) is refused too.
    package static func seconds(year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64) -> Int64? {
        guard (0...9999).contains(year), (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour),
            (0...59).contains(minute), (0...59).contains(second)
        else { return nil }
        let date = CivilDate(year: year, month: month, day: day)
        // A day past the month's end would roll into the next month; such a date is not one.
        guard CivilDate(daysSince1970: date.daysSince1970) == date else { return nil }
        return date.daysSince1970 * 86_400 + hour * 3600 + minute * 60 + second
    }

    package init(year: Int64, month: Int64, day: Int64) {
        (self.year, self.month, self.day) = (year, month, day)
    }
}

extension Int64 {
    /// Quotient and remainder rounded towards minus infinity, so that a time before 1970 still
    /// has its hour of the day between 0 and 23.
    package func floorDividedBy(_ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }
}

extension Double {
    package func clamped(to range: ClosedRange<Double>) -> Double {
        isNaN ? 0 : Swift.min(Swift.max(self, range.lowerBound), range.upperBound)
    }
}
