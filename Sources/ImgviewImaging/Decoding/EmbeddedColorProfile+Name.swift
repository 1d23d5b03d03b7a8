extension EmbeddedColorProfile {
    /// What `info` calls the colour space: "Display P3", "Adobe RGB (1998)", "sRGB", "BT.2020",
    /// "BT.2100 PQ", or an unknown ICC profile's own description.
    public var name: String {
        switch self {
        case .icc(let bytes):
            return ICCProfileSummary(bytes)?.name ?? "unreadable ICC profile"
        case .cicp(let primaries, let transfer, _, _):
            let curve: String? =
                switch transfer {
                case 8: "linear"
                case 16: "PQ"
                case 18: "HLG"
                default: nil
                }
            let space: String =
                switch primaries {
                case 1, 2: transfer == 1 || transfer == 6 || transfer == 14 || transfer == 15 ? "BT.709" : "sRGB"
                case 9: (transfer == 16 || transfer == 18) ? "BT.2100" : "BT.2020"
                case 11: "DCI-P3"
                case 12: "Display P3"
                default: "primaries \(primaries)"
                }
            return curve.map { "\(space) \($0)" } ?? space
        }
    }

    /// Whether the pixels are taken as they are without asking Little CMS: CICP with sRGB (or
    /// unspecified) primaries and the sRGB, BT.709 or an unspecified curve, as browsers draw
    /// video-tagged stills. An ICC profile is tried by colour management itself.
    public var isPlainSRGB: Bool {
        guard case .cicp(let primaries, let transfer, _, _) = self else { return false }
        return (primaries == 1 || primaries == 2) && [1, 2, 6, 13, 14, 15].contains(transfer)
    }
}
