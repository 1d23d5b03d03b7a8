#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Duration {
    /// The duration in seconds, for arithmetic and display.
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// `30 s`, `1.5 s`.
    package var formattedSeconds: String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(printf: "%.1f s", seconds)
    }
}
